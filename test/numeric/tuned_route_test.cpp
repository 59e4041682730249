// The routes run the tuning database's schedules: a database written to a
// temporary GDR_CACHE_DIR before anything reads it (the process loads it
// once), then plan() says what runs and the routes still match float64.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "gdr/compiler/chunked.h"
#include "gdr/compiler/plan.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/tuning_db.h"
#include "route_tester.h"

namespace gdr::test {
namespace {

constexpr int64_t K = 32, V = 48;

// Before main: the database for this host, 1 thread only. Widths of 4 exist
// on every host; none of these schedules is a default.
const std::string kCacheDir = [] {
  char tmpl[] = "/tmp/gdr-tuned-route-test-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string cpu = compiler::host_target().cpu;
  using compiler::TuningRecord;
  TuningRecord token_major{cpu, K, V, 0, 20, 1, Route::Recurrent, "w4-vt8-u1-p2", 90};
  token_major.form.layout = Layout::TokenMajor;
  const std::vector<TuningRecord> records = {
      token_major,
      {cpu, K, V, 0, 20, 1, Route::Recurrent, "w4-vt12-u2-p1", 100},
      {cpu, K, V, 21, compiler::kUnboundedT, 1, Route::Recurrent, "w4-vt8-u4-p0", 1000},
      {cpu, K, V, 21, compiler::kUnboundedT, 1, Route::Chunked, "c32-w4", 500},
      // Parses, but cannot compile (unroll > K): left out, not run.
      {cpu, 8, 8, 0, compiler::kUnboundedT, 1, Route::Recurrent, "w4-vt4-u16", 100},
      {cpu, 8, 8, 0, compiler::kUnboundedT, 1, Route::Chunked, "c16-w4", 50}};
  if (!compiler::write_tuning_db(dir + "/tuning.db", records)) std::abort();
  setenv("GDR_CACHE_DIR", dir.c_str(), 1);
  return dir;
}();

class TunedRoute : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    compiler::install_routes();
    compiler::install_chunked_routes();
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(kCacheDir); }
};

// A call's sizes, as plan() reads them (no data).
Tensors shape(int64_t H, int64_t T, int64_t k = K, int64_t v = V) {
  Tensors t;
  t.B = 1, t.H = H, t.T = T, t.K = k, t.V = v;
  return t;
}

Options one_thread(Route route) {
  Options o;
  o.route = route;
  o.threads = 1;
  return o;
}

TEST_F(TunedRoute, RecurrentRunsTheTunedScheduleOfItsBucket) {
  EXPECT_EQ(compiler::plan(Route::Recurrent, shape(3, 5), 1).str(), "recurrent w4-vt12-u2-p1 (tuned)");
  EXPECT_EQ(compiler::plan(Route::Recurrent, shape(3, 300), 1).str(), "recurrent w4-vt8-u4-p0 (tuned)");
  for (int64_t T : {5, 300}) {
    Problem p = make_problem(1, 3, T, K, V);
    expect_within_contract(p, one_thread(Route::Recurrent), "tuned");
  }
}

TEST_F(TunedRoute, AutoTakesTheFasterRouteOfTheBucket) {
  EXPECT_EQ(compiler::plan(Route::Auto, shape(3, 5), 1).str(), "recurrent w4-vt12-u2-p1 (tuned)");
  EXPECT_EQ(compiler::plan(Route::Auto, shape(3, 100), 1).str(), "chunked c32-w4 (tuned)");
  Problem p = make_problem(1, 3, 100, K, V);
  expect_within_contract(p, one_thread(Route::Auto), "auto on the tuned chunked route");
}

// A token-major call runs the token-major record of its bucket; a form
// with no record of its own (token-major with grouped values) the plain one.
TEST_F(TunedRoute, EachCallFormRunsItsOwnRecordElseThePlainOne) {
  Tensors t = shape(3, 5);
  t.layout = Layout::TokenMajor;
  EXPECT_EQ(compiler::plan(Route::Recurrent, t, 1).str(), "recurrent w4-vt8-u1-p2 (tuned)");
  t.key_heads = 1;
  EXPECT_EQ(compiler::plan(Route::Recurrent, t, 1).str(), "recurrent w4-vt12-u2-p1 (tuned)");
  ProblemOptions token_major;
  token_major.form.layout = Layout::TokenMajor;
  Problem p = make_problem(1, 3, 5, K, V, token_major);
  expect_within_contract(p, one_thread(Route::Recurrent), "token-major, its own record");
}

// A varlen call is planned by its mean sequence length: 40 one-token
// sequences are decode (bucket 0-20), not a 40-token prefill (the bucket
// where chunked is faster); 50, 0 and 49 tokens (33 on average) are prefill.
TEST_F(TunedRoute, VarlenIsPlannedByItsMeanSequenceLength) {
  ProblemOptions decode;
  decode.form.seqlens.assign(40, 1);
  Problem batch = make_problem(1, 3, 0, K, V, decode);
  EXPECT_EQ(compiler::planned_T(batch.tensors()), 1);
  EXPECT_EQ(compiler::plan(Route::Auto, batch.tensors(), 1).str(), "recurrent w4-vt12-u2-p1 (tuned)");
  expect_within_contract(batch, one_thread(Route::Auto), "auto on 40 one-token sequences");
  ProblemOptions prefill;
  prefill.form.seqlens = {50, 0, 49};
  Problem two = make_problem(1, 3, 0, K, V, prefill);
  EXPECT_EQ(compiler::planned_T(two.tensors()), 33);
  EXPECT_EQ(compiler::plan(Route::Auto, two.tensors(), 1).str(), "chunked c32-w4 (tuned)");
}

TEST_F(TunedRoute, ChunkedRunsItsTunedSchedule) {
  EXPECT_EQ(compiler::plan(Route::Chunked, shape(3, 100), 1).str(), "chunked c32-w4 (tuned)");
  Problem p = make_problem(1, 2, 77, K, V);
  expect_within_contract(p, one_thread(Route::Chunked), "tuned c32-w4");
}

// A record that cannot compile on this host is skipped when the database
// is read; calls of its shape run the default and succeed.
TEST_F(TunedRoute, RecordThatCannotCompileIsSkipped) {
  EXPECT_FALSE(compiler::plan(Route::Recurrent, shape(3, 5, 8, 8), 1).tuned);
  EXPECT_EQ(compiler::plan(Route::Auto, shape(3, 5, 8, 8), 1).variant.route, Route::Recurrent);
  Problem p = make_problem(1, 3, 5, 8, 8);
  expect_within_contract(p, one_thread(Route::Auto), "auto next to a bad record");
  expect_within_contract(p, one_thread(Route::Recurrent), "recurrent next to a bad record");
}

// plan() looks up the thread count the runtime runs the call on: left to
// the runtime (0), a call too small to share runs on one thread, so the
// one-thread record applies.
TEST_F(TunedRoute, PlanUsesTheThreadsTheRuntimeUses) {
  const Tensors tiny = shape(1, 5);
  ASSERT_EQ(threads_for_call(tiny, 0, 0), 1);
  EXPECT_EQ(compiler::plan(Route::Recurrent, tiny, 0).str(), "recurrent w4-vt12-u2-p1 (tuned)");
  // More threads than the pool has: capped, as the runtime does, so the
  // plan is the one for the pool's size.
  const int pool = ThreadPool::shared().size();
  EXPECT_EQ(compiler::plan(Route::Recurrent, tiny, pool + 7).str(),
            compiler::plan(Route::Recurrent, tiny, pool).str());
  EXPECT_EQ(threads_for_call(tiny, pool + 7, 0), pool);
}

TEST_F(TunedRoute, OtherShapesAndThreadCountsRunTheDefaults) {
  EXPECT_FALSE(compiler::plan(Route::Recurrent, shape(3, 5, K, V + 1), 1).tuned);
  EXPECT_FALSE(compiler::plan(Route::Recurrent, shape(3, 5, K + 1, V), 1).tuned);
  EXPECT_FALSE(compiler::plan(Route::Chunked, shape(3, 5), 1).tuned);  // no chunked record below 21
  if (ThreadPool::shared().size() >= 2) {
    EXPECT_FALSE(compiler::plan(Route::Recurrent, shape(3, 5), 2).tuned);
    // Left to the runtime (0), a call big enough to share runs on the whole
    // pool: no record for that.
    EXPECT_FALSE(compiler::plan(Route::Recurrent, shape(64, 20), 0).tuned);
  }
  Problem p = make_problem(1, 3, 5, K, V + 1);
  expect_within_contract(p, one_thread(Route::Recurrent), "default schedule");
}

}  // namespace
}  // namespace gdr::test
