// gdr/jit.h as a program uses it: install() with its options (cache folder,
// tuning database, verbosity), plan(), warm_up() and the cache counts, with
// the routes' results checked against float64. The options are process-wide,
// so each test installs the ones it needs.
#include "gdr/jit.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gdr/compiler/chunked.h"
#include "gdr/compiler/jit.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/variant.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/tuning_db.h"
#include "route_tester.h"
#include "scoped_env.h"
#include "temp_dir.h"
#include "wait_for_child.h"

namespace gdr::test {
namespace {

namespace fs = std::filesystem;

Options route_options(Route route, int threads = 1) {
  Options o;
  o.route = route;
  o.threads = threads;
  return o;
}

int files_in(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

// Sizes only: plan() and warm_up() read no tensor.
Tensors sizes(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V) {
  Tensors t;
  t.B = B, t.H = H, t.T = T, t.K = K, t.V = V;
  return t;
}

TEST(JitTest, InstalledRoutesMatchFloat64AndUseTheGivenCacheFolder) {
  const TempDir cache("gdr-jit-cache");
  jit::Options options;
  options.cache_dir = cache.str();
  ASSERT_TRUE(jit::install(options));
  for (Route route : {Route::Auto, Route::Recurrent, Route::Chunked}) {
    Problem p = make_problem(2, 3, 33, 24, 40, {DecayRegime::Uniform, BetaRegime::Uniform, true, 5});
    expect_within_contract(p, route_options(route, 2), route_name(route));
  }
  // The recurrent kernel, the chunked kernel and the Halide runtime.
  EXPECT_EQ(files_in(cache.str()), 3);
}

// A relative cache folder is the one the working folder named at install()
// (a review: it moved with a later chdir).
TEST(JitTest, ARelativeCacheFolderIsTakenAtInstall) {
  const TempDir here("gdr-jit-relative"), elsewhere("gdr-jit-elsewhere");
  const fs::path old = fs::current_path();
  fs::current_path(here.str());
  jit::Options options;
  options.cache_dir = "cache";
  ASSERT_TRUE(jit::install(options));
  fs::current_path(elsewhere.str());
  // A shape no other test compiles: the kernel is built now, not found in memory.
  Problem p = make_problem(1, 2, 9, 20, 36, {DecayRegime::Uniform, BetaRegime::Uniform, true, 3});
  expect_within_contract(p, route_options(Route::Recurrent), "relative cache folder");
  fs::current_path(old);
  EXPECT_EQ(files_in(here.path("cache")), 1);
  EXPECT_FALSE(fs::exists(elsewhere.path("cache")));
}

TEST(JitTest, CacheOffWritesNothing) {
  const TempDir home("gdr-jit-home");
  const ScopedEnv cache_env("GDR_CACHE_DIR", home.str());  // what "off" overrides
  jit::Options options;
  options.cache_dir = "off";
  ASSERT_TRUE(jit::install(options));
  const jit::CacheStats before = jit::cache_stats();
  Problem p = make_problem(1, 2, 5, 16, 24);
  expect_within_contract(p, route_options(Route::Recurrent));
  EXPECT_EQ(files_in(home.str()), 0);
  EXPECT_EQ(jit::cache_stats().disk_stores, before.disk_stores);
}

TEST(JitTest, PlanNamesRouteScheduleAndKernel) {
  jit::Options options;
  options.tuning_db = "off";
  ASSERT_TRUE(jit::install(options));
  jit::Plan p;
  ASSERT_TRUE(jit::plan(sizes(1, 4, 1, 64, 96), route_options(Route::Auto), &p));
  EXPECT_EQ(p.route, Route::Recurrent);
  EXPECT_FALSE(p.tuned);
  EXPECT_EQ(p.kernel.rfind("gdr_recurrent_f32_k64_v96__w", 0), 0u) << p.kernel;
  EXPECT_EQ(p.str(), "recurrent " + p.schedule + " (default)");
  compiler::Variant parsed;
  std::string error;
  EXPECT_TRUE(compiler::parse_variant_schedule(Route::Recurrent, p.schedule, &parsed, &error))
      << p.schedule << error;

  ASSERT_TRUE(jit::plan(sizes(1, 4, 300, 64, 96), route_options(Route::Chunked), &p));
  EXPECT_EQ(p.route, Route::Chunked);
  // The measured default: chunks of 16, the host's vectors.
  const std::string width = std::to_string(compiler::ChunkedSpec{}.schedule.vector_width);
  EXPECT_EQ(p.schedule, "c16-w" + width);
  EXPECT_EQ(p.kernel, "gdr_chunked_f32_k64_v96__c16_w" + width);

  ASSERT_TRUE(jit::plan(sizes(1, 4, 300, 64, 96), route_options(Route::ChunkedAutoschedule), &p));
  EXPECT_EQ(p.schedule, "adams2019");
  EXPECT_EQ(p.kernel, "gdr_chunked_f32_k64_v96__c16_w" + width + "_adams2019");
  // The call's form names the kernel on every route (scalar decay: _sd).
  Tensors scalar = sizes(1, 4, 300, 64, 96);
  scalar.decay_kind = DecayKind::Scalar;
  for (Route r : {Route::Recurrent, Route::Chunked, Route::ChunkedAutoschedule}) {
    ASSERT_TRUE(jit::plan(scalar, route_options(r), &p));
    EXPECT_NE(p.kernel.find("_sd__"), std::string::npos) << route_name(r) << ": " << p.kernel;
  }

  ASSERT_TRUE(jit::plan(sizes(1, 4, 300, 64, 96), route_options(Route::Reference), &p));
  EXPECT_EQ(p.route, Route::Reference);
  EXPECT_EQ(p.str(), "reference");
  EXPECT_EQ(p.kernel, "");
}

// A record for this host in a database given by path: plan() reports it
// tuned and the route runs it, within the contract.
TEST(JitTest, TuningDatabaseFromOptions) {
  const TempDir dir("gdr-jit-db");
  compiler::TuningRecord r;
  r.host_cpu = compiler::host_target().cpu;
  r.K = 16, r.V = 24, r.T_min = 0, r.T_max = compiler::kUnboundedT, r.threads = 1;
  r.route = Route::Recurrent;
  r.schedule = "w4-vt8-u2-p1";
  r.median_ns = 1000;
  ASSERT_TRUE(compiler::write_tuning_db(dir.path("tuning.db"), {r}));
  jit::Options options;
  options.tuning_db = dir.path("tuning.db");
  ASSERT_TRUE(jit::install(options));
  jit::Plan p;
  ASSERT_TRUE(jit::plan(sizes(1, 2, 7, 16, 24), route_options(Route::Auto), &p));
  EXPECT_EQ(p.str(), "recurrent w4-vt8-u2-p1 (tuned)");
  EXPECT_EQ(p.kernel, "gdr_recurrent_f32_k16_v24__w4_vt8_u2_p1");
  Problem problem = make_problem(1, 2, 7, 16, 24);
  expect_within_contract(problem, route_options(Route::Auto));

  // Without the database the same call plans the default.
  options.tuning_db = "off";
  ASSERT_TRUE(jit::install(options));
  ASSERT_TRUE(jit::plan(sizes(1, 2, 7, 16, 24), route_options(Route::Auto), &p));
  EXPECT_FALSE(p.tuned);
}

TEST(JitTest, WarmUpCompilesBeforeTheFirstRun) {
  ASSERT_TRUE(jit::install());
  // A variant no other test uses, so its first lookup is a miss.
  Problem p = make_problem(1, 3, 6, 20, 36);
  const Options o = route_options(Route::Recurrent);
  const jit::CacheStats before = jit::cache_stats();
  ASSERT_TRUE(jit::warm_up(sizes(1, 3, 6, 20, 36), o));
  const jit::CacheStats warmed = jit::cache_stats();
  EXPECT_EQ(warmed.memory_misses, before.memory_misses + 1);
  EXPECT_EQ(warmed.disk_hits + warmed.disk_misses, before.disk_hits + before.disk_misses + 1);
  expect_within_contract(p, o);
  const jit::CacheStats ran = jit::cache_stats();
  EXPECT_EQ(ran.memory_misses, warmed.memory_misses);  // nothing compiled by the run
  EXPECT_GE(ran.memory_hits, warmed.memory_hits + 1);
  EXPECT_EQ(ran.disk_hits + ran.disk_misses, warmed.disk_hits + warmed.disk_misses);
  EXPECT_TRUE(jit::warm_up(sizes(1, 3, 6, 20, 36), route_options(Route::Reference)));
}

TEST(JitTest, BadOptionsAndSizesAreRefusedNamingThem) {
  const TempDir dir("gdr-jit-bad");
  std::ofstream(dir.path("file")) << "x";
  jit::Options o;
  o.verbosity = 3;
  Status s = jit::install(o);
  EXPECT_FALSE(s);
  EXPECT_EQ(s.message().rfind("verbosity: ", 0), 0u) << s.message();

  o = {};
  o.cache_dir = dir.path("file");
  s = jit::install(o);
  EXPECT_FALSE(s);
  EXPECT_EQ(s.message().rfind("cache_dir " + dir.path("file"), 0), 0u) << s.message();

  o = {};
  o.tuning_db = dir.str();  // a folder
  s = jit::install(o);
  EXPECT_FALSE(s);
  EXPECT_EQ(s.message().rfind("tuning_db " + dir.str(), 0), 0u) << s.message();

  {
    const ScopedEnv verbose("GDR_VERBOSE", "loud");
    s = jit::install();
    EXPECT_FALSE(s);
    EXPECT_EQ(s.message(), "GDR_VERBOSE: expected 0, 1 or 2, got 'loud'");
  }

  // Options as gdr::run would refuse them, and a null out (a review: plan()
  // and warm_up() said yes, run() no; a null out crashed).
  Options bad_route = route_options(Route::Auto), bad_parts = route_options(Route::Recurrent);
  bad_route.route = static_cast<Route>(42);
  bad_parts.column_parts = -1;
  jit::Plan p;
  EXPECT_EQ(jit::plan(sizes(1, 2, 4, 8, 8), bad_route, &p).message(), "route: 42 is none of Route's values");
  EXPECT_EQ(jit::warm_up(sizes(1, 2, 4, 8, 8), bad_parts).message(),
            "column_parts must be >= 0 (0: the runtime chooses), got -1");
  EXPECT_EQ(jit::plan(sizes(1, 2, 4, 8, 8), route_options(Route::Auto), nullptr).message(),
            "plan: out is a null pointer");
  s = jit::plan(sizes(1, 0, 4, 8, 8), route_options(Route::Auto), &p);
  EXPECT_FALSE(s);
  EXPECT_EQ(s.message().rfind("H must be positive", 0), 0u) << s.message();
  s = jit::warm_up(sizes(1, 2, -1, 8, 8), route_options(Route::Chunked));
  EXPECT_FALSE(s);
  EXPECT_EQ(s.message().rfind("T must be non-negative", 0), 0u) << s.message();
}

// Verbosity 2 says what was compiled or loaded; 0 silences the warnings 1
// shows (here: a database line that does not parse).
TEST(JitTest, VerbosityChoosesWhatIsSaid) {
  const TempDir dir("gdr-jit-verbose");
  std::ofstream(dir.path("tuning.db")) << compiler::kTuningDbHeader << "\nnot a record\n";
  jit::Options o;
  o.cache_dir = dir.str();
  o.tuning_db = dir.path("tuning.db");
  const Tensors t = sizes(1, 1, 3, 12, 20);  // a variant of its own
  for (int verbosity : {0, 1, 2}) {
    o.verbosity = verbosity;
    ASSERT_TRUE(jit::install(o));
    testing::internal::CaptureStderr();
    jit::Plan p;
    ASSERT_TRUE(jit::plan(t, route_options(Route::Recurrent), &p));  // reads the database
    ASSERT_TRUE(jit::warm_up(t, route_options(Route::Recurrent)));
    const std::string err = testing::internal::GetCapturedStderr();
    const bool warned = err.find("gdr: tuning db " + dir.path("tuning.db") + ":2: ") != std::string::npos;
    const bool noted = err.find("gdr: " + p.kernel + " compiled in ") != std::string::npos;
    EXPECT_EQ(warned, verbosity >= 1) << verbosity << ": " << err;
    // Compiled once, at the first warm-up (verbosity 0); later ones reuse it.
    EXPECT_FALSE(noted) << verbosity << ": " << err;
  }
  // A new variant at verbosity 2: one line naming it.
  testing::internal::CaptureStderr();
  const Tensors other = sizes(1, 1, 3, 12, 28);
  jit::Plan p;
  ASSERT_TRUE(jit::plan(other, route_options(Route::Recurrent), &p));
  ASSERT_TRUE(jit::warm_up(other, route_options(Route::Recurrent)));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("gdr: " + p.kernel + " compiled in "), std::string::npos) << err;
}

// The JIT maps every object's sections inside one reserved region
// (compiler/src/jit_memory.h), so a kernel's 32-bit PC-relative references
// to its constants reach them however much the process has mapped: a kernel
// loaded after the process mapped 8 GiB elsewhere lies in the region and
// computes the op. (Before, sections went wherever the system mapped them,
// and a gdr-bench run over 15 shapes at T = 0, 1, 2, 4 on 2 threads
// crashed in a kernel reading its constants from an unmapped address, 3
// runs in 3.)
TEST(JitMemory, KernelsLieInOneRegionWhateverTheProcessMaps) {
  const size_t elsewhere_bytes = size_t{8} << 30;
  void* elsewhere = mmap(nullptr, elsewhere_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(elsewhere, MAP_FAILED);
  for (const int64_t K : {24, 40}) {
    Kernel kernel;
    ASSERT_TRUE(compiler::compiled_recurrent_kernel({K, 16}, compiler::RecurrentSchedule{4, 8, 1, 0}, &kernel));
    EXPECT_TRUE(compiler::jit_region_holds(reinterpret_cast<const void*>(kernel.fn))) << "K = " << K;
    Problem p = make_problem(1, 2, 5, K, 16);
    ASSERT_TRUE(execute(kernel, p.tensors(), Options{}));
    EXPECT_LE(relative_error(p, reference_f64(p)), 1e-4) << "K = " << K;
  }
  munmap(elsewhere, elsewhere_bytes);
}

// With the address space limited (ulimit -v), the region is smaller, and
// where even its least cannot be had, loading a kernel is an error, not the
// end of the process (found by a review: LLVM's "Unable to allocate section
// memory!" aborted any process with a limit below its 1 GiB region). Each
// case in a child process whose JIT has loaded nothing yet.
TEST(JitMemory, AnAddressSpaceLimitShrinksTheRegionOrIsAnError) {
  std::vector<char> object;
  const compiler::KernelSpec spec{8, 16};
  ASSERT_TRUE(compiler::compile_recurrent_object(spec, compiler::RecurrentSchedule{4, 8, 1, 0},
                                                 compiler::host_target(), &object));
  const std::string symbol = compiler::recurrent_variant(spec, compiler::RecurrentSchedule{4, 8, 1, 0}).name();
  enum : int { kAsExpected = 0, kNotAsExpected = 1, kRegionTaken = 77 };
  auto in_child_with_room = [&](size_t room_bytes, bool expect_loaded) {
    const pid_t child = ::fork();
    if (child == 0) {
      if (compiler::jit_region_bytes() != 0) ::_exit(kRegionTaken);
      std::ifstream status("/proc/self/status");
      size_t kib = 0;
      for (std::string word; status >> word;)
        if (word == "VmSize:") status >> kib;
      const rlimit limit{kib * 1024 + room_bytes, RLIM_INFINITY};
      if (kib == 0 || ::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(kNotAsExpected);
      void* address = nullptr;
      const Status s = compiler::jit_load_object(object, symbol, &address);
      const size_t region = compiler::jit_region_bytes();
      const bool loaded = s && compiler::jit_region_holds(address) && region >= (size_t{32} << 20) &&
                          region < (size_t{1} << 30);
      const bool refused = !s && s.message().find("cannot reserve address space for the JIT's code") !=
                                     std::string::npos;
      ::_exit(expect_loaded ? (loaded ? kAsExpected : kNotAsExpected) : (refused ? kAsExpected : kNotAsExpected));
    }
    return wait_for_child(child, 60);
  };
  for (const auto& [room, loads] : {std::pair{size_t{200} << 20, true}, std::pair{size_t{8} << 20, false}}) {
    const int status = in_child_with_room(room, loads);
    ASSERT_NE(status, -1) << "the child did not end in 60 s";
    if (WIFEXITED(status) && WEXITSTATUS(status) == kRegionTaken) GTEST_SKIP() << "this process's JIT has loaded code";
    ASSERT_TRUE(WIFEXITED(status)) << "the child was ended by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), kAsExpected) << "room " << (room >> 20) << " MiB";
  }
}

}  // namespace
}  // namespace gdr::test
