#include "tuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>

#include "gdr/compiler/plan.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/tuning_db.h"
#include "gdr/reference/reference.h"

namespace gdr::tune {

namespace {

using Clock = std::chrono::steady_clock;

// The entries of `route` timed without error in `round`, fastest first.
std::vector<size_t> ranked(const std::vector<Entry>& entries, Route route, int round) {
  std::vector<size_t> out;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].candidate.route == route && entries[i].timed(round) &&
        entries[i].timing_error.empty())
      out.push_back(i);
  std::sort(out.begin(), out.end(), [&](size_t a, size_t b) {
    return entries[a].median_ns[round] < entries[b].median_ns[round];
  });
  return out;
}

}  // namespace

tools::Form call_form(const TuneOptions& options) {
  tools::Form f = options.form;
  f.decay = options.decay;
  f.query_heads = options.readouts > 1 ? options.readouts * options.H : 0;
  return f;
}

Checker::Checker(const TuneOptions& options, int threads)
    : K_(options.K), V_(options.V), threads_(threads) {
  const tools::Form f = call_form(options);
  form_.decay = f.decay;
  form_.query_heads = options.readouts > 1 ? 3 * options.readouts : 0;
  form_.key_heads = f.Hk(options.H) < options.H ? 1 : 0;
  form_.layout = f.layout;
  if (!f.seqlens.empty()) form_.seqlens = {31, 0, 1, 38};
  form_.in_place = f.in_place;
}

const Check& Checker::check(const Candidate& c) {
  auto it = done_.find(c.name());
  if (it != done_.end()) return it->second;
  Check result;
  test::ProblemOptions options{test::DecayRegime::Uniform, test::BetaRegime::Uniform, true, 7, form_};
  test::Problem p = test::make_problem(1, 3, 70, K_, V_, options);
  Options o;
  o.threads = threads_;
  o.column_parts = 2;
  test::Accuracy a;
  const Status s = test::measure_accuracy(p, [&](const Tensors& t) { return c.run(t, o); }, &a);
  result.error = a.error;
  result.yardstick_error = a.yardstick_error;
  if (!s) {
    result.why = "failed: " + s.message();
  } else if (!a.within_contract()) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "wrong: error %.2e against float64 (bars: %.0e, and %.0fx the "
                  "float32 recurrence's %.2e)", a.error, test::kErrorBar, test::kYardstickFactor,
                  a.yardstick_error);
    result.why = buf;
  } else {
    result.ok = true;
  }
  return done_.emplace(c.name(), result).first->second;
}

double time_round(std::vector<Entry>& entries, const std::vector<size_t>& which, int round,
                  test::Problem& problem, int threads, double seconds,
                  const std::function<bool()>& stop) {
  Tensors t = problem.tensors();
  Options o;
  o.threads = threads;
  const test::LineAlignedFloats pool = problem.form.in_place ? problem.initial_state : test::LineAlignedFloats();
  auto run = [&](size_t k) {
    Entry& e = entries[which[k]];
    if (problem.form.in_place) std::copy(pool.begin(), pool.end(), problem.initial_state.begin());
    const auto start = Clock::now();
    const Status s = e.candidate.run(t, o);
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if (!s && e.timing_error.empty()) e.timing_error = s.message();
    return ns;
  };
  tools::TimingBudget budget;
  budget.seconds = seconds * which.size();
  const auto times = tools::time_interleaved(which.size(), run, budget, stop);
  double timed = 0;
  for (size_t k = 0; k < which.size(); ++k) {
    Entry& e = entries[which[k]];
    e.median_ns[round] = tools::median(times[k]);
    e.reps[round] = static_cast<int>(times[k].size());
    e.spread[round] = tools::spread(times[k]);
    for (double ns : times[k]) timed += ns / 1e9;
  }
  return timed;
}

test::Problem timed_problem(const TuneOptions& options, int64_t T) {
  // Inputs as gdr-bench draws them: decay U(0.9, 1), the regime where the
  // baseline chunked kernel takes its chunked path.
  const test::ProblemOptions problem_options{test::DecayRegime::NearOne, test::BetaRegime::Uniform, true, 42,
                                             tools::problem_form(call_form(options), options.H)};
  return test::make_problem(options.B, options.H, T, options.K, options.V, problem_options);
}

int64_t geometric_cut(int64_t lo, int64_t hi) {
  return static_cast<int64_t>(std::floor(std::sqrt(double(lo) * double(hi))));
}

std::pair<int64_t, int64_t> bucket(const std::vector<int64_t>& sorted_T, size_t i) {
  auto cut = [&](size_t lo) {  // last T of bucket lo
    if (sorted_T[lo] <= compiler::kDecodeTokens && sorted_T[lo + 1] > compiler::kDecodeTokens)
      return compiler::kDecodeTokens;
    return geometric_cut(sorted_T[lo], sorted_T[lo + 1]);
  };
  int64_t first = i == 0 ? 0 : cut(i - 1) + 1;
  int64_t last = i + 1 == sorted_T.size() ? compiler::kUnboundedT : cut(i);
  if (sorted_T[i] <= compiler::kDecodeTokens)
    last = std::min(last, compiler::kDecodeTokens);
  else
    first = std::max(first, compiler::kDecodeTokens + 1);
  return {first, std::max(first, last)};
}

// The coarse round's tokens per sweep: those of the kernel `auto` runs
// untuned for this case on the host (one token on SSE, and for readouts
// on AVX2's 16 registers: variant.cpp).
int64_t default_sweep_tokens(const compiler::KernelSpec& spec, int64_t T) {
  return compiler::default_variant(Route::Recurrent, spec, T, compiler::host_target()).recurrent.sweep_tokens;
}

RoundSizes planned_sizes(const TuneOptions& o) {
  RoundSizes n;
  n.round1 = n.round2 = 2 + (o.routes.count(Route::Chunked) ? 1 : 0);  // baselines, chunked
  n.round2 += o.routes.count(Route::Recurrent) + o.routes.count(Route::Chunked);  // the defaults
  n.round1 += o.extra.size();
  if (o.routes.count(Route::Chunked)) n.round1 += chunked_space(o.widths).size() - 1;
  if (o.routes.count(Route::Recurrent)) {
    std::vector<compiler::RecurrentSchedule> tiles =
        recurrent_coarse(o.widths, o.V, /*sweep_tokens=*/2);  // counted: the tokens do not change it
    n.round1 += tiles.size();
    tiles.resize(std::min(tiles.size(), static_cast<size_t>(std::max(0, o.fine_tiles))));
    n.round2 += recurrent_fine(tiles, o.K).size();
  }
  return n;
}

bool within_noise(const Entry& a, const Entry& b, int round) {
  const tools::Spread &x = a.spread[round], &y = b.spread[round];
  return x.q1 <= y.q3 && y.q1 <= x.q3;
}

size_t choose_winner(const std::vector<Entry>& entries, const std::vector<size_t>& ranked, int round,
                     const std::string& default_schedule, std::vector<size_t>* tied) {
  tied->clear();
  size_t winner = ranked.front();
  const Entry& fastest = entries[ranked.front()];
  for (size_t k = 1; k < ranked.size(); ++k) {
    const Entry& e = entries[ranked[k]];
    if (!within_noise(fastest, e, round)) continue;
    tied->push_back(ranked[k]);
    if (complexity(e.candidate, default_schedule) < complexity(entries[winner].candidate, default_schedule))
      winner = ranked[k];
  }
  return winner;
}

CaseResult tune_case(const TuneOptions& options, int64_t T, int threads, Checker& checker, Pace* pace) {
  CaseResult result;
  result.T = T;
  result.threads = threads;
  std::vector<Entry>& entries = result.entries;
  const std::string where = "T = " + std::to_string(T) + ", threads = " + std::to_string(threads);
  auto add = [&](Candidate c) {
    for (size_t i = 0; i < entries.size(); ++i)
      if (entries[i].candidate.name() == c.name()) return i;
    Entry e;
    if (pace) pace->step_within_round(where + ": checking " + c.name());
    const auto checking_since = Clock::now();
    e.check = checker.check(c);
    if (pace) pace->checked(std::chrono::duration<double>(Clock::now() - checking_since).count());
    e.candidate = std::move(c);
    entries.push_back(std::move(e));
    return entries.size() - 1;
  };
  auto passing = [&](const std::vector<size_t>& indices) {
    std::vector<size_t> out;
    for (size_t i : indices)
      if (entries[i].check.ok) out.push_back(i);
    return out;
  };
  test::Problem problem = timed_problem(options, T);
  result.form = compiler::call_form_of(problem.tensors());
  // The T the routes plan such a call by (a varlen call's mean length):
  // the defaults below are what runs untuned.
  const int64_t plan_T = options.planned_T(T);
  const compiler::KernelSpec spec = options.spec();
  auto default_of = [&](Route r) { return compiler::default_variant(r, spec, plan_T, compiler::host_target()); };

  const RoundSizes planned = planned_sizes(options);
  // Times one round; with a pace, at its seconds per candidate, reporting
  // progress and stopping (after one repetition) once the budget is spent.
  auto timed_round = [&](const std::vector<size_t>& which, int round, size_t planned_n) {
    double seconds = options.seconds_per_candidate;
    std::function<bool()> stop;
    const auto start = Clock::now();
    int asked = 0;
    if (pace) {
      seconds = pace->seconds_for_round(planned_n);
      pace->begin(where + ": round " + std::to_string(round) + ", timing " + std::to_string(which.size()) +
                      " candidates",
                  planned_n);
      stop = [&, seconds] {
        const double spent = std::chrono::duration<double>(Clock::now() - start).count();
        pace->advance(spent / (seconds * std::max<size_t>(1, which.size())));
        // The first ask follows the warm-up: one repetition always runs.
        if (asked++ == 0 || !pace->spent()) return false;
        result.budget_cut = true;
        return true;
      };
    }
    result.seconds[round] = seconds;
    const double timed = time_round(entries, which, round, problem, threads, seconds, stop);
    if (pace) pace->finish_round(planned_n, timed);
  };
  auto checking = [&](int round, size_t planned_n) {
    if (pace) pace->begin(where + ": round " + std::to_string(round) + ", checking candidates", planned_n);
  };

  checking(1, planned.round1);
  std::vector<size_t> baselines;
  for (Route b : {Route::BaselineTwoPass, Route::BaselineChunked})
    baselines.push_back(add(baseline_candidate(b)));

  // A candidate's check compiles it, which can take longer than its timing:
  // once another check would overrun the budget, no candidate new to the
  // run is added (one checked before is: round 2's unroll 1 tiles).
  auto affordable = [&](const Candidate& c) {
    if (!pace || pace->check_fits() || checker.has_checked(c)) return true;
    result.budget_cut = true;
    return false;
  };
  // add(c) if affordable: its index, else none.
  auto add_affordable = [&](Candidate c, std::vector<size_t>* round) {
    if (!affordable(c)) return;
    const size_t i = add(std::move(c));
    if (std::find(round->begin(), round->end(), i) == round->end()) round->push_back(i);
  };
  std::vector<size_t> round1 = baselines;
  if (options.routes.count(Route::Recurrent))
    for (const auto& s : recurrent_coarse(options.widths, options.V, default_sweep_tokens(spec, plan_T)))
      add_affordable(variant_candidate(compiler::recurrent_variant(spec, s)), &round1);
  if (options.routes.count(Route::Chunked))
    for (const auto& s : chunked_space(options.widths))
      add_affordable(variant_candidate(compiler::chunked_variant(spec, s)), &round1);
  for (const Candidate& c : options.extra) add_affordable(c, &round1);
  timed_round(passing(round1), 1, planned.round1);

  if (pace && pace->spent()) {
    // No time for round 2: the winners come from round 1.
    result.final_round = 1;
    result.budget_cut = true;
  } else {
    checking(2, planned.round2);
    std::vector<size_t> round2 = baselines;
    std::vector<compiler::RecurrentSchedule> tiles;
    for (size_t i : ranked(entries, Route::Recurrent, 1)) {
      if (static_cast<int>(tiles.size()) == options.fine_tiles) break;
      tiles.push_back(entries[i].candidate.variant.recurrent);
    }
    for (const auto& s : recurrent_fine(tiles, options.K))
      add_affordable(variant_candidate(compiler::recurrent_variant(spec, s)), &round2);
    if (auto best = ranked(entries, Route::Chunked, 1); !best.empty()) round2.push_back(best[0]);
    // Each route's default schedule (of the widths searched) is a
    // finalist, so that a tie within noise keeps it (choose_winner).
    // Decode's coarse round spreads widely
    // (IQR 80-95%: the candidates before evict the states), so the default
    // can miss the finalists by chance. K = V = 128, T = 1, 1 thread,
    // 2026-12-06, Sapphire Rapids: tuned at H = 32, every finalist tied and
    // the simplest, w16-vt32-u1-p0, won; at H = 16 it then ran 1.37x its
    // T = 0 call where the default, w16-vt128-u1-p2, ran 1.10-1.13x.
    for (Route r : {Route::Recurrent, Route::Chunked}) {
      const compiler::Variant v = default_of(r);
      const int64_t width = r == Route::Recurrent ? v.recurrent.vector_width : v.chunked.vector_width;
      const bool searched = std::count(options.widths.begin(), options.widths.end(), width) > 0;
      if (options.routes.count(r) && searched) add_affordable(variant_candidate(v), &round2);
    }
    timed_round(passing(round2), 2, planned.round2);
  }

  const int final_round = result.final_round;
  for (Route r : {Route::Recurrent, Route::Chunked})
    if (auto best = ranked(entries, r, final_round); !best.empty()) {
      const std::string default_schedule = default_of(r).schedule_str();
      std::vector<size_t> tied;
      for (size_t i : best) entries[i].is_default = entries[i].candidate.schedule == default_schedule;
      const size_t w = choose_winner(entries, best, final_round, default_schedule, &tied);
      entries[w].winner = true;
      result.winners[r] = w;
      if (!tied.empty()) result.ties[r] = {best[0]};  // the fastest, then the rest
      for (size_t i : tied) result.ties[r].push_back(i);
    }
  for (int round : {1, 2})
    for (size_t i : baselines)
      if (entries[i].timed(round) && entries[i].timing_error.empty())
        result.baseline_ns[round][entries[i].candidate.route] = entries[i].median_ns[round];
  return result;
}

}  // namespace gdr::tune
