// The search for one (T, threads): every candidate checked against float64,
// then two rounds of interleaved timing (coarse, then finalists), winners
// per route.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../common/form.h"
#include "../common/measure.h"
#include "candidates.h"
#include "gdr/compiler/plan.h"
#include "gdr/compiler/tuning_db.h"
#include "pace.h"

namespace gdr::tune {

struct Check {
  bool ok = false;
  double error = 0, yardstick_error = 0;  // relative, against float64
  std::string why;                        // when not ok
};

struct TuneOptions;

// Checks each candidate once per process on a small problem of the same K
// and V (B = 1, H = 3, T = 70: ragged chunks at 16, 32 and 64; heads split
// into column parts where the kernel allows) against the float64 reference,
// with the contract's bars. A candidate that fails is never timed. The
// problem has the tuned form: its decay and readouts (Hq = 3 R), one key
// head for three (if the tuned call groups values), its layout, four
// sequences of 31, 0, 1 and 38 tokens (if varlen), in place (if so).
class Checker {
 public:
  Checker(int64_t K, int64_t V, int threads) : K_(K), V_(V), threads_(threads) {}
  Checker(const TuneOptions& options, int threads);
  const Check& check(const Candidate& c);
  // Whether `c` was checked already (a check again costs nothing).
  bool has_checked(const Candidate& c) const { return done_.count(c.name()) > 0; }

 private:
  int64_t K_, V_;
  int threads_;
  test::ProblemForm form_;
  std::map<std::string, Check> done_;
};

struct Entry {
  Candidate candidate;
  Check check;
  // Per round (index 1 and 2; 0 unused): median and repetitions, 0 if not
  // timed in that round; timing_error if a timed call failed.
  double median_ns[3] = {0, 0, 0};
  int reps[3] = {0, 0, 0};
  tools::Spread spread[3];
  std::string timing_error;
  bool winner = false;  // its route's winner in the case's final round (choose_winner)
  bool is_default = false;  // its route's default schedule (what runs untuned)
  bool timed(int round) const { return reps[round] > 0; }
};

struct TuneOptions {
  int64_t B = 1, H = 32, K = 128, V = 128;
  DecayKind decay = DecayKind::Channel;  // the kernel's form, recorded in the database
  int64_t readouts = 1;                  // query heads per state head (Hq = readouts H if > 1)
  // The rest of the call's form (key heads, layout, varlen, in place): the
  // timed problem's and the check's. Its decay and query heads give way to
  // `decay` and `readouts` (call_form).
  tools::Form form;
  std::set<Route> routes = {Route::Recurrent, Route::Chunked};
  std::vector<int> widths;       // vector widths to search
  double seconds_per_candidate = 0.5;  // per round
  int fine_tiles = 2;            // recurrent tiles that go to round 2
  // More candidates for round 1, next to the searched space (tests add a
  // deliberately wrong one to see it excluded).
  std::vector<Candidate> extra;

  // The kernel tuned.
  compiler::KernelSpec spec() const { return {K, V, decay, readouts}; }
  // The T the routes plan a case of T tokens by: a varlen call's mean
  // sequence length, else T (compiler::planned_T).
  int64_t planned_T(int64_t T) const { return compiler::planned_T(T, int64_t(form.seqlens.size())); }
};

// The tuned call's form: options.form with options.decay and, for
// readouts > 1, Hq = readouts H.
tools::Form call_form(const TuneOptions& options);

struct CaseResult {
  int64_t T = 0;
  int threads = 1;
  compiler::CallForm form;     // the timed problem's (call_form_of): its records' key
  std::vector<Entry> entries;  // every candidate, excluded ones included
  // The round the winners come from: 2, or 1 when the budget was spent
  // before round 2; budget_cut: a round was stopped early or round 2 skipped.
  int final_round = 2;
  bool budget_cut = false;
  double seconds[3] = {0, 0, 0};  // per candidate in each round, as planned
  // The winner of each route (index into entries), if it has one; and, if
  // others were within the noise of the route's fastest, the fastest first,
  // then those (the winner is the simplest of them: choose_winner).
  std::map<Route, size_t> winners;
  std::map<Route, std::vector<size_t>> ties;
  // The baselines' medians per round, for the ratios.
  std::map<Route, double> baseline_ns[3];
};

// The problem a case of T is timed on: inputs as gdr-bench draws them
// (decay U(0.9, 1), seed 42), in the tuned form (with varlen, T is the
// sequences' sum).
test::Problem timed_problem(const TuneOptions& options, int64_t T);

// Times entries[which] interleaved on `problem` with `threads`, `seconds`
// per candidate, into their figures for `round`. In place, the pool is put
// back before each call, outside the timing, so that every call starts
// from the same states. `stop` is asked after each repetition
// (time_interleaved). Returns the seconds the repetitions took.
double time_round(std::vector<Entry>& entries, const std::vector<size_t>& which, int round,
                  test::Problem& problem, int threads, double seconds, const std::function<bool()>& stop);

// The T bucket tuned T sorted_T[i] stands for in the database: from the
// geometric mean with the next smaller tuned T to the one with the next
// larger (the nearest tuned T on a log scale); the smallest reaches down to
// 0, the largest up without end (compiler::kUnboundedT). Decode (T <=
// compiler::kDecodeTokens) and longer calls never share a bucket: a decode
// T's ends at kDecodeTokens, a longer T's starts after it.
std::pair<int64_t, int64_t> bucket(const std::vector<int64_t>& sorted_T, size_t i);
// The last T nearer lo than hi on a log scale: floor(sqrt(lo hi)).
int64_t geometric_cut(int64_t lo, int64_t hi);

// Candidates per round as planned for one (T, threads) (fewer run when some
// fail their check): for progress and the budget.
struct RoundSizes {
  size_t round1 = 0, round2 = 0;
};
RoundSizes planned_sizes(const TuneOptions& options);

// Two entries are within the noise of each other in `round` when their
// interquartile ranges overlap.
bool within_noise(const Entry& a, const Entry& b, int round);

// The winner among `ranked` (one route's entries timed in `round`, fastest
// first): the fastest, unless others are within the noise of it; then the
// simplest of those (complexity(), with the route's default schedule
// `default_schedule` simplest). *tied: the entries within the noise of the
// fastest, other than the fastest.
size_t choose_winner(const std::vector<Entry>& entries, const std::vector<size_t>& ranked, int round,
                     const std::string& default_schedule, std::vector<size_t>* tied);

// Tunes one (T, threads) on a problem of options' shape and form (with
// varlen, T is the sequences' sum). Round 1: the recurrent coarse space, every chunked
// schedule and both baselines, interleaved. Round 2: unroll 1, 2, 4 on the
// best `fine_tiles` recurrent tiles of round 1, the best chunked schedule,
// each route's default schedule (so that a tie keeps it) and both baselines
// again, interleaved; winners come from round 2 (a
// coarse-then-fine search: unrolling moved the default tile by less than
// the noise, so it is only tried where the tile is already good). With a
// `pace`: progress is reported to it, each round's
// seconds per candidate are its seconds_for_round(), a round stops (after
// one repetition at least) once its budget is spent, and round 2 is skipped
// if it was spent in round 1 (winners from round 1).
CaseResult tune_case(const TuneOptions& options, int64_t T, int threads, Checker& checker,
                     Pace* pace = nullptr);

}  // namespace gdr::tune
