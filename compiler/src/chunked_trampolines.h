// JIT chunked kernels get a plain C entry point (the kernel ABI has no
// context pointer) from a fixed table of trampolines, each bound for the
// life of the process to one Halide function and its chunk size.
#pragma once

#include <cstdint>

#include "gdr/halide_chunked_abi.h"
#include "gdr/kernel_abi.h"
#include "gdr/status.h"

namespace gdr::compiler {

// Each distinct chunked kernel a process compiles takes one for good. 64
// ran out in one process of seeded random calls (test/numeric/
// random_calls_test.cpp with 300 calls: 64 (K, V) pairs), and gdr-tune
// over a few shapes' chunk x width grids comes near it; a Halide compile
// takes about a second, so 1024 is a quarter hour of compiling.
constexpr int kTrampolines = 1024;

// Binds the next free trampoline to (fn, chunk) and returns it in *entry;
// an error once all are taken. Thread-safe.
Status bind_trampoline(HalideChunkedFn fn, int64_t chunk, gdr_kernel_fn* entry);

}  // namespace gdr::compiler
