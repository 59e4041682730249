// The baselines compute the op within the contract: they are only worth
// measuring against if they are right.
#include <gtest/gtest.h>

#include "gdr/baselines.h"
#include "route_tester.h"

namespace gdr::test {
namespace {

struct Shape {
  int64_t B, H, K, V;
};
const Shape kShapes[] = {{1, 2, 16, 16}, {2, 1, 8, 24}, {1, 3, 33, 17}, {1, 1, 64, 48}};
const int64_t kLengths[] = {0, 1, 2, 31, 32, 33, 130, 256};

class BaselineTest : public ::testing::TestWithParam<Route> {
 protected:
  void SetUp() override { baselines::install_routes(); }
  Options options(int threads = 2) const {
    Options o;
    o.route = GetParam();
    o.threads = threads;
    return o;
  }
};

TEST_P(BaselineTest, MatchesFloat64AcrossShapes) {
  for (const Shape& s : kShapes)
    for (int64_t T : kLengths) {
      Problem p = make_problem(s.B, s.H, T, s.K, s.V, {DecayRegime::Uniform, BetaRegime::Uniform,
                                                       true, uint64_t(T * 31 + s.K)});
      Accuracy a = measure(p, options());
      EXPECT_LE(a.error, 1e-4) << describe(p);
    }
}

TEST_P(BaselineTest, EdgeDecaysAndBetas) {
  for (DecayRegime d : {DecayRegime::NearOne, DecayRegime::Zeros, DecayRegime::One,
                        DecayRegime::Strong})
    for (BetaRegime b : {BetaRegime::Uniform, BetaRegime::Zero, BetaRegime::One})
      for (int64_t T : {1, 33, 130}) {
        Problem p = make_problem(1, 2, T, 16, 24, {d, b, true, 3});
        Accuracy a = measure(p, options());
        EXPECT_LE(a.error, 1e-4) << describe(p) << " decay regime " << int(d) << " beta regime "
                                 << int(b);
      }
}

TEST_P(BaselineTest, SplittingTheSequenceMatchesOneCall) {
  Problem p = make_problem(1, 2, 100, 16, 24, {DecayRegime::NearOne, BetaRegime::Uniform, true, 5});
  for (std::vector<int64_t> cuts : std::vector<std::vector<int64_t>>{{1}, {31, 32, 64}, {50, 99}})
    EXPECT_LE(split_sequence_error(p, cuts, options()), 1e-4);
}

TEST_P(BaselineTest, InitialStateIsNeverWritten) {
  Problem p = make_problem(2, 2, 40, 8, 8);
  const auto before = p.initial_state;
  ASSERT_TRUE(run(p.tensors(), options()));
  EXPECT_EQ(p.initial_state, before);
}

INSTANTIATE_TEST_SUITE_P(Baselines, BaselineTest,
                         ::testing::Values(Route::BaselineTwoPass, Route::BaselineChunked),
                         [](const auto& info) {
                           return info.param == Route::BaselineTwoPass ? "two_pass" : "chunked";
                         });

TEST(BaselineChunkedGuard, FallsBackOnlyWhereExecuTorchDoes) {
  auto needs = [](DecayRegime d) {
    Problem p = make_problem(1, 1, 64, 8, 8, {d, BetaRegime::Uniform, true, 1});
    return baselines::chunked_needs_fallback(p.tensors());
  };
  EXPECT_FALSE(needs(DecayRegime::NearOne));
  EXPECT_TRUE(needs(DecayRegime::Zeros));   // a decay <= 0
  EXPECT_TRUE(needs(DecayRegime::Strong));  // 32 * 5 > 80 within a chunk
  // -log U(0, 1) sums to about 32 +- 6 over a chunk: the chunked path runs.
  EXPECT_FALSE(needs(DecayRegime::Uniform));
}

}  // namespace
}  // namespace gdr::test
