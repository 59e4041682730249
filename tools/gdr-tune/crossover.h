// The crossover search: where auto's route changes between two tuned Ts,
// the T it changes at, by bisection on a log scale between them, each probe
// timing what the database would run on either side against each other.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tuner.h"

namespace gdr::tune {

// One probe at T: the two schedules timed and their medians.
struct CrossoverProbe {
  int64_t T = 0;
  std::string below_schedule, from_schedule;
  double below_ns = 0, from_ns = 0;
};

// Between two adjacent tuned Ts, T_below and T_above, on `threads`, where
// auto takes `below` at T_below and `from` at T_above. The database's
// bucket of T_below ends before the crossover and runs T_below's `below`
// winner there, T_above's runs T_above's `from` winner from it; so each
// probe times those two. T_from: the smallest T where `from` was measured
// faster, once the ends are within the resolution; a search cut short takes
// the geometric mean of the ends it reached (none: of the tuned Ts, as an
// unsearched boundary).
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
