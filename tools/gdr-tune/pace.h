// The run's pace: how many candidate timings are planned and done, the
// current step, the time left, and under a --budget the seconds per
// candidate that make the rest of the run fit (or that it is spent).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace gdr::tune {

class Pace {
 public:
  using Clock = std::chrono::steady_clock;

  // `budget_seconds` 0: no budget. `start`: when the run began (the budget
  // counts from there). `reserve_seconds`: kept back for what follows the
  // last round (the second peak measurement, writing the outputs).
  Pace(double budget_seconds, double seconds_per_candidate, Clock::time_point start,
       double reserve_seconds = 0);

  // The candidate timings of the whole run, planned when the search starts
  // (what came before, such as the peak measurement, is not a candidate's).
  void plan(size_t total_candidates) {
    total_ = total_candidates;
    planned_ = Clock::now();
  }
  // More timings than planned (the crossover search's probes).
  void plan_more(size_t candidates) { total_ += candidates; }
  size_t total() const { return total_; }
  size_t done() const { return done_; }
  double elapsed() const;
  // Seconds left: under a budget the smaller of the budget's and the
  // estimate; the estimate from the rate so far; < 0 while nothing is done.
  double left() const;
  const std::string& step() const { return step_; }
  bool has_budget() const { return budget_ > 0; }
  double budget() const { return budget_; }
  // True once the budget's time (less the reserve) has run out.
  bool spent() const;

  // The seconds per candidate for the next round of `n` candidates:
  // --seconds, or less so that the rest fits the budget. What a candidate
  // costs beyond its timing and its checks (the warm-up, the interleaving)
  // is taken from the run so far.
  double seconds_for_round(size_t n) const;
  // A candidate's check (and compile) took `seconds`: once per candidate
  // and process, so not what each candidate still to time will cost.
  void checked(double seconds) {
    checked_seconds_ += seconds;
    longest_check_ = std::max(longest_check_, seconds);
  }
  // Whether one more check fits before the budget is spent, taking it to
  // last as long as the longest so far (a compile is not interruptible: a
  // 6.7 s one started at 8.5 s took a 10 s budget to 15 s).
  bool check_fits() const { return budget_ <= 0 || elapsed() + longest_check_ < budget_ - reserve_; }
  // A new step within the round (the candidate being checked), its
  // progress unchanged.
  void step_within_round(const std::string& step) {
    step_ = step;
    if (on_change) on_change(*this);
  }

  // Progress: a new step ("T = 512, threads = 2: round 1, timing 14
  // candidates"), a fraction of the current round, a round of `n` planned
  // candidates finished. Each calls on_change.
  void begin(const std::string& step, size_t n);
  void advance(double fraction_of_round);
  void finish_round(size_t n, double timed_seconds);
  std::function<void(const Pace&)> on_change;

 private:
  double budget_, seconds_, reserve_;
  Clock::time_point start_, planned_;
  size_t total_ = 0, done_ = 0, round_n_ = 0;
  double round_fraction_ = 0, timed_seconds_ = 0, checked_seconds_ = 0, longest_check_ = 0;
  std::string step_;
};

}  // namespace gdr::tune
