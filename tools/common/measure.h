// Timing shared by gdr-bench and gdr-tune: implementations run one after
// the other, repetition by repetition, in shuffled order, so that drift of
// a shared machine and the cache state a predecessor leaves hit all of them
// equally; medians, not means.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace gdr::tools {

struct TimingBudget {
  double seconds = 2.0;  // stop after a repetition once this much time is spent...
  int min_reps = 3;      // ...and at least this many repetitions ran
  int max_reps = 200;
};

// Calls run(i) once for every i in [0, n) (warm-up: caches, JIT, pages; not
// counted), then repetitions within `budget`, each calling every run(i)
// once in a shuffled order (fixed seed) that never runs one twice in a row,
// so that each implementation follows each other one equally often on
// average.
// run(i) returns the nanoseconds it measured for one call (so it can leave
// its own set-up out). `stop`, if given, is asked after the warm-up and after
// each repetition: true ends the timing there (an implementation failed, say,
// and the rest of the budget would be wasted). Returns the times, times[i]
// for implementation i.
std::vector<std::vector<double>> time_interleaved(size_t n, const std::function<double(size_t)>& run,
                                                  const TimingBudget& budget,
                                                  const std::function<bool()>& stop = nullptr);

double median(std::vector<double> x);

// The spread of repetitions: min, quartiles (linear interpolation between
// order statistics), max; all 0 for no repetitions.
struct Spread {
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
  double relative_iqr() const { return median > 0 ? (q3 - q1) / median : 0; }
};
Spread spread(std::vector<double> x);

// Effective flops of one call, the same for every implementation so figures
// compare: per token and state head, 8 K V for the recurrence with its
// first readout (the fused recurrence's count) and 2 K V (one K x V
// multiply-add) for each further readout (grouped readout: `readouts` query heads read one
// state head). Key groups (GVA), scalar decay, layout, varlen (tokens = B T,
// T the sequences' sum) and in place do not change the count.
double op_flops(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V, int64_t readouts);

}  // namespace gdr::tools
