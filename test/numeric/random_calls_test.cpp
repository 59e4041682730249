// Random calls on the generated routes (not the autoscheduled chunked one,
// whose compiles take seconds each), as XNNPACK's testers draw theirs:
// sizes (K and V from 1 to 40: ragged tiles, masked vectors), token counts
// around the blocks and chunks, every form (layout, decay kind, head
// groups, variable lengths with empty sequences or none, slots of either
// pool or both, in place), 1 or 2 threads, column parts, each tensor
// against an inaccessible page on one side (guarded_copy.h). Each call is
// within the contract against float64. Seeded: the same calls every run;
// a failure names its call.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "implementations.h"
#include "route_tester.h"

namespace gdr::test {
namespace {

std::string list(const std::vector<int64_t>& values) {
  std::string s;
  for (int64_t v : values) s += (s.empty() ? "" : "/") + std::to_string(v);
  return s.empty() ? "-" : s;
}

struct RandomCall {
  int64_t B, H, T, K, V;
  ProblemOptions options;
  Options call;
  GuardedCopy::Side side;
  // What describe(p), which every failure prints, leaves out.
  std::string details() const {
    return "seqlens=" + list(options.form.seqlens) + " initial_slots=" + list(options.form.initial_state_indices) +
           " final_slots=" + list(options.form.final_state_indices) + " threads=" + std::to_string(call.threads) +
           " column_parts=" + std::to_string(call.column_parts) +
           (side == GuardedCopy::Side::After ? " guard after" : " guard before");
  }
};

RandomCall draw(std::mt19937_64& rng) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  auto coin = [&] { return pick(0, 1) == 1; };
  const int64_t tokens[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 33, 64, 70, 129};
  RandomCall c;
  c.B = pick(1, 3);
  c.H = pick(1, 4);
  c.T = tokens[pick(0, std::size(tokens) - 1)];
  c.K = pick(1, 40);
  c.V = pick(1, 40);
  ProblemForm& f = c.options.form;
  f.layout = coin() ? Layout::TokenMajor : Layout::HeadMajor;
  f.decay = coin() ? DecayKind::Scalar : DecayKind::Channel;
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= c.H; ++d)
    if (c.H % d == 0) divisors.push_back(d);
  f.key_heads = divisors[pick(0, divisors.size() - 1)];
  switch (pick(0, 2)) {
    case 0: break;                                              // query heads = H
    case 1: f.query_heads = divisors[pick(0, divisors.size() - 1)]; break;  // shared queries
    default: f.query_heads = c.H * pick(2, 4);                  // grouped readout
  }
  int64_t sequences = c.B;
  if (coin()) {  // variable lengths, B = 1: T is their sum (none: a batch of no sequences)
    c.B = 1;
    sequences = pick(0, 5);
    for (int64_t i = 0; i < sequences; ++i) f.seqlens.push_back(tokens[pick(0, std::size(tokens) - 1)]);
  }
  // Slots: none, initial or final rows alone, or both. Final rows are
  // distinct. In place one pool is read and written, each sequence reading
  // its own row or zeros; with one index array alone that pool has a row a
  // sequence, written in order.
  const bool final_rows = coin(), initial_rows = coin();
  f.in_place = coin();
  const bool row_a_sequence = f.in_place && final_rows != initial_rows;
  const int64_t slots = row_a_sequence ? sequences : sequences + pick(0, 2);
  std::vector<int64_t> rows(slots);
  std::iota(rows.begin(), rows.end(), 0);
  if (!row_a_sequence) std::shuffle(rows.begin(), rows.end(), rng);
  if (final_rows) {
    f.final_state_indices.assign(rows.begin(), rows.begin() + sequences);
    f.final_state_slots = slots;
  }
  if (initial_rows) {
    for (int64_t i = 0; i < sequences; ++i) {
      const int64_t own = final_rows ? f.final_state_indices[i] : i;
      f.initial_state_indices.push_back(coin() ? -1 : f.in_place ? own : pick(0, slots - 1));
    }
    f.initial_state_slots = slots;
  }
  f.int32_indices = coin();
  c.options.decay = coin() ? DecayRegime::Uniform : DecayRegime::Zeros;
  c.options.seed = rng();
  c.call.threads = static_cast<int>(pick(1, 2));
  c.call.column_parts = coin() ? 0 : static_cast<int>(pick(1, 3));
  c.side = coin() ? GuardedCopy::Side::After : GuardedCopy::Side::Before;
  return c;
}

class RandomCallsTest : public ::testing::TestWithParam<Route> {
 protected:
  static void SetUpTestSuite() { ASSERT_TRUE(tools::install_all_routes()); }
};

TEST_P(RandomCallsTest, WithinTheContractAndInsideTheirTensors) {
  std::mt19937_64 rng(20261206);
  for (int i = 0; i < 24; ++i) {
    RandomCall c = draw(rng);
    Problem p = make_problem(c.B, c.H, c.T, c.K, c.V, c.options);
    c.call.route = GetParam();
    expect_within_contract(p, c.call, "call " + std::to_string(i) + ": " + c.details(), on_copies<GuardedCopy>(p, c.side));
  }
}

INSTANTIATE_TEST_SUITE_P(Routes, RandomCallsTest,
                         ::testing::Values(Route::Auto, Route::Recurrent, Route::Chunked),
                         [](const auto& info) { return std::string(route_name(info.param)); });

}  // namespace
}  // namespace gdr::test
