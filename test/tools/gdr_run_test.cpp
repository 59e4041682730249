// gdr-run end to end: real files in, real files out, one-line errors.
#include <gtest/gtest.h>
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

namespace gdr::test {
namespace {

struct RunResult {
  int exit_code;
  std::string stderr_text;
};

class GdrRunTest : public ::testing::Test {
 public:
  std::string path(const std::string& name) const { return temp_.path(name); }

  void write(const std::string& name, std::vector<int64_t> shape, const std::vector<float>& data) {
    ASSERT_TRUE(npy::write(path(name), {shape, data}));
  }

  void write_problem(const Problem& p) {
    write("q.npy", {p.B, p.H, p.T, p.K}, p.query);
    write("k.npy", {p.B, p.H, p.T, p.K}, p.key);
    write("v.npy", {p.B, p.H, p.T, p.V}, p.value);
    write("d.npy", {p.B, p.H, p.T, p.K}, p.decay);
    write("b.npy", {p.B, p.H, p.T}, p.beta);
    write("s.npy", {p.B, p.H, p.K, p.V}, p.initial_state);
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
    result.out = out.data;
    result.final_state = fs.data;
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
    RunResult r = run(std::string("--route ") + route + " --threads 2");
    ASSERT_EQ(r.exit_code, 0) << route << ": " << r.stderr_text;
    npy::Array out, fs;
    ASSERT_TRUE(npy::read(path("out.npy"), &out));
    ASSERT_TRUE(npy::read(path("fs.npy"), &fs));
    EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 3, 45, 20}));
    EXPECT_EQ(fs.shape, (std::vector<int64_t>{2, 3, 12, 20}));
    p.out = out.data;
    p.final_state = fs.data;
    EXPECT_LE(relative_error(p, reference_f64(p)), 1e-4) << route;
  }
}

TEST_F(GdrRunTest, EmptySequence) {
  Problem p = make_problem(1, 2, 0, 4, 3);
  write_problem(p);
  RunResult r = run();
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  npy::Array fs;
  ASSERT_TRUE(npy::read(path("fs.npy"), &fs));
  EXPECT_EQ(fs.data, p.initial_state);
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
       "", "H must be positive", 1},
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
    result.out = out.data;
    result.final_state = fs.data;
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
