// What every tool of the build agrees on: --version (gdr's version and, with
// the compiler, the LLVM and Halide versions and the cache keys' source
// hash), --help ending with the exit codes, and the exit codes themselves:
// 0 ok, 1 the op or compile failed, 2 usage.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "exit_codes.h"
#include "temp_dir.h"
#ifdef GDR_HAVE_COMPILER
#include "gdr/compiler/build_info.h"
#endif

namespace gdr::test {
namespace {

struct Tool {
  std::string name, path;
};

std::vector<Tool> tools() {
  std::vector<Tool> all = {{"gdr-run", GDR_RUN_PATH}, {"gdr-bench", GDR_BENCH_PATH}};
#ifdef GDR_HAVE_COMPILER
  all.push_back({"gdr-compile", GDR_COMPILE_PATH});
  all.push_back({"gdr-opt", GDR_OPT_PATH});
  all.push_back({"gdr-tune", GDR_TUNE_PATH});
#endif
  return all;
}

struct Result {
  int exit_code = -1;
  std::string out, err;
};

class ToolCliTest : public ::testing::Test {
 protected:
  Result run(const std::string& path, const std::string& args) const {
    const std::string cmd = path + " " + args + " > " + temp_.path("out") + " 2> " + temp_.path("err");
    const int status = std::system(cmd.c_str());
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read(temp_.path("out"));
    r.err = read(temp_.path("err"));
    return r;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string path(const std::string& name) const { return temp_.path(name); }

  const TempDir temp_{"gdr-tool-cli"};
};

TEST_F(ToolCliTest, VersionSaysWhichBuildThisIs) {
  for (const Tool& tool : tools()) {
    const Result r = run(tool.path, "--version");
    ASSERT_EQ(r.exit_code, 0) << tool.name << ": " << r.err;
    std::istringstream lines(r.out);
    std::string first, second, third;
    std::getline(lines, first);
    std::getline(lines, second);
    std::getline(lines, third);
    EXPECT_EQ(first, tool.name + " " + GDR_VERSION) << r.out;
#ifdef GDR_HAVE_COMPILER
    const compiler::BuildInfo info = compiler::build_info();
    EXPECT_EQ(second, std::string("LLVM ") + info.llvm_version + ", Halide " + info.halide_version);
    EXPECT_EQ(second.rfind("LLVM 14.", 0), 0u) << second;
    EXPECT_EQ(std::string(info.codegen_sources_hash).size(), 64u);
    EXPECT_EQ(third, std::string("code generator sources ") + info.codegen_sources_hash +
                         " (SHA-256; part of every kernel cache key)");
#else
    EXPECT_EQ(second.rfind("runtime only: ", 0), 0u) << r.out;
#endif
  }
}

TEST_F(ToolCliTest, HelpEndsWithTheExitCodes) {
  for (const Tool& tool : tools()) {
    const Result r = run(tool.path, "--help");
    ASSERT_EQ(r.exit_code, 0) << tool.name << ": " << r.err;
    EXPECT_NE(r.out.find(tools::kExitCodesHelp), std::string::npos) << tool.name << ":\n" << r.out;
  }
}

TEST_F(ToolCliTest, AnUnknownFlagIsAUsageError) {
  for (const Tool& tool : tools()) {
    const Result r = run(tool.path, "--frobnicate 1");
    EXPECT_EQ(r.exit_code, tools::kExitUsage) << tool.name << ": " << r.err;
    EXPECT_NE(r.err.find("frobnicate"), std::string::npos) << tool.name << ": " << r.err;
    if (tool.name != "gdr-opt") {  // LLVM's parser words its own message
      EXPECT_EQ(r.err, tool.name + ": unknown argument --frobnicate (see --help)\n");
    }
  }
}

// What an error echoes stays on its one line, and the terminal gets no
// escape sequence from it.
TEST_F(ToolCliTest, AnErrorIsOneLineWhateverItEchoes) {
  for (const Tool& tool : tools()) {
    if (tool.name == "gdr-opt") continue;  // LLVM's parser words its own messages
    const Result r = run(tool.path, "\"--bad$(printf '\\n\\033[31m')\" 1");
    EXPECT_EQ(r.exit_code, tools::kExitUsage) << tool.name << ": " << r.err;
    EXPECT_EQ(r.err, tool.name + ": unknown argument --bad\\n\\x1b[31m (see --help)\n");
  }
}

TEST_F(ToolCliTest, BenchUsageAndFailure) {
  Result r = run(GDR_BENCH_PATH, "--impl nope");
  EXPECT_EQ(r.exit_code, tools::kExitUsage) << r.err;
  EXPECT_EQ(r.err, "gdr-bench: --impl: unknown implementation 'nope'\n");
  r = run(GDR_BENCH_PATH, "--T 0,x");
  EXPECT_EQ(r.exit_code, tools::kExitUsage) << r.err;
  EXPECT_EQ(r.err.rfind("gdr-bench: --T: ", 0), 0u) << r.err;
#ifndef GDR_HAVE_COMPILER
  // A route this build lacks fails when it runs: the op failed.
  r = run(GDR_BENCH_PATH, "--impl recurrent --T 1 --H 1 --K 4 --V 4 --threads 1 --seconds 0.01");
  EXPECT_EQ(r.exit_code, tools::kExitFailed) << r.err;
  EXPECT_NE(r.err.find("gdr-bench: recurrent: "), std::string::npos) << r.err;
#endif
}

#ifdef GDR_HAVE_COMPILER
TEST_F(ToolCliTest, CompileExitCodes) {
  const std::string ok = "--route recurrent --K 8 --V 8 --vector-width 4 --v-tile 8 --unroll 1 --sweep-tokens 2 --out " + path("k");
  Result r = run(GDR_COMPILE_PATH, ok);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "gdr_recurrent_f32_k8_v8__w4_vt8_u1_p2\n");
  // Usage: the command line is wrong, nothing is compiled.
  for (const std::string& args : {std::string("--route recurrent --K x --V 8 --out ") + path("u"),
                                  std::string("--route fast --K 8 --V 8 --out ") + path("u"),
                                  std::string("--route recurrent --K 8 --V 8"),
                                  std::string("--route chunked --K 8 --V 8 --unroll 2 --out ") + path("u")}) {
    r = run(GDR_COMPILE_PATH, args);
    EXPECT_EQ(r.exit_code, tools::kExitUsage) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("gdr-compile: --", 0), 0u) << args << ": " << r.err;
    EXPECT_FALSE(std::ifstream(path("u.o")).good()) << args;
  }
  // An output that cannot be written is found before compiling: usage too.
  r = run(GDR_COMPILE_PATH, "--route recurrent --K 8 --V 8 --out " + path("no/such/folder/k"));
  EXPECT_EQ(r.exit_code, tools::kExitUsage) << r.err;
  EXPECT_EQ(r.err.rfind("gdr-compile: --out " + path("no/such/folder/k.o") + ": ", 0), 0u) << r.err;
  // A schedule the verifier refuses (it names the knob): usage too, before
  // any work, as the chunked route's too-wide schedule is.
  r = run(GDR_COMPILE_PATH, "--route recurrent --K 8 --V 8 --vector-width 4 --v-tile 6 --out " + path("f"));
  EXPECT_EQ(r.exit_code, tools::kExitUsage) << r.err;
  EXPECT_NE(r.err.find("v_tile"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(path("f.o")).good());
}

TEST_F(ToolCliTest, OptHelpLeadsWithGdrPassesAndItsExitCodes) {
  Result r = run(GDR_OPT_PATH, "--help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t options = r.out.find("OPTIONS:");
  ASSERT_NE(options, std::string::npos) << r.out;
  size_t last = 0;
  for (const char* pass : {"--gdr-attach-schedule  ", "--gdr-lower-recurrent  ", "--gdr-lower-to-llvm  "}) {
    const size_t at = r.out.find(pass);
    EXPECT_LT(at, options) << pass << " is not listed before mlir-opt's options:\n" << r.out;
    EXPECT_GT(at, last) << pass;
    last = at;
  }
  // A module the verifier rejects: the compile failed.
  std::ofstream(path("bad.mlir")) << "func @f() { return %x : i32 }\n";
  r = run(GDR_OPT_PATH, path("bad.mlir"));
  EXPECT_EQ(r.exit_code, tools::kExitFailed) << r.err;
  // A good one passes through.
  std::ofstream(path("good.mlir")) << "module {}\n";
  r = run(GDR_OPT_PATH, path("good.mlir") + " --gdr-attach-schedule");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("module"), std::string::npos) << r.out;
}

// gdr-opt's -o: a failed run leaves an existing file as it was, the input
// itself included; a good one replaces it; -o /dev/null is written to, as
// mlir-opt's is.
TEST_F(ToolCliTest, OptOutputIsWrittenOnlyWhenTheRunSucceeds) {
  std::ofstream(path("bad.mlir")) << "func @f() { return %x : i32 }\n";
  std::ofstream(path("good.mlir")) << "module {}\n";
  std::ofstream(path("kept.txt")) << "kept\n";
  EXPECT_EQ(run(GDR_OPT_PATH, path("bad.mlir") + " -o " + path("kept.txt")).exit_code, tools::kExitFailed);
  EXPECT_EQ(read(path("kept.txt")), "kept\n");
  EXPECT_EQ(run(GDR_OPT_PATH, path("bad.mlir") + " -o " + path("bad.mlir")).exit_code, tools::kExitFailed);
  EXPECT_EQ(read(path("bad.mlir")), "func @f() { return %x : i32 }\n");
  EXPECT_EQ(run(GDR_OPT_PATH, path("good.mlir") + " -o " + path("kept.txt")).exit_code, 0);
  EXPECT_NE(read(path("kept.txt")).find("module"), std::string::npos);
  const Result r = run(GDR_OPT_PATH, path("good.mlir") + " -o /dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(ToolCliTest, TuneUsageErrors) {
  Result r = run(GDR_TUNE_PATH, "--T 0 --report " + path("r/tune") + " --db " + path("db"));
  EXPECT_EQ(r.exit_code, tools::kExitUsage) << r.err;
  EXPECT_EQ(r.err.rfind("gdr-tune: --T: ", 0), 0u) << r.err;
  // GDR_CACHE_DIR=off is set, and leaves no default database (the message
  // said none of the variables was set).
  r = run("GDR_CACHE_DIR=off " + std::string(GDR_TUNE_PATH), "--report " + path("r/tune"));
  EXPECT_EQ(r.exit_code, tools::kExitUsage) << r.err;
  EXPECT_EQ(r.err, "gdr-tune: --db: not given, and GDR_CACHE_DIR=off leaves no default (tuning.db in the cache "
                   "folder)\n");
}

// gdr-compile keeps Halide's autoscheduler search off stderr below
// GDR_VERBOSE=2, as gdr-run and gdr-bench do (it printed five lines).
TEST_F(ToolCliTest, CompilingWithAdams2019IsQuiet) {
  const Result r = run("GDR_CACHE_DIR=off HL_DEBUG_AUTOSCHEDULE= " + std::string(GDR_COMPILE_PATH),
                       "--route chunked --K 8 --V 8 --scheduler adams2019 --out " + path("a"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// Every tool that compiles reads GDR_VERBOSE and refuses a bad one (gdr-compile
// and gdr-tune ignored it: only the tools that install the JIT read it).
TEST_F(ToolCliTest, ABadVerbosityIsAUsageError) {
  const std::pair<const char*, std::string> runs[] = {
      {GDR_COMPILE_PATH, "--route recurrent --K 8 --V 8 --out " + path("v")},
      {GDR_TUNE_PATH, "--K 8 --V 8 --report " + path("r/tune") + " --db " + path("db")},
      {GDR_RUN_PATH, "--query q --key k --value v --decay d --beta b --out o --final-state f"},
      {GDR_BENCH_PATH, "--impl auto --K 8 --V 8 --T 1 --H 1 --threads 1 --seconds 0.01"}};
  for (const auto& [tool, args] : runs) {
    const Result r = run(std::string("GDR_VERBOSE=5 ") + tool, args);
    EXPECT_EQ(r.exit_code, tools::kExitUsage) << tool << ": " << r.err;
    EXPECT_NE(r.err.find("GDR_VERBOSE: expected 0, 1 or 2, got '5'"), std::string::npos) << tool << ": " << r.err;
  }
  EXPECT_FALSE(std::ifstream(path("v.o")).good());
}
#endif

}  // namespace
}  // namespace gdr::test
