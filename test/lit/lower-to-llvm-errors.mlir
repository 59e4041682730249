// gdr-lower-to-llvm lowers recurrent kernels only, once gdr-lower-recurrent
// has: any other kernel is an error that names its route.
// RUN: gdr-opt %s -split-input-file -gdr-attach-schedule -gdr-lower-recurrent -gdr-lower-to-llvm -verify-diagnostics

// expected-error @+1 {{'gdr.kernel' op has route = auto, which gdr-opt cannot lower to LLVM: write route = recurrent (gdr-compile builds the chunked route through Halide and chooses auto's route per call)}}
gdr.kernel @a problem <k = 16, v = 16, element_type = f32>

// -----

// expected-error @+1 {{'gdr.kernel' op has route = chunked, which gdr-opt cannot lower to LLVM}}
gdr.kernel @c problem <k = 16, v = 16, element_type = f32, route = chunked>
