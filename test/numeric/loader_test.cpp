// A deployed program: only the runtime (no compiler library is linked into
// this test), loading a kernel gdr-compile linked into a shared object and
// running it within the contract; bad files are refused with a message.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "gdr/loader.h"
#include "route_tester.h"
#include "temp_dir.h"

namespace gdr::test {
namespace {

const std::string kLibrary = GDR_TEST_KERNEL_LIBRARY;  // gdr-compile --shared 1
const std::string kSymbol = "gdr_recurrent_f32_k40_v72__w8_vt32_u3_p1";

int32_t sentinel_kernel(const gdr_kernel_args*) { return 0; }

TEST(Loader, LoadsAndRunsAGeneratedKernelWithinTheContract) {
  Kernel k;
  const Status loaded = load_kernel(kLibrary, kSymbol, &k);
  ASSERT_TRUE(loaded) << loaded.message();
  EXPECT_EQ(k.name, kSymbol);
  EXPECT_EQ(k.K, 40);
  EXPECT_EQ(k.V, 72);
  EXPECT_EQ(k.column_align, 8);
  ASSERT_TRUE(k.scratch_floats);
  EXPECT_EQ(k.scratch_floats(1, 40, 72), 40 * (32 + 2));
  Options o;
  o.threads = 2;
  o.column_parts = 3;
  const Runner loaded_kernel = [&](const Tensors& t, const Options& opt) { return execute(k, t, opt); };
  for (int64_t T : {0, 1, 2, 33})
    for (DecayRegime d : {DecayRegime::Uniform, DecayRegime::Zeros, DecayRegime::One}) {
      Problem p = make_problem(2, 3, T, 40, 72, {d, BetaRegime::Uniform, true, 9});
      expect_within_contract(p, o, "loaded T=" + std::to_string(T) + " decay " +
                                       std::to_string(static_cast<int>(d)), loaded_kernel);
    }
  // The runtime still checks calls against what the library says it is.
  Problem other = make_problem(1, 1, 2, 40, 64);
  EXPECT_FALSE(execute(k, other.tensors(), Options{}));
}

TEST(Loader, RefusesWhatIsNotAKernelLibraryNamingTheFile) {
  const TempDir dir("gdr-loader-test");
  const std::string text = dir.path("not-a-library.so");
  std::ofstream(text) << "not an ELF file";
  struct Case {
    std::string path, symbol, expect;
  };
  for (const Case& c : {Case{"", kSymbol, "empty"},
                        Case{dir.path("missing.so"), kSymbol, "missing.so"},
                        Case{text, kSymbol, "not-a-library.so"},
                        Case{kLibrary, "gdr_no_such_kernel", "no kernel 'gdr_no_such_kernel'"}}) {
    // Sentinels: a refused load must leave every field as it was.
    Kernel k;
    k.name = "sentinel";
    k.fn = sentinel_kernel;
    k.K = 7;
    k.V = 9;
    k.column_align = 3;
    const Status s = load_kernel(c.path, c.symbol, &k);
    ASSERT_FALSE(s) << c.path;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << s.message();
    EXPECT_EQ(k.name, "sentinel") << c.path;
    EXPECT_EQ(k.fn, &sentinel_kernel) << c.path;
    EXPECT_EQ(k.K, 7) << c.path;
    EXPECT_EQ(k.V, 9) << c.path;
    EXPECT_EQ(k.column_align, 3) << c.path;
    EXPECT_FALSE(k.scratch_floats) << c.path;
  }
}

}  // namespace
}  // namespace gdr::test
