// The search for one (T, threads): every candidate checked against float64,
// then two rounds of interleaved timing (coarse, then finalists), winners
// per route.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../common/form.h"
#include "../common/measure.h"
#include "candidates.h"

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
  std::string timing_error;
  bool winner = false;  // fastest of its route in round 2
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
};

// The tuned call's form: options.form with options.decay and, for
// readouts > 1, Hq = readouts H.
tools::Form call_form(const TuneOptions& options);

struct CaseResult {
  int64_t T = 0;
  int threads = 1;
  std::vector<Entry> entries;  // every candidate, excluded ones included
  // The winner of each route (index into entries), if it has one.
  std::map<Route, size_t> winners;
  // The baselines' medians per round, for the ratios.
  std::map<Route, double> baseline_ns[3];
};

// Tunes one (T, threads) on a problem of options' shape and form (with
// varlen, T is the sequences' sum). Round 1: the recurrent coarse space, every chunked
// schedule and both baselines, interleaved. Round 2: unroll 1, 2, 4 on the
// best `fine_tiles` recurrent tiles of round 1, the best chunked schedule
// and both baselines again, interleaved; winners come from round 2 (a
// coarse-then-fine search: unrolling moved the default tile by less than
// the noise, so it is only tried where the tile is already good).
CaseResult tune_case(const TuneOptions& options, int64_t T, int threads, Checker& checker);

}  // namespace gdr::tune
