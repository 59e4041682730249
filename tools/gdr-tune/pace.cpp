#include "pace.h"

#include <algorithm>

namespace gdr::tune {

namespace {
// A round never plans less than this per candidate: below it the timer's
// resolution and the interleaving dominate (the round still runs at least
// one repetition, see tune_case).
constexpr double kMinSecondsPerCandidate = 1e-4;
}  // namespace

Pace::Pace(double budget_seconds, double seconds_per_candidate, Clock::time_point start,
           double reserve_seconds)
    : budget_(budget_seconds), seconds_(seconds_per_candidate), reserve_(reserve_seconds), start_(start),
      planned_(start) {}

double Pace::elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

bool Pace::spent() const { return budget_ > 0 && elapsed() >= budget_ - reserve_; }

double Pace::left() const {
  const double progress = double(done_) + round_fraction_ * double(round_n_);
  double estimate = -1;
  if (progress > 0) estimate = elapsed() / progress * std::max(0.0, double(total_) - progress);
  if (budget_ > 0) {
    const double budget_left = std::max(0.0, budget_ - elapsed());
    estimate = estimate < 0 ? budget_left : std::min(estimate, budget_left);
  }
  return estimate;
}

double Pace::seconds_for_round(size_t n) const {
  if (budget_ <= 0) return seconds_;
  const double left = budget_ - reserve_ - elapsed();
  const double candidates_left = std::max<double>(double(n), double(total_) - double(done_));
  // The part of each candidate that is neither its timing nor its checks,
  // as seen so far. Counting the checks too (the first case compiles every
  // candidate) left later rounds 0.1 ms a candidate under a budget they
  // did not spend half of.
  const double searched = std::chrono::duration<double>(Clock::now() - planned_).count();
  const double overhead =
      done_ > 0 ? std::max(0.0, searched - timed_seconds_ - checked_seconds_) / double(done_) : 0;
  const double per = left / candidates_left - overhead;
  return std::clamp(per, kMinSecondsPerCandidate, seconds_);
}

void Pace::begin(const std::string& step, size_t n) {
  step_ = step;
  round_n_ = n;
  round_fraction_ = 0;
  if (on_change) on_change(*this);
}

void Pace::advance(double fraction_of_round) {
  round_fraction_ = std::clamp(fraction_of_round, 0.0, 1.0);
  if (on_change) on_change(*this);
}

void Pace::finish_round(size_t n, double timed_seconds) {
  done_ += n;
  timed_seconds_ += timed_seconds;
  round_n_ = 0;
  round_fraction_ = 0;
  if (on_change) on_change(*this);
}

}  // namespace gdr::tune
