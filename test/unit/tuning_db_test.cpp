// The tuning database: text round trip, merging, bad lines reported and
// skipped one by one, records that cannot compile on the host left out, and
// which record a call's (host, K, V, T, threads) matches.
#include "gdr/compiler/tuning_db.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <tuple>

#include "gdr/compiler/kernel_spec.h"
#include "gdr/compiler/plan.h"
#include "gdr/compiler/target.h"
#include "other_user.h"
#include "temp_dir.h"

namespace gdr::compiler {
namespace {

class TuningDbTest : public ::testing::Test {
 public:
  std::string path(const std::string& name) const { return temp_.path(name); }
  void write_text(const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
  }

 private:
  const gdr::test::TempDir temp_{"gdr-tuning-db-test"};
  const std::string dir_ = temp_.str();
};

TuningRecord record(std::string host, int64_t T_min, int64_t T_max, int threads, Route route,
                    std::string schedule, double ns, int64_t K = 128, int64_t V = 128) {
  return TuningRecord{std::move(host), K, V, T_min, T_max, threads, route, std::move(schedule), ns};
}

// A host named `cpu` whose widest vector has `bits` bits.
Target host(const std::string& cpu, int bits = 512) {
  Target t;
  t.cpu = cpu;
  t.vector_bits = bits;
  return t;
}

// Reads `file`, expecting no error.
TuningDbFile read_ok(const std::string& file) {
  TuningDbFile read;
  const Status s = read_tuning_db(file, &read);
  EXPECT_TRUE(s) << s.message();
  return read;
}

bool same(const TuningRecord& a, const TuningRecord& b) {
  return a.host_cpu == b.host_cpu && a.K == b.K && a.V == b.V && a.T_min == b.T_min &&
         a.T_max == b.T_max && a.threads == b.threads && a.route == b.route &&
         a.schedule == b.schedule && a.median_ns == b.median_ns && a.decay == b.decay &&
         a.readouts == b.readouts && a.form == b.form;
}

// A call form with every field away from the plain one.
CallForm every_call_form_field() {
  CallForm f;
  f.layout = Layout::TokenMajor;
  f.key_group = 2;
  f.varlen = f.in_place = true;
  return f;
}

TEST_F(TuningDbTest, RoundTripsThroughTheFile) {
  std::vector<TuningRecord> records = {
      record("icelake-client", 0, 22, 1, Route::Recurrent, "w16-vt128-u2", 71234),
      record("icelake-client", 23, kUnboundedT, 2, Route::Chunked, "c32-w16", 7.5e6, 64, 96),
      record("icelake-client", 0, 22, 1, Route::Recurrent, "w16-vt32-u1-p2", 5e5),
      record("icelake-client", 0, 22, 1, Route::Recurrent, "w16-vt64-u1-p2", 4e5)};
  // The form, written after the median only when not the default.
  records[2].decay = records[3].decay = DecayKind::Scalar;
  records[2].readouts = 2;
  EXPECT_EQ(tuning_record_line(records[2]),
            "icelake-client 128 128 0 22 1 recurrent w16-vt32-u1-p2 500000 decay=scalar readouts=2");
  records[3].form = every_call_form_field();
  EXPECT_EQ(tuning_record_line(records[3]), "icelake-client 128 128 0 22 1 recurrent w16-vt64-u1-p2 400000 "
                                            "decay=scalar layout=bthd key_group=2 varlen in_place");
  // A folder that does not exist yet is created.
  const std::string file = path("sub/dir/tuning.db");
  ASSERT_TRUE(write_tuning_db(file, records));
  // Twice: the second replaces the first.
  ASSERT_TRUE(write_tuning_db(file, records));
  const std::vector<TuningRecord> read = read_ok(file).records;
  ASSERT_EQ(read.size(), records.size());
  for (size_t i = 0; i < read.size(); ++i) EXPECT_TRUE(same(read[i], records[i])) << i;
  // The kernel a record names is of its form (found by a review: the
  // variant was parsed before the form's words, so always channelwise, R = 1).
  EXPECT_EQ(read[2].variant, recurrent_variant({128, 128, DecayKind::Scalar, 2}, read[2].variant.recurrent));
  EXPECT_EQ(read[3].variant.decay, DecayKind::Scalar);
  // Atomic write: no temporary file is left next to it.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(path("sub/dir"))) (void)entry, ++files;
  EXPECT_EQ(files, 1);
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, kTuningDbHeader);
}

// The file gets the umask's mode (the database is not secret, but a user
// who asked for private files gets them), and a dead writer's temporary
// file from long ago is swept while a live one's stays.
TEST_F(TuningDbTest, WritesFollowTheUmaskAndSweepDeadWritersTemporaries) {
  namespace fs = std::filesystem;
  const std::string stale = path("tuning.db.tmp.0123456789abcdef");
  const std::string fresh = path("tuning.db.tmp.fedcba9876543210");
  // The user's files in the folder, old too, whose names merely contain
  // the temporaries' part (an earlier sweep deleted them).
  const std::vector<std::string> users = {path("tuning.db.tmp.keep"), path("old-tuning.db.tmp.0123456789abcdef"),
                                          path("tuning.db.tmp.0123456789abcdef.txt")};
  for (const std::string& f : {stale, fresh}) std::ofstream(f) << "x";
  for (const std::string& f : users) std::ofstream(f) << "user's";
  for (const std::string& f : users) fs::last_write_time(f, fs::file_time_type::clock::now() - std::chrono::hours(2));
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
  const mode_t old_mask = umask(077);
  const Status s = write_tuning_db(path("tuning.db"), {record("h", 0, 22, 1, Route::Recurrent, "w8-vt8-u1-p2", 5)});
  umask(old_mask);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(fs::status(path("tuning.db")).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));
  for (const std::string& f : users) EXPECT_TRUE(fs::exists(f)) << f;
}

TEST_F(TuningDbTest, MissingFileIsEmptyAFolderIsAnError) {
  TuningDbFile read;
  read.records = {record("x", 0, 1, 1, Route::Recurrent, "w8-vt8-u1", 1)};
  ASSERT_TRUE(read_tuning_db(path("none.db"), &read));
  EXPECT_TRUE(read.records.empty());
  std::filesystem::create_directory(path("folder.db"));
  const Status s = read_tuning_db(path("folder.db"), &read);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(path("folder.db") + ": is a folder"), std::string::npos) << s.message();
  testing::internal::CaptureStderr();
  load_tuning_db(path("folder.db"), host("cpu"));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("is a folder"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(TuningDbTest, CrlfAndIndentedCommentsRead) {
  write_text("crlf.db", std::string(kTuningDbHeader) +
                            "\r\n   # indented comment\r\n\t# tab\r\n"
                            "  cpu 128 128 0 22 1 recurrent w16-vt64-u1 100 \r\n\r\n");
  const TuningDbFile read = read_ok(path("crlf.db"));
  EXPECT_TRUE(read.bad_lines.empty()) << read.bad_lines[0];
  ASSERT_EQ(read.records.size(), 1u);
  EXPECT_EQ(read.records[0].schedule, "w16-vt64-u1");
  EXPECT_EQ(read.records[0].median_ns, 100);
}

// Two writers merging into one database at once (gdr-tune runs tuning
// other shapes) keep each other's records (found by a review: each read the
// file, merged, and renamed its own over the other's).
TEST_F(TuningDbTest, ConcurrentWritersKeepEachOthersRecords) {
  const std::string file = path("tuning.db");
  constexpr int kEach = 40;
  pid_t children[2];
  for (int c = 0; c < 2; ++c) {
    children[c] = ::fork();
    ASSERT_GE(children[c], 0);
    if (children[c] == 0) {
      for (int i = 1; i <= kEach; ++i) {
        std::vector<TuningRecord> merged;
        const TuningRecord r = record("znver3", 0, 22, 1, Route::Recurrent, "w8-vt16-u1", 100, 1000 * c + i);
        if (!merge_into_tuning_db(file, {r}, &merged)) ::_exit(1);
      }
      ::_exit(0);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(read_ok(file).records.size(), 2u * kEach);
  // A database with a line that does not parse is not replaced.
  std::ofstream(file, std::ios::app) << "not a record\n";
  std::vector<TuningRecord> merged;
  const Status s = merge_into_tuning_db(file, {record("znver3", 0, 22, 1, Route::Recurrent, "w8-vt16-u1", 1)}, &merged);
  EXPECT_NE(s.message().find("not overwritten, which would drop those lines"), std::string::npos) << s.message();
  // A lock that is not a regular file is refused at once, never waited on.
  const std::string fifo_db = path("fifo.db");
  ASSERT_EQ(::mkfifo((fifo_db + ".lock").c_str(), 0600), 0);
  const Status fifo = merge_into_tuning_db(fifo_db, {}, &merged);
  EXPECT_EQ(fifo.message(), fifo_db + ".lock: is not a regular file");
}

// A database reached through a symbolic link (kept with the user's
// dotfiles): the file it names is replaced, keeping its private mode, and
// the link stays a link (found by a review: the rename replaced the link
// with a 0644 file and left the real database stale).
TEST_F(TuningDbTest, AMergeThroughASymbolicLinkReplacesTheFileItNames) {
  namespace fs = std::filesystem;
  const std::string real = path("dots/real.db"), link = path("link.db");
  ASSERT_TRUE(write_tuning_db(real, {record("znver3", 0, 22, 1, Route::Recurrent, "w8-vt16-u1", 100)}));
  ASSERT_EQ(::chmod(real.c_str(), 0600), 0);
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  std::vector<TuningRecord> merged;
  const Status s =
      merge_into_tuning_db(link, {record("znver3", 23, kUnboundedT, 1, Route::Recurrent, "w8-vt8-u1", 50)}, &merged);
  ASSERT_TRUE(s) << s.message();
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_ok(real).records.size(), 2u);
  EXPECT_EQ(fs::status(real).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_TRUE(fs::exists(real + ".lock"));
  EXPECT_FALSE(fs::exists(link + ".lock"));
  // A link made before the first run (to a file not there yet, through a
  // relative link to a link): the file is created where it points.
  ASSERT_EQ(::symlink("dots/new.db", path("first.db").c_str()), 0);
  ASSERT_EQ(::symlink("first.db", path("chain.db").c_str()), 0);
  EXPECT_EQ(tuning_db_file(path("chain.db")), path("dots/new.db"));
  EXPECT_EQ(tuning_db_file(path("dots/real.db")), path("dots/real.db"));
  const Status created = merge_into_tuning_db(path("chain.db"), {record("znver3", 0, 22, 2, Route::Recurrent,
                                                                        "w8-vt16-u1", 50)}, &merged);
  ASSERT_TRUE(created) << created.message();
  EXPECT_TRUE(fs::is_symlink(path("chain.db")));
  EXPECT_TRUE(fs::is_symlink(path("first.db")));
  EXPECT_EQ(read_ok(path("dots/new.db")).records.size(), 1u);
  // A ".." in a link's target, under a linked folder: the folder the link
  // really is, not the text's (sub/x.db, not x.db).
  fs::create_directories(path("sub/real"));
  ASSERT_EQ(::symlink("sub/real", path("lnk").c_str()), 0);
  ASSERT_EQ(::symlink("../x.db", path("sub/real/db").c_str()), 0);
  ASSERT_TRUE(merge_into_tuning_db(path("lnk/db"), {record("znver3", 0, 22, 2, Route::Recurrent, "w8-vt16-u1", 50)},
                                   &merged));
  EXPECT_TRUE(fs::exists(path("sub/x.db")));
  EXPECT_FALSE(fs::exists(path("x.db")));
}

// Two records for one call (a hand-merged file): the earlier line is used
// and the later one named (found by a review: the first silently won).
TEST_F(TuningDbTest, AnOverlappingRecordIsNamedAndTheEarlierUsed) {
  const Target h = host("znver3", 256);
  const TuningDb db({record("znver3", 0, 22, 1, Route::Recurrent, "w8-vt8-u1-p0", 100, 16, 24),
                     record("znver3", 0, 4, 1, Route::Recurrent, "w8-vt16-u1", 50, 16, 24),
                     record("znver3", 23, 99, 1, Route::Recurrent, "w8-vt16-u1", 50, 16, 24),
                     record("znver3", 0, 4, 2, Route::Recurrent, "w8-vt16-u1", 50, 16, 24)},
                    h);
  ASSERT_EQ(db.skipped().size(), 1u);
  EXPECT_EQ(db.skipped()[0], "record 'znver3 16 24 0 4 1 recurrent w8-vt16-u1 50' overlaps the earlier "
                             "'znver3 16 24 0 22 1 recurrent w8-vt8-u1-p0 100', which is used");
  const TuningRecord* used = db.find(Route::Recurrent, {16, 24}, 1, 1);
  ASSERT_NE(used, nullptr);
  EXPECT_EQ(used->schedule, "w8-vt8-u1-p0");
  EXPECT_NE(db.find(Route::Recurrent, {16, 24}, 50, 1), nullptr);
  EXPECT_NE(db.find(Route::Recurrent, {16, 24}, 1, 2), nullptr);
}

// A database of another format version is named as such, not as a bad header.
TEST_F(TuningDbTest, AnotherVersionsDatabaseIsNamedAsSuch) {
  write_text("v2.db", "# gdr tuning db v2\nznver3 128 128 0 22 1 recurrent w8-vt16-u1 100\n");
  TuningDbFile read;
  const Status s = read_tuning_db(path("v2.db"), &read);
  EXPECT_EQ(s.message(), path("v2.db") + ":1: written by another gdr (its header is '# gdr tuning db v2', this gdr "
                                         "reads '# gdr tuning db v1')");
  write_text("other.db", "hello\n");
  EXPECT_EQ(read_tuning_db(path("other.db"), &read).message(),
            path("other.db") + ":1: expected the header '# gdr tuning db v1'");
}

// A later run that measured one route (here chunked at another H) leaves no
// record of the other route in its bucket for auto to compare it with.
TEST_F(TuningDbTest, AutoComparesOnlyOneRunsMediansOfABucket) {
  const std::vector<TuningRecord> old = {
      record("cpu-a", 0, kUnboundedT, 1, Route::Recurrent, "w16-vt64-u1", 14e6),
      record("cpu-a", 0, kUnboundedT, 1, Route::Chunked, "c16-w16", 28e6)};
  const std::vector<TuningRecord> fresh = {record("cpu-a", 0, kUnboundedT, 1, Route::Chunked, "c16-w16", 2e6)};
  const TuningDb db(merge_tuning_records(old, fresh), host("cpu-a"));
  EXPECT_EQ(plan(db, Route::Auto, {128, 128}, 64, 1).variant.route, Route::Recurrent);
  EXPECT_TRUE(plan(db, Route::Chunked, {128, 128}, 64, 1).tuned);
}

TEST_F(TuningDbTest, MergeKeepsOtherShapesAndHostsAndReplacesOverlappingBuckets) {
  const std::vector<TuningRecord> old = {
      record("icelake-client", 0, 22, 1, Route::Recurrent, "w16-vt64-u1", 100),     // replaced
      record("icelake-client", 23, kUnboundedT, 1, Route::Recurrent, "w16-vt64-u1", 200),  // replaced
      record("icelake-client", 0, 22, 1, Route::Chunked, "c16-w16", 300),           // replaced (other run)
      record("icelake-client", 0, 22, 2, Route::Recurrent, "w16-vt64-u1", 400),     // other threads
      record("znver3", 0, 22, 1, Route::Recurrent, "w8-vt32-u1", 500),              // other host
      record("icelake-client", 0, 22, 1, Route::Recurrent, "w16-vt64-u1", 600, 64), // other K
  };
  std::vector<TuningRecord> fresh = {
      record("icelake-client", 0, 100, 1, Route::Recurrent, "w16-vt128-u2", 150)};
  const std::vector<TuningRecord> merged = merge_tuning_records(old, fresh);
  ASSERT_EQ(merged.size(), 4u);
  // A fresh record of another call form replaces none of the plain ones.
  fresh[0].form.layout = Layout::TokenMajor;
  EXPECT_EQ(merge_tuning_records(old, fresh).size(), old.size() + 1);
  fresh[0].form = {};
  // The chunked record of that bucket went too: auto compares the two
  // routes' medians of a bucket, which must come from one run.
  for (double gone : {100.0, 200.0, 300.0})
    for (const TuningRecord& r : merged) EXPECT_NE(r.median_ns, gone);
  EXPECT_TRUE(same(merged.back(), fresh[0]));
}

TEST_F(TuningDbTest, BadLinesAreSkippedOneByOneAndReportedOnce) {
  write_text("bad.db", std::string(kTuningDbHeader) +
                           "\n# comment\ncpu 128 128 0 22 1 recurrent w16-vt64-u1 100\n"
                           "cpu 128 128 0 22 1 recurrent w16-vt60-u1 100\n"
                           "cpu 128 128 23 inf 1 recurrent w16-vt32-u1 200\n"
                           "cpu 128 128 23 inf 2 recurrent w16-vt32-u1 inf\n");
  const TuningDbFile read = read_ok(path("bad.db"));
  ASSERT_EQ(read.bad_lines.size(), 2u);
  EXPECT_EQ(read.bad_lines[0].rfind(path("bad.db") + ":4: ", 0), 0u) << read.bad_lines[0];
  EXPECT_EQ(read.bad_lines[1].rfind(path("bad.db") + ":6: median_ns", 0), 0u) << read.bad_lines[1];
  ASSERT_EQ(read.records.size(), 2u);  // the good lines around them

  testing::internal::CaptureStderr();
  const TuningDb db = load_tuning_db(path("bad.db"), host("cpu"));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(db.records().size(), 2u);
  EXPECT_NE(db.find(Route::Recurrent, {128, 128}, 500, 1), nullptr);
  EXPECT_NE(err.find(path("bad.db") + ":4:"), std::string::npos) << err;
  EXPECT_NE(err.find("and 1 more"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(TuningDbTest, EachKindOfBadLineIsNamed) {
  const std::string good = "icelake-client 128 128 0 22 1 recurrent w16-vt64-u1 100";
  {
    write_text("header.db", "# gdr tuning db v0\n" + good + "\n");
    TuningDbFile read;
    const Status s = read_tuning_db(path("header.db"), &read);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find(":1: written by another gdr (its header is '# gdr tuning db v0'"), std::string::npos)
        << s.message();
  }
  struct Case {
    std::string line, expect;
  };
  const std::vector<Case> cases = {
      {"icelake-client 128 128 0 22 1 recurrent", ":2: expected 9 fields"},
      {"h 0 128 0 22 1 recurrent w16-vt64-u1 100", ":2: K:"},
      {"h 128 x 0 22 1 recurrent w16-vt64-u1 100", ":2: V:"},
      {"h 128 128 30 22 1 recurrent w16-vt64-u1 100", ":2: T_max:"},
      {"h 128 128 0 22 0 recurrent w16-vt64-u1 100", ":2: threads:"},
      {"h 128 128 0 22 1 fast w16-vt64-u1 100", ":2: route:"},
      {"h 128 128 0 22 1 reference w16-vt64-u1 100", ":2: route 'reference'"},
      {"h 128 128 0 22 1 chunked w16-vt64-u1 100", ":2: schedule 'w16-vt64-u1'"},
      {"h 128 128 0 22 1 recurrent w16-vt64-u1 -5", ":2: median_ns:"},
      {"h 128 128 0 22 1 recurrent w16-vt64-u1 inf", ":2: median_ns:"},
      {"h 128 128 0 22 1 recurrent w16-vt64-u1 nan", ":2: median_ns:"},
      {"h 128 128 0 22 1 recurrent w16-vt64-u1 1e999", ":2: median_ns:"},
      {"h 128 128 0 22 1 recurrent w16-vt64-u1 0x10", ":2: median_ns:"},
      {"h 128 128 0 22 1 recurrent w16-vt64-u1 100 key_group=0", ":2: form: key_group:"},
      {"h 128 128 0 22 1 recurrent w16-vt64-u1 100 layout=tbhd", ":2: form: layout: expected bhtd or bthd"},
      {"h 128 128 0 22 1 recurrent w16-vt64-u1 100 key_group=+2", ":2: form: key_group:"},
      {"h 128 128 0 22 1 recurrent w16-vt64-u1 100 varln", ":2: form: unknown word 'varln'"},
      {"h 128 128 0 22 1 recurrent w16-vt64-u1 100 decay=linear", ":2: form: expected decay=scalar|channel"},
  };
  for (const Case& c : cases) {
    write_text("case.db", std::string(kTuningDbHeader) + "\n" + c.line + "\n" + good + "\n");
    const TuningDbFile read = read_ok(path("case.db"));
    ASSERT_EQ(read.bad_lines.size(), 1u) << c.line;
    EXPECT_NE(read.bad_lines[0].find(c.expect), std::string::npos) << read.bad_lines[0];
    EXPECT_EQ(read.records.size(), 1u) << c.line;
  }
}

// Records that parse but could never compile here are left out of the
// lookup, one stderr line each; the same record passes on a host it fits.
TEST_F(TuningDbTest, RecordsThatCannotCompileOnTheHostAreSkipped) {
  const std::vector<TuningRecord> records = {
      record("cpu", 0, 1, 1, Route::Recurrent, "w4-vt4-u16", 1, 8, 8),     // unroll > K
      record("cpu", 0, 1, 2, Route::Recurrent, "w16-vt512-u1", 1, 8, 8),   // 32 vectors
      record("cpu", 0, 1, 3, Route::Recurrent, "w3-vt6-u1", 1, 8, 8),      // width not 2^n
      record("cpu", 0, 1, 4, Route::Recurrent, "w32-vt32-u1", 1, 8, 8),    // wider than AVX-512
      record("cpu", 0, 1, 5, Route::Recurrent, "w4-vt4-u1-p65", 1, 8, 8),  // prefetch > 64
      record("cpu", 0, 1, 6, Route::Chunked, "c16-w16", 1, 8, 8),          // fine at 512 bits
      record("cpu", 0, 1, 7, Route::Recurrent, "w16-vt16-u1", 1, 8, 8),    // fine at 512 bits
      record("other", 0, 1, 1, Route::Recurrent, "w4-vt4-u16", 1, 8, 8),   // another host's
  };
  testing::internal::CaptureStderr();
  const TuningDb wide(records, host("cpu", 512));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");  // the constructor only lists them
  ASSERT_EQ(wide.skipped().size(), 5u);
  EXPECT_NE(wide.skipped()[0].find("'unroll' = 16 exceeds"), std::string::npos) << wide.skipped()[0];
  for (int threads = 1; threads <= 5; ++threads)
    EXPECT_EQ(wide.find(Route::Recurrent, {8, 8}, 0, threads), nullptr) << threads;
  EXPECT_NE(wide.find(Route::Chunked, {8, 8}, 0, 6), nullptr);
  EXPECT_NE(wide.find(Route::Recurrent, {8, 8}, 0, 7), nullptr);
  EXPECT_EQ(wide.records().size(), records.size());

  // The same CPU name with 256-bit vectors: width 16 does not fit.
  const TuningDb narrow(records, host("cpu", 256));
  EXPECT_EQ(narrow.skipped().size(), 7u);
  EXPECT_EQ(narrow.find(Route::Chunked, {8, 8}, 0, 6), nullptr);
  EXPECT_EQ(narrow.find(Route::Recurrent, {8, 8}, 0, 7), nullptr);
  EXPECT_FALSE(plan(narrow, Route::Recurrent, {8, 8}, 0, 7).tuned);

  // Loaded from a file: one line however many, naming the file, the count
  // and the first record.
  ASSERT_TRUE(write_tuning_db(path("t.db"), records));
  testing::internal::CaptureStderr();
  load_tuning_db(path("t.db"), host("cpu", 256));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("gdr: tuning db " + path("t.db") + ": 7 records are ignored (the first: record "),
            std::string::npos) << err;
  EXPECT_NE(err.find("(the first: " + narrow.skipped()[0] + ")"), std::string::npos) << err;

  // A single one is named in full.
  ASSERT_TRUE(write_tuning_db(path("one.db"), {records[0]}));
  testing::internal::CaptureStderr();
  load_tuning_db(path("one.db"), host("other-cpu", 512));
  load_tuning_db(path("one.db"), host("cpu", 64));
  const std::string one = testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(one.begin(), one.end(), '\n'), 1) << one;
  EXPECT_NE(one.find(": record '" + tuning_record_line(records[0]) + "' does not fit this host"),
            std::string::npos) << one;
}

// The records choose the code that runs, so the database follows the
// kernel cache's ownership rule: another user's file is ignored with one
// line; a FIFO or a device is refused at once instead of read forever.
TEST_F(TuningDbTest, ForeignFifoAndDeviceDatabasesAreRefused) {
  const std::vector<TuningRecord> records = {record("cpu", 0, 1, 1, Route::Recurrent, "w16-vt16-u1", 1, 8, 8)};
  ASSERT_TRUE(write_tuning_db(path("mine.db"), records));
  EXPECT_EQ(load_tuning_db(path("mine.db"), host("cpu")).records().size(), 1u);

  ASSERT_EQ(::mkfifo(path("fifo.db").c_str(), 0600), 0);
  TuningDbFile read;
  Status s = read_tuning_db(path("fifo.db"), &read);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("is a FIFO, not a regular file"), std::string::npos) << s.message();
  s = read_tuning_db("/dev/zero", &read);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("is a character device"), std::string::npos) << s.message();

  ASSERT_TRUE(write_tuning_db(path("theirs.db"), records));
  if (std::string why = gdr::test::give_to_other_user(path("theirs.db")); !why.empty()) GTEST_SKIP() << why;
  testing::internal::CaptureStderr();
  const TuningDb theirs = load_tuning_db(path("theirs.db"), host("cpu"));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(theirs.records().empty());
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("gdr: tuning db " + path("theirs.db") + ": is owned by uid " +
                     std::to_string(gdr::test::kOtherUid) + ", not by this user"),
            std::string::npos) << err;
}

// A database its group or others may write is not read (its records choose
// the code that runs); one gdr writes under a umask of 002 is not such a
// file.
TEST_F(TuningDbTest, DatabasesOthersMayWriteAreRefused) {
  const std::vector<TuningRecord> records = {record("cpu", 0, 1, 1, Route::Recurrent, "w16-vt16-u1", 1, 8, 8)};
  const mode_t old_mask = umask(002);
  const Status written = write_tuning_db(path("team.db"), records);
  umask(old_mask);
  ASSERT_TRUE(written) << written.message();
  EXPECT_EQ(load_tuning_db(path("team.db"), host("cpu")).records().size(), 1u);
  for (const auto& [mode, who] : {std::pair<mode_t, std::string>{0664, "its group (mode 0664)"},
                                  {0646, "others (mode 0646)"}}) {
    ASSERT_EQ(::chmod(path("team.db").c_str(), mode), 0);
    TuningDbFile read;
    const Status s = read_tuning_db(path("team.db"), &read);
    ASSERT_FALSE(s) << who;
    EXPECT_NE(s.message().find(path("team.db") + ": is writable by " + who), std::string::npos) << s.message();
  }
}

// Damaged databases, seeded: each record read_tuning_db takes from one has
// sane fields and writes back as a line that reads as the same record (a
// database gdr rewrites, merging new records in, keeps it); every other
// line is named as bad. Edits: bytes changed, removed or repeated, and
// words that parse almost (limits, signs, exponents, empty forms).
TEST_F(TuningDbTest, DamagedDatabasesGiveSaneRecordsThatRoundTripOrBadLines) {
  std::vector<TuningRecord> records = {
      record("icelake-client", 0, 22, 1, Route::Recurrent, "w16-vt128-u2", 71234),
      record("icelake-client", 23, kUnboundedT, 2, Route::Chunked, "c32-w16", 7.5e6, 64, 96),
      record("znver4", 0, 22, 1, Route::Recurrent, "w16-vt32-u1-p2", 5e5)};
  records[2].decay = DecayKind::Scalar;
  records[2].readouts = 2;
  records[2].form = every_call_form_field();
  ASSERT_TRUE(write_tuning_db(path("good.db"), records));
  std::ifstream in(path("good.db"));
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const char* const words[] = {"0",       "-1",    "+7",           "inf",        "nan",         "1e308",
                               "0.4",     "1e-9",  "9223372036854775807",        "18446744073709551616",
                               " ",       "\n",    "\t",           "decay=",     "readouts=0",  "readouts=99",
                               "key_group=0", "layout=", "varlen",  "recurrent",  "chunked",     "w16-vt0-u1",
                               "c0-w16",  "c16-w16", "w16-vt64-u1-p2", "#"};
  uint64_t seed = 20261206;
  auto next = [&](uint64_t n) {  // splitmix64
    seed += 0x9e3779b97f4a7c15ull;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (z ^ (z >> 31)) % n;
  };
  int records_read = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string text = good;
    for (uint64_t edits = 1 + next(3); edits > 0; --edits) {
      // Past the header: a damaged header refuses the whole file.
      const size_t at = std::strlen(kTuningDbHeader) + 1 + next(text.size() - std::strlen(kTuningDbHeader));
      switch (next(4)) {
        case 0: text[std::min(at, text.size() - 1)] = static_cast<char>(next(256)); break;
        case 1: text.erase(at, next(8)); break;
        case 2: text.insert(at, text.substr(at, next(24))); break;
        default: text.insert(at, words[next(std::size(words))]); break;
      }
    }
    write_text("damaged.db", text);
    TuningDbFile read;
    ASSERT_TRUE(read_tuning_db(path("damaged.db"), &read)) << text;
    for (const std::string& bad : read.bad_lines) EXPECT_EQ(bad.find('\n'), std::string::npos) << bad;
    for (const TuningRecord& r : read.records) {
      ++records_read;
      const std::string line = tuning_record_line(r);
      EXPECT_TRUE(r.K >= 1 && r.V >= 1 && r.T_min >= 0 && r.T_min <= r.T_max && r.threads >= 1 &&
                  r.threads <= 1024 && std::isfinite(r.median_ns) && r.median_ns > 0 && r.readouts >= 1 &&
                  r.form.key_group >= 1)
          << line;
      write_text("one.db", std::string(kTuningDbHeader) + "\n" + line + "\n");
      const TuningDbFile again = read_ok(path("one.db"));
      ASSERT_EQ(again.records.size(), 1u) << "'" << line << "' does not read back: "
                                          << (again.bad_lines.empty() ? "" : again.bad_lines[0]);
      EXPECT_TRUE(same(again.records[0], r) || std::abs(again.records[0].median_ns - r.median_ns) < 1) << line;
    }
  }
  EXPECT_GT(records_read, 2000);  // the edits leave most records whole
  // A median under half a nanosecond, which "%.0f" once wrote as 0, a
  // median the reader refuses.
  write_text("small.db", std::string(kTuningDbHeader) + "\nznver4 128 128 0 22 1 recurrent w16-vt64-u1-p2 0.4\n");
  const TuningDbFile small = read_ok(path("small.db"));
  ASSERT_EQ(small.records.size(), 1u);
  const std::string line = tuning_record_line(small.records[0]);
  write_text("one.db", std::string(kTuningDbHeader) + "\n" + line + "\n");
  EXPECT_EQ(read_ok(path("one.db")).records.size(), 1u) << line;
}

// Twenty thousand records of other hardware (a database shared across a
// fleet) give one line, with their count.
TEST_F(TuningDbTest, ManyRecordsThatDoNotFitGiveOneLine) {
  std::vector<TuningRecord> records;
  for (int i = 0; i < 20000; ++i)
    records.push_back(record("cpu", i, i, 1, Route::Recurrent, "w32-vt32-u1", 1, 8, 8));
  ASSERT_TRUE(write_tuning_db(path("fleet.db"), records));
  testing::internal::CaptureStderr();
  const TuningDb db = load_tuning_db(path("fleet.db"), host("cpu", 512));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(db.skipped().size(), 20000u);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err.substr(0, 1000);
  EXPECT_NE(err.find(": 20000 records are ignored"), std::string::npos) << err.substr(0, 1000);
}

// The decode default's tile: 8 vectors at K > 64 on any host (4 on 16
// registers at K <= 64: variant_test), clamped to the whole vectors of V
// (at least one), the same as the default's for small V.
TEST(TuningDbLookup, DefaultTileFitsV) {
  const TuningDb empty;
  for (int64_t V : {4, 8, 20, 128, 1000}) {
    const RecurrentSchedule decode = plan(empty, Route::Recurrent, {128, V}, 1, 1).variant.recurrent;
    const RecurrentSchedule prefill = plan(empty, Route::Recurrent, {128, V}, 512, 1).variant.recurrent;
    const int64_t w = decode.vector_width;
    EXPECT_EQ(decode.v_tile % w, 0) << V;
    EXPECT_GE(decode.v_tile, w) << V;
    EXPECT_LE(decode.v_tile, std::max(w, V)) << V;
    if (V >= 8 * w) EXPECT_EQ(decode.v_tile, 8 * w) << V;
    EXPECT_LE(prefill.v_tile, std::max(w, V)) << V;
    if (V <= w) EXPECT_EQ(decode, prefill) << V;  // one kernel, not two
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
  const std::vector<TuningRecord> records = {
      record("cpu-a", 0, 22, 1, Route::Recurrent, "w8-vt32-u2-p3", 100),
      record("cpu-a", 23, kUnboundedT, 1, Route::Recurrent, "w16-vt32-u4", 900),
      record("cpu-a", 23, kUnboundedT, 1, Route::Chunked, "c32-w8", 800)};
  const TuningDb db(records, host("cpu-a"));
  ASSERT_NE(db.find(Route::Recurrent, {128, 128}, 1, 1), nullptr);
  EXPECT_EQ(db.find(Route::Recurrent, {128, 128}, 22, 1)->schedule, "w8-vt32-u2-p3");
  EXPECT_EQ(db.find(Route::Recurrent, {128, 128}, 23, 1)->schedule, "w16-vt32-u4");
  EXPECT_EQ(db.find(Route::Recurrent, {128, 128}, int64_t(1) << 40, 1)->schedule, "w16-vt32-u4");
  EXPECT_EQ(TuningDb(records, host("cpu-b")).find(Route::Recurrent, {128, 128}, 1, 1), nullptr);
  EXPECT_EQ(db.find(Route::Recurrent, {64, 128}, 1, 1), nullptr);
  EXPECT_EQ(db.find(Route::Recurrent, {128, 64}, 1, 1), nullptr);
  EXPECT_EQ(db.find(Route::Recurrent, {128, 128}, 1, 2), nullptr);
  EXPECT_EQ(db.find(Route::Chunked, {128, 128}, 1, 1), nullptr);
  // The form is part of the key: a scalar-decay record serves scalar calls only.
  TuningRecord scalar = record("cpu-a", 0, 22, 1, Route::Recurrent, "w16-vt64-u1-p2", 50);
  scalar.decay = DecayKind::Scalar;
  TuningRecord readouts = record("cpu-a", 0, 22, 1, Route::Recurrent, "w16-vt32-u1-p2", 60);
  readouts.readouts = 2;
  const TuningDb forms({records[0], scalar, readouts}, host("cpu-a"));
  EXPECT_EQ(forms.find(Route::Recurrent, {128, 128}, 1, 1)->schedule, "w8-vt32-u2-p3");
  EXPECT_EQ(forms.find(Route::Recurrent, {128, 128, DecayKind::Scalar, 1}, 1, 1)->schedule,
            "w16-vt64-u1-p2");
  EXPECT_EQ(forms.find(Route::Recurrent, {128, 128, DecayKind::Channel, 2}, 1, 1)->schedule,
            "w16-vt32-u1-p2");
  EXPECT_EQ(forms.find(Route::Recurrent, {128, 128, DecayKind::Scalar, 2}, 1, 1), nullptr);
  EXPECT_EQ(plan(forms, Route::Auto, {128, 128, DecayKind::Scalar, 1}, 1, 1).variant.decay,
            DecayKind::Scalar);
  // The call's form is part of the key too: a token-major record serves
  // token-major calls; a form without records of its own (GVA here) takes
  // the plain form's, as does a call of every form field when only plain
  // and token-major records exist.
  TuningRecord token_major = record("cpu-a", 0, 22, 1, Route::Recurrent, "w16-vt64-u1-p2", 70);
  token_major.form.layout = Layout::TokenMajor;
  const TuningDb calls({records[0], token_major}, host("cpu-a"));
  CallForm gva;
  gva.key_group = 2;
  EXPECT_EQ(calls.find(Route::Recurrent, {128, 128}, 1, 1, token_major.form)->schedule, "w16-vt64-u1-p2");
  EXPECT_EQ(calls.find(Route::Recurrent, {128, 128}, 1, 1)->schedule, "w8-vt32-u2-p3");
  EXPECT_EQ(calls.find(Route::Recurrent, {128, 128}, 1, 1, gva)->schedule, "w8-vt32-u2-p3");
  EXPECT_EQ(calls.find(Route::Recurrent, {128, 128}, 1, 1, every_call_form_field())->schedule, "w8-vt32-u2-p3");
  EXPECT_EQ(TuningDb({token_major}, host("cpu-a")).find(Route::Recurrent, {128, 128}, 1, 1), nullptr);
  EXPECT_EQ(plan(calls, Route::Recurrent, {128, 128}, 1, 1, token_major.form).str(),
            "recurrent w16-vt64-u1-p2 (tuned)");
  // A schedule that does not parse for its route is never found.
  EXPECT_EQ(TuningDb({record("cpu-a", 0, 9, 1, Route::Recurrent, "c16-w16", 1)}, host("cpu-a"))
                .find(Route::Recurrent, {128, 128}, 1, 1),
            nullptr);

  // plan(): tuned where a record matches, the defaults elsewhere.
  Plan p = plan(db, Route::Recurrent, {128, 128}, 1, 1);
  EXPECT_TRUE(p.tuned);
  EXPECT_EQ(p.variant.schedule_str(), "w8-vt32-u2-p3");
  for (Plan other : {plan(TuningDb(records, host("cpu-b")), Route::Recurrent, {128, 128}, 1, 1),
                     plan(db, Route::Recurrent, {96, 128}, 1, 1),
                     plan(db, Route::Recurrent, {128, 96}, 1, 1),
                     plan(db, Route::Recurrent, {128, 128}, 1, 2)}) {
    EXPECT_FALSE(other.tuned) << other.str();
    EXPECT_EQ(other.variant.route, Route::Recurrent);
  }
  // Chunked: tuned from T = 23 on, the default schedule below.
  EXPECT_EQ(plan(db, Route::Chunked, {128, 128}, 100, 1).str(), "chunked c32-w8 (tuned)");
  EXPECT_EQ(plan(db, Route::Chunked, {128, 128}, 5, 1).variant,
            default_variant(Route::Chunked, {128, 128}, 5, host_target()));
  EXPECT_FALSE(plan(db, Route::Chunked, {128, 128}, 5, 1).tuned);
}

TEST(TuningDbLookup, AutoTakesTheRouteTheSameBucketFoundFastest) {
  const TuningDb chunked_faster({record("cpu", 23, kUnboundedT, 1, Route::Recurrent, "w16-vt64-u1", 900),
                                 record("cpu", 23, kUnboundedT, 1, Route::Chunked, "c32-w8", 800)},
                                host("cpu"));
  EXPECT_EQ(plan(chunked_faster, Route::Auto, {128, 128}, 512, 1).str(), "chunked c32-w8 (tuned)");
  // Below the bucket: nothing tuned, the recurrent default.
  EXPECT_EQ(plan(chunked_faster, Route::Auto, {128, 128}, 1, 1).variant.route, Route::Recurrent);
  const TuningDb recurrent_faster({record("cpu", 23, kUnboundedT, 1, Route::Recurrent, "w16-vt64-u1-p2", 700),
                                   record("cpu", 23, kUnboundedT, 1, Route::Chunked, "c32-w8", 800)},
                                  host("cpu"));
  EXPECT_EQ(plan(recurrent_faster, Route::Auto, {128, 128}, 512, 1).str(),
            "recurrent w16-vt64-u1-p2 (tuned)");
  // Buckets from different runs are not compared: recurrent.
  const TuningDb apart({record("cpu", 23, 1000, 1, Route::Recurrent, "w16-vt64-u1", 900),
                        record("cpu", 100, kUnboundedT, 1, Route::Chunked, "c32-w8", 800)},
                       host("cpu"));
  EXPECT_EQ(plan(apart, Route::Auto, {128, 128}, 512, 1).variant.route, Route::Recurrent);
  const TuningDb only_chunked({record("cpu", 0, kUnboundedT, 1, Route::Chunked, "c32-w8", 800)},
                              host("cpu"));
  EXPECT_EQ(plan(only_chunked, Route::Auto, {128, 128}, 512, 1).str().rfind("recurrent", 0), 0u);
}

// No records for both routes: recurrent, measured faster at every T
// (plan.cpp), at K = V = 256 too.
TEST(TuningDbLookup, AutoWithoutRecordsTakesTheMeasuredDefaultRoute) {
  const TuningDb empty;
  const std::string plain = plan(empty, Route::Auto, {256, 256}, 256, 1).str();
  EXPECT_EQ(plain.rfind("recurrent w", 0), 0u) << plain;
  EXPECT_NE(plain.find(" (default)"), std::string::npos) << plain;
  for (auto [K, V, T] : {std::tuple<int64_t, int64_t, int64_t>{256, 256, 4096}, {256, 512, 4096}, {256, 256, 1},
                         {128, 256, 512}, {256, 128, 512}, {128, 128, 4096}})
    EXPECT_EQ(plan(empty, Route::Auto, {K, V}, T, 1).variant.route, Route::Recurrent)
        << "K=" << K << " V=" << V << " T=" << T;
  // A record for recurrent alone runs it.
  const TuningDb only_recurrent({record("cpu", 0, kUnboundedT, 1, Route::Recurrent, "w16-vt32-u1", 900, 256, 256)},
                                host("cpu"));
  EXPECT_EQ(plan(only_recurrent, Route::Auto, {256, 256}, 512, 1).str(), "recurrent w16-vt32-u1-p0 (tuned)");
}

}  // namespace
}  // namespace gdr::compiler
