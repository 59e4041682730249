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
  for (int64_t T : {0, 1, 2, 33})
    for (DecayRegime d : {DecayRegime::Uniform, DecayRegime::Zeros, DecayRegime::One}) {
      Problem p = make_problem(2, 3, T, 40, 72, {d, BetaRegime::Uniform, true, 9});
      const Problem input = p;
      Options o;
      o.threads = 2;
      o.column_parts = 3;
      ASSERT_TRUE(execute(k, p.tensors(), o)) << "T=" << T;
      EXPECT_LE(relative_error(p, reference_f64(input)), 1e-4) << "T=" << T << " decay " << int(d);
    }
  // The runtime still checks calls against what the library says it is.
  Problem other = make_problem(1, 1, 2, 40, 64);
  EXPECT_FALSE(execute(k, other.tensors(), Options{}));
}

TEST(Loader, RefusesWhatIsNotAKernelLibraryNamingTheFile) {
  const TempDir dir("gdr-loader-test");
  const std::string text = dir.path("not-a-library.so");
  std::ofstream(text) << "not an ELF file";
  const Kernel untouched;
  struct Case {
    std::string path, symbol, expect;
  };
  for (const Case& c : {Case{dir.path("missing.so"), kSymbol, "missing.so"},
                        Case{text, kSymbol, "not-a-library.so"},
                        Case{kLibrary, "gdr_no_such_kernel", "no kernel 'gdr_no_such_kernel'"}}) {
    Kernel k;
    const Status s = load_kernel(c.path, c.symbol, &k);
    ASSERT_FALSE(s) << c.path;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << s.message();
    EXPECT_EQ(k.fn, untouched.fn) << c.path;
  }
}

}  // namespace
}  // namespace gdr::test
