// Passes of the gdr dialect, named gdr-<verb>-<noun>.
#ifndef GDR_PASSES_TD
#define GDR_PASSES_TD

include "mlir/Pass/PassBase.td"

def GdrAttachSchedule : Pass<"gdr-attach-schedule", "::mlir::ModuleOp"> {
  let summary = "Attach the default schedule to kernels that have none";
  let description = [{
    For every `gdr.kernel` without a `schedule`, writes the default schedule
    of its route for its target (the kernel's `target`, else the pass's
    `vector-bits`). Kernels with a schedule are left alone.

    Before: `gdr.kernel @k problem <k = 128, v = 128, ...>`
    After:  `gdr.kernel @k problem <...> schedule <vector_width = 16, v_tile = 32, unroll = 1, prefetch = 2>`
    (K = 128 on a 512-bit target without a CPU name: pairs of two vectors)
  }];
  let constructor = "::mlir::gdr::createAttachSchedulePass()";
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"512",
           "Widest vector register of the target when a kernel has no target">,
  ];
}

def GdrLowerRecurrent : Pass<"gdr-lower-recurrent", "::mlir::ModuleOp"> {
  let summary = "Lower recurrent-route kernels to scf, vector, memref and arith";
  let description = [{
    Replaces every `gdr.kernel` whose route is `recurrent` by a function
    `@<name>_body` over flat memrefs that walks the state in V-tiles and runs
    all tokens of a call on one tile, one fused sweep per token (see
    docs in LowerRecurrent.cpp). The function is marked with
    `gdr.abi_entry = "<name>"` so that `gdr-lower-to-llvm` adds the C entry
    point. A kernel without a schedule is an error.
  }];
  let constructor = "::mlir::gdr::createLowerRecurrentPass()";
  let dependentDialects = [
    "::mlir::arith::ArithmeticDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect",
    "::mlir::StandardOpsDialect"
  ];
}

def GdrLowerToLLVM : Pass<"gdr-lower-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower lowered kernels to the LLVM dialect and add their C entry points";
  let description = [{
    Converts scf, vector, memref, arith and std to the LLVM dialect, then for
    every function marked `gdr.abi_entry = "<name>"` adds
    `llvm.func @<name>(!llvm.ptr<struct<...>>) -> i32` with the layout of
    `gdr_kernel_args`, which unpacks the arguments and calls the body; it
    returns 1 if K, V, the decay kind or the readouts differ from the
    kernel's and 2 if the scratch is shorter than `gdr.scratch_floats`.
  }];
  let constructor = "::mlir::gdr::createLowerToLLVMPass()";
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif  // GDR_PASSES_TD
