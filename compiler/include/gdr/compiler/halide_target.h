// The chunked route's Halide target for a Target: the one mapping from
// gdr-compile's target flags (resolved by resolve_target, the recurrent
// route's LLVM target) to the Halide target string the chunked AOT build
// and its Halide runtime are compiled for.
#pragma once

#include <string>

#include "gdr/compiler/target.h"
#include "gdr/status.h"

namespace gdr::compiler {

// x86-64: "x86-64-<os>" plus each of sse41, avx, avx2, fma, f16c the CPU and
// features have, and avx512 with avx512_skylake when they have AVX-512 F,
// CD, VL, BW and DQ (x86-64-v4); aarch64: "arm-64-<os>" (NEON is part of
// it), plus arm_dot_prod and arm_fp16 when the CPU has them. The vector
// width the target runs (Target::vector_bits) is the same in both routes.
// An error for an architecture or OS Halide has no target for here.
Status halide_target_string(const Target& target, std::string* halide_target);

}  // namespace gdr::compiler
