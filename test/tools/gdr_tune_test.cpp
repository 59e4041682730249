// gdr-tune: a wrong candidate is excluded and never chosen; end to end on a
// tiny shape with a tiny budget, the report and the database it writes;
// bad flags give one line naming the flag.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "candidates.h"
#include "crossover.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/tuning_db.h"
#include "plots.h"
#include "svg_plot.h"
#include "report.h"
#include "tuner.h"
#include "temp_dir.h"

namespace gdr::tune {
namespace {

class GdrTuneTest : public ::testing::Test {
 public:
  std::string path(const std::string& name) const { return temp_.path(name); }

  // Runs gdr-tune with `args`; returns its exit code, stdout and stderr.
  int run(const std::string& args, std::string* out, std::string* err) {
    const std::string cmd = std::string(GDR_TUNE_PATH) + " " + args + " >" + path("stdout") +
                            " 2>" + path("stderr");
    const int status = std::system(cmd.c_str());
    *out = read(path("stdout"));
    *err = read(path("stderr"));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // Runs gdr-tune with `args` on a pseudo-terminal (util-linux script):
  // its exit code and what the terminal showed (stdout and stderr).
  int run_on_terminal(const std::string& args, std::string* shown) {
    const std::string cmd = "script -q -e -c '" + std::string(GDR_TUNE_PATH) + " " + args + "' /dev/null >" +
                            path("terminal") + " 2>&1 </dev/null";
    const int status = std::system(cmd.c_str());
    *shown = read(path("terminal"));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  static std::string read(const std::string& file) {
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  const gdr::test::TempDir temp_{"gdr-tune-test"};
  const std::string dir_ = temp_.str();
};

// A candidate that writes zeros: fast, and wrong.
Candidate wrong_candidate() {
  Candidate c;
  c.route = Route::Recurrent;
  c.schedule = "zeros";
  c.run = [](const Tensors& t, const Options&) {
    std::fill(t.out, t.out + t.B * t.H * t.T * t.V, 0.f);
    std::fill(t.final_state, t.final_state + t.B * t.H * t.K * t.V, 0.f);
    return Status::success();
  };
  return c;
}

// A tiny recurrent-only search: two heads of 16 x 16, width 4, a millisecond
// per candidate.
TuneOptions tiny_recurrent_options() {
  TuneOptions o;
  o.B = 1, o.H = 2, o.K = 16, o.V = 16;
  o.routes = {Route::Recurrent};
  o.widths = {4};
  o.seconds_per_candidate = 0.001;
  return o;
}

TEST(Tuner, WrongCandidateIsExcludedAndNeverChosen) {
  TuneOptions o = tiny_recurrent_options();
  o.extra = {wrong_candidate()};
  Checker checker(o.K, o.V, 1);
  const CaseResult c = tune_case(o, 3, 1, checker);
  bool seen = false;
  for (size_t i = 0; i < c.entries.size(); ++i) {
    const Entry& e = c.entries[i];
    if (e.candidate.schedule != "zeros") {
      EXPECT_TRUE(e.check.ok) << e.candidate.name() << ": " << e.check.why;
      continue;
    }
    seen = true;
    EXPECT_FALSE(e.check.ok);
    EXPECT_EQ(e.check.why.rfind("wrong: error", 0), 0u) << e.check.why;
    EXPECT_FALSE(e.timed(1) || e.timed(2));
    EXPECT_FALSE(e.winner);
    ASSERT_TRUE(c.winners.count(Route::Recurrent));
    EXPECT_NE(c.winners.at(Route::Recurrent), i);
  }
  EXPECT_TRUE(seen);
  // The report names it under the excluded candidates, with why.
  ReportContext context;
  context.options = o;
  const std::string md = report_markdown(context, {c});
  EXPECT_NE(md.find("| recurrent zeros | wrong: error"), std::string::npos) << md;
  EXPECT_EQ(report_json(context, {c}).find("\"schedule\": \"zeros\", \"check\": \"ok\""), std::string::npos);
}

// A candidate whose run fails: error +inf in the check, null in the JSON
// (which has no inf), never timed.
TEST(Tuner, FailingCandidateGivesValidJson) {
  TuneOptions o = tiny_recurrent_options();
  Candidate failing;
  failing.route = Route::Recurrent;
  failing.schedule = "fails";
  failing.run = [](const Tensors&, const Options&) { return Status::error("no"); };
  o.extra = {failing};
  Checker checker(o.K, o.V, 1);
  const CaseResult c = tune_case(o, 3, 1, checker);
  ReportContext context;
  context.options = o;
  const std::string json = report_json(context, {c});
  EXPECT_NE(json.find("\"schedule\": \"fails\", \"check\": \"failed: no\", \"check_error\": null"),
            std::string::npos) << json;
  for (const char* bad : {"inf", "nan", "INF", "NAN"})
    EXPECT_EQ(json.find(std::string(": ") + bad), std::string::npos) << bad << " in " << json;
  // The JSON parses (python3 is a build dependency).
  char tmpl[] = "/tmp/gdr-tune-json-XXXXXX";
  const int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, json.data(), json.size()), static_cast<ssize_t>(json.size()));
  close(fd);
  const int status = std::system(("python3 -c 'import json,sys; json.load(open(sys.argv[1]))' " +
                                  std::string(tmpl)).c_str());
  std::remove(tmpl);
  EXPECT_EQ(status, 0) << json;
  // Auto is asked of plan(): the recurrent winner, nothing else measured.
  EXPECT_EQ(auto_choice(c, o), Route::Recurrent);
}

// The form reaches every call: the check's problem (H = 3, Hq = 3 R, one
// key head, token-major, varlen with an empty sequence, in place) and the
// timed one (the options' H, Hq = R H, their seqlens), and every variant
// searched, on both routes, is compiled for the decay and readouts (and
// passes the check).
TEST(Tuner, TheFormReachesTheCheckAndTheTimedProblem) {
  TuneOptions o = tiny_recurrent_options();
  o.routes = {Route::Recurrent, Route::Chunked};
  o.decay = DecayKind::Scalar;
  o.readouts = 2;
  o.form.key_heads = 1;
  o.form.layout = Layout::TokenMajor;
  o.form.seqlens = {2, 0, 5};
  o.form.in_place = true;
  auto seen = std::make_shared<std::vector<Tensors>>();
  Candidate spy;
  spy.route = Route::Recurrent;
  spy.schedule = "spy";
  spy.run = [seen](const Tensors& t, const Options& options) {
    seen->push_back(t);
    Options reference = options;
    reference.route = Route::Reference;
    return gdr::run(t, reference);
  };
  o.extra = {spy};
  Checker checker(o, 1);
  const int64_t T = 7;
  const CaseResult c = tune_case(o, T, 1, checker);
  ASSERT_GE(seen->size(), 2u);
  const Tensors& check = seen->front();
  EXPECT_EQ(check.H, 3);
  EXPECT_EQ(check.query_heads, 6);
  EXPECT_EQ(check.key_heads, 1);
  EXPECT_EQ(check.decay_kind, DecayKind::Scalar);
  EXPECT_EQ(check.layout, Layout::TokenMajor);
  EXPECT_EQ(check.cu_seqlens.size, 5);
  EXPECT_TRUE(check.in_place);
  EXPECT_EQ(check.final_state, check.initial_state);
  const Tensors& timed = seen->back();
  EXPECT_EQ(timed.H, 2);
  EXPECT_EQ(timed.T, T);
  EXPECT_EQ(timed.query_heads, 4);
  EXPECT_EQ(timed.key_heads, 1);
  EXPECT_EQ(timed.decay_kind, DecayKind::Scalar);
  EXPECT_EQ(timed.layout, Layout::TokenMajor);
  EXPECT_EQ(timed.cu_seqlens.size, 4);
  EXPECT_TRUE(timed.in_place);
  // The coarse round sweeps as the untuned kernel would: x86 below 512-bit
  // vectors (16 registers) one token for two readouts, else pairs.
  const compiler::Target& host = compiler::host_target();
  const bool x86 = compiler::architecture_name(host.triple) == "x86_64";
  const int64_t sweep_tokens = x86 && host.vector_bits < 512 ? 1 : 2;
  size_t variants = 0, chunked = 0, coarse_recurrent = 0;
  for (const Entry& e : c.entries) {
    EXPECT_TRUE(e.check.ok) << e.candidate.name() << ": " << e.check.why;
    if (e.candidate.baseline() || e.candidate.schedule == "spy") continue;
    ++variants;
    chunked += e.candidate.route == Route::Chunked;
    EXPECT_EQ(e.candidate.variant.decay, DecayKind::Scalar) << e.candidate.name();
    EXPECT_EQ(e.candidate.variant.readouts, 2) << e.candidate.name();
    if (e.candidate.route != Route::Recurrent || !e.timed(1)) continue;
    ++coarse_recurrent;
    EXPECT_EQ(e.candidate.variant.recurrent.sweep_tokens, sweep_tokens) << e.candidate.name();
  }
  EXPECT_GT(coarse_recurrent, 0u);
  EXPECT_GT(variants, chunked);
  EXPECT_GT(chunked, 0u);
  EXPECT_TRUE(c.winners.count(Route::Recurrent));
  EXPECT_TRUE(c.winners.count(Route::Chunked));
}

TEST(Tuner, CoarseThenFineSpace) {
  // Tiles of more than one vector wider than V are left out.
  EXPECT_EQ(recurrent_coarse({4, 8}, 16, 2).size(), 3u + 2u);  // w4: 1, 2, 4 vectors; w8: 1, 2
  EXPECT_EQ(recurrent_coarse({16}, 20, 2).size(), 1u);         // one vector and a masked tail
  EXPECT_EQ(recurrent_coarse({16}, 128, 1).size(), 4u);
  EXPECT_EQ(recurrent_coarse({16}, 128, 1)[0].sweep_tokens, 1);
  // Unroll 1, 2, 4 (at most K), then prefetch 0 and 4 at unroll 1.
  EXPECT_EQ(recurrent_fine({{4, 8, 1}}, 2).size(), 2u + 2u + 1u);
  EXPECT_EQ(recurrent_fine({{4, 8, 1}, {8, 8, 1}}, 128).size(), 2 * (3u + 2u + 1u));
  EXPECT_EQ(recurrent_fine({{4, 8, 1}}, 2).back().sweep_tokens, 1);  // pairs' tile, one token
  EXPECT_EQ(chunked_space({4, 8, 16}).size(), 9u);
}

// Each route's default schedule runs in round 2 even when round 1 sends no
// tile there (fine_tiles = 0), so that a tie within noise can keep it.
TEST(Tuner, DefaultScheduleIsAlwaysAFinalist) {
  TuneOptions o = tiny_recurrent_options();
  o.fine_tiles = 0;
  const compiler::KernelSpec spec{o.K, o.V, o.decay, o.readouts};
  const compiler::Variant default_variant = compiler::default_variant(Route::Recurrent, spec, 3, compiler::host_target());
  const std::string default_schedule = default_variant.schedule_str();
  o.widths = {static_cast<int>(default_variant.recurrent.vector_width)};
  Checker checker(o.K, o.V, 1);
  const CaseResult c = tune_case(o, 3, 1, checker);
  int seen = 0;
  for (const Entry& e : c.entries)
    if (e.candidate.route == Route::Recurrent && e.candidate.schedule == default_schedule) {
      ++seen;
      EXPECT_TRUE(e.timed(2));
    }
  EXPECT_EQ(seen, 1);
  ASSERT_TRUE(c.winners.count(Route::Recurrent));
  EXPECT_EQ(c.entries[c.winners.at(Route::Recurrent)].candidate.schedule, default_schedule);  // the one finalist
}

// An entry of `c` timed in `round` with these repetitions.
Entry timed_entry(Candidate c, int round, std::vector<double> ns) {
  Entry e;
  e.candidate = std::move(c);
  e.check.ok = true;
  e.median_ns[round] = tools::median(ns);
  e.reps[round] = static_cast<int>(ns.size());
  e.spread[round] = tools::spread(ns);
  return e;
}

Candidate recurrent(int64_t width, int64_t v_tile, int64_t unroll, int64_t prefetch) {
  return variant_candidate(compiler::recurrent_variant({16, 16}, {width, v_tile, unroll, prefetch}));
}

TEST(Tuner, SpreadIsMinQuartilesMax) {
  const tools::Spread s = tools::spread({5, 1, 3, 2, 4});
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.q1, 2);
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.q3, 4);
  EXPECT_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.relative_iqr(), 2.0 / 3.0);
  EXPECT_EQ(tools::spread({7}).q1, 7);
}

// Within the noise (interquartile ranges overlap), the simplest wins: the
// default schedule, else less unrolling; outside it, the fastest.
TEST(Tuner, TieWithinNoiseKeepsTheSimplerSchedule) {
  const std::vector<Entry> entries = {
      timed_entry(recurrent(4, 8, 4, 2), 2, {100, 101, 102, 103, 104}),  // fastest, unrolled
      timed_entry(recurrent(4, 8, 2, 2), 2, {102, 103, 104, 105, 106}),  // overlaps it
      timed_entry(recurrent(4, 4, 1, 2), 2, {101, 102, 104, 106, 108}),  // overlaps it, simplest
      timed_entry(recurrent(4, 16, 1, 0), 2, {120, 121, 122, 123, 124}),  // slower: no tie
  };
  std::vector<size_t> tied;
  EXPECT_EQ(choose_winner(entries, {0, 1, 2, 3}, 2, "none", &tied), 2u);
  EXPECT_EQ(tied, (std::vector<size_t>{1, 2}));
  // The default schedule is simplest of all.
  EXPECT_EQ(choose_winner(entries, {0, 1, 2, 3}, 2, entries[1].candidate.schedule, &tied), 1u);
  // Outside the noise the fastest wins, however complex.
  EXPECT_EQ(choose_winner(entries, {0, 3}, 2, entries[3].candidate.schedule, &tied), 0u);
  EXPECT_TRUE(tied.empty());
  EXPECT_FALSE(within_noise(entries[0], entries[3], 2));
  EXPECT_TRUE(within_noise(entries[3], entries[3], 2));
}

TEST(Report, TimesInMicrosecondsBelowAMillisecond) {
  EXPECT_EQ(duration_text(812345), "812.3 µs");
  EXPECT_EQ(duration_text(999.0e3), "999 µs");
  EXPECT_EQ(duration_text(1.5e6), "1.5 ms");
  EXPECT_EQ(duration_text(12.34e6), "12.34 ms");
  // Rounded to 1000 µs is 1 ms (a review: "1000 µs").
  EXPECT_EQ(duration_text(999960), "1 ms");
  EXPECT_EQ(duration_text(999960, 6), "999.96 µs");
}

// Two threads that ran the FMA loop hardly faster than one (another program
// on the cores): the report says so at the top.
// A user's file that appears at a report path during the run is not
// replaced at the end either, and nothing of the report is written (a review).
TEST(Report, AUsersFileThatAppearsMeanwhileIsNotReplaced) {
  const gdr::test::TempDir dir("gdr-tune-report");
  const std::string prefix = dir.path("r/tune");
  support::StagedOutputs outputs;
  ASSERT_TRUE(stage_report(prefix, &outputs));
  std::ofstream(prefix + ".json") << "{\"mine\": 1}\n";
  ReportContext ctx;
  ctx.options = tiny_recurrent_options();
  const Status s = write_report(prefix, outputs, ctx, {});
  EXPECT_EQ(s.message(), prefix + ".json exists and is not a gdr-tune report; not replaced (remove it or give "
                                  "another --report)");
  std::ifstream in(prefix + ".json");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "{\"mine\": 1}\n");
  EXPECT_FALSE(std::filesystem::exists(prefix + ".md"));
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path("r"))) (void)e, ++files;
  EXPECT_EQ(files, 1);  // no temporary left
}

TEST(Report, SharedCoresAreSaid) {
  bench::MachinePeak busy;
  busy.fma_gflops_1t = 218.7, busy.fma_gflops_2t = 221.6;
  const std::string warning = bench::shared_cores_warning(busy, 2);
  EXPECT_NE(warning.find("1.01x"), std::string::npos) << warning;
  bench::MachinePeak quiet = busy;
  quiet.fma_gflops_2t = 419;
  EXPECT_EQ(bench::shared_cores_warning(quiet, 2), "");
  EXPECT_EQ(bench::shared_cores_warning(busy, 1), "");  // one core: 2 threads cannot be faster

  ReportContext ctx;
  ctx.options = tiny_recurrent_options();
  ctx.peak = busy;
  EXPECT_EQ(report_markdown(ctx, {}).find("warning:"), std::string::npos);
  EXPECT_NE(report_json(ctx, {}).find("\"shared_cores\": false"), std::string::npos);
  ctx.shared_cores = warning;
  EXPECT_NE(report_markdown(ctx, {}).find("- **" + warning + "**"), std::string::npos);
  EXPECT_NE(report_json(ctx, {}).find("\"shared_cores\": true"), std::string::npos);
}

// Counts `what` in `text`.
size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A decode record (T = 1) covers decode alone: its wide tile ties the
// untuned kernel at T = 2 and loses from T = 4 (docs/tuning.md). Longer Ts meet at
// their geometric mean; a lone T covers its side only.
TEST(Buckets, DecodeAndLongerCallsNeverShareARecord) {
  const int64_t inf = compiler::kUnboundedT;
  EXPECT_EQ(bucket({1, 512}, 0), std::make_pair(int64_t{0}, int64_t{1}));
  EXPECT_EQ(bucket({1, 512}, 1), std::make_pair(int64_t{2}, inf));
  EXPECT_EQ(bucket({1, 64, 512}, 1), std::make_pair(int64_t{2}, int64_t{181}));
  EXPECT_EQ(bucket({0, 1}, 1), std::make_pair(int64_t{1}, int64_t{1}));
  EXPECT_EQ(bucket({1}, 0), std::make_pair(int64_t{0}, int64_t{1}));
  EXPECT_EQ(bucket({512}, 0), std::make_pair(int64_t{2}, inf));
}

// A varlen decode (four one-token sequences, T = 4 in all) moves four
// states: 4 x 2 x 16 x 16 floats read and written, 16384 bytes, at 10
// bytes/ns 1638.4 ns; and it is decode at T = 1 a sequence.
TEST(Report, VarlenDecodeCountsEverySequencesState) {
  ReportContext ctx;
  ctx.options = tiny_recurrent_options();
  ctx.options.form.seqlens = {1, 1, 1, 1};
  ctx.peak.copy_gbps_1t = 10;
  ctx.name = "tune";
  CaseResult c;
  c.T = 4;
  c.threads = 1;
  c.entries = {timed_entry(recurrent(4, 8, 1, 2), 2, {1e3})};
  c.winners = {{Route::Recurrent, 0}};
  const std::string md = report_markdown(ctx, {c});
  EXPECT_NE(md.find("decode: T = 1, 1 thread: recurrent `w4-vt8-u1-p2` 1 µs, 16.4 GB/s of state, 0.61x the copy floor"),
            std::string::npos) << md;
}

// Measured cases where recurrent is faster at T = 1 and chunked at T = 512
// (one thread): auto's route changes at the database's bucket cut, after
// T = 1 (decode's records cover decode alone), which the text says and the
// time-per-token plot marks; decode (T = 1) is set against the copy floor.
TEST(Report, CrossoverIsSaidAndMarked) {
  ReportContext ctx;
  ctx.options = tiny_recurrent_options();
  ctx.options.routes = {Route::Recurrent, Route::Chunked};
  ctx.peak.copy_gbps_1t = 10;  // bytes per ns
  ctx.name = "tune";
  auto make_case = [&](int64_t T, double recurrent_ns, double chunked_ns) {
    CaseResult c;
    c.T = T;
    c.threads = 1;
    c.entries = {timed_entry(recurrent(4, 8, 1, 2), 2, {recurrent_ns}),
                 timed_entry(variant_candidate(compiler::chunked_variant({16, 16}, {16, 4})), 2, {chunked_ns})};
    c.winners = {{Route::Recurrent, 0}, {Route::Chunked, 1}};
    return c;
  };
  const std::vector<CaseResult> cases = {make_case(1, 1e3, 5e3), make_case(512, 5e5, 1e5)};
  const std::vector<Crossover> xs = crossovers(ctx, cases);
  ASSERT_EQ(xs.size(), 1u);
  EXPECT_EQ(xs[0].below, Route::Recurrent);
  EXPECT_EQ(xs[0].from, Route::Chunked);
  EXPECT_EQ(xs[0].T_from, 2);
  const std::string md = report_markdown(ctx, cases);
  EXPECT_NE(md.find("crossover, 1 thread: recurrent up to T = 1, chunked from T = 2"), std::string::npos) << md;
  // The state: B H K V = 1 x 2 x 16 x 16 floats, read and written: 4096
  // bytes, at 10 bytes/ns 409.6 ns; recurrent's 1 µs is 2.44x that.
  EXPECT_NE(md.find("decode: T = 1, 1 thread: recurrent `w4-vt8-u1-p2` 1 µs, 4.1 GB/s of state, 2.44x the copy floor"),
            std::string::npos) << md;
  const std::vector<Plot> plots = report_plots(ctx, cases);
  ASSERT_EQ(plots.size(), 3u);
  EXPECT_EQ(plots[0].suffix, "-time-per-token.svg");
  EXPECT_EQ(count(plots[0].svg, "<g class=\"marker\">"), 1u);
  EXPECT_NE(plots[0].svg.find("chunked from T = 2 (1 thread)"), std::string::npos);
  // One series per route, two points each (one line, two circles).
  EXPECT_NE(plots[0].svg.find("data-name=\"recurrent, 1 thread\""), std::string::npos);
  EXPECT_NE(plots[0].svg.find("data-name=\"chunked, 1 thread\""), std::string::npos);
  EXPECT_EQ(count(plots[0].svg, "<circle"), 4u);
  // The decode plot: the T = 1 points and the floor.
  EXPECT_EQ(count(plots[2].svg, "<circle"), 2u);
  EXPECT_NE(plots[2].svg.find("copy floor: 10.0 GB/s"), std::string::npos);
  // Same route everywhere: no crossover, no marker.
  const std::vector<CaseResult> flat = {make_case(1, 1e3, 5e3), make_case(512, 1e5, 5e5)};
  EXPECT_TRUE(crossovers(ctx, flat).empty());
  EXPECT_EQ(count(report_plots(ctx, flat)[0].svg, "class=\"marker\""), 0u);
  EXPECT_NE(report_markdown(ctx, flat).find("crossover: none"), std::string::npos);
}

// The <text> elements of an SVG: where, how anchored, what.
struct SvgText {
  double x, y;
  std::string anchor, text;
};
std::vector<SvgText> svg_texts(const std::string& svg) {
  std::vector<SvgText> out;
  const std::regex text_element("<text x=\"([-0-9.]+)\" y=\"([-0-9.]+)\" text-anchor=\"([a-z]+)\"[^>]*>([^<]*)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), text_element), end; it != end; ++it)
    out.push_back({std::stod((*it)[1]), std::stod((*it)[2]), (*it)[3], (*it)[4]});
  return out;
}

// The plots a person reads (a review of them rendered): a narrow log range
// gets tick labels, tick labels never run together, markers side by side
// keep their labels apart, point labels stay inside the frame.
TEST(Svg, LabelsAreThereApartAndInside) {
  svg::LinePlot p;
  p.log_x = p.log_y = true;
  svg::Series s;
  s.name = "recurrent, 1 thread";
  s.points = {{256, 0.101, ""}, {512, 0.109, ""}, {900, 0.105, "a long label at the right edge"}};
  p.series = {s};
  p.vertical = {{150, "chunked from T = 150 (1 thread)"}, {160, "chunked from T = 160 (2 threads)", true}};
  const std::vector<SvgText> texts = svg_texts(svg::line_plot(p));
  std::vector<SvgText> x_ticks, y_ticks;
  for (const SvgText& t : texts) {
    if (t.y == 406 && t.anchor == "middle") x_ticks.push_back(t);  // below the frame (kBottom + 16)
    if (t.x == 74 && t.anchor == "end") y_ticks.push_back(t);      // left of it (kLeft - 6)
  }
  // 0.101 to 0.109 lies between two digits: its ends are labelled, inside
  // the frame (kTop 50 to kBottom 390; a first fix put 0.1 and 0.11 outside).
  EXPECT_GE(y_ticks.size(), 2u);
  for (const SvgText& t : y_ticks) {
    EXPECT_GE(t.y, 50) << t.text;
    EXPECT_LE(t.y, 394) << t.text;
  }
  // 150 to 900: every digit a tick, the labels clear of each other.
  ASSERT_GE(x_ticks.size(), 3u);
  for (size_t i = 1; i < x_ticks.size(); ++i)
    EXPECT_GE(x_ticks[i].x - x_ticks[i - 1].x, 7.0 * double(x_ticks[i].text.size()) + 8) << x_ticks[i].text;
  int markers = 0;
  for (const SvgText& t : texts) {
    if (t.text.rfind("chunked from", 0) == 0) {
      ++markers;
      // One from the top on its line's left, the other from the bottom.
      EXPECT_EQ(t.anchor, t.text.find("150") != std::string::npos ? "end" : "start") << t.text;
    }
    if (t.text == "a long label at the right edge") {
      EXPECT_EQ(t.anchor, "end");  // on the point's left: it would pass the frame's right (560)
      EXPECT_LE(t.x, 560);
    }
  }
  EXPECT_EQ(markers, 2);
}

// A candidate of `route` whose call spins for fixed_us + per_token_us · T
// (it computes nothing: the search only times it).
Candidate spinning(Route route, const std::string& schedule, double fixed_us, double per_token_us) {
  Candidate c = route == Route::Recurrent ? recurrent(4, 8, 1, 2)
                                          : variant_candidate(compiler::chunked_variant({16, 16}, {16, 4}));
  c.schedule = schedule;
  c.run = [=](const Tensors& t, const Options&) {
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::duration<double, std::micro>(fixed_us + per_token_us * double(t.T));
    while (std::chrono::steady_clock::now() < until) {
    }
    return Status::success();
  };
  return c;
}

// At T = 2 recurrent's winner costs 40 µs a token (a wide tile), at
// T = 512 another recurrent schedule wins, 100 µs + 8 µs a token; chunked
// costs 240 µs + 2 µs a token. Tuned at T = 2 and 512, auto changes route
// between them. Below the crossover the database runs T = 2's records
// (the wide tile), from it T = 512's (chunked): the probes time those
// two, which cross at T = 240 / 38, so the buckets meet at 7, not at the
// geometric mean, 32 (nor at 24, where the other recurrent schedule would
// lose: no bucket runs it there). (Past a decode T, T = 1, its records
// stop and the probes time the untuned recurrent kernel instead.) The report, the plot and the JSON say
// it. Where auto does not change, no search runs; a search the budget
// stops falls back to the geometric mean.
TEST(Crossover, SearchFindsWhereTheFasterRouteChanges) {
  TuneOptions o = tiny_recurrent_options();
  o.routes = {Route::Recurrent, Route::Chunked};
  o.seconds_per_candidate = 0.02;
  auto make_case = [&](int64_t T, const std::string& recurrent_schedule, double fixed_us, double per_token_us) {
    CaseResult c;
    c.T = T;
    c.threads = 1;
    c.final_round = 1;
    c.entries = {timed_entry(spinning(Route::Recurrent, recurrent_schedule, fixed_us, per_token_us), 1,
                             {1e3 * (fixed_us + per_token_us * T)}),
                 timed_entry(spinning(Route::Chunked, "c16-w4", 240, 2), 1, {1e3 * (240 + 2 * T)})};
    c.winners = {{Route::Recurrent, 0}, {Route::Chunked, 1}};
    return c;
  };
  const std::vector<int64_t> Ts = {2, 512};
  const std::vector<CaseResult> cases = {make_case(2, "w4-vt8-u1-p2", 0, 40), make_case(512, "w4-vt4-u1-p2", 100, 8)};
  const std::vector<CrossoverSearch> searches = search_crossovers(o, Ts, cases, nullptr);
  ASSERT_EQ(searches.size(), 1u);
  const CrossoverSearch& x = searches[0];
  EXPECT_EQ(x.below, Route::Recurrent);
  EXPECT_EQ(x.from, Route::Chunked);
  ASSERT_GE(x.probes.size(), 4u);
  EXPECT_LE(x.probes.size(), 6u);
  // 7, within the resolution and a spinning call's noise.
  EXPECT_GE(x.T_from, 6) << x.T_from;
  EXPECT_LE(x.T_from, 8) << x.T_from;
  for (const CrossoverProbe& p : x.probes) {
    EXPECT_GT(p.T, 1);
    EXPECT_LT(p.T, 512);
    EXPECT_EQ(p.below_schedule, "w4-vt8-u1-p2");
    EXPECT_EQ(p.from_schedule, "c16-w4");
    EXPECT_NEAR(p.below_ns, 40e3 * p.T, 30e3) << p.T;
    EXPECT_NEAR(p.from_ns, 1e3 * (240 + 2 * p.T), 30e3) << p.T;
  }
  EXPECT_EQ(searched_bucket(Ts, 0, 1, searches), std::make_pair(int64_t{2}, x.T_from - 1));  // 0 and 1: decode's
  EXPECT_EQ(searched_bucket(Ts, 1, 1, searches), std::make_pair(x.T_from, compiler::kUnboundedT));
  EXPECT_EQ(searched_bucket(Ts, 1, 2, searches), bucket(Ts, 1));  // another thread count: not searched

  ReportContext ctx;
  ctx.options = o;
  ctx.name = "tune";
  ctx.searches = searches;
  const std::string from = std::to_string(x.T_from);
  const CrossoverProbe& p0 = x.probes[0];
  const std::string md = report_markdown(ctx, cases);
  EXPECT_NE(md.find("crossover, 1 thread: recurrent up to T = " + std::to_string(x.T_from - 1) +
                    ", chunked from T = " + from + " (between the tuned T = 2 and 512; marked in the plot): "
                    "searched, what each bucket runs: T = " + std::to_string(p0.T) + " recurrent `w4-vt8-u1-p2` " +
                    duration_text(p0.below_ns) + ", chunked `c16-w4` " + duration_text(p0.from_ns) + ";"),
            std::string::npos) << md;
  EXPECT_NE(report_plots(ctx, cases)[0].svg.find("chunked from T = " + from + " (1 thread)"), std::string::npos);
  const std::string json = report_json(ctx, cases);
  EXPECT_NE(json.find("{\"record\": \"crossover\", \"threads\": 1, \"T_below\": 2, \"T_above\": 512, "
                      "\"below\": \"recurrent\", \"from\": \"chunked\", \"T_from\": " + from +
                      ", \"budget_cut\": false, \"probes\": [{\"T\": " + std::to_string(p0.T) +
                      ", \"below_schedule\": \"" + p0.below_schedule + "\""),
            std::string::npos) << json;

  // One route faster at both tuned Ts: nothing to search.
  std::vector<CaseResult> flat = cases;
  flat[1].entries[1].median_ns[1] = 1e9;
  EXPECT_TRUE(search_crossovers(o, Ts, flat, nullptr).empty());
  // A spent budget: no probe, the geometric mean as without a search.
  Pace pace(1e-9, o.seconds_per_candidate, Pace::Clock::now());
  const std::vector<CrossoverSearch> cut = search_crossovers(o, Ts, cases, &pace);
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_TRUE(cut[0].probes.empty());
  EXPECT_TRUE(cut[0].budget_cut);
  EXPECT_EQ(cut[0].T_from, 33);
  EXPECT_EQ(searched_bucket(Ts, 1, 1, cut), bucket(Ts, 1));
}

// Past a decode T (T = 1), whose records cover decode alone, the database
// runs the untuned recurrent kernel up to the crossover: that is what the
// probes time (a real kernel, K = V = 16, against a chunked candidate that
// spins 240 µs + 2 µs a token), and T = 1's bucket stays [0, 1].
TEST(Crossover, PastADecodeTTheUntunedKernelIsProbed) {
  TuneOptions o = tiny_recurrent_options();
  o.routes = {Route::Recurrent, Route::Chunked};
  o.seconds_per_candidate = 0.01;
  auto make_case = [&](int64_t T, double recurrent_us, double chunked_us) {
    CaseResult c;
    c.T = T;
    c.threads = 1;
    c.final_round = 1;
    c.entries = {timed_entry(spinning(Route::Recurrent, "w4-vt8-u1-p2", recurrent_us, 0), 1, {1e3 * recurrent_us}),
                 timed_entry(spinning(Route::Chunked, "c16-w4", 240, 2), 1, {1e3 * chunked_us})};
    c.winners = {{Route::Recurrent, 0}, {Route::Chunked, 1}};
    return c;
  };
  const std::vector<int64_t> Ts = {1, 512};
  const std::vector<CaseResult> cases = {make_case(1, 10, 242), make_case(512, 1e4, 1264)};
  const std::vector<CrossoverSearch> searches = search_crossovers(o, Ts, cases, nullptr);
  ASSERT_EQ(searches.size(), 1u);
  const std::string untuned =
      compiler::default_variant(Route::Recurrent, {o.K, o.V, o.decay, o.readouts}, 2, compiler::host_target())
          .schedule_str();
  ASSERT_FALSE(searches[0].probes.empty());
  for (const CrossoverProbe& p : searches[0].probes) EXPECT_EQ(p.below_schedule, untuned) << p.T;
  EXPECT_EQ(searched_bucket(Ts, 0, 1, searches), std::make_pair(int64_t{0}, int64_t{1}));
  EXPECT_EQ(searched_bucket(Ts, 1, 1, searches).first, searches[0].T_from);
}

// Parses each file as XML (python3 is a build dependency); "" if all parse.
std::string xml_errors(const std::vector<std::string>& files) {
  std::string cmd = "python3 -c 'import sys, xml.etree.ElementTree as E\nfor f in sys.argv[1:]: E.parse(f)'";
  for (const std::string& f : files) cmd += " " + f;
  return std::system(cmd.c_str()) == 0 ? "" : "an SVG does not parse as XML";
}

TEST_F(GdrTuneTest, TinyRunWritesReportAndDatabase) {
  // An existing database: another host's record survives the merge.
  ASSERT_TRUE(compiler::write_tuning_db(
      path("tuning.db"), {{"other-cpu", 16, 16, 0, 5, 1, Route::Recurrent, "w4-vt4-u1", 42}}));
  std::string out, err;
  ASSERT_EQ(run("--H 2 --K 16 --V 16 --T 1,40 --threads 1 --seconds 0.002 --routes recurrent,chunked "
                "--widths 4 --report " + path("r/tune") + " --db " + path("tuning.db"),
                &out, &err),
            0)
      << err;
  const std::string md = read(path("r/tune.md")), json = read(path("r/tune.json"));
  // Every candidate of the space is in the report, checked and timed.
  std::vector<std::string> names = {"baseline-two-pass", "baseline-chunked"};
  const int64_t sweep_tokens = compiler::dialect_default_recurrent(16, compiler::host_target()).sweep_tokens;
  for (const auto& s : recurrent_coarse({4}, 16, sweep_tokens))
    names.push_back("recurrent " + compiler::recurrent_variant({16, 16}, s).schedule_str());
  for (const auto& s : chunked_space({4})) names.push_back("chunked " + s.str());
  for (const std::string& n : names) EXPECT_NE(md.find("| " + n + " | "), std::string::npos) << n;
  EXPECT_EQ(md.find("wrong:"), std::string::npos);
  EXPECT_NE(md.find("None: every candidate matched the float64 reference."), std::string::npos);
  EXPECT_NE(md.find("## T = 1, threads = 1"), std::string::npos);
  EXPECT_NE(md.find("## T = 40, threads = 1"), std::string::npos);
  // One winner per route per case, each marked.
  size_t winners = 0;
  for (size_t at = md.find("| **winner** |"); at != std::string::npos; at = md.find("| **winner** |", at + 1))
    ++winners;
  EXPECT_EQ(winners, 4u);
  size_t json_winners = 0;
  for (size_t at = json.find("\"winner\": true"); at != std::string::npos; at = json.find("\"winner\": true", at + 1))
    ++json_winners;
  EXPECT_EQ(json_winners, 4u);
  EXPECT_EQ(json.find("\"check\": \"wrong"), std::string::npos);

  // The database: the other host's record, and each case's winners with the
  // buckets cut after T = 1 (decode's records cover decode alone).
  compiler::TuningDbFile file;
  ASSERT_TRUE(compiler::read_tuning_db(path("tuning.db"), &file));
  EXPECT_TRUE(file.bad_lines.empty());
  const std::vector<compiler::TuningRecord>& db = file.records;
  ASSERT_EQ(db.size(), 5u);
  EXPECT_EQ(db[0].host_cpu, "other-cpu");
  const std::string cpu = compiler::host_target().cpu;
  for (size_t i = 1; i < db.size(); ++i) {
    EXPECT_EQ(db[i].host_cpu, cpu);
    EXPECT_EQ(db[i].K, 16);
    EXPECT_EQ(db[i].threads, 1);
    const bool decode = db[i].T_min == 0;
    EXPECT_EQ(db[i].T_max, decode ? 1 : compiler::kUnboundedT);
    if (!decode) EXPECT_EQ(db[i].T_min, 2);
    EXPECT_NE(md.find("winner: `" + db[i].schedule + "`"), std::string::npos) << db[i].schedule;
  }
  EXPECT_NE(out.find("report: " + path("r/tune") + ".md"), std::string::npos) << out;

  // The plots, next to the report, linked from it, said on stdout; they
  // parse as XML and hold what they should.
  const std::vector<std::string> svgs = {path("r/tune-time-per-token.svg"), path("r/tune-chunked-grid.svg"),
                                         path("r/tune-decode-bandwidth.svg")};
  for (const std::string& f : svgs) {
    const std::string name = std::filesystem::path(f).filename().string();
    EXPECT_NE(md.find("](" + name + ")"), std::string::npos) << name;
    EXPECT_NE(out.find(f), std::string::npos) << out;
    EXPECT_EQ(read(f).rfind("<?xml", 0), 0u) << f;
  }
  EXPECT_EQ(xml_errors(svgs), "");
  const std::string per_token = read(svgs[0]), grid = read(svgs[1]), decode = read(svgs[2]);
  for (const char* series : {"data-name=\"recurrent, 1 thread\"", "data-name=\"chunked, 1 thread\""}) {
    EXPECT_NE(per_token.find(series), std::string::npos) << series;
    EXPECT_NE(decode.find(series), std::string::npos) << series;
  }
  EXPECT_EQ(count(per_token, "<circle"), 4u);  // two routes at T = 1 and 40
  EXPECT_EQ(count(decode, "<circle"), 2u);     // two routes at T = 1
  EXPECT_NE(decode.find("copy floor: "), std::string::npos);
  // Per case a panel of chunk 16, 32, 64 x width 4, each cell timed.
  EXPECT_EQ(count(grid, "<g class=\"panel\">"), 2u);
  EXPECT_EQ(count(grid, "class=\"cell\""), 6u);
  EXPECT_EQ(count(grid, " µs</text>"), 6u);  // each cell's time (all below 1 ms)
  EXPECT_NE(grid.find("T = 40, 1 thread"), std::string::npos);
  // Each winner with its spread; no time in ms below 1 ms.
  EXPECT_EQ(count(md, " reps), "), 4u) << md;
  EXPECT_NE(md.find("(min "), std::string::npos);
  EXPECT_EQ(md.find(" ms |"), std::string::npos) << md;  // "0.0123 ms" was how a 12 µs time read
  EXPECT_NE(md.find(" µs | "), std::string::npos) << md;
  // Not a terminal: no progress.
  EXPECT_EQ(err, "");
}

// On a terminal the progress line shows (candidates done / planned, the
// case, the time left), rewritten with '\r'; the same run writing to files
// shows none of it (the tests above).
TEST_F(GdrTuneTest, ProgressOnlyOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) for a terminal";
  std::string shown;
  ASSERT_EQ(run_on_terminal("--H 1 --K 4 --V 4 --T 1 --threads 1 --seconds 0.01 --widths 4 --routes recurrent "
                            "--report " + path("r/tune") + " --db " + path("tuning.db"), &shown),
            0) << shown;
  EXPECT_NE(shown.find("\r[0/"), std::string::npos) << shown;
  EXPECT_NE(shown.find(" candidates] T = 1, threads = 1: round 1, "), std::string::npos) << shown;
  EXPECT_NE(shown.find(" left"), std::string::npos) << shown;
  std::string out, err;
  ASSERT_EQ(run("--H 1 --K 4 --V 4 --T 1 --threads 1 --seconds 0.01 --widths 4 --routes recurrent "
                "--report " + path("r/tune") + " --db " + path("tuning.db"), &out, &err),
            0) << err;
  EXPECT_EQ(err, "");
  EXPECT_EQ(out.find('\r'), std::string::npos);
}

// --budget bounds the whole run: a search whose calls take milliseconds
// (H = 16, K = V = 64, T = 256 at width 4: 6 + 12 candidates, about 20 s at
// --seconds 1) ends within its 6 s and the slack of a candidate begun
// before it ran out (its compile too, slower under ctest -j2: 9.02 s once
// in CI on GCC's build), the seconds per candidate planned down (or the
// search cut short), the best so far in the database.
TEST_F(GdrTuneTest, BudgetBoundsTheRun) {
  std::string out, err;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(run("--H 16 --K 64 --V 64 --T 256 --threads 1 --seconds 1 --widths 4 --routes recurrent --budget 6 "
                "--report " + path("r/tune") + " --db " + path("tuning.db"), &out, &err),
            0) << err;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 6 + 6) << out;
  const std::string md = read(path("r/tune.md"));
  EXPECT_NE(md.find("- budget: 6 s for the whole run"), std::string::npos) << md;
  const std::string planned = "- seconds per candidate, planned for the budget: round 1 ";
  const size_t at = md.find(planned);
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_LT(std::strtod(md.c_str() + at + planned.size(), nullptr), 0.5) << md;
  compiler::TuningDbFile file;
  ASSERT_TRUE(compiler::read_tuning_db(path("tuning.db"), &file));
  EXPECT_EQ(file.records.size(), 1u) << md;
  for (const compiler::TuningRecord& r : file.records)
    EXPECT_NE(md.find("winner: `" + r.schedule + "`"), std::string::npos) << r.schedule;
}

// The pace plans the seconds per candidate to fit the budget: what is left
// over the candidates left, at most --seconds.
TEST(Pace, PlansSecondsPerCandidateToFitTheBudget) {
  const auto now = Pace::Clock::now();
  Pace none(0, 0.5, now);
  none.plan(100);
  EXPECT_EQ(none.seconds_for_round(10), 0.5);
  EXPECT_FALSE(none.spent());
  Pace tight(10, 0.5, now);
  tight.plan(100);
  EXPECT_NEAR(tight.seconds_for_round(10), 0.1, 0.01);
  EXPECT_FALSE(tight.spent());
  Pace ample(1000, 0.5, now);
  ample.plan(100);
  EXPECT_EQ(ample.seconds_for_round(10), 0.5);
  Pace over(1, 0.5, now - std::chrono::seconds(2));
  EXPECT_TRUE(over.spent());
  EXPECT_EQ(over.left(), 0);
  // Checks are paid once per candidate: 0.1 s of them in a 1 s budget do
  // not come off each of the 18 candidates left.
  Pace checks(1, 0.5, Pace::Clock::now());
  checks.plan(20);
  const auto checking = Pace::Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  checks.checked(std::chrono::duration<double>(Pace::Clock::now() - checking).count());
  checks.finish_round(2, 0);
  EXPECT_GT(checks.seconds_for_round(2), 0.03);  // (1 - 0.1) / 18 = 0.05
  // A check is taken to last as long as the longest so far: none starts
  // that would end past the budget (a review: a 6.7 s compile begun at
  // 8.5 s took a 10 s budget to 15 s).
  Pace compiles(10, 0.5, Pace::Clock::now() - std::chrono::milliseconds(8500));
  EXPECT_TRUE(compiles.check_fits());
  compiles.checked(6.7);
  EXPECT_FALSE(compiles.spent());
  EXPECT_FALSE(compiles.check_fits());
  EXPECT_TRUE(Pace(0, 0.5, Pace::Clock::now() - std::chrono::hours(1)).check_fits());
}

// A budget spent as round 1's timing begins (the progress callback waits
// for it): round 1 runs one repetition, round 2 is skipped, the winners are
// round 1's best, and the case says the budget cut it; the report says so.
TEST(Tuner, SpentBudgetKeepsTheBestSoFar) {
  TuneOptions o = tiny_recurrent_options();
  o.seconds_per_candidate = 1;
  Checker checker(o.K, o.V, 1);
  Pace pace(3, o.seconds_per_candidate, Pace::Clock::now());
  pace.plan(planned_sizes(o).round1 + planned_sizes(o).round2);
  pace.on_change = [](const Pace& p) {
    const auto give_up = Pace::Clock::now() + std::chrono::seconds(10);  // a pace that never spends
    if (p.step().find("round 1, timing") != std::string::npos)
      while (!p.spent() && Pace::Clock::now() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  };
  const auto start = Pace::Clock::now();
  const CaseResult c = tune_case(o, 3, 1, checker, &pace);
  EXPECT_LT(std::chrono::duration<double>(Pace::Clock::now() - start).count(), 5.0);
  EXPECT_TRUE(c.budget_cut);
  EXPECT_EQ(c.final_round, 1);
  ASSERT_TRUE(c.winners.count(Route::Recurrent));
  const Entry& w = c.entries[c.winners.at(Route::Recurrent)];
  EXPECT_EQ(w.reps[1], 1);
  EXPECT_FALSE(w.timed(2));
  for (const Entry& e : c.entries)  // the fastest of round 1, unless a tie kept a simpler one
    if (e.candidate.route == Route::Recurrent && e.timed(1) && !c.ties.count(Route::Recurrent)) {
      EXPECT_LE(w.median_ns[1], e.median_ns[1]) << e.candidate.name();
    }
  ReportContext context;
  context.options = o;
  context.budget_seconds = 1;
  const std::string md = report_markdown(context, {c});
  EXPECT_NE(md.find("**the budget cut the run**"), std::string::npos) << md;
  EXPECT_NE(md.find("spent in round 1; round 2 skipped, the winners are round 1's"), std::string::npos) << md;
  EXPECT_NE(md.find("Skipped: the budget was spent."), std::string::npos) << md;
  EXPECT_NE(md.find("| **winner** | " + w.candidate.name() + " |"), std::string::npos) << md;
}

// A budget that is ample changes nothing but the line saying it.
TEST_F(GdrTuneTest, AmpleBudgetDoesNotCut) {
  std::string out, err;
  ASSERT_EQ(run("--H 1 --K 4 --V 4 --T 1 --threads 1 --seconds 0.01 --widths 4 --routes recurrent --budget 600 "
                "--report " + path("r/tune") + " --db " + path("tuning.db"), &out, &err),
            0) << err;
  const std::string md = read(path("r/tune.md"));
  EXPECT_NE(md.find("- budget: 600 s for the whole run"), std::string::npos) << md;
  EXPECT_EQ(md.find("budget cut"), std::string::npos) << md;
  EXPECT_NE(md.find("### Round 2: finalists"), std::string::npos);
  EXPECT_EQ(md.find("Skipped: the budget was spent."), std::string::npos);
}

// --decay scalar: every record written has decay=scalar (both routes'),
// printed in the form line and in each JSON record. Grouped readout (--Hq
// 2H) with GVA, token-major, varlen and in place: records readouts=2 for
// both routes.
TEST_F(GdrTuneTest, FormFlagsReachTheDatabaseAndTheReport) {
  std::string out, err;
  ASSERT_EQ(run("--H 2 --K 16 --V 16 --T 1,40 --threads 1 --seconds 0.002 --routes recurrent,chunked "
                "--widths 4 --decay scalar --report " + path("r/tune") + " --db " + path("tuning.db"),
                &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("form: Hk=H Hq=H decay=scalar layout=bhtd seqlens=- in_place=0\n"), std::string::npos)
      << out;
  compiler::TuningDbFile file;
  ASSERT_TRUE(compiler::read_tuning_db(path("tuning.db"), &file));
  ASSERT_EQ(file.records.size(), 4u);  // two T buckets x two routes
  for (const compiler::TuningRecord& r : file.records) {
    EXPECT_EQ(r.decay, DecayKind::Scalar) << compiler::tuning_record_line(r);
    EXPECT_EQ(r.readouts, 1);
    EXPECT_TRUE(r.form == compiler::CallForm()) << compiler::tuning_record_line(r);
    EXPECT_NE(read(path("tuning.db")).find(compiler::tuning_record_line(r)), std::string::npos);
    EXPECT_NE(compiler::tuning_record_line(r).find(" decay=scalar"), std::string::npos);
  }
  const std::string json = read(path("r/tune.json"));
  EXPECT_EQ(json.find("\"decay\": \"channel\""), std::string::npos);
  EXPECT_NE(json.find("\"Hk\": 2, \"Hq\": 2, \"decay\": \"scalar\", \"layout\": \"bhtd\", \"seqlens\": [], "
                      "\"in_place\": false, \"readouts\": 1"),
            std::string::npos) << json;
  EXPECT_NE(read(path("r/tune.md")).find("form: Hk=H Hq=H decay=scalar"), std::string::npos);

  ASSERT_EQ(run("--H 2 --Hq 4 --Hk 1 --layout bthd --seqlens 5,0,1 --in-place 1 --K 16 --V 16 --threads 1 "
                "--seconds 0.002 --widths 4 --report " + path("r/tune") + " --db " + path("grouped.db"),
                &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("form: Hk=1 Hq=4 decay=channel layout=bthd seqlens=5,0,1 in_place=1\n"), std::string::npos)
      << out;
  ASSERT_TRUE(compiler::read_tuning_db(path("grouped.db"), &file));
  ASSERT_EQ(file.records.size(), 2u);  // one T bucket x two routes
  std::set<Route> routes;
  for (const compiler::TuningRecord& r : file.records) {
    routes.insert(r.route);
    EXPECT_EQ(r.readouts, 2) << compiler::tuning_record_line(r);
    EXPECT_EQ(r.decay, DecayKind::Channel) << compiler::tuning_record_line(r);
    // One T, planned as the sequences' mean length (2): not decode's bucket.
    EXPECT_EQ(r.T_min, 2) << compiler::tuning_record_line(r);
    // The call's form keys it too: these records do not replace plain ones.
    EXPECT_NE(compiler::tuning_record_line(r).find(" readouts=2 layout=bthd key_group=2 varlen in_place"),
              std::string::npos) << compiler::tuning_record_line(r);
  }
  EXPECT_EQ(routes, (std::set<Route>{Route::Recurrent, Route::Chunked}));
  EXPECT_NE(read(path("r/tune.md")).find("## T = 6, threads = 1"), std::string::npos);
  EXPECT_NE(read(path("r/tune.json")).find("\"seqlens\": [5, 0, 1], \"in_place\": true, \"readouts\": 2"),
            std::string::npos);
}

TEST_F(GdrTuneTest, BadFlagsGiveOneLineNamingTheFlagAndWriteNothing) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--routes fast", "--routes"},
      {"--routes baseline-two-pass", "--routes"},
      {"--widths 32", "--widths"},
      {"--widths 12", "--widths"},
      {"--seconds 0", "--seconds"},
      {"--seconds inf", "--seconds"},  // ran forever
      {"--seconds 1e999", "--seconds"},
      {"--budget 0", "--budget: expected a number > 0 and <= 86400, got '0'"},
      {"--budget inf", "--budget: expected a number > 0 and <= 86400, got 'inf'"},
      {"--budget nan", "--budget"},
      {"--budget -5", "--budget"},
      {"--budget 86401", "--budget"},
      {"--budget 2x", "--budget"},
      {"--T 0", "--T"},
      {"--threads 100000", "--threads"},
      {"--K 0", "--K"},
      {"--frobnicate 1", "--frobnicate"},
      {"--H 1048576 --V 1048576", "--H"},  // 2^40 floats of state per head row: no memory
      {"--decay diagonal", "--decay"},
      {"--layout hbtd", "--layout"},
      {"--Hk 3", "--Hk"},  // does not divide H = 32
      {"--Hq 5", "--Hq"},
      {"--seqlens 3,4 --T 7", "--seqlens"},
      {"--seqlens 3,4 --B 2", "--seqlens"},
      {"--in-place 2", "--in-place"},
  };
  for (const auto& [args, flag] : cases) {
    std::string out, err;
    EXPECT_EQ(run(args + " --report " + path("r/tune") + " --db " + path("tuning.db"), &out, &err), 2)
        << args;
    EXPECT_EQ(err.rfind("gdr-tune: ", 0), 0u) << args << ": " << err;
    EXPECT_NE(err.find(flag), std::string::npos) << args << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(std::filesystem::exists(path("r")));
    EXPECT_FALSE(std::filesystem::exists(path("tuning.db")));
  }
}

// A --report or --db that cannot be written fails before any tuning, with
// one line naming the flag, and writes nothing.
TEST_F(GdrTuneTest, UnwritableTargetsFailBeforeTuning) {
  std::ofstream(path("file")) << "x";
  const std::string tiny = "--H 1 --K 4 --V 4 --T 1 --threads 1 --seconds 0.001 --widths 4 ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--report " + path("file/r/tune") + " --db " + path("tuning.db"), "--report"},
      {"--report " + path("r/tune") + " --db " + path("file/tuning.db"), "--db"},
  };
  for (const auto& [args, flag] : cases) {
    std::string out, err;
    EXPECT_EQ(run(tiny + args, &out, &err), 2) << args;
    EXPECT_EQ(err.rfind("gdr-tune: " + flag + " ", 0), 0u) << args << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(out.find("== T"), std::string::npos) << out;  // no tuning ran
    EXPECT_FALSE(std::filesystem::exists(path("tuning.db")));
    EXPECT_FALSE(std::filesystem::exists(path("r")));  // not even the report's folder
  }
}

// The report's files are neither the database (written after them, it
// would read the report back) nor folders; lengths that sum to no token are
// nothing to time. Each refused before tuning, the database as it was.
// ... and so are (found by a review, each refused only after the tuning or
// not at all) a FIFO, two names of one file, a user's file that is not a
// report (never clobbered) and a prefix that names a folder; none leaves a
// folder or temporary behind.
TEST_F(GdrTuneTest, ReportFilesThatAreTheDatabaseOrFoldersAreRefusedBeforeTuning) {
  const std::string db = std::string(compiler::kTuningDbHeader) + "\n";
  std::ofstream(path("r.json")) << db;
  std::filesystem::create_directory(path("s.md"));
  ASSERT_EQ(::mkfifo(path("f.json").c_str(), 0600), 0);
  std::ofstream(path("notes.md")) << "my notes\n";
  // Two of a report's plots, one file.
  std::ofstream(path("h-time-per-token.svg"))
      << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"820\"/>\n";
  std::filesystem::create_hard_link(path("h-time-per-token.svg"), path("h-chunked-grid.svg"));
  const std::string tiny = "--H 1 --K 4 --V 4 --threads 1 --seconds 0.001 --widths 4 ";
  const std::pair<std::string, std::string> cases[] = {
      {"--T 1 --report " + path("r") + " --db " + path("r.json"),
       "gdr-tune: --report " + path("r") + ": " + path("r.json") +
           " is the --db file (gdr-tune never overwrites an input)\n"},
      {"--T 1 --report " + path("s") + " --db " + path("db"),
       "gdr-tune: --report " + path("s") + ": " + path("s.md") + ": is a folder, not a file gdr may replace\n"},
      {"--T 1 --report " + path("f") + " --db " + path("db"),
       "gdr-tune: --report " + path("f") + ": " + path("f.json") + ": is a FIFO, not a file gdr may replace\n"},
      {"--T 1 --report " + path("notes") + " --db " + path("db"),
       "gdr-tune: --report " + path("notes") + ": " + path("notes.md") +
           " exists and is not a gdr-tune report; not replaced (remove it or give another --report)\n"},
      {"--T 1 --report " + path("h") + " --db " + path("db"),
       "gdr-tune: --report " + path("h") + ": " + path("h-chunked-grid.svg") + ": is the same file as " +
           path("h-time-per-token.svg") + "\n"},
      {"--T 1 --report " + path("new/sub/") + " --db " + path("db"),
       "gdr-tune: --report " + path("new/sub/") +
           ": names a folder; give a prefix for the files, such as reports/tune\n"},
      {"--seqlens 0,0 --report " + path("t") + " --db " + path("db"),
       "gdr-tune: --seqlens: the lengths sum to 0 tokens: nothing to time\n"},
  };
  for (const auto& [args, message] : cases) {
    std::string out, err;
    EXPECT_EQ(run(tiny + args, &out, &err), 2) << args;
    EXPECT_EQ(err, message) << args;
    EXPECT_EQ(out.find("== T"), std::string::npos) << out;  // no tuning ran
  }
  EXPECT_EQ(read(path("r.json")), db);
  EXPECT_EQ(read(path("notes.md")), "my notes\n");
  EXPECT_FALSE(std::filesystem::exists(path("db")));
  EXPECT_FALSE(std::filesystem::exists(path("new")));
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path("r.json")).parent_path()))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
}

// A database with lines gdr-tune cannot read is not overwritten (that would
// drop them): one line naming the file and line, before any tuning.
TEST_F(GdrTuneTest, MalformedDatabaseIsNotOverwritten) {
  const std::string text = std::string(compiler::kTuningDbHeader) + "\ncpu 16 16 0 5 1 recurrent w4-vt4-u1 oops\n";
  std::ofstream(path("tuning.db")) << text;
  std::string out, err;
  EXPECT_EQ(run("--H 1 --K 4 --V 4 --T 1 --threads 1 --seconds 0.001 --widths 4 --report " +
                    path("r/tune") + " --db " + path("tuning.db"),
                &out, &err),
            2);
  EXPECT_EQ(err.rfind("gdr-tune: --db " + path("tuning.db") + ":2: median_ns", 0), 0u) << err;
  EXPECT_NE(err.find("not overwritten"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(read(path("tuning.db")), text);
  EXPECT_FALSE(std::filesystem::exists(path("r")));  // a refused command line creates no folder
}

}  // namespace
}  // namespace gdr::tune
