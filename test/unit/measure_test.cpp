// Interleaved timing: every implementation warms up once, then repetitions;
// `stop` ends the timing after the warm-up (gdr-bench: an implementation
// failed, so the rest of the budget would be wasted).
#include "measure.h"

#include <gtest/gtest.h>

#include <vector>

namespace gdr::tools {
namespace {

TEST(TimeInterleaved, RunsWarmUpThenRepetitions) {
  std::vector<int> calls(2, 0);
  TimingBudget budget;
  budget.seconds = 0;
  budget.min_reps = 3;
  const auto times = time_interleaved(2, [&](size_t i) { return double(++calls[i]); }, budget);
  EXPECT_EQ(calls, (std::vector<int>{4, 4}));  // 1 warm-up + 3
  EXPECT_EQ(times[0], (std::vector<double>{2, 3, 4}));  // in call order, whatever the order of calls
}

// Whatever runs just before a call decides what it finds in cache, so each
// implementation must follow each other one about equally often, and never
// itself.
TEST(TimeInterleaved, EachImplementationFollowsEachOtherAboutEquallyOften) {
  for (size_t n : {2, 3, 5}) {
    std::vector<size_t> order;
    TimingBudget budget;
    budget.seconds = 0;
    budget.min_reps = 200;
    time_interleaved(n, [&](size_t i) { order.push_back(i); return 0.0; }, budget);
    std::vector<std::vector<int>> follows(n, std::vector<int>(n, 0));  // [after][before]
    for (size_t k = n + 1; k < order.size(); ++k) ++follows[order[k]][order[k - 1]];  // timed calls
    const double expected = 200.0 * n / (n - 1) / n;  // calls per (after, before) pair, n >= 2
    for (size_t after = 0; after < n; ++after)
      for (size_t before = 0; before < n; ++before)
        if (after == before)
          EXPECT_EQ(follows[after][before], 0) << "n=" << n << ": " << after << " ran twice in a row";
        else
          EXPECT_NEAR(follows[after][before], expected, 0.35 * expected)
              << "n=" << n << ": " << after << " after " << before;
  }
}

TEST(TimeInterleaved, StopEndsTheTimingAfterTheWarmUp) {
  std::vector<int> calls(2, 0);
  bool failed = false;
  TimingBudget budget;
  budget.seconds = 60;  // would take a minute without the stop
  budget.max_reps = 1000000;
  const auto times = time_interleaved(
      2,
      [&](size_t i) {
        if (i == 1) failed = true;
        return double(++calls[i]);
      },
      budget, [&] { return failed; });
  EXPECT_EQ(calls, (std::vector<int>{1, 1}));  // the warm-up only
  EXPECT_TRUE(times[0].empty());
}

}  // namespace
}  // namespace gdr::tools
