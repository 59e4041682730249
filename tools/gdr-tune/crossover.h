// The crossover search: where auto's route changes between two tuned Ts,
// the T it changes at, by bisection on a log scale between them, each probe
// timing the two routes' winners of both tuned Ts against each other.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tuner.h"

namespace gdr::tune {

// One probe at T: each route's faster schedule of its winners at the two
// tuned Ts (a route's winner at a small T, such as decode's wide tile, may
// lose to its winner at a large one in between), and its median.
struct CrossoverProbe {
  int64_t T = 0;
  std::string below_schedule, from_schedule;
  double below_ns = 0, from_ns = 0;
};

// Between two adjacent tuned Ts, T_below and T_above, on `threads`, where
// auto takes `below` at T_below and `from` at T_above: T_from, the smallest
// T where `from` was measured faster (T_above if no probe saw it faster).
struct CrossoverSearch {
  int threads = 1;
  int64_t T_below = 0, T_above = 0;
  Route below = Route::Recurrent, from = Route::Chunked;
  int64_t T_from = 0;
  std::vector<CrossoverProbe> probes;
  bool budget_cut = false;  // the budget stopped it before the resolution
};

// The probes stop once the two ends are within this factor or adjacent:
// at 1.25 a search between T = 1 and 512 takes 5 probes.
constexpr double kCrossoverResolution = 1.25;

// Searches every place in `cases` (tuned at sorted_T) where auto's route
// changes between two adjacent tuned Ts of one thread count. With a
// `pace`: its seconds per candidate, progress, and no probe once the budget
// is spent.
std::vector<CrossoverSearch> search_crossovers(const TuneOptions& options, const std::vector<int64_t>& sorted_T,
                                               const std::vector<CaseResult>& cases, Pace* pace);

// The database's T bucket of sorted_T[i] on `threads`: bucket(), with the
// boundary a search found in place of the geometric mean.
std::pair<int64_t, int64_t> searched_bucket(const std::vector<int64_t>& sorted_T, size_t i, int threads,
                                            const std::vector<CrossoverSearch>& searches);

}  // namespace gdr::tune
