// gdr-run end to end: real files in, real files out, one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <unistd.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/types.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "npy.h"
#include "gdr/reference/reference.h"
#include "scoped_env.h"
#include "temp_dir.h"

// Built with AddressSanitizer (clang says so by __has_feature, GCC by
// __SANITIZE_ADDRESS__; nested: GCC 12 cannot parse the former).
#if defined(__SANITIZE_ADDRESS__)
#define GDR_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GDR_TEST_UNDER_ASAN 1
#endif
#endif

namespace gdr::test {
namespace {

struct RunResult {
  int exit_code;
  std::string stderr_text;
};

class GdrRunTest : public ::testing::Test {
 public:
  std::string path(const std::string& name) const { return temp_.path(name); }

  // data: a Problem's LineAlignedFloats or a std::vector<float> ({...}).
  template <class Floats = std::vector<float>>
  void write(const std::string& name, std::vector<int64_t> shape, const Floats& data) {
    ASSERT_TRUE(npy::write(path(name), {shape, {data.begin(), data.end()}}));
  }

  void write_problem(const Problem& p) {
    write("q.npy", {p.B, p.H, p.T, p.K}, p.query);
    write("k.npy", {p.B, p.H, p.T, p.K}, p.key);
    write("v.npy", {p.B, p.H, p.T, p.V}, p.value);
    write("d.npy", {p.B, p.H, p.T, p.K}, p.decay);
    write("b.npy", {p.B, p.H, p.T}, p.beta);
    write("s.npy", {p.B, p.H, p.K, p.V}, p.initial_state);
  }

  // Removes run()'s outputs, so that what a test reads next is the next
  // run's (a route that exits 0 and writes nothing passed on the last one's).
  void remove_outputs() const {
    for (const char* name : {"out.npy", "fs.npy"}) std::remove(path(name).c_str());
  }

  RunResult run(const std::string& extra = "") const {
    const std::string cmd = std::string(GDR_RUN_PATH) + " --query " + path("q.npy") + " --key " +
                            path("k.npy") + " --value " + path("v.npy") + " --decay " +
                            path("d.npy") + " --beta " + path("b.npy") + " --initial-state " +
                            path("s.npy") + " --out " + path("out.npy") + " --final-state " +
                            path("fs.npy") + " " + extra + " 2> " + path("stderr.txt");
    int status = std::system(cmd.c_str());
    std::ifstream err(path("stderr.txt"));
    std::stringstream text;
    text << err.rdbuf();
    return {WEXITSTATUS(status), text.str()};
  }

  // gdr-run with each file flag given as in run() unless `files` names it
  // otherwise (relative names are in the test's folder), then `extra`.
  RunResult run_files(const std::map<std::string, std::string>& files, const std::string& extra = "") const {
    std::map<std::string, std::string> all = {
        {"--query", "q.npy"}, {"--key", "k.npy"}, {"--value", "v.npy"}, {"--decay", "d.npy"},
        {"--beta", "b.npy"}, {"--initial-state", "s.npy"}, {"--out", "out.npy"},
        {"--final-state", "fs.npy"}};
    for (const auto& [flag, file] : files) all[flag] = file;
    // `timeout`: a hang (a FIFO read, say) fails the test instead of the suite.
    std::string cmd = "cd " + dir_ + " && timeout 120 " + GDR_RUN_PATH;
    for (const auto& [flag, file] : all) cmd += " " + flag + " '" + file + "'";
    cmd += " " + extra + " 2> " + path("stderr.txt");
    const int status = std::system(cmd.c_str());
    std::ifstream err(path("stderr.txt"));
    std::stringstream text;
    text << err.rdbuf();
    return {WEXITSTATUS(status), text.str()};
  }

  std::string bytes_of(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // Every file in the folder with its bytes, but gdr-run's stderr capture.
  std::map<std::string, std::string> folder_contents() const {
    std::map<std::string, std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir_))
      if (e.path().filename() != "stderr.txt")
        files[e.path().filename().string()] =
            e.is_regular_file() ? bytes_of(e.path().filename().string()) : "(not a regular file)";
    return files;
  }

  bool exists(const std::string& name) const { return access(path(name).c_str(), F_OK) == 0; }

  // `p` with the out and final_state gdr-run wrote; a missing or unreadable
  // file is a test failure and leaves them as they were.
  Problem outputs_of(const Problem& p) const {
    npy::Array out, fs;
    Problem result = p;
    if (!npy::read(path("out.npy"), &out) || !npy::read(path("fs.npy"), &fs)) {
      ADD_FAILURE() << "gdr-run wrote no readable out.npy / fs.npy";
      return result;
    }
    result.out.assign(out.data.begin(), out.data.end());
    result.final_state.assign(fs.data.begin(), fs.data.end());
    return result;
  }

  // Writes any form of `p` as gdr-run reads it: the tensors in the form's
  // layout, the decay of rank 3 if scalar, the state pools, and c.npy,
  // ii.npy, fi.npy for the offsets and indices (int32 or int64 as the form
  // says). fs.npy gets the problem's final pool when it has final indices
  // (gdr-run keeps the rows no sequence writes).
  void write_form(const Problem& p) {
    const ProblemForm& f = p.form;
    const bool tm = f.layout == Layout::TokenMajor;
    auto shape = [&](int64_t heads, int64_t width) {
      std::vector<int64_t> s = tm ? std::vector<int64_t>{p.B, p.T, heads} : std::vector<int64_t>{p.B, heads, p.T};
      if (width) s.push_back(width);
      return s;
    };
    const int64_t Hq = f.query_heads ? f.query_heads : p.H, Hk = f.key_heads ? f.key_heads : p.H;
    const int64_t N = f.seqlens.empty() ? p.B : static_cast<int64_t>(f.seqlens.size());
    write("q.npy", shape(Hq, p.K), p.query);
    write("k.npy", shape(Hk, p.K), p.key);
    write("v.npy", shape(p.H, p.V), p.value);
    write("d.npy", shape(p.H, f.decay == DecayKind::Scalar ? 0 : p.K), p.decay);
    write("b.npy", shape(p.H, 0), p.beta);
    const int64_t rows = f.initial_state_indices.empty() ? N : f.initial_state_slots;
    write("s.npy", {rows, p.H, p.K, p.V}, p.initial_state);
    auto ints = [&](const std::string& name, const std::vector<int64_t>& i64, const std::vector<int32_t>& i32) {
      npy::IntArray a;
      a.shape = {static_cast<int64_t>(i64.size())};
      a.int32 = f.int32_indices;
      a.data64 = i64;
      a.data32 = i32;
      ASSERT_TRUE(npy::write(path(name), a));
    };
    std::remove(path("fs.npy").c_str());
    if (!f.seqlens.empty()) ints("c.npy", p.cu_seqlens, p.cu_seqlens32);
    if (!f.initial_state_indices.empty()) ints("ii.npy", p.initial_indices, p.initial_indices32);
    if (!f.final_state_indices.empty()) {
      ints("fi.npy", p.final_indices, p.final_indices32);
      if (!f.in_place) write("fs.npy", {f.final_state_slots, p.H, p.K, p.V}, p.final_state);
    }
  }

  // The flags naming write_form's files for `p`'s form.
  static std::string form_flags(const Problem& p) {
    const ProblemForm& f = p.form;
    std::string flags = std::string("--layout ") + layout_name(f.layout);
    if (!f.seqlens.empty()) flags += " --cu-seqlens c.npy";
    if (!f.initial_state_indices.empty()) flags += " --initial-state-indices ii.npy";
    if (!f.final_state_indices.empty()) flags += " --final-state-indices fi.npy";
    return flags;
  }

  // gdr-run in the test's folder with exactly `args` (file names relative).
  RunResult run_in_folder(const std::string& args) const {
    const std::string cmd = "cd " + dir_ + " && timeout 120 " + GDR_RUN_PATH + " " + args + " 2> " +
                            path("stderr.txt");
    const int status = std::system(cmd.c_str());
    return {WEXITSTATUS(status), bytes_of("stderr.txt")};
  }

  // `p` with the out and the final pool read from `out` and `pool`.
  Problem outputs_from(const Problem& p, const std::string& out_file, const std::string& pool_file) const {
    npy::Array out, fs;
    Problem result = p;
    if (!npy::read(path(out_file), &out) || !npy::read(path(pool_file), &fs)) {
      ADD_FAILURE() << "gdr-run wrote no readable " << out_file << " / " << pool_file;
      return result;
    }
    result.out.assign(out.data.begin(), out.data.end());
    (p.form.in_place ? result.initial_state : result.final_state).assign(fs.data.begin(), fs.data.end());
    return result;
  }

  const TempDir temp_{"gdr-run-test"};
  const std::string dir_ = temp_.str();
};

TEST_F(GdrRunTest, EveryAvailableRouteMatchesFloat64) {
  std::vector<const char*> routes = {"auto", "reference", "baseline-two-pass",
                                     "baseline-chunked"};
#ifdef GDR_HAVE_COMPILER
  // Generated code: needs the compiler in the build (the sanitizer build has none).
  for (const char* generated : {"recurrent", "chunked", "chunked-autoschedule"})
    routes.push_back(generated);
#endif
  for (const char* route : routes) {
    Problem p = make_problem(2, 3, 45, 12, 20, {DecayRegime::NearOne, BetaRegime::Uniform, true, 99});
    write_problem(p);
    remove_outputs();
    RunResult r = run(std::string("--route ") + route + " --threads 2");
    ASSERT_EQ(r.exit_code, 0) << route << ": " << r.stderr_text;
    npy::Array out, fs;
    ASSERT_TRUE(npy::read(path("out.npy"), &out));
    ASSERT_TRUE(npy::read(path("fs.npy"), &fs));
    EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 3, 45, 20}));
    EXPECT_EQ(fs.shape, (std::vector<int64_t>{2, 3, 12, 20}));
    p.out.assign(out.data.begin(), out.data.end());
    p.final_state.assign(fs.data.begin(), fs.data.end());
    EXPECT_LE(relative_error(p, reference_f64(p)), 1e-4) << route;
  }
}

#ifdef GDR_HAVE_COMPILER
// Halide's Adams2019 autoscheduler printed five lines of its search on
// every compile; gdr-run keeps them off stderr below GDR_VERBOSE=2.
TEST_F(GdrRunTest, AnAutoscheduledCompileIsQuietBelowVerbosity2) {
  const ScopedEnv no_cache("GDR_CACHE_DIR", "off");  // compiled by the run, not found in a cache
  const ScopedEnv unset("HL_DEBUG_AUTOSCHEDULE", std::nullopt);
  write_problem(make_problem(1, 2, 20, 8, 8));
  RunResult r = run("--route chunked-autoschedule");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stderr_text, "");
  const ScopedEnv verbose("GDR_VERBOSE", "2");
  r = run("--route chunked-autoschedule");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("generate_schedule for target="), std::string::npos) << r.stderr_text;
}
#endif

TEST_F(GdrRunTest, EmptySequence) {
  Problem p = make_problem(1, 2, 0, 4, 3);
  write_problem(p);
  RunResult r = run();
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  npy::Array fs;
  ASSERT_TRUE(npy::read(path("fs.npy"), &fs));
  EXPECT_EQ(fs.data, std::vector<float>(p.initial_state.begin(), p.initial_state.end()));
}

TEST_F(GdrRunTest, ExplainSaysWhichRouteAndScheduleRan) {
  write_problem(make_problem(1, 2, 3, 8, 8));
  RunResult r = run("--route auto --threads 1 --explain 1 > " + path("stdout.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::ifstream in(path("stdout.txt"));
  std::string line;
  std::getline(in, line);
#ifdef GDR_HAVE_COMPILER
  // The plan: the tuned schedule if a database matches, else the default.
  EXPECT_EQ(line.rfind("gdr-run: auto ran recurrent w", 0), 0u) << line;
  EXPECT_TRUE(line.find(" (default)") != std::string::npos || line.find(" (tuned)") != std::string::npos)
      << line;
#else
  EXPECT_EQ(line, "gdr-run: auto ran reference");
#endif
}

struct BadRun {
  const char* name;
  std::function<void(GdrRunTest*)> prepare;
  std::string extra;
  const char* must_mention;
  int exit_code;  // 1: a file or the op failed; 2: the command line is wrong
};

TEST_F(GdrRunTest, ErrorsAreOneLineAndWriteNothing) {
  const Problem good = make_problem(1, 2, 5, 4, 6);
  std::vector<BadRun> cases = {
      {"wrong key shape", [](GdrRunTest* t) { t->write("k.npy", {1, 2, 5, 3}, std::vector<float>(30)); },
       "", "--key", 1},
      {"wrong beta rank", [](GdrRunTest* t) { t->write("b.npy", {1, 2, 5, 1}, std::vector<float>(10)); },
       "", "--beta", 1},
      {"query rank 3", [](GdrRunTest* t) { t->write("q.npy", {2, 5, 4}, std::vector<float>(40)); }, "",
       "--query", 1},
      {"zero heads",
       [](GdrRunTest* t) {
         t->write("q.npy", {1, 0, 5, 4}, {});
         t->write("k.npy", {1, 0, 5, 4}, {});
         t->write("v.npy", {1, 0, 5, 6}, {});
         t->write("d.npy", {1, 0, 5, 4}, {});
         t->write("b.npy", {1, 0, 5}, {});
         t->write("s.npy", {1, 0, 4, 6}, {});
       },
       "", "v.npy: H (its heads) must be positive", 1},
      {"truncated decay",
       [](GdrRunTest* t) {
         std::ofstream f(t->path("d.npy"), std::ios::binary | std::ios::trunc);
         f << "\x93NUMPY";
       },
       "", "--decay", 1},
      {"missing value file", [](GdrRunTest* t) { std::remove(t->path("v.npy").c_str()); }, "",
       "--value", 1},
      {"unknown route", [](GdrRunTest*) {}, "--route fastest", "--route", 2},
      {"bad threads", [](GdrRunTest*) {}, "--threads zero", "--threads", 2},
      {"unknown flag", [](GdrRunTest*) {}, "--frobnicate 1", "--frobnicate", 2},
      {"bad explain", [](GdrRunTest*) {}, "--explain 2", "--explain", 2},
  };
#ifndef GDR_HAVE_COMPILER
  cases.push_back({"route not in this build", [](GdrRunTest*) {}, "--route chunked", "chunked", 1});
#endif
  for (const BadRun& c : cases) {
    write_problem(good);
    std::remove(path("out.npy").c_str());
    std::remove(path("fs.npy").c_str());
    c.prepare(this);
    RunResult r = run(c.extra);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.name;
    EXPECT_NE(r.stderr_text.find(c.must_mention), std::string::npos)
        << c.name << ": '" << r.stderr_text << "'";
    EXPECT_EQ(r.stderr_text.rfind("gdr-run: ", 0), 0u) << c.name;
    EXPECT_FALSE(exists("out.npy")) << c.name;
    EXPECT_FALSE(exists("fs.npy")) << c.name;
  }
}

// The whole interface from the files' shapes: GVA (key 2 heads, value 4),
// scalar decay (rank-3 decay file), token-major, four sequences of
// different lengths (one empty, one of one token) and state slots read and
// written through index files; then grouped readout (query 2H heads) with
// channelwise decay, head-major. Against float64 within the contract; the
// out file has max(Hq, H) heads in the layout, the final state the pool's
// shape, and pool rows no sequence writes keep what fs.npy held.
TEST_F(GdrRunTest, EveryFormFromTheFilesShapesMatchesFloat64) {
  ProblemForm gva;
  gva.key_heads = 2;
  gva.layout = Layout::TokenMajor;
  gva.decay = DecayKind::Scalar;
  gva.seqlens = {9, 0, 1, 23};
  gva.initial_state_indices = {2, -1, 0, 4};
  gva.initial_state_slots = 5;
  gva.final_state_indices = {1, 3, 5, 0};
  gva.final_state_slots = 6;
  ProblemForm readout;
  readout.query_heads = 6;
  std::vector<std::pair<ProblemForm, int64_t>> forms = {{gva, 4}, {readout, 3}};
  std::vector<const char*> routes = {"auto", "reference", "baseline-two-pass", "baseline-chunked"};
#ifdef GDR_HAVE_COMPILER
  routes.push_back("recurrent");
  routes.push_back("chunked");
#endif
  for (const auto& [form, H] : forms)
    for (const char* route : routes) {
      ProblemOptions o{DecayRegime::NearOne, BetaRegime::Uniform, true, 17};
      o.form = form;
      Problem p = make_problem(2, H, 11, 12, 20, o);
      write_form(p);
      const RunResult r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                                        "--initial-state s.npy --out out.npy --final-state fs.npy " +
                                        form_flags(p) + " --threads 2 --route " + route);
      ASSERT_EQ(r.exit_code, 0) << route << ": " << r.stderr_text;
      npy::Array out, fs;
      ASSERT_TRUE(npy::read(path("out.npy"), &out));
      ASSERT_TRUE(npy::read(path("fs.npy"), &fs));
      const int64_t Hout = std::max(form.query_heads, H);
      const std::vector<int64_t> out_shape = form.layout == Layout::TokenMajor
                                                 ? std::vector<int64_t>{p.B, p.T, Hout, p.V}
                                                 : std::vector<int64_t>{p.B, Hout, p.T, p.V};
      EXPECT_EQ(out.shape, out_shape) << route;
      const int64_t rows = form.final_state_indices.empty() ? p.B : form.final_state_slots;
      EXPECT_EQ(fs.shape, (std::vector<int64_t>{rows, H, p.K, p.V})) << route;
      EXPECT_LE(relative_error(outputs_from(p, "out.npy", "fs.npy"), reference_f64(p)), 1e-4) << route;
    }
}

// Forms nobody chose: a fixed-seed generator draws head groups, layout,
// decay kind, a varlen batch (zero-length sequences included) or a plain
// one, state slots (permuted, some from zeros), in place, index types and
// ragged K, V; gdr-run's auto route must match float64 on each.
TEST_F(GdrRunTest, RandomFormsMatchFloat64) {
  std::mt19937 rng(20261201);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t H = std::vector<int64_t>{1, 2, 4, 6}[pick(0, 3)];
    ProblemForm f;
    const int64_t group = pick(0, 2);  // 0: none, 1: grouped values, 2: grouped readout
    if (group == 1) f.key_heads = f.query_heads = H % 2 == 0 ? H / 2 : H;
    if (group == 2) f.query_heads = H * pick(2, 3);
    f.layout = pick(0, 1) ? Layout::TokenMajor : Layout::HeadMajor;
    f.decay = pick(0, 1) ? DecayKind::Scalar : DecayKind::Channel;
    f.int32_indices = pick(0, 1);
    int64_t B = pick(1, 3), T = pick(0, 40);
    if (pick(0, 1)) {
      B = 1;
      for (int64_t n = pick(1, 5); n > 0; --n) f.seqlens.push_back(pick(0, 3) == 0 ? 0 : pick(1, 30));
    }
    const int64_t N = f.seqlens.empty() ? B : static_cast<int64_t>(f.seqlens.size());
    if (pick(0, 1)) {
      f.initial_state_slots = f.final_state_slots = N + pick(0, 2);
      std::vector<int64_t> slots(f.final_state_slots);
      std::iota(slots.begin(), slots.end(), 0);
      std::shuffle(slots.begin(), slots.end(), rng);
      f.final_state_indices.assign(slots.begin(), slots.begin() + N);
      f.in_place = pick(0, 1);
      // In place, a sequence may read only its own slot (or start from zeros).
      for (int64_t i = 0; i < N; ++i)
        f.initial_state_indices.push_back(pick(0, 3) == 0 ? -1 : f.in_place ? f.final_state_indices[i] : pick(0, f.initial_state_slots - 1));
    }
    const int64_t K = pick(1, 40), V = pick(1, 40);
    ProblemOptions o{DecayRegime::NearOne, BetaRegime::Uniform, true, static_cast<uint64_t>(trial)};
    o.form = f;
    Problem p = make_problem(B, H, T, K, V, o);
    write_form(p);
    const std::string pool = f.in_place ? "s.npy" : "fs.npy";
    const RunResult r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                                      "--initial-state s.npy --out out.npy --final-state " + pool + " " +
                                      form_flags(p) + (f.in_place ? " --in-place 1" : "") + " --threads 2");
    ASSERT_EQ(r.exit_code, 0) << describe(p) << ": " << r.stderr_text;
    const Reference ref = reference_f64(p);
    EXPECT_LE(relative_error(outputs_from(p, "out.npy", pool), ref), 1e-4) << describe(p);
  }
}

// No --initial-state: the states start from zeros.
TEST_F(GdrRunTest, WithoutAnInitialStateTheStatesStartFromZeros) {
  Problem p = make_problem(2, 3, 10, 8, 8, {DecayRegime::NearOne, BetaRegime::Uniform, true, 23});
  std::fill(p.initial_state.begin(), p.initial_state.end(), 0.f);
  write_problem(p);
  const RunResult r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                                    "--out out.npy --final-state fs.npy");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_LE(relative_error(outputs_of(p), reference_f64(p)), 1e-4);
}

// --in-place 1 with --final-state naming the --initial-state pool: the pool
// is read and updated through one file (renamed over it: a new inode), and
// matches float64 and the functional run bit for bit. Without --in-place
// the same command is refused before any work and changes nothing.
TEST_F(GdrRunTest, InPlaceUpdatesThePoolFile) {
  ProblemOptions o{DecayRegime::NearOne, BetaRegime::Uniform, true, 29};
  o.form.layout = Layout::TokenMajor;
  o.form.seqlens = {7, 3, 12};
  o.form.initial_state_indices = {3, -1, 1};
  o.form.final_state_indices = {3, 0, 1};
  o.form.initial_state_slots = o.form.final_state_slots = 4;
  o.form.in_place = true;
  Problem p = make_problem(1, 2, 0, 8, 12, o);
  const Reference ref = reference_f64(p);
  write_form(p);
  const std::string command = "--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                              "--initial-state s.npy --out out.npy --final-state s.npy " + form_flags(p);
  const auto before = folder_contents();
  RunResult r = run_in_folder(command);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.stderr_text.find("--final-state s.npy is the same file as --initial-state s.npy"),
            std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("--in-place 1"), std::string::npos) << r.stderr_text;
  EXPECT_EQ(folder_contents(), before);

  struct stat st;
  ASSERT_EQ(stat(path("s.npy").c_str(), &st), 0);
  const ino_t inode = st.st_ino;
  r = run_in_folder(command + " --in-place 1");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const Problem in_place = outputs_from(p, "out.npy", "s.npy");
  EXPECT_LE(relative_error(in_place, ref), 1e-4);
  ASSERT_EQ(stat(path("s.npy").c_str(), &st), 0);
  EXPECT_NE(st.st_ino, inode) << "the pool was not replaced through a temporary";
  for (const auto& [name, bytes] : folder_contents())
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << name << " was left behind";

  // Named through a symbolic link, the pool itself is updated (the link
  // stays a link): the same bits as the call above.
  const std::string updated = bytes_of("s.npy");
  write_form(p);
  ASSERT_EQ(::symlink("s.npy", path("link.npy").c_str()), 0);
  r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                    "--initial-state s.npy --out out.npy --final-state link.npy --in-place 1 " + form_flags(p));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(bytes_of("s.npy"), updated);
  ASSERT_EQ(lstat(path("link.npy").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  std::remove(path("link.npy").c_str());

  // Through a hard link it is refused (the new file would replace one of the
  // two names only), and --out naming the pool is refused without a hint
  // at --in-place, which cannot allow it.
  ASSERT_EQ(::link(path("s.npy").c_str(), path("hard.npy").c_str()), 0);
  const auto linked = folder_contents();
  r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                    "--initial-state s.npy --out out.npy --final-state hard.npy --in-place 1 " + form_flags(p));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.stderr_text, "gdr-run: --final-state hard.npy and --initial-state s.npy are two names (hard links) of "
                           "one file: in place, give the same name for both (the pool is replaced through a new "
                           "file, which would part the names)\n");
  EXPECT_EQ(folder_contents(), linked);
  std::remove(path("hard.npy").c_str());
  r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                    "--initial-state s.npy --out s.npy --final-state fs.npy --in-place 1 " + form_flags(p));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.stderr_text.find("--in-place"), std::string::npos) << r.stderr_text;

  // The same call functional: the same bits.
  write_form(p);
  write("fs.npy", {4, p.H, p.K, p.V}, p.initial_state);
  r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                    "--initial-state s.npy --out out2.npy --final-state fs.npy " + form_flags(p));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(bytes_of("out2.npy"), bytes_of("out.npy"));
  npy::Array fs;
  ASSERT_TRUE(npy::read(path("fs.npy"), &fs));
  EXPECT_EQ(fs.data, std::vector<float>(in_place.initial_state.begin(), in_place.initial_state.end()));
}

// An existing final pool that --final-state-indices writes into, named
// through a symbolic link, is updated where the link points, the link kept
// (before, it was read through the link and written over the link itself,
// the pool left as it was).
TEST_F(GdrRunTest, AFinalPoolNamedThroughALinkIsWrittenThroughIt) {
  ProblemOptions o{DecayRegime::NearOne, BetaRegime::Uniform, true, 41};
  o.form.seqlens = {4, 6};
  o.form.final_state_indices = {2, 0};
  o.form.final_state_slots = 3;
  Problem p = make_problem(1, 2, 0, 8, 8, o);
  const Reference ref = reference_f64(p);
  write_form(p);
  write("pool.npy", {3, p.H, p.K, p.V}, p.final_state);  // row 1, which no sequence writes, kept
  ASSERT_EQ(::symlink("pool.npy", path("link.npy").c_str()), 0);
  RunResult r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                              "--initial-state s.npy --out out.npy --final-state link.npy " + form_flags(p));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  struct stat st;
  ASSERT_EQ(lstat(path("link.npy").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced";
  EXPECT_LE(relative_error(outputs_from(p, "out.npy", "pool.npy"), ref), 1e-4);
}

// Files of no elements are given all the same: a pool of no slots that
// every sequence's -1 skips, and index files of no sequences (cu_seqlens
// [0]), whose call writes the whole final pool, zeros, not a header alone.
TEST_F(GdrRunTest, EmptyPoolsAndIndexFilesAreGiven) {
  ProblemOptions o{DecayRegime::NearOne, BetaRegime::Uniform, true, 37};
  o.form.seqlens = {3, 2};
  o.form.initial_state_indices = {-1, -1};
  o.form.initial_state_slots = 0;
  Problem p = make_problem(1, 2, 0, 8, 8, o);
  write_form(p);
  RunResult r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                              "--initial-state s.npy --out out.npy --final-state fs.npy " + form_flags(p));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_LE(relative_error(outputs_from(p, "out.npy", "fs.npy"), reference_f64(p)), 1e-4);

  for (const char* name : {"q.npy", "k.npy", "d.npy"}) write(name, {1, 2, 0, 8}, {});
  write("v.npy", {1, 2, 0, 8}, {});
  write("b.npy", {1, 2, 0}, {});
  write("s.npy", {3, 2, 8, 8}, std::vector<float>(3 * 2 * 8 * 8, 1.f));
  npy::IntArray none;
  none.shape = {0};
  ASSERT_TRUE(npy::write(path("ii.npy"), none));
  ASSERT_TRUE(npy::write(path("fi.npy"), none));
  npy::IntArray cu;
  cu.shape = {1};
  cu.data64 = {0};
  ASSERT_TRUE(npy::write(path("c.npy"), cu));
  std::remove(path("fs.npy").c_str());
  r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy --initial-state s.npy "
                    "--out out.npy --final-state fs.npy --cu-seqlens c.npy --initial-state-indices ii.npy "
                    "--final-state-indices fi.npy");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  npy::Array fs;
  ASSERT_TRUE(npy::read(path("fs.npy"), &fs));
  EXPECT_EQ(fs.shape, (std::vector<int64_t>{3, 2, 8, 8}));
  EXPECT_EQ(fs.data, std::vector<float>(3 * 2 * 8 * 8, 0.f));
}

// Offsets and indices as int32 ('<i4') and int64 ('<i8') files give the
// same bits; a float or 2-D index file is refused naming its flag.
TEST_F(GdrRunTest, IndexFilesAreInt32OrInt64) {
  std::string first;
  for (bool int32 : {false, true}) {
    ProblemOptions o{DecayRegime::NearOne, BetaRegime::Uniform, true, 31};
    o.form.seqlens = {5, 1, 9};
    o.form.initial_state_indices = {1, 0, -1};
    o.form.initial_state_slots = 2;
    o.form.final_state_indices = {2, 0, 1};
    o.form.final_state_slots = 3;
    o.form.int32_indices = int32;
    Problem p = make_problem(1, 2, 0, 8, 8, o);
    write_form(p);
    const std::string c_bytes = bytes_of("c.npy");
    EXPECT_NE(c_bytes.find(int32 ? "'<i4'" : "'<i8'"), std::string::npos);
    const RunResult r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                                      "--initial-state s.npy --out out.npy --final-state fs.npy " +
                                      form_flags(p));
    ASSERT_EQ(r.exit_code, 0) << int32 << ": " << r.stderr_text;
    EXPECT_LE(relative_error(outputs_from(p, "out.npy", "fs.npy"), reference_f64(p)), 1e-4) << int32;
    if (int32) EXPECT_EQ(bytes_of("out.npy"), first);
    first = bytes_of("out.npy");
  }
  const std::pair<std::function<void(GdrRunTest*)>, std::string> bad[] = {
      {[](GdrRunTest* t) { t->write("c.npy", {4}, {0, 5, 6, 15}); },
       "gdr-run: --cu-seqlens c.npy: dtype must be int32 or int64 little-endian ('<i4' or '<i8'), got '<f4'\n"},
      {[](GdrRunTest* t) {
         npy::IntArray a;
         a.shape = {2, 2};
         a.data64 = {0, 5, 6, 15};
         ASSERT_TRUE(npy::write(t->path("c.npy"), a));
       },
       "gdr-run: --cu-seqlens c.npy: expected rank 1, got shape (2, 2)\n"},
  };
  for (const auto& [prepare, message] : bad) {
    prepare(this);
    std::remove(path("out.npy").c_str());
    const RunResult r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                                      "--initial-state s.npy --out out.npy --final-state fs2.npy "
                                      "--cu-seqlens c.npy");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.stderr_text, message);
    EXPECT_FALSE(exists("out.npy"));
    EXPECT_FALSE(exists("fs2.npy"));
  }
}

// Every inconsistent shape or flag of the forms: one line naming the flag
// and its file, the right exit code, and no file written or changed.
TEST_F(GdrRunTest, FormErrorsAreOneLineNamingTheFlagAndWriteNothing) {
  ProblemOptions o{DecayRegime::NearOne, BetaRegime::Uniform, true, 37};
  o.form.key_heads = 4;
  o.form.layout = Layout::TokenMajor;
  o.form.seqlens = {3, 4};
  o.form.initial_state_indices = {0, 2};
  o.form.initial_state_slots = 3;
  o.form.final_state_indices = {1, 0};
  o.form.final_state_slots = 2;
  const Problem good = make_problem(1, 8, 0, 4, 6, o);  // T = 7
  const std::string files = "--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                            "--initial-state s.npy --out out.npy --final-state fs.npy ";
  const std::string all = files + form_flags(good);
  auto ints = [](std::vector<int64_t> v) {
    npy::IntArray a;
    a.shape = {static_cast<int64_t>(v.size())};
    a.data64 = v;
    return a;
  };
  struct Case {
    const char* name;
    std::function<void(GdrRunTest*)> prepare;
    std::string args;
    std::string message;  // the whole line, or its start if it ends in "..."
    int exit_code;
  };
  const std::vector<Case> cases = {
      {"key heads do not divide",
       [](GdrRunTest* t) { t->write("k.npy", {1, 7, 3, 4}, std::vector<float>(84)); }, all,
       "--key k.npy: has 3 heads, which does not divide value's 8", 1},
      {"query heads", [](GdrRunTest* t) { t->write("q.npy", {1, 7, 3, 4}, std::vector<float>(84)); }, all,
       "--query q.npy: has 3 heads; neither it nor value's 8 is a multiple of the other", 1},
      {"key tokens", [](GdrRunTest* t) { t->write("k.npy", {1, 6, 4, 4}, std::vector<float>(96)); }, all,
       "--key k.npy: shape (1, 6, 4, 4) does not match the expected (1, 7, 4, 4) (from --query q.npy and --value v.npy "
       "(--layout bthd))", 1},
      {"decay rank 2", [](GdrRunTest* t) { t->write("d.npy", {7, 8}, std::vector<float>(56)); }, all,
       "--decay d.npy: expected rank 4 (channelwise, [B, T, heads, K]) or 3 (scalar, [B, T, heads]) "
       "(--layout bthd), got shape (7, 8)", 1},
      {"scalar decay heads", [](GdrRunTest* t) { t->write("d.npy", {1, 7, 4}, std::vector<float>(28)); }, all,
       "--decay d.npy: shape (1, 7, 4) does not match the expected (1, 7, 8) (scalar decay, from --query q.npy "
       "and --value v.npy (--layout bthd))", 1},
      {"beta", [](GdrRunTest* t) { t->write("b.npy", {1, 8, 7}, std::vector<float>(56)); }, all,
       "--beta b.npy: shape (1, 8, 7) does not match the expected (1, 7, 8) (from --query q.npy and --value v.npy "
       "(--layout bthd))", 1},
      {"head-major files read token-major", [](GdrRunTest*) {}, files + "--layout bhtd --cu-seqlens c.npy "
       "--initial-state-indices ii.npy --final-state-indices fi.npy",
       "--key k.npy: shape (1, 7, 4, 4) does not match the expected (1, 7, 8, 4) (from --query q.npy and --value v.npy "
       "(--layout bhtd))", 1},
      {"state pool", [](GdrRunTest* t) { t->write("s.npy", {3, 8, 4, 5}, std::vector<float>(480)); }, all,
       "--initial-state s.npy: shape (3, 8, 4, 5) does not match the expected (S, 8, 4, 6) for a pool of S rows",
       1},
      {"states without indices", [](GdrRunTest*) {}, files + "--layout bthd --cu-seqlens c.npy",
       "--initial-state s.npy: shape (3, 8, 4, 6) does not match the expected (2, 8, 4, 6) (2 sequences "
       "(--cu-seqlens c.npy), H and V from --value v.npy, K from --query q.npy)", 1},
      {"final pool", [](GdrRunTest* t) { t->write("fs.npy", {2, 8, 5, 6}, std::vector<float>(480)); }, all,
       "--final-state fs.npy: shape (2, 8, 5, 6) does not match the expected (S, 8, 4, 6) for a pool of S rows "
       "(the pool --final-state-indices fi.npy writes into)", 1},
      {"last offset", [&](GdrRunTest* t) { ASSERT_TRUE(npy::write(t->path("c.npy"), ints({0, 3, 6}))); }, all,
       "--cu-seqlens c.npy: the last offset must be T=7, got 6", 1},
      {"offsets out of order",
       [&](GdrRunTest* t) { ASSERT_TRUE(npy::write(t->path("c.npy"), ints({0, 5, 3, 7}))); },
       files + "--layout bthd --cu-seqlens c.npy",
       "--cu-seqlens c.npy: must be non-decreasing: cu_seqlens[2] = 3 < cu_seqlens[1] = 5", 1},
      {"varlen with B = 2",
       [](GdrRunTest* t) {
         t->write("q.npy", {2, 7, 4, 4}, std::vector<float>(224));
         t->write("k.npy", {2, 7, 4, 4}, std::vector<float>(224));
         t->write("v.npy", {2, 7, 8, 6}, std::vector<float>(672));
         t->write("d.npy", {2, 7, 8, 4}, std::vector<float>(448));
         t->write("b.npy", {2, 7, 8}, std::vector<float>(112));
       },
       all, "--cu-seqlens c.npy: a variable-length batch needs B = 1, but --query q.npy has B = 2", 1},
      {"index out of range",
       [&](GdrRunTest* t) { ASSERT_TRUE(npy::write(t->path("ii.npy"), ints({0, 3}))); }, all,
       "--initial-state-indices ii.npy: initial_state_indices[1] = 3 is out of range [-1, 3)", 1},
      {"index count", [&](GdrRunTest* t) { ASSERT_TRUE(npy::write(t->path("fi.npy"), ints({1, 0, 2}))); }, all,
       "--final-state-indices fi.npy: has 3 entries, but there are 2 sequences (--cu-seqlens c.npy)", 1},
      {"duplicate destination",
       [&](GdrRunTest* t) { ASSERT_TRUE(npy::write(t->path("fi.npy"), ints({1, 1}))); }, all,
       "--final-state-indices fi.npy: sequences 0 and 1 both write slot 1", 1},
      {"indices without a pool", [](GdrRunTest*) {},
       "--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy --out out.npy --final-state fs.npy " +
           form_flags(good),
       "--initial-state-indices ii.npy: needs --initial-state, the pool it indexes", 2},
      {"in place: a slot another sequence reads",
       [&](GdrRunTest* t) {
         ASSERT_TRUE(npy::write(t->path("ii.npy"), ints({0, 2})));
         ASSERT_TRUE(npy::write(t->path("fi.npy"), ints({2, 1})));
       },
       "--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy --initial-state s.npy --out out.npy "
       "--final-state s.npy " + form_flags(good) + " --in-place 1",
       "--final-state-indices fi.npy: in place, sequence 0 writes slot 2, which sequence 1 reads", 1},
      {"in place: initial indices alone, over a pool of other than a row a sequence", [](GdrRunTest*) {},
       "--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy --initial-state s.npy --out out.npy "
       "--final-state s.npy --layout bthd --cu-seqlens c.npy --initial-state-indices ii.npy --in-place 1",
       "--initial-state s.npy: shape (3, 8, 4, 6) does not match the expected (2, 8, 4, 6) (2 sequences "
       "(--cu-seqlens c.npy), H and V from --value v.npy, K from --query q.npy) (--in-place 1 with "
       "--initial-state-indices ii.npy alone)", 1},
      {"unknown layout", [](GdrRunTest*) {}, files + "--layout hbtd", "--layout: expected bhtd or bthd, got 'hbtd'",
       2},
      {"bad in-place", [](GdrRunTest*) {}, all + " --in-place 2",
       "--in-place: expected an integer in [0, 1], got '2'", 2},
  };
  for (const Case& c : cases) {
    write_form(good);
    std::remove(path("fs.npy").c_str());
    c.prepare(this);
    const auto before = folder_contents();
    const RunResult r = run_in_folder(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.name << ": " << r.stderr_text;
    const std::string line = "gdr-run: " + c.message;
    if (line.size() > 3 && line.compare(line.size() - 3, 3, "...") == 0)
      EXPECT_EQ(r.stderr_text.rfind(line.substr(0, line.size() - 3), 0), 0u) << c.name << ": " << r.stderr_text;
    else
      EXPECT_EQ(r.stderr_text, line + "\n") << c.name;
    EXPECT_EQ(std::count(r.stderr_text.begin(), r.stderr_text.end(), '\n'), 1) << c.name;
    EXPECT_FALSE(exists("out.npy")) << c.name;
    EXPECT_EQ(folder_contents(), before) << c.name << ": a file was written or changed";
  }
}

#ifdef GDR_HAVE_COMPILER
// Inode of each file in `dir`: a rewritten entry (temporary file renamed
// over it) gets a new one, a loaded entry keeps its own.
std::map<std::string, ino_t> inodes(const std::string& dir) {
  std::map<std::string, ino_t> result;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    struct stat st;
    if (stat(e.path().c_str(), &st) == 0) result[e.path().string()] = st.st_ino;
  }
  return result;
}

// The disk cache across processes: the first gdr-run compiles and stores,
// the second loads the same entries (none rewritten) and gives the same
// bits; after every entry is damaged, the third says so once per entry,
// rebuilds them and still gives the same bits.
TEST_F(GdrRunTest, ASecondProcessLoadsTheCachedKernels) {
  const ScopedEnv cache_dir("GDR_CACHE_DIR");  // restored however the test ends
  struct Case {
    const char* route;
    size_t entries;
  };
  for (const Case& c : {Case{"recurrent", 1}, Case{"chunked", 2 /* kernel, Halide runtime */}}) {
    const char* route = c.route;
    const size_t entries = c.entries;
    const std::string cache = path(std::string("cache-") + route);
    cache_dir.set(cache);
    Problem p = make_problem(1, 3, 40, 16, 24, {DecayRegime::NearOne, BetaRegime::Uniform, true, 7});
    write_problem(p);
    auto run_and_read = [&](const std::string& what) {
      remove_outputs();
      RunResult r = run(std::string("--route ") + route);
      EXPECT_EQ(r.exit_code, 0) << route << " " << what << ": " << r.stderr_text;
      const Problem result = outputs_of(p);
      EXPECT_LE(relative_error(result, reference_f64(p)), 1e-4) << route << " " << what;
      return std::make_pair(r.stderr_text, result.out);
    };
    const auto [cold_err, cold] = run_and_read("cold");
    EXPECT_EQ(cold_err, "") << route;
    const auto stored = inodes(cache);
    ASSERT_EQ(stored.size(), entries) << route;

    const auto [warm_err, warm] = run_and_read("warm");
    EXPECT_EQ(warm_err, "") << route;
    EXPECT_EQ(warm, cold) << route;
    EXPECT_EQ(inodes(cache), stored) << route << ": a warm run rewrote an entry";

    for (const auto& [file, inode] : stored) {
      std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(-200, std::ios::end);
      const char c = static_cast<char>(f.get() ^ 0x20);
      f.seekp(-200, std::ios::end);
      f.put(c);
    }
    const auto [damaged_err, damaged] = run_and_read("damaged");
    EXPECT_EQ(std::count(damaged_err.begin(), damaged_err.end(), '\n'),
              static_cast<long>(entries)) << damaged_err;
    for (const auto& [file, inode] : stored) {
      EXPECT_NE(damaged_err.find(file), std::string::npos) << damaged_err;
      EXPECT_TRUE(std::filesystem::exists(file)) << file << " was not rebuilt";
    }
    EXPECT_EQ(damaged, cold) << route;
    const auto [again_err, again] = run_and_read("rebuilt");
    EXPECT_EQ(again_err, "") << route;
  }
}

// Cold processes racing to store the same entries: each renames a whole
// file over the entry, so all succeed, none reports a bad entry, and the
// entries left load cleanly in the next process.
TEST_F(GdrRunTest, ConcurrentColdProcessesShareOneCache) {
  const std::string cache = path("cache");
  Problem p = make_problem(1, 2, 20, 16, 24, {DecayRegime::NearOne, BetaRegime::Uniform, true, 3});
  write_problem(p);
  const std::string inputs = " --query " + path("q.npy") + " --key " + path("k.npy") + " --value " +
                             path("v.npy") + " --decay " + path("d.npy") + " --beta " +
                             path("b.npy") + " --initial-state " + path("s.npy");
  std::string cmd;
  const int processes = 4;
  for (int i = 0; i < processes; ++i) {
    const std::string n = std::to_string(i);
    cmd += "GDR_CACHE_DIR=" + cache + " " + GDR_RUN_PATH + inputs + " --route chunked --out " +
           path("out" + n + ".npy") + " --final-state " + path("fs" + n + ".npy") + " 2> " +
           path("err" + n + ".txt") + " & ";
  }
  ASSERT_EQ(std::system((cmd + "wait").c_str()), 0);
  for (int i = 0; i < processes; ++i) {
    const std::string n = std::to_string(i);
    std::ifstream err(path("err" + n + ".txt"));
    std::stringstream text;
    text << err.rdbuf();
    EXPECT_EQ(text.str(), "") << "process " << i;
    npy::Array out, fs;
    ASSERT_TRUE(npy::read(path("out" + n + ".npy"), &out)) << "process " << i;
    ASSERT_TRUE(npy::read(path("fs" + n + ".npy"), &fs)) << "process " << i;
    Problem result = p;
    result.out.assign(out.data.begin(), out.data.end());
    result.final_state.assign(fs.data.begin(), fs.data.end());
    EXPECT_LE(relative_error(result, reference_f64(p)), 1e-4) << "process " << i;
  }
  const auto entries = inodes(cache);
  EXPECT_EQ(entries.size(), 2u);  // kernel and Halide runtime, no temporary left
  const std::string again = "GDR_CACHE_DIR=" + cache + " " + GDR_RUN_PATH + inputs +
                            " --route chunked --out " + path("out.npy") + " --final-state " +
                            path("fs.npy") + " 2> " + path("err.txt");
  ASSERT_EQ(std::system(again.c_str()), 0);
  std::ifstream err(path("err.txt"));
  std::stringstream text;
  text << err.rdbuf();
  EXPECT_EQ(text.str(), "");
  EXPECT_EQ(inodes(cache), entries) << "the warm run rewrote an entry";
}

// Halide writes its objects to scratch files: a $TMPDIR that does not exist
// falls back to /tmp (it used to abort the process), with the cache on
// (cold) or off.
TEST_F(GdrRunTest, ChunkedRouteRunsWithABadTmpdir) {
  const ScopedEnv tmpdir("TMPDIR", path("no-such-folder"));
  ScopedEnv cache_dir("GDR_CACHE_DIR");
  Problem p = make_problem(1, 2, 20, 16, 24, {DecayRegime::NearOne, BetaRegime::Uniform, true, 5});
  write_problem(p);
  for (const std::string& cache : {path("cache"), std::string("off")}) {
    cache_dir.set(cache);
    const RunResult r = run("--route chunked");
    ASSERT_EQ(r.exit_code, 0) << cache << ": " << r.stderr_text;
    EXPECT_EQ(r.stderr_text, "") << cache;
    EXPECT_LE(relative_error(outputs_of(p), reference_f64(p)), 1e-4) << cache;
  }
}
#endif

// An output that names an input, or the other output, is refused before any
// work, naming both flags: by path however spelt, through a symbolic link
// (device and inode), and for outputs that do not exist yet (the normalised
// path). Nothing is written or changed.
TEST_F(GdrRunTest, OutputsThatAreInputsOrEachOtherAreRefused) {
  Problem p = make_problem(1, 2, 5, 8, 8, {DecayRegime::NearOne, BetaRegime::Uniform, true, 1});
  write_problem(p);
  std::filesystem::create_directory(path("sub"));
  ASSERT_EQ(::symlink(path("k.npy").c_str(), path("link.npy").c_str()), 0);
  struct Case {
    std::map<std::string, std::string> files;
    const char* first;
    const char* second;
  };
  const Case cases[] = {
      {{{"--out", "q.npy"}}, "--out q.npy", "--query q.npy"},
      {{{"--final-state", "s.npy"}}, "--final-state s.npy", "--initial-state s.npy"},
      {{{"--out", "./sub/../v.npy"}}, "--out ./sub/../v.npy", "--value v.npy"},
      {{{"--final-state", "link.npy"}}, "--final-state link.npy", "--key k.npy"},
      {{{"--out", "o.npy"}, {"--final-state", "o.npy"}}, "--final-state o.npy", "--out o.npy"},
      {{{"--out", "o.npy"}, {"--final-state", "sub/../o.npy"}}, "--final-state sub/../o.npy", "--out o.npy"},
  };
  const auto before = folder_contents();
  for (const Case& c : cases) {
    const RunResult r = run_files(c.files);
    EXPECT_EQ(r.exit_code, 2) << c.first;  // usage: refused before any work
    EXPECT_EQ(std::count(r.stderr_text.begin(), r.stderr_text.end(), '\n'), 1) << r.stderr_text;
    EXPECT_NE(r.stderr_text.find(c.first), std::string::npos) << r.stderr_text;
    EXPECT_NE(r.stderr_text.find(c.second), std::string::npos) << r.stderr_text;
    EXPECT_EQ(folder_contents(), before) << c.first << ": a file was written or changed";
  }
}

// A call whose outputs do not fit in memory (T = 0: inputs of no bytes,
// V = 2^40) is one line and exit 1, and leaves no output or temporary.
TEST_F(GdrRunTest, OutOfMemoryIsOneLineAndLeavesNoTemporary) {
#if defined(GDR_TEST_UNDER_ASAN)
  GTEST_SKIP() << "AddressSanitizer aborts on an allocation it cannot make instead of throwing std::bad_alloc";
#endif
  const int64_t V = int64_t{1} << 40;
  write("q.npy", {1, 1, 0, 16}, {});
  write("k.npy", {1, 1, 0, 16}, {});
  write("v.npy", {1, 1, 0, V}, {});
  write("d.npy", {1, 1, 0, 16}, {});
  write("b.npy", {1, 1, 0}, {});
  const auto before = folder_contents();
  const RunResult r = run_in_folder("--query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy "
                                    "--out o.npy --final-state f.npy");
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_EQ(r.stderr_text, "gdr-run: out of memory (the call's tensors do not fit)\n");
  EXPECT_EQ(folder_contents(), before);
}

// Outputs are written to unique temporaries created with O_EXCL|O_NOFOLLOW:
// a planted symbolic link at the old fixed name <out>.tmp is not followed,
// and an input of that name is not consumed.
TEST_F(GdrRunTest, TemporariesCannotBeHijackedOrCollideWithInputs) {
  Problem p = make_problem(1, 2, 5, 8, 8, {DecayRegime::NearOne, BetaRegime::Uniform, true, 2});
  write_problem(p);
  const std::string query = bytes_of("q.npy");
  ASSERT_EQ(::symlink(path("q.npy").c_str(), path("out.npy.tmp").c_str()), 0);
  RunResult r = run_files({});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(bytes_of("q.npy"), query);
  EXPECT_LE(relative_error(outputs_of(p), reference_f64(p)), 1e-4);

  std::filesystem::copy_file(path("k.npy"), path("x.npy.tmp"));
  const std::string key = bytes_of("x.npy.tmp");
  r = run_files({{"--key", "x.npy.tmp"}, {"--out", "x.npy"}});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(bytes_of("x.npy.tmp"), key);
  EXPECT_TRUE(exists("x.npy"));
}

// Eight processes writing one --out and one --final-state all succeed, and
// what is left is one whole, right pair and no temporary. (Outputs of a few
// MB, so that the writers overlap: with one fixed temporary name they
// collided in most rounds.)
TEST_F(GdrRunTest, ConcurrentWritersOfOneOutputAllSucceed) {
  Problem p = make_problem(1, 4, 1024, 8, 256, {DecayRegime::NearOne, BetaRegime::Uniform, true, 4});
  write_problem(p);
  std::string cmd;
  for (int i = 0; i < 8; ++i)
    cmd += std::string(GDR_RUN_PATH) + " --query " + path("q.npy") + " --key " + path("k.npy") +
           " --value " + path("v.npy") + " --decay " + path("d.npy") + " --beta " + path("b.npy") +
           " --initial-state " + path("s.npy") + " --route reference --out " + path("out.npy") +
           " --final-state " + path("fs.npy") + " 2> " + path("err" + std::to_string(i) + ".txt") + " & ";
  ASSERT_EQ(std::system((cmd + "wait").c_str()), 0);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(bytes_of("err" + std::to_string(i) + ".txt"), "") << i;
  EXPECT_LE(relative_error(outputs_of(p), reference_f64(p)), 1e-4);
  for (const auto& [name, bytes] : folder_contents())
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << name << " was left behind";
}

// A run that fails, before the op or after it, leaves the outputs that
// existed as they were (all or nothing) and no temporary behind.
TEST_F(GdrRunTest, AFailedRunLeavesExistingOutputsAsTheyWere) {
  Problem p = make_problem(1, 2, 5, 8, 8, {DecayRegime::NearOne, BetaRegime::Uniform, true, 5});
  write_problem(p);
  std::ofstream(path("out.npy")) << "the old out";
  std::ofstream(path("fs.npy")) << "the old final state";
  const auto before = folder_contents();
  const std::pair<std::map<std::string, std::string>, int> failing[] = {
      {{{"--final-state", "no/such/folder/fs.npy"}}, 2},  // refused before the op: usage
      {{{"--beta", "q.npy"}}, 1},                          // refused once the outputs are staged
  };
  for (const auto& [files, exit_code] : failing) {
    const RunResult r = run_files(files);
    EXPECT_EQ(r.exit_code, exit_code) << r.stderr_text;
    EXPECT_EQ(folder_contents(), before) << r.stderr_text;
  }
}

// Inputs are opened without blocking and read only if they are regular
// files: a FIFO or a device is refused at once, naming the flag and what
// the file is; a folder is called a folder, not a truncated file.
TEST_F(GdrRunTest, InputsThatAreNotRegularFilesAreRefusedAtOnce) {
  Problem p = make_problem(1, 2, 5, 8, 8, {DecayRegime::NearOne, BetaRegime::Uniform, true, 6});
  write_problem(p);
  ASSERT_EQ(::mkfifo(path("fifo.npy").c_str(), 0600), 0);
  std::filesystem::create_directory(path("folder.npy"));
  const std::pair<std::map<std::string, std::string>, std::string> cases[] = {
      {{{"--query", "fifo.npy"}}, "--query fifo.npy: is a FIFO, not a regular file"},
      {{{"--value", "/dev/zero"}}, "--value /dev/zero: is a character device, not a regular file"},
      {{{"--initial-state", "folder.npy"}}, "--initial-state folder.npy: is a folder, not a regular file"},
  };
  for (const auto& [files, message] : cases) {
    const RunResult r = run_files(files);
    EXPECT_EQ(r.exit_code, 1) << message;  // an input the op cannot read
    EXPECT_NE(r.stderr_text.find(message), std::string::npos) << r.stderr_text;
    EXPECT_FALSE(exists("out.npy"));
  }
}

}  // namespace
}  // namespace gdr::test
