// gdr-tune: a wrong candidate is excluded and never chosen; end to end on a
// tiny shape with a tiny budget, the report and the database it writes;
// bad flags give one line naming the flag.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "candidates.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/tuning_db.h"
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
    return Status::ok();
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
  const CaseResult c = tune_case(o, 7, 1, checker);
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
  EXPECT_EQ(timed.T, 7);
  EXPECT_EQ(timed.query_heads, 4);
  EXPECT_EQ(timed.key_heads, 1);
  EXPECT_EQ(timed.decay_kind, DecayKind::Scalar);
  EXPECT_EQ(timed.layout, Layout::TokenMajor);
  EXPECT_EQ(timed.cu_seqlens.size, 4);
  EXPECT_TRUE(timed.in_place);
  size_t variants = 0, chunked = 0;
  for (const Entry& e : c.entries) {
    EXPECT_TRUE(e.check.ok) << e.candidate.name() << ": " << e.check.why;
    if (e.candidate.baseline() || e.candidate.schedule == "spy") continue;
    ++variants;
    chunked += e.candidate.route == Route::Chunked;
    EXPECT_EQ(e.candidate.variant.decay, DecayKind::Scalar) << e.candidate.name();
    EXPECT_EQ(e.candidate.variant.readouts, 2) << e.candidate.name();
  }
  EXPECT_GT(variants, chunked);
  EXPECT_GT(chunked, 0u);
  EXPECT_TRUE(c.winners.count(Route::Recurrent));
  EXPECT_TRUE(c.winners.count(Route::Chunked));
}

TEST(Tuner, CoarseThenFineSpace) {
  // Tiles of more than one vector wider than V are left out.
  EXPECT_EQ(recurrent_coarse({4, 8}, 16).size(), 3u + 2u);  // w4: 1, 2, 4 vectors; w8: 1, 2
  EXPECT_EQ(recurrent_coarse({16}, 20).size(), 1u);         // one vector and a masked tail
  EXPECT_EQ(recurrent_coarse({16}, 128).size(), 4u);
  // Unroll 1, 2, 4 (at most K), then prefetch 0 and 4 at unroll 1.
  EXPECT_EQ(recurrent_fine({{4, 8, 1}}, 2).size(), 2u + 2u);
  EXPECT_EQ(recurrent_fine({{4, 8, 1}, {8, 8, 1}}, 128).size(), 2 * (3u + 2u));
  EXPECT_EQ(chunked_space({4, 8, 16}).size(), 9u);
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
  for (const auto& s : recurrent_coarse({4}, 16))
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
  // buckets cut at the geometric mean of 1 and 40 (6.3).
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
    EXPECT_EQ(db[i].T_max, decode ? 6 : compiler::kUnboundedT);
    if (!decode) EXPECT_EQ(db[i].T_min, 7);
    EXPECT_NE(md.find("winner: `" + db[i].schedule + "`"), std::string::npos) << db[i].schedule;
  }
  EXPECT_NE(out.find("report: " + path("r/tune") + ".md"), std::string::npos) << out;
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
    EXPECT_EQ(r.T_min, 0) << compiler::tuning_record_line(r);  // one T: the sequences' sum, 6
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
    EXPECT_FALSE(std::filesystem::exists(path("r/tune.md")));
  }
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
}

}  // namespace
}  // namespace gdr::tune
