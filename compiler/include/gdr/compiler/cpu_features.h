// The CPU features a kernel built for a Target may use, as the text
// gdr-compile stores beside it (`<name>_cpu_features`) and the runtime's
// loader checks against the CPU it runs on before running the kernel.
#pragma once

#include <string>

#include "gdr/compiler/target.h"

namespace gdr::compiler {

// Comma-separated, in a fixed order, of the names the loader knows:
// x86-64 sse4.1, sse4.2, avx, avx2, fma, f16c, avx512f, avx512cd, avx512vl,
// avx512bw, avx512dq (__builtin_cpu_supports' names); aarch64 asimd (NEON),
// dotprod, fp16 (Linux's HWCAP names). Each one the target's CPU and
// features have; "" for other architectures.
std::string required_cpu_features(const Target& target);

}  // namespace gdr::compiler
