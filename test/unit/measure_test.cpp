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
  EXPECT_EQ(times[0], (std::vector<double>{2, 3, 4}));
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
