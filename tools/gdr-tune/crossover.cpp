#include "crossover.h"

#include <algorithm>
#include <cmath>

#include "report.h"

namespace gdr::tune {
namespace {

const CaseResult* find_case(const std::vector<CaseResult>& cases, int64_t T, int threads) {
  for (const CaseResult& c : cases)
    if (c.T == T && c.threads == threads && c.winners.size() == 2) return &c;
  return nullptr;
}

// Probes per search, planned for progress and the budget: bisection steps
// until the ends are within the resolution.
size_t planned_probes(int64_t below_T, int64_t above_T) {
  size_t n = 0;
  for (double ratio = double(above_T) / std::max<int64_t>(1, below_T); ratio > kCrossoverResolution;
       ratio = std::sqrt(ratio))
    ++n;
  return n;
}

// Bisects between s's tuned Ts with `below` (T_below's winner of s->below:
// what the database runs below the crossover) against `from` (T_above's
// winner of s->from: what it runs from there). Past a decode T its records
// stop (bucket): the untuned recurrent kernel runs there, and is probed.
void search(const TuneOptions& options, CrossoverSearch* s, const Entry& below, const Entry& from, Pace* pace) {
  std::vector<Entry> pair = {below, from};
  if (s->T_below <= compiler::kDecodeTokens) {
    pair[0] = Entry{};
    pair[0].candidate = variant_candidate(
        compiler::default_variant(Route::Recurrent, options.spec(), compiler::kDecodeTokens + 1,
                                  compiler::host_target()));
  }
  int64_t lo = s->T_below, hi = s->T_above;  // below is faster at lo, from at hi
  bool done = false;                         // the ends within the resolution
  for (;;) {
    if (hi <= lo + 1 || double(hi) / std::max<int64_t>(1, lo) <= kCrossoverResolution) {
      done = true;
      break;
    }
    if (pace && pace->spent()) {
      s->budget_cut = true;
      break;
    }
    const int64_t T = std::clamp<int64_t>(std::llround(std::sqrt(double(std::max<int64_t>(1, lo)) * hi)),
                                          lo + 1, hi - 1);
    double seconds = options.seconds_per_candidate;
    if (pace) {
      seconds = pace->seconds_for_round(2);
      pace->begin("crossover, threads = " + std::to_string(s->threads) + ": probing T = " + std::to_string(T), 2);
    }
    test::Problem problem = timed_problem(options, T);
    const double timed = time_round(pair, {0, 1}, 1, problem, s->threads, seconds, nullptr);
    if (pace) pace->finish_round(2, timed);
    if (!pair[0].timing_error.empty() || !pair[1].timing_error.empty()) break;
    s->probes.push_back({T, pair[0].candidate.schedule, pair[1].candidate.schedule, pair[0].median_ns[1],
                         pair[1].median_ns[1]});
    if (pair[1].median_ns[1] < pair[0].median_ns[1])
      hi = T;
    else
      lo = T;
  }
  // Cut short (the budget, a failed call): the crossover is somewhere in
  // (lo, hi]; take their geometric mean (not bucket(), which would put a
  // decode lo's edge right after it).
  s->T_from = done ? hi : std::clamp<int64_t>(geometric_cut(std::max<int64_t>(1, lo), hi) + 1, lo + 1, hi);
}

}  // namespace

std::vector<CrossoverSearch> search_crossovers(const TuneOptions& options, const std::vector<int64_t>& sorted_T,
                                               const std::vector<CaseResult>& cases, Pace* pace) {
  struct Flip {
    CrossoverSearch search;
    const CaseResult *below, *above;
  };
  std::vector<Flip> flips;
  std::vector<int> threads;
  for (const CaseResult& c : cases)
    if (std::find(threads.begin(), threads.end(), c.threads) == threads.end()) threads.push_back(c.threads);
  for (int t : threads)
    for (size_t lo = 0; lo + 1 < sorted_T.size(); ++lo) {
      const CaseResult* below = find_case(cases, sorted_T[lo], t);
      const CaseResult* above = find_case(cases, sorted_T[lo + 1], t);
      if (!below || !above) continue;
      const Route r0 = auto_choice(*below, options), r1 = auto_choice(*above, options);
      if (r0 == r1) continue;
      Flip f{{}, below, above};
      f.search.threads = t;
      f.search.T_below = below->T;
      f.search.T_above = above->T;
      f.search.below = r0;
      f.search.from = r1;
      flips.push_back(f);
    }
  if (pace)
    for (const Flip& f : flips) pace->plan_more(2 * planned_probes(f.below->T, f.above->T));
  std::vector<CrossoverSearch> out;
  for (Flip& f : flips) {
    const Entry& below = f.below->entries[f.below->winners.at(f.search.below)];
    const Entry& from = f.above->entries[f.above->winners.at(f.search.from)];
    search(options, &f.search, below, from, pace);
    out.push_back(f.search);
  }
  return out;
}

std::pair<int64_t, int64_t> searched_bucket(const std::vector<int64_t>& sorted_T, size_t i, int threads,
                                            const std::vector<CrossoverSearch>& searches) {
  std::pair<int64_t, int64_t> b = bucket(sorted_T, i);
  for (const CrossoverSearch& s : searches) {
    if (s.threads != threads) continue;
    if (s.T_above == sorted_T[i]) b.first = s.T_from;       // the larger T's bucket starts at the crossover
    if (s.T_below == sorted_T[i]) b.second = s.T_from - 1;  // the smaller T's ends before it
  }
  // Still decode's or longer calls' alone (bucket): between a decode
  // bucket and a crossover the untuned recurrent kernel runs.
  if (sorted_T[i] <= compiler::kDecodeTokens) b.second = std::min(b.second, compiler::kDecodeTokens);
  return b;
}

}  // namespace gdr::tune
