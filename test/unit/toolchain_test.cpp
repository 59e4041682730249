// LLVM, MLIR and Halide load into one process (one LLVM) and see the host.
#include "gdr/compiler/toolchain.h"

#include <gtest/gtest.h>

namespace gdr::compiler {
namespace {

TEST(Toolchain, ProbesHostThroughEveryLibrary) {
  ToolchainInfo info = probe_toolchain();
  EXPECT_EQ(info.llvm_version.rfind("14.", 0), 0u) << info.llvm_version;
  EXPECT_FALSE(info.host_cpu.empty());
  EXPECT_NE(info.host_cpu, "generic");
  EXPECT_GE(info.mlir_dialects, 5);
#if defined(__x86_64__)
  EXPECT_NE(info.halide_target.find("x86-64"), std::string::npos) << info.halide_target;
  EXPECT_EQ(info.avx512, info.halide_target.find("avx512") != std::string::npos)
      << info.halide_target;
#endif
}

}  // namespace
}  // namespace gdr::compiler
