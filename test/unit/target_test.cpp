// gdr-compile's target flags (resolve_target) and the one mapping from them
// to the chunked route's Halide target (halide_target_string): each named
// level, CPU name and triple gives its own CPU, vectors and Halide features,
// never the host's; bad names are refused naming the flag.
#include <gtest/gtest.h>

#include <string>

#include "gdr/compiler/halide_target.h"
#include "gdr/compiler/target_flags.h"

namespace gdr::compiler {
namespace {

struct Expected {
  TargetFlags flags;
  std::string triple, cpu;
  int vector_bits;
  std::string halide;  // in Halide's order of features
};

TEST(Target, FlagsMapToOneTargetForBothRoutes) {
  const Expected cases[] = {
      {{"x86-64-v2"}, "x86_64-pc-linux-gnu", "x86-64-v2", 128, "x86-64-linux-sse41"},
      {{"x86-64-v3"}, "x86_64-pc-linux-gnu", "x86-64-v3", 256, "x86-64-linux-avx-avx2-f16c-fma-sse41"},
      {{"x86-64-v4"}, "x86_64-pc-linux-gnu", "x86-64-v4", 512,
       "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"},
      {{"haswell"}, "x86_64-pc-linux-gnu", "haswell", 256, "x86-64-linux-avx-avx2-f16c-fma-sse41"},
      {{"", "", "haswell"}, "", "haswell", 256, "x86-64-linux-avx-avx2-f16c-fma-sse41"},
      {{"skylake-avx512"}, "x86_64-pc-linux-gnu", "skylake-avx512", 512,
       "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"},
      {{"aarch64"}, "aarch64-linux-gnu", "generic", 128, "arm-64-linux"},
      {{"cortex-a76"}, "aarch64-linux-gnu", "cortex-a76", 128, "arm-64-linux-arm_dot_prod-arm_fp16"},
      {{"neoverse-n1"}, "aarch64-linux-gnu", "neoverse-n1", 128, "arm-64-linux-arm_dot_prod-arm_fp16"},
      {{"aarch64-linux-gnu"}, "aarch64-linux-gnu", "generic", 128, "arm-64-linux"},
      {{"aarch64-linux-gnu", "", "cortex-a76"}, "aarch64-linux-gnu", "cortex-a76", 128,
       "arm-64-linux-arm_dot_prod-arm_fp16"},
      {{"", "aarch64-linux-gnu"}, "aarch64-linux-gnu", "generic", 128, "arm-64-linux"},
      // Features given replace the CPU's own.
      {{"x86_64-pc-linux-gnu", "", "", "+sse4.1,+avx"}, "x86_64-pc-linux-gnu", "generic", 256,
       "x86-64-linux-avx-sse41"},
      {{"haswell", "", "", "-avx2,-fma,+prefer-256-bit"}, "x86_64-pc-linux-gnu", "haswell", 256,
       "x86-64-linux-avx-f16c-sse41"},
      {{"cortex-a76", "", "", "+neon"}, "aarch64-linux-gnu", "cortex-a76", 128, "arm-64-linux-arm_dot_prod-arm_fp16"},
  };
  for (const Expected& e : cases) {
    const std::string what = e.flags.target + "|" + e.flags.triple + "|" + e.flags.cpu + "|" + e.flags.features;
    Target t;
    const Status s = resolve_target(e.flags, &t);
    ASSERT_TRUE(s) << what << ": " << s.message();
    if (!e.triple.empty()) EXPECT_EQ(t.triple, e.triple) << what;
    EXPECT_EQ(t.cpu, e.cpu) << what;
    EXPECT_EQ(t.vector_bits, e.vector_bits) << what;
    std::string halide;
    const Status h = halide_target_string(t, &halide);
    ASSERT_TRUE(h) << what << ": " << h.message();
    EXPECT_EQ(halide, e.halide) << what;
  }
}

TEST(Target, HostIsTheDefaultAndOnlyWithoutOtherFlags) {
  Target none, host;
  ASSERT_TRUE(resolve_target({}, &none));
  ASSERT_TRUE(resolve_target({"host"}, &host));
  EXPECT_EQ(none.cpu, host_target().cpu);
  EXPECT_EQ(host.features, host_target().features);
  EXPECT_EQ(host.vector_bits, host_target().vector_bits);
}

TEST(Target, BadFlagsAreRefusedNamingTheFlag) {
  struct Bad {
    TargetFlags flags;
    std::string message;
  };
  const Bad cases[] = {
      {{"bogus"}, "--target: unknown target 'bogus' (host, x86-64-v2, x86-64-v3, x86-64-v4, aarch64, "},
      {{"x86-64-v9"}, "--target: unknown CPU 'x86-64-v9' for x86_64-pc-linux-gnu"},
      {{"riscv-linux-nonsense"}, "--target: unknown target 'riscv-linux-nonsense'"},
      {{"aarch64", "aarch64-linux-gnu"}, "--triple: give --target or --triple, not both"},
      {{"cortex-a76", "", "neoverse-n1"}, "--cpu: --target cortex-a76 already names the CPU"},
      {{"aarch64-linux-gnu", "", "haswell"}, "--cpu: unknown CPU 'haswell' for aarch64-linux-gnu"},
      {{"", "nonsense-triple"}, "--triple: no LLVM target for nonsense-triple"},
      {{"", "", "notacpu"}, "--cpu: unknown CPU 'notacpu' for "},
      // Triples LLVM knows whose kernels no runtime here loads (big-endian,
      // 32-bit, Mach-O, COFF): one line, before any work (a review: some
      // failed late and confusingly, some wrote files nothing loads).
      {{"", "riscv64-unknown-linux-gnu"}, "--triple: gdr builds kernels for 64-bit little-endian ELF targets"},
      {{"riscv64-unknown-linux-gnu"}, "--target: gdr builds kernels for 64-bit little-endian ELF targets "
                                      "(x86-64 and aarch64), not riscv64-unknown-linux-gnu"},
      {{"aarch64_be-linux-gnu"}, "--target: gdr builds kernels for 64-bit little-endian ELF targets"},
      {{"arm64-apple-macos"}, "--target: gdr builds kernels for 64-bit little-endian ELF targets"},
      {{"x86_64-pc-windows-msvc"}, "--target: gdr builds kernels for 64-bit little-endian ELF targets"},
      {{"i686-linux-gnu"}, "--target: gdr builds kernels for 64-bit little-endian ELF targets"},
      {{"x86_64-linux-gnux32"}, "--target: gdr builds kernels for 64-bit little-endian ELF targets"},
      {{"", "arm-linux-gnueabihf"}, "--triple: gdr builds kernels for 64-bit little-endian ELF targets"},
      // LLVM reads a feature without a sign as disabled, and only warns
      // about an unknown one: SSE code came out of "avx2,fma" (a review).
      {{"", "x86_64-pc-linux-gnu", "", "avx2,fma"}, "--features: 'avx2' must start with + (enable) or - (disable)"},
      {{"x86-64-v3", "", "", "+avx2,"}, "--features: '' must start with + (enable) or - (disable)"},
      {{"", "", "", "+avx2,+bogus"}, "--features: unknown feature 'bogus' for x86_64 (llc-14 -mtriple="},
      {{"aarch64", "", "", "+avx2"}, "--features: unknown feature 'avx2' for aarch64 (llc-14 -mtriple=aarch64"},
  };
  for (const Bad& b : cases) {
    Target t;
    t.cpu = "untouched";
    testing::internal::CaptureStderr();
    const Status s = resolve_target(b.flags, &t);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << b.flags.features;  // only the one line
    ASSERT_FALSE(s) << b.flags.target;
    EXPECT_EQ(s.message().rfind(b.message, 0), 0u) << s.message();
    EXPECT_EQ(t.cpu, "untouched");
  }
  // An architecture Halide is not mapped for here.
  Target riscv;
  riscv.triple = "riscv64-linux-gnu";
  riscv.cpu = "generic-rv64";
  std::string halide;
  const Status s = halide_target_string(riscv, &halide);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("no Halide target for the architecture of riscv64-linux-gnu"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace gdr::compiler
