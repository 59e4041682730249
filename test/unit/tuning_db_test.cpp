// The tuning database: text round trip, merging, a malformed file reported
// and ignored, and which record a call's (host, K, V, T, threads) matches.
#include "gdr/compiler/tuning_db.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "gdr/compiler/kernel_spec.h"
#include "gdr/compiler/plan.h"

namespace gdr::compiler {
namespace {

class TuningDbTest : public ::testing::Test {
 public:
  void SetUp() override {
    char tmpl[] = "/tmp/gdr-tuning-db-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  void write_text(const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
  }

 private:
  std::string dir_;
};

TuningRecord record(std::string host, int64_t T_min, int64_t T_max, int threads, Route route,
                    std::string schedule, double ns, int64_t K = 128, int64_t V = 128) {
  return TuningRecord{std::move(host), K, V, T_min, T_max, threads, route, std::move(schedule), ns};
}

bool same(const TuningRecord& a, const TuningRecord& b) {
  return a.host_cpu == b.host_cpu && a.K == b.K && a.V == b.V && a.T_min == b.T_min &&
         a.T_max == b.T_max && a.threads == b.threads && a.route == b.route &&
         a.schedule == b.schedule && a.median_ns == b.median_ns;
}

TEST_F(TuningDbTest, RoundTripsThroughTheFile) {
  const std::vector<TuningRecord> records = {
      record("icelake-client", 0, 22, 1, Route::Recurrent, "w16-vt128-u2", 71234),
      record("icelake-client", 23, kUnboundedT, 2, Route::Chunked, "c32-w16", 7.5e6, 64, 96)};
  // A folder that does not exist yet is created.
  const std::string file = path("sub/dir/tuning.db");
  ASSERT_TRUE(write_tuning_db(file, records));
  std::vector<TuningRecord> read;
  ASSERT_TRUE(read_tuning_db(file, &read));
  ASSERT_EQ(read.size(), records.size());
  for (size_t i = 0; i < read.size(); ++i) EXPECT_TRUE(same(read[i], records[i])) << i;
  // Atomic write: no temporary file is left next to it.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(path("sub/dir"))) (void)entry, ++files;
  EXPECT_EQ(files, 1);
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, kTuningDbHeader);
}

TEST_F(TuningDbTest, MissingFileIsEmpty) {
  std::vector<TuningRecord> read = {record("x", 0, 1, 1, Route::Recurrent, "w8-vt8-u1", 1)};
  ASSERT_TRUE(read_tuning_db(path("none.db"), &read));
  EXPECT_TRUE(read.empty());
}

TEST_F(TuningDbTest, MergeKeepsOtherShapesAndHostsAndReplacesOverlappingBuckets) {
  const std::vector<TuningRecord> old = {
      record("icelake-client", 0, 22, 1, Route::Recurrent, "w16-vt64-u1", 100),     // replaced
      record("icelake-client", 23, kUnboundedT, 1, Route::Recurrent, "w16-vt64-u1", 200),  // replaced
      record("icelake-client", 0, 22, 1, Route::Chunked, "c16-w16", 300),           // other route
      record("icelake-client", 0, 22, 2, Route::Recurrent, "w16-vt64-u1", 400),     // other threads
      record("znver3", 0, 22, 1, Route::Recurrent, "w8-vt32-u1", 500),              // other host
      record("icelake-client", 0, 22, 1, Route::Recurrent, "w16-vt64-u1", 600, 64), // other K
  };
  const std::vector<TuningRecord> fresh = {
      record("icelake-client", 0, 100, 1, Route::Recurrent, "w16-vt128-u2", 150)};
  const std::vector<TuningRecord> merged = merge_tuning_records(old, fresh);
  ASSERT_EQ(merged.size(), 5u);
  for (double gone : {100.0, 200.0})
    for (const TuningRecord& r : merged) EXPECT_NE(r.median_ns, gone);
  EXPECT_TRUE(same(merged.back(), fresh[0]));
}

TEST_F(TuningDbTest, MalformedFileIsReportedOnceByLineAndIgnored) {
  write_text("bad.db", std::string(kTuningDbHeader) +
                           "\n# comment\nicelake-client 128 128 0 22 1 recurrent w16-vt64-u1 100\n"
                           "icelake-client 128 128 0 22 1 recurrent w16-vt60-u1 100\n");
  std::vector<TuningRecord> read;
  const Status s = read_tuning_db(path("bad.db"), &read);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(path("bad.db") + ":4:"), std::string::npos) << s.message();
  EXPECT_TRUE(read.empty());

  testing::internal::CaptureStderr();
  const TuningDb db = load_tuning_db(path("bad.db"));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(db.records().empty());
  EXPECT_NE(err.find(path("bad.db") + ":4:"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(TuningDbTest, EachKindOfBadLineIsNamed) {
  const std::string good = "icelake-client 128 128 0 22 1 recurrent w16-vt64-u1 100";
  struct Case {
    std::string text, expect;
  };
  const std::vector<Case> cases = {
      {"# gdr tuning db v0\n" + good + "\n", ":1: expected the header"},
      {std::string(kTuningDbHeader) + "\nicelake-client 128 128 0 22 1 recurrent\n", ":2: expected 9 fields"},
      {std::string(kTuningDbHeader) + "\nh 0 128 0 22 1 recurrent w16-vt64-u1 100\n", ":2: K:"},
      {std::string(kTuningDbHeader) + "\nh 128 x 0 22 1 recurrent w16-vt64-u1 100\n", ":2: V:"},
      {std::string(kTuningDbHeader) + "\nh 128 128 30 22 1 recurrent w16-vt64-u1 100\n", ":2: T_max:"},
      {std::string(kTuningDbHeader) + "\nh 128 128 0 22 0 recurrent w16-vt64-u1 100\n", ":2: threads:"},
      {std::string(kTuningDbHeader) + "\nh 128 128 0 22 1 fast w16-vt64-u1 100\n", ":2: route:"},
      {std::string(kTuningDbHeader) + "\nh 128 128 0 22 1 reference w16-vt64-u1 100\n", ":2: route 'reference'"},
      {std::string(kTuningDbHeader) + "\nh 128 128 0 22 1 chunked w16-vt64-u1 100\n", ":2: schedule 'w16-vt64-u1'"},
      {std::string(kTuningDbHeader) + "\nh 128 128 0 22 1 recurrent w16-vt64-u1 -5\n", ":2: median_ns:"},
  };
  for (const Case& c : cases) {
    write_text("case.db", c.text);
    std::vector<TuningRecord> read;
    const Status s = read_tuning_db(path("case.db"), &read);
    ASSERT_FALSE(s) << c.text;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << s.message();
  }
}

TEST(TuningDbPath, FollowsGdrCacheDirThenXdgThenHome) {
  const char* saved[3] = {getenv("GDR_CACHE_DIR"), getenv("XDG_CACHE_HOME"), getenv("HOME")};
  const std::string keep[3] = {saved[0] ? saved[0] : "", saved[1] ? saved[1] : "", saved[2] ? saved[2] : ""};
  setenv("GDR_CACHE_DIR", "/c", 1);
  setenv("XDG_CACHE_HOME", "/x", 1);
  setenv("HOME", "/h", 1);
  EXPECT_EQ(default_tuning_db_path(), "/c/tuning.db");
  setenv("GDR_CACHE_DIR", "off", 1);
  EXPECT_EQ(default_tuning_db_path(), "");
  unsetenv("GDR_CACHE_DIR");
  EXPECT_EQ(default_tuning_db_path(), "/x/gdr/tuning.db");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(default_tuning_db_path(), "/h/.cache/gdr/tuning.db");
  const char* names[3] = {"GDR_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
  for (int i = 0; i < 3; ++i)
    saved[i] ? setenv(names[i], keep[i].c_str(), 1) : unsetenv(names[i]);
}

// Which record a call matches: host, K, V and threads exactly, T inside the
// bucket; anything else falls back to the defaults.
TEST(TuningDbLookup, MatchesHostShapeThreadsAndTBucketOnly) {
  const TuningDb db({record("cpu-a", 0, 22, 1, Route::Recurrent, "w8-vt32-u2-p3", 100),
                     record("cpu-a", 23, kUnboundedT, 1, Route::Recurrent, "w16-vt32-u4", 900),
                     record("cpu-a", 23, kUnboundedT, 1, Route::Chunked, "c32-w8", 800)});
  ASSERT_NE(db.find("cpu-a", Route::Recurrent, 128, 128, 1, 1), nullptr);
  EXPECT_EQ(db.find("cpu-a", Route::Recurrent, 128, 128, 22, 1)->schedule, "w8-vt32-u2-p3");
  EXPECT_EQ(db.find("cpu-a", Route::Recurrent, 128, 128, 23, 1)->schedule, "w16-vt32-u4");
  EXPECT_EQ(db.find("cpu-a", Route::Recurrent, 128, 128, int64_t(1) << 40, 1)->schedule, "w16-vt32-u4");
  EXPECT_EQ(db.find("cpu-b", Route::Recurrent, 128, 128, 1, 1), nullptr);
  EXPECT_EQ(db.find("cpu-a", Route::Recurrent, 64, 128, 1, 1), nullptr);
  EXPECT_EQ(db.find("cpu-a", Route::Recurrent, 128, 64, 1, 1), nullptr);
  EXPECT_EQ(db.find("cpu-a", Route::Recurrent, 128, 128, 1, 2), nullptr);
  EXPECT_EQ(db.find("cpu-a", Route::Chunked, 128, 128, 1, 1), nullptr);
  // A schedule that does not parse for its route is never found.
  EXPECT_EQ(TuningDb({record("cpu-a", 0, 9, 1, Route::Recurrent, "c16-w16", 1)})
                .find("cpu-a", Route::Recurrent, 128, 128, 1, 1),
            nullptr);

  // plan(): tuned where a record matches, the defaults elsewhere.
  Plan p = plan(db, "cpu-a", Route::Recurrent, 128, 128, 1, 1);
  EXPECT_TRUE(p.tuned);
  EXPECT_EQ(recurrent_schedule_str(p.recurrent), "w8-vt32-u2-p3");
  for (Plan other : {plan(db, "cpu-b", Route::Recurrent, 128, 128, 1, 1),
                     plan(db, "cpu-a", Route::Recurrent, 96, 128, 1, 1),
                     plan(db, "cpu-a", Route::Recurrent, 128, 96, 1, 1),
                     plan(db, "cpu-a", Route::Recurrent, 128, 128, 1, 2)}) {
    EXPECT_FALSE(other.tuned) << other.str();
    EXPECT_EQ(other.route, Route::Recurrent);
  }
  // Chunked: tuned from T = 23 on, the default schedule below.
  EXPECT_EQ(plan(db, "cpu-a", Route::Chunked, 128, 128, 100, 1).str(), "chunked c32-w8 (tuned)");
  EXPECT_EQ(plan(db, "cpu-a", Route::Chunked, 128, 128, 5, 1).chunked, schedules::default_schedule());
  EXPECT_FALSE(plan(db, "cpu-a", Route::Chunked, 128, 128, 5, 1).tuned);
}

TEST(TuningDbLookup, AutoTakesTheRouteTheSameBucketFoundFastest) {
  const TuningDb chunked_faster({record("cpu", 23, kUnboundedT, 1, Route::Recurrent, "w16-vt64-u1", 900),
                                 record("cpu", 23, kUnboundedT, 1, Route::Chunked, "c32-w8", 800)});
  EXPECT_EQ(plan(chunked_faster, "cpu", Route::Auto, 128, 128, 512, 1).str(), "chunked c32-w8 (tuned)");
  // Below the bucket: nothing tuned, the recurrent default.
  EXPECT_EQ(plan(chunked_faster, "cpu", Route::Auto, 128, 128, 1, 1).route, Route::Recurrent);
  const TuningDb recurrent_faster({record("cpu", 23, kUnboundedT, 1, Route::Recurrent, "w16-vt64-u1-p2", 700),
                                   record("cpu", 23, kUnboundedT, 1, Route::Chunked, "c32-w8", 800)});
  EXPECT_EQ(plan(recurrent_faster, "cpu", Route::Auto, 128, 128, 512, 1).str(),
            "recurrent w16-vt64-u1-p2 (tuned)");
  // Buckets from different runs are not compared: recurrent.
  const TuningDb apart({record("cpu", 23, 1000, 1, Route::Recurrent, "w16-vt64-u1", 900),
                        record("cpu", 100, kUnboundedT, 1, Route::Chunked, "c32-w8", 800)});
  EXPECT_EQ(plan(apart, "cpu", Route::Auto, 128, 128, 512, 1).route, Route::Recurrent);
  const TuningDb only_chunked({record("cpu", 0, kUnboundedT, 1, Route::Chunked, "c32-w8", 800)});
  EXPECT_EQ(plan(only_chunked, "cpu", Route::Auto, 128, 128, 512, 1).str().rfind("recurrent", 0), 0u);
}

TEST(RecurrentScheduleText, RoundTripsAndRejects) {
  RecurrentSchedule s;
  std::string error;
  ASSERT_TRUE(parse_recurrent_schedule("w8-vt24-u4-p3", &s, &error)) << error;
  EXPECT_EQ(s, (RecurrentSchedule{8, 24, 4, 3}));
  EXPECT_EQ(recurrent_schedule_str(s), "w8-vt24-u4-p3");
  // Written before the prefetch knob existed: no prefetch.
  ASSERT_TRUE(parse_recurrent_schedule("w8-vt24-u4", &s, &error)) << error;
  EXPECT_EQ(s, (RecurrentSchedule{8, 24, 4, 0}));
  for (const char* bad : {"w8-vt20-u1", "w0-vt0-u1", "w8-vt16", "w8-vt16-u1x", "w8-vt16-u1-p",
                          "w8-vt16-u1-p-1", "w8-vt16-u1-p2x", "c16-w16", ""})
    EXPECT_FALSE(parse_recurrent_schedule(bad, &s, &error)) << bad;
}

}  // namespace
}  // namespace gdr::compiler
