// What the code generators will target: the host CPU as LLVM sees it, the
// MLIR dialects we lower through and Halide's host target. Probing them is
// also the proof that LLVM, MLIR and Halide (one LLVM) load together.
#pragma once

#include <string>

namespace gdr::compiler {

struct ToolchainInfo {
  std::string llvm_version;   // e.g. "14.0.6"
  std::string host_triple;    // e.g. "x86_64-pc-linux-gnu"
  std::string host_cpu;       // LLVM's name for the host CPU, e.g. "sapphirerapids"
  bool avx512 = false;        // host has AVX-512F
  int mlir_dialects = 0;      // dialects loaded in a fresh context
  std::string halide_target;  // Halide's host target string
};

ToolchainInfo probe_toolchain();

}  // namespace gdr::compiler
