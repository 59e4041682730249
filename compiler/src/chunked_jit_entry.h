// JIT chunked kernels get a plain C entry point (the kernel ABI has no
// context pointer): a function of their own, generated and linked into the
// process JIT, that calls the bridge with the pipeline and its chunk size as
// constants. A process may compile as many chunked kernels as the JIT's
// region holds.
#pragma once

#include <cstdint>
#include <string>

#include "gdr/halide_chunked_abi.h"
#include "gdr/kernel_abi.h"
#include "gdr/status.h"

namespace gdr::compiler {

// Generates `int32_t <name>_entry(const gdr_kernel_args* a) { return
// gdr_halide_chunked_entry(a, fn, chunk); }` for the host, links it into the
// JIT and returns it in *entry. Thread-safe; the code stays for the life of
// the process, as `fn`'s must.
Status jit_chunked_entry(const std::string& name, HalideChunkedFn fn, int64_t chunk, gdr_kernel_fn* entry);

}  // namespace gdr::compiler
