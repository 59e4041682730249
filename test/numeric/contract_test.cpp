// The contract's call-level promises, for every generated route as users
// reach it through gdr::run (with its default schedule): the accuracy bars up
// to T = 4096, sequence splitting, and NaN / Inf inputs that propagate
// without a crash and without spilling into outputs they cannot affect.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gdr/compiler/chunked.h"
#include "gdr/compiler/recurrent.h"
#include "route_tester.h"

namespace gdr::test {
namespace {

class GeneratedRouteTest : public ::testing::TestWithParam<Route> {
 protected:
  static void SetUpTestSuite() {
    compiler::install_routes();
    compiler::install_chunked_routes();
  }
  Options options(int threads = 2) const {
    Options o;
    o.route = GetParam();
    o.threads = threads;
    return o;
  }
};

TEST_P(GeneratedRouteTest, LongSequencesMeetTheContract) {
  for (DecayRegime d : {DecayRegime::Uniform, DecayRegime::NearOne}) {
    Problem p = make_problem(1, 1, 4096, 128, 128, {d, BetaRegime::Uniform, true, 11});
    expect_within_contract(p, options(), "T=4096");
  }
}

TEST_P(GeneratedRouteTest, SplittingTheSequenceMatchesOneCall) {
  Problem p = make_problem(1, 2, 300, 64, 48, {DecayRegime::Zeros, BetaRegime::Uniform, true, 4});
  for (std::vector<int64_t> cuts : std::vector<std::vector<int64_t>>{{1}, {2, 17, 129}, {299}})
    EXPECT_LE(split_sequence_error(p, cuts, options()), 1e-4);
}

// NaN in decay, key or beta at token t of head 0: outputs of head 1 and
// head 0's outputs before t stay finite; head 0's output at t is NaN.
TEST_P(GeneratedRouteTest, NaNInputsPropagateAsInTheRecurrence) {
  const int64_t T = 40, K = 32, V = 48, t = 20;
  for (const char* which : {"decay", "key", "beta"}) {
    Problem p = make_problem(1, 2, T, K, V);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (std::string(which) == "decay") p.decay[t * K + 3] = nan;
    if (std::string(which) == "key") p.key[t * K + 5] = nan;
    if (std::string(which) == "beta") p.beta[t] = nan;
    Status s = run(p.tensors(), options());
    ASSERT_TRUE(s) << s.message();
    for (int64_t s2 = 0; s2 < T; ++s2)
      for (int64_t c = 0; c < V; ++c) {
        const float head0 = p.out[s2 * V + c], head1 = p.out[(T + s2) * V + c];
        EXPECT_TRUE(std::isfinite(head1)) << which << " leaked into head 1 at " << s2;
        if (s2 < t) EXPECT_TRUE(std::isfinite(head0)) << which << " token " << s2;
        if (s2 == t) EXPECT_TRUE(std::isnan(head0)) << which << " column " << c;
      }
  }
}

// Inf in one value column affects only that column.
TEST_P(GeneratedRouteTest, InfInOneValueColumnStaysInThatColumn) {
  const int64_t T = 40, K = 32, V = 48, t = 20, col = 7;
  Problem p = make_problem(1, 1, T, K, V);
  p.value[t * V + col] = std::numeric_limits<float>::infinity();
  ASSERT_TRUE(run(p.tensors(), options()));
  for (int64_t s = 0; s < T; ++s)
    for (int64_t c = 0; c < V; ++c) {
      if (c != col || s < t)
        EXPECT_TRUE(std::isfinite(p.out[s * V + c])) << "token " << s << " column " << c;
    }
  EXPECT_FALSE(std::isfinite(p.out[t * V + col]));
}

INSTANTIATE_TEST_SUITE_P(Routes, GeneratedRouteTest,
                         ::testing::Values(Route::Auto, Route::Recurrent, Route::Chunked),
                         [](const auto& info) {
                           std::string n = route_name(info.param);
                           return n;
                         });

}  // namespace
}  // namespace gdr::test
