// The on-disk kernel cache: a miss writes an entry that the next compile
// loads instead of compiling; corrupt, truncated and mismatched entries are
// reported, deleted and rebuilt, never loaded; a disabled or unwritable
// cache still compiles. Every test uses its own folder (GDR_CACHE_DIR).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "gdr/compiler/chunked.h"
#include "gdr/compiler/disk_cache.h"
#include "gdr/compiler/jit.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/variant.h"
#include "gdr/kernel_abi.h"
#include "other_user.h"
#include "route_tester.h"
#include "scoped_env.h"
#include "temp_dir.h"

namespace gdr::test {
namespace {

namespace fs = std::filesystem;
using compiler::DiskCache;
using compiler::DiskCacheStats;
using compiler::KernelSpec;
using compiler::RecurrentSchedule;

const KernelSpec kSpec{40, 72};
const RecurrentSchedule kSchedule{8, 16, 1};

// The disk cache's key description of the recurrent kernel (spec, schedule).
std::string recurrent_description(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                  const compiler::Target& target) {
  return compiler::cache_description(compiler::recurrent_variant({spec.K, spec.V}, schedule), target);
}

std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

DiskCacheStats operator-(const DiskCacheStats& a, const DiskCacheStats& b) {
  return {a.hits - b.hits, a.misses - b.misses, a.rejected - b.rejected, a.stores - b.stores};
}

// A fresh folder as GDR_CACHE_DIR for each test; the environment is restored
// and the folder removed afterwards.
class DiskCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { cache_dir_.set(dir_); }

  std::string entry_path() const {
    return DiskCache(dir_).entry_path(
        recurrent_description(kSpec, kSchedule, compiler::host_target()));
  }

  // Compiles through compile_recurrent (no in-process cache) and checks the
  // kernel against the float64 reference.
  void compile_and_check(const std::string& what) {
    Kernel kernel;
    Status s = compiler::compile_recurrent(kSpec, kSchedule, &kernel);
    ASSERT_TRUE(s) << s.message();
    Problem p = make_problem(2, 1, 19, kSpec.K, kSpec.V,
                             {DecayRegime::NearOne, BetaRegime::Uniform, true, 17});
    Options o;
    o.threads = 1;
    expect_within_contract(p, o, what, [&](const Tensors& t, const Options& options) {
      return execute(kernel, t, options);
    });
  }

  // The same through the chunked route.
  void compile_chunked_and_check(const compiler::ChunkedSpec& spec, const std::string& what) {
    const compiler::CompiledKernel c = compiler::compile_chunked_uncached(spec);
    ASSERT_TRUE(c.status) << c.status.message();
    Problem p = make_problem(1, 2, 37, spec.K, spec.V,
                             {DecayRegime::NearOne, BetaRegime::Uniform, true, 5});
    Options o;
    o.threads = 1;
    expect_within_contract(p, o, what, [&](const Tensors& t, const Options& options) {
      return execute(c.kernel, t, options);
    });
  }

  const TempDir temp_{"gdr-cache-test"};
  const std::string dir_ = temp_.str();
  // Put back when the test ends.
  const ScopedEnv cache_dir_{"GDR_CACHE_DIR"}, xdg_cache_home_{"XDG_CACHE_HOME"}, home_{"HOME"},
      llvm_args_{"HL_LLVM_ARGS"};
};

TEST_F(DiskCacheTest, AMissWritesAnEntryThatTheNextCompileLoads) {
  ASSERT_FALSE(fs::exists(entry_path()));
  const DiskCacheStats before = compiler::disk_cache_stats();
  compile_and_check("cold");
  DiskCacheStats d = compiler::disk_cache_stats() - before;
  EXPECT_EQ(d.misses, 1);
  EXPECT_EQ(d.stores, 1);
  EXPECT_EQ(d.hits, 0);
  ASSERT_TRUE(fs::exists(entry_path()));
  const auto stored = read_file(entry_path());
  // The entry holds an ELF object after its header.
  const std::string elf = "\x7f" "ELF";
  EXPECT_NE(std::search(stored.begin(), stored.end(), elf.begin(), elf.end()), stored.end());

  testing::internal::CaptureStderr();
  compile_and_check("warm");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  d = compiler::disk_cache_stats() - before;
  EXPECT_EQ(d.hits, 1);
  EXPECT_EQ(d.stores, 1);  // a hit writes nothing
  EXPECT_EQ(read_file(entry_path()), stored);
}

// Each way an entry can go bad: it is reported on one stderr line naming the
// file, deleted, rebuilt (the rebuilt entry then loads cleanly), and the
// kernel is still right.
enum class Damage { FlippedPayloadByte, FlippedMagic, Truncated, TruncatedHeader, Extended, WrongKey,
                    WrongVersion };

std::string damage_name(const ::testing::TestParamInfo<Damage>& info) {
  const char* names[] = {"FlippedPayloadByte", "FlippedMagic", "Truncated", "TruncatedHeader",
                         "Extended",           "WrongKey",     "WrongVersion"};
  return names[static_cast<int>(info.param)];
}

class DamagedEntryTest : public DiskCacheTest, public ::testing::WithParamInterface<Damage> {};

TEST_P(DamagedEntryTest, IsReportedDeletedAndRebuilt) {
  compile_and_check("cold");
  const std::string path = entry_path();
  std::vector<char> bytes = read_file(path);
  ASSERT_GT(bytes.size(), 1000u);
  switch (GetParam()) {
    case Damage::FlippedPayloadByte: bytes[bytes.size() - 100] ^= 0x10; break;
    case Damage::FlippedMagic: bytes[0] ^= 0x01; break;
    case Damage::Truncated: bytes.resize(bytes.size() / 2); break;
    case Damage::TruncatedHeader: bytes.resize(10); break;
    case Damage::Extended: bytes.push_back('x'); break;
    case Damage::WrongVersion: bytes[8] ^= 0x40; break;  // first byte of the format version
    case Damage::WrongKey: {
      // A well-formed entry for another key under this entry's name, as a
      // hash collision would leave it.
      DiskCache(dir_).store("some other kernel", {'a', 'b', 'c'});
      bytes = read_file(DiskCache(dir_).entry_path("some other kernel"));
      break;
    }
  }
  write_file(path, bytes);

  const DiskCacheStats before = compiler::disk_cache_stats();
  testing::internal::CaptureStderr();
  compile_and_check("after damage");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
  DiskCacheStats d = compiler::disk_cache_stats() - before;
  EXPECT_EQ(d.rejected, 1);
  EXPECT_EQ(d.hits, 0);
  EXPECT_EQ(d.stores, 1);

  testing::internal::CaptureStderr();
  compile_and_check("rebuilt");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  d = compiler::disk_cache_stats() - before;
  EXPECT_EQ(d.hits, 1);
  EXPECT_EQ(d.rejected, 1);
}

INSTANTIATE_TEST_SUITE_P(Damages, DamagedEntryTest,
                         ::testing::Values(Damage::FlippedPayloadByte, Damage::FlippedMagic,
                                           Damage::Truncated, Damage::TruncatedHeader,
                                           Damage::Extended, Damage::WrongKey,
                                           Damage::WrongVersion),
                         damage_name);

TEST_F(DiskCacheTest, OffStillCompilesAndWritesNothing) {
  setenv("GDR_CACHE_DIR", "off", 1);
  EXPECT_FALSE(DiskCache::from_environment().enabled());
  const DiskCacheStats before = compiler::disk_cache_stats();
  testing::internal::CaptureStderr();
  compile_and_check("off");
  compile_and_check("off again");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  const DiskCacheStats d = compiler::disk_cache_stats() - before;
  EXPECT_EQ(d.misses, 2);
  EXPECT_EQ(d.hits + d.stores, 0);
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(DiskCacheTest, UnwritableFolderStillCompilesAndSaysSoOnce) {
  // A folder below a regular file cannot be created, even by root.
  write_file(dir_ + "/file", {'x'});
  const std::string bad = dir_ + "/file/cache";
  setenv("GDR_CACHE_DIR", bad.c_str(), 1);
  const DiskCacheStats before = compiler::disk_cache_stats();
  testing::internal::CaptureStderr();
  compile_and_check("unwritable");
  compile_and_check("unwritable again");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_NE(err.find(bad), std::string::npos) << err;
  const DiskCacheStats d = compiler::disk_cache_stats() - before;
  EXPECT_EQ(d.misses, 2);
  EXPECT_EQ(d.stores, 0);
}

TEST_F(DiskCacheTest, FolderComesFromTheEnvironmentInOrder) {
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(compiler::disk_cache_dir_from_environment(), dir_);
  unsetenv("GDR_CACHE_DIR");
  EXPECT_EQ(compiler::disk_cache_dir_from_environment(), "/xdg/gdr");
  setenv("XDG_CACHE_HOME", "relative", 1);  // invalid by the XDG spec: ignored
  EXPECT_EQ(compiler::disk_cache_dir_from_environment(), "/home/u/.cache/gdr");
  setenv("GDR_CACHE_DIR", "relative", 1);  // taken from the working folder now, not at each use
  EXPECT_EQ(compiler::disk_cache_dir_from_environment(), (fs::current_path() / "relative").string());
  unsetenv("GDR_CACHE_DIR");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(compiler::disk_cache_dir_from_environment(), "/home/u/.cache/gdr");
  unsetenv("HOME");
  EXPECT_EQ(compiler::disk_cache_dir_from_environment(), "");
  setenv("GDR_CACHE_DIR", "off", 1);
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(compiler::disk_cache_dir_from_environment(), "");
}

TEST_F(DiskCacheTest, KeysSeparateVariantsTargetsAndVersions) {
  const DiskCache cache(dir_);
  const compiler::Target& host = compiler::host_target();
  const std::string a = recurrent_description(kSpec, kSchedule, host);
  EXPECT_NE(cache.entry_path(a),
            cache.entry_path(recurrent_description({40, 73}, kSchedule, host)));
  EXPECT_NE(cache.entry_path(a),
            cache.entry_path(recurrent_description(kSpec, {8, 16, 2}, host)));
  compiler::Target other = host;
  other.features += ",-avx2";
  EXPECT_NE(cache.entry_path(a),
            cache.entry_path(recurrent_description(kSpec, kSchedule, other)));
  const std::string key = cache.key_text(a);
  EXPECT_NE(key.find("format " + std::to_string(compiler::kDiskCacheFormatVersion)), std::string::npos) << key;
  EXPECT_NE(key.find("llvm 14."), std::string::npos) << key;
  EXPECT_NE(key.find(host.features), std::string::npos);
  // Every route's code depends on the LLVM options Halide takes from the
  // environment (LLVM's are global) (a review).
  setenv("HL_LLVM_ARGS", "-unroll-threshold=0", 1);
  const std::string with_args = cache.key_text(a);
  unsetenv("HL_LLVM_ARGS");
  EXPECT_NE(with_args, key);
  EXPECT_NE(with_args.find("HL_LLVM_ARGS -unroll-threshold=0\n"), std::string::npos) << with_args;
}

// Writers racing on one entry: rename() replaces it whole, so every reader
// sees either no entry or an intact one, never a torn file.
TEST_F(DiskCacheTest, ConcurrentWritersAndReadersOfOneEntry) {
  const DiskCache cache(dir_);
  std::vector<char> payload(1 << 18);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7 + 3);
  const DiskCacheStats before = compiler::disk_cache_stats();
  testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  std::atomic<int> bad_reads{0}, good_reads{0};
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) cache.store("shared", payload);
    });
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        std::vector<char> got;
        if (cache.load("shared", &got)) (got == payload ? good_reads : bad_reads)++;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(bad_reads.load(), 0);
  EXPECT_EQ((compiler::disk_cache_stats() - before).rejected, 0);
  std::vector<char> got;
  ASSERT_TRUE(cache.load("shared", &got));
  EXPECT_EQ(got, payload);
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

// A verified payload that its user still refuses (the JIT, in the routes)
// is rejected like a corrupt one, and the rebuilt payload replaces it.
TEST_F(DiskCacheTest, APayloadItsUserRefusesIsRejectedAndRebuilt) {
  const DiskCache cache(dir_);
  cache.store("k", {'o', 'l', 'd'});
  std::vector<std::vector<char>> offered;
  auto build = [](std::vector<char>* p) {
    *p = {'n', 'e', 'w'};
    return Status::success();
  };
  auto use = [&](const std::vector<char>& p) {
    offered.push_back(p);
    return p == std::vector<char>{'o', 'l', 'd'} ? Status::error("stale") : Status::success();
  };
  testing::internal::CaptureStderr();
  ASSERT_TRUE(cache.load_or_build("k", build, use));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_NE(err.find(cache.entry_path("k")), std::string::npos) << err;
  EXPECT_NE(err.find("stale"), std::string::npos) << err;
  ASSERT_EQ(offered.size(), 2u);
  std::vector<char> got;
  ASSERT_TRUE(cache.load("k", &got));
  EXPECT_EQ(got, (std::vector<char>{'n', 'e', 'w'}));

  // A build that fails stores nothing and returns its error.
  auto failing = [](std::vector<char>*) { return Status::error("no compiler"); };
  const Status s = cache.load_or_build("other", failing, use);
  EXPECT_FALSE(s);
  EXPECT_EQ(s.message(), "no compiler");
  EXPECT_FALSE(fs::exists(cache.entry_path("other")));
}

// An intact entry whose kernel's table describes another kernel (here an
// impossible K = 0, checksum recomputed) is refused as it is loaded,
// discarded and rebuilt (found by a review: the table was read after the
// cache had accepted the entry, so every process failed on it for good).
TEST_F(DiskCacheTest, AnEntryWhoseKernelTableIsWrongIsRebuilt) {
  compile_and_check("cold");
  const DiskCache cache(dir_);
  const std::string description = recurrent_description(kSpec, kSchedule, compiler::host_target());
  std::vector<char> object;
  ASSERT_TRUE(cache.load(description, &object));
  const int64_t head[3] = {GDR_KERNEL_ABI_VERSION, kSpec.K, kSpec.V};
  const char* bytes = reinterpret_cast<const char*>(head);
  const auto table = std::search(object.begin(), object.end(), bytes, bytes + sizeof head);
  ASSERT_NE(table, object.end());
  std::fill(table + sizeof(int64_t), table + 2 * sizeof(int64_t), 0);  // K = 0
  cache.store(description, object);
  const DiskCacheStats before = compiler::disk_cache_stats();
  testing::internal::CaptureStderr();
  compile_and_check("a wrong table");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_NE(err.find(entry_path()), std::string::npos) << err;
  const DiskCacheStats d = compiler::disk_cache_stats() - before;
  EXPECT_EQ(d.rejected, 1);
  EXPECT_EQ(d.stores, 1);
  compile_and_check("rebuilt");
}

// A user that refuses the fresh build as well (this process's JIT full,
// say) leaves the entry for the other processes sharing the folder (found
// by a review: the entry was deleted, blamed for the process's failure).
TEST_F(DiskCacheTest, AnEntryIsKeptWhenItsUserRefusesTheFreshBuildToo) {
  const DiskCache cache(dir_);
  cache.store("k", {'o', 'l', 'd'});
  const compiler::DiskCacheStats before = compiler::disk_cache_stats();
  auto build = [](std::vector<char>* p) {
    *p = {'n', 'e', 'w'};
    return Status::success();
  };
  auto refuse = [](const std::vector<char>&) { return Status::error("the JIT's code region is full"); };
  testing::internal::CaptureStderr();
  const Status s = cache.load_or_build("k", build, refuse);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(s.message(), "the JIT's code region is full");
  EXPECT_EQ((compiler::disk_cache_stats() - before).rejected, 0);
  std::vector<char> got;
  ASSERT_TRUE(cache.load("k", &got));
  EXPECT_EQ(got, (std::vector<char>{'o', 'l', 'd'}));
}

// The chunked route's kernel (the Halide runtime is cached the same way; a
// process loads it once, so gdr_run_test covers it across processes).
TEST_F(DiskCacheTest, ChunkedKernelIsStoredLoadedAndRebuiltWhenDamaged) {
  compiler::ChunkedSpec spec;
  spec.K = 24;
  spec.V = 40;
  spec.schedule = {16, 8};
  const std::string path =
      DiskCache(dir_).entry_path(compiler::cache_description(spec.variant(), compiler::host_target()));
  auto compile_and_check = [&](const std::string& what) { compile_chunked_and_check(spec, what); };
  const DiskCacheStats before = compiler::disk_cache_stats();
  compile_and_check("cold");
  ASSERT_TRUE(fs::exists(path));
  EXPECT_GE((compiler::disk_cache_stats() - before).stores, 1);

  const DiskCacheStats warm = compiler::disk_cache_stats();
  compile_and_check("warm");
  DiskCacheStats d = compiler::disk_cache_stats() - warm;
  EXPECT_EQ(d.hits, 1);
  EXPECT_EQ(d.stores, 0);

  std::vector<char> bytes = read_file(path);
  bytes[bytes.size() - 64] ^= 0x04;
  write_file(path, bytes);
  const DiskCacheStats damaged = compiler::disk_cache_stats();
  testing::internal::CaptureStderr();
  compile_and_check("after damage");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
  d = compiler::disk_cache_stats() - damaged;
  EXPECT_EQ(d.rejected, 1);
  EXPECT_EQ(d.stores, 1);
}

// Halide writes objects to scratch files: a $TMPDIR that does not exist
// falls back to /tmp (it used to abort the process), cold or with the cache
// off. The Halide runtime is built too unless an earlier test of this
// process loaded it.
TEST_F(DiskCacheTest, ChunkedKernelCompilesWithABadTmpdir) {
  const ScopedEnv tmpdir("TMPDIR", dir_ + "/no-such-folder");
  compiler::ChunkedSpec spec;
  spec.K = 8;
  spec.V = 24;
  spec.schedule = {16, 8};
  testing::internal::CaptureStderr();
  compile_chunked_and_check(spec, "bad TMPDIR, cold");
  cache_dir_.set("off");
  compile_chunked_and_check(spec, "bad TMPDIR, cache off");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// Temporary names are random, not PID and counter: files left with this
// process's old-style names (a dead process of another container with the
// same PID) do not make a store fail.
TEST_F(DiskCacheTest, TemporaryFilesOfOtherProcessesDoNotStopAStore) {
  const DiskCache cache(dir_);
  for (int n = 0; n < 1000; ++n)
    write_file(cache.entry_path("k") + ".tmp." + std::to_string(getpid()) + "." + std::to_string(n),
               {'x'});
  const DiskCacheStats before = compiler::disk_cache_stats();
  testing::internal::CaptureStderr();
  cache.store("k", {'o', 'k'});
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ((compiler::disk_cache_stats() - before).stores, 1);
  std::vector<char> got;
  ASSERT_TRUE(cache.load("k", &got));
  EXPECT_EQ(got, (std::vector<char>{'o', 'k'}));
}

// A writer killed between creating its temporary file and the rename leaves
// the file behind: the first use of the folder deletes those older than an
// hour, and leaves fresh ones (a live writer's) and other files alone.
TEST_F(DiskCacheTest, StaleTemporaryFilesAreSwept) {
  const DiskCache cache(dir_);
  const std::string stale_new = cache.entry_path("a") + ".tmp.Ab12Cd";
  const std::string stale_old = cache.entry_path("b") + ".tmp.123.4";  // older builds' name
  const std::string fresh = cache.entry_path("c") + ".tmp.Zz9Yy8";
  const std::string other = dir_ + "/notes.tmp.txt";
  // GDR_CACHE_DIR may name a folder of the user's: names that only contain
  // an entry temporary's tail are the user's (an earlier sweep deleted them).
  const std::string users = dir_ + "/backup.gdrk.tmp.1";
  const std::string longer = dir_ + "/x" + fs::path(cache.entry_path("d")).filename().string() + ".tmp.1";
  for (const std::string& f : {stale_new, stale_old, fresh, other, users, longer}) write_file(f, {'x'});
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  for (const std::string& f : {stale_new, stale_old, other, users, longer}) fs::last_write_time(f, two_hours_ago);
  std::vector<char> got;
  EXPECT_FALSE(cache.load("a", &got));
  EXPECT_FALSE(fs::exists(stale_new));
  EXPECT_FALSE(fs::exists(stale_old));
  EXPECT_TRUE(fs::exists(fresh));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_TRUE(fs::exists(users));
  EXPECT_TRUE(fs::exists(longer));
}

// Another process may rename a good entry over a refused one meanwhile: it
// stays (only the file that was read is ever deleted, and only once a fresh
// build replaces it: here the build fails).
TEST_F(DiskCacheTest, ARejectedEntryReplacedMeanwhileIsKept) {
  const DiskCache cache(dir_);
  cache.store("k", {'o', 'l', 'd'});
  auto use = [&](const std::vector<char>& p) {
    if (p != std::vector<char>{'o', 'l', 'd'}) return Status::success();
    cache.store("k", {'n', 'e', 'w'});  // as the other process would
    return Status::error("stale");
  };
  auto failing = [](std::vector<char>*) { return Status::error("no compiler"); };
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.load_or_build("k", failing, use));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "") << "nothing discarded while nothing replaces it";
  std::vector<char> got;
  ASSERT_TRUE(cache.load("k", &got)) << "the replacing entry was deleted";
  EXPECT_EQ(got, (std::vector<char>{'n', 'e', 'w'}));
}

// An object the JIT refuses (a cached entry that does not link, say) is
// unloaded again, whatever step refused it.
TEST_F(DiskCacheTest, AnObjectTheJitRefusesIsUnloaded) {
  compile_and_check("cold");
  std::vector<char> object;
  ASSERT_TRUE(DiskCache(dir_).load(
      recurrent_description(kSpec, kSchedule, compiler::host_target()), &object));
  const int64_t before = compiler::jit_loaded_objects();
  void* address = nullptr;
  testing::internal::CaptureStderr();  // the JIT's own report of the failed lookup
  EXPECT_FALSE(compiler::jit_load_object(object, "gdr_no_such_symbol", &address));
  EXPECT_FALSE(compiler::jit_load_object({'n', 'o', 't', ' ', 'E', 'L', 'F'}, "f", &address));
  EXPECT_FALSE(compiler::jit_load_object(object, "f", &address, "gdr_no_such_library"));
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(compiler::jit_loaded_objects(), before);
}

// The ownership rule (support/file_trust.h): entries are code this process
// runs, so a folder others can write, a folder or an entry of another user,
// and an entry that is not a regular file are never used. Each is reported
// on one line naming the path and why; the kernel is compiled in memory and
// right.
class UntrustedCacheTest : public DiskCacheTest {
 protected:
  // Compiles twice with the cache in `folder`: no hit, nothing stored, one
  // line naming the folder and `why`.
  void expect_folder_not_used(const std::string& folder, const std::string& why) {
    setenv("GDR_CACHE_DIR", folder.c_str(), 1);
    const DiskCacheStats before = compiler::disk_cache_stats();
    testing::internal::CaptureStderr();
    compile_and_check("untrusted folder");
    compile_and_check("untrusted folder again");
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(count_lines(err), 1) << err;
    EXPECT_NE(err.find("kernel cache folder " + folder + " " + why), std::string::npos) << err;
    EXPECT_NE(err.find("not using it, compiling in memory"), std::string::npos) << err;
    const DiskCacheStats d = compiler::disk_cache_stats() - before;
    EXPECT_EQ(d.hits, 0);
    EXPECT_EQ(d.stores, 0);
  }

  // The entry at entry_path() is not used: one line naming it and `why`,
  // the kernel rebuilt and right, and an entry of this user's in its place.
  void expect_entry_not_used(const std::string& why) {
    const DiskCacheStats before = compiler::disk_cache_stats();
    testing::internal::CaptureStderr();
    compile_and_check("untrusted entry");
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(count_lines(err), 1) << err;
    EXPECT_NE(err.find("kernel cache entry " + entry_path() + " " + why), std::string::npos) << err;
    const DiskCacheStats d = compiler::disk_cache_stats() - before;
    EXPECT_EQ(d.hits, 0);
    EXPECT_EQ(d.rejected, 1);
    struct stat info;
    ASSERT_EQ(::lstat(entry_path().c_str(), &info), 0);
    EXPECT_TRUE(S_ISREG(info.st_mode));
    EXPECT_EQ(info.st_uid, ::geteuid());
  }
};

TEST_F(UntrustedCacheTest, FolderWritableByOthersIsNotUsed) {
  const std::string shared = dir_ + "/shared";
  ASSERT_EQ(::mkdir(shared.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);  // a team's /tmp/gdr-cache
  // An intact entry that a second user put there is not loaded either.
  compile_and_check("cold");
  const std::string name = fs::path(entry_path()).filename().string();
  write_file(shared + "/" + name, read_file(entry_path()));
  expect_folder_not_used(shared, "is writable by others (mode 1777)");
}

TEST_F(UntrustedCacheTest, FolderWritableByItsGroupIsNotUsed) {
  const std::string shared = dir_ + "/group";
  ASSERT_EQ(::mkdir(shared.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 0770), 0);
  expect_folder_not_used(shared, "is writable by its group (mode 0770)");
}

TEST_F(UntrustedCacheTest, FolderOfAnotherUserIsNotUsed) {
  const std::string theirs = dir_ + "/theirs";
  ASSERT_EQ(::mkdir(theirs.c_str(), 0755), 0);
  if (std::string why = give_to_other_user(theirs); !why.empty()) GTEST_SKIP() << why;
  expect_folder_not_used(theirs, "is owned by uid " + std::to_string(kOtherUid));
}

TEST_F(UntrustedCacheTest, EntryOfAnotherUserIsNotRun) {
  // The hostile case: another user's object under the entry's name, with a
  // valid header and checksum (anyone can compute them).
  compile_and_check("cold");
  if (std::string why = give_to_other_user(entry_path()); !why.empty()) GTEST_SKIP() << why;
  expect_entry_not_used("is owned by uid " + std::to_string(kOtherUid) + ", not by this user");
}

// Writing a file takes no right on its folder: an entry others (or its
// group) may write could be rewritten, checksum and all.
TEST_F(UntrustedCacheTest, EntryWritableByOthersOrItsGroupIsNotRun) {
  compile_and_check("cold");
  ASSERT_EQ(::chmod(entry_path().c_str(), 0666), 0);
  expect_entry_not_used("is writable by others (mode 0666), not used");
  ASSERT_EQ(::chmod(entry_path().c_str(), 0664), 0);
  expect_entry_not_used("is writable by its group (mode 0664), not used");
}

TEST_F(UntrustedCacheTest, SymbolicLinkEntryIsNotFollowed) {
  // To an intact entry elsewhere: still not used; to /dev/zero: no read at all.
  compile_and_check("cold");
  const std::string elsewhere = dir_ + "/elsewhere";
  ASSERT_EQ(std::rename(entry_path().c_str(), elsewhere.c_str()), 0);
  for (const std::string& target : {elsewhere, std::string("/dev/zero")}) {
    std::remove(entry_path().c_str());  // the entry rebuilt the round before
    ASSERT_EQ(::symlink(target.c_str(), entry_path().c_str()), 0);
    expect_entry_not_used("is a symbolic link, not a regular file");
  }
}

TEST_F(UntrustedCacheTest, FifoEntryDoesNotHang) {
  compile_and_check("cold");
  ASSERT_EQ(std::remove(entry_path().c_str()), 0);
  ASSERT_EQ(::mkfifo(entry_path().c_str(), 0600), 0);
  expect_entry_not_used("is a FIFO, not a regular file");
}

// The folders gdr creates are its user's alone whatever the umask, so that
// they pass the rule the next time.
TEST_F(DiskCacheTest, CreatedFoldersArePrivate) {
  const std::string nested = dir_ + "/a/b/cache";
  setenv("GDR_CACHE_DIR", nested.c_str(), 1);
  const mode_t old_umask = ::umask(002);
  compile_and_check("created");
  ::umask(old_umask);
  for (const std::string& folder : {dir_ + "/a", dir_ + "/a/b", nested}) {
    struct stat info;
    ASSERT_EQ(::stat(folder.c_str(), &info), 0) << folder;
    EXPECT_EQ(info.st_mode & 0777, 0700u) << folder;
  }
  testing::internal::CaptureStderr();
  compile_and_check("warm");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// Root (sudo -E keeps HOME) creates no folder in another user's home: one
// it could not use nor delete. The kernel still compiles, in memory.
TEST_F(DiskCacheTest, NoFolderIsCreatedInAnotherUsersFolder) {
  const std::string home = dir_ + "/home";
  ASSERT_EQ(::mkdir(home.c_str(), 0755), 0);
  if (std::string why = give_to_other_user(home); !why.empty()) GTEST_SKIP() << why;
  setenv("GDR_CACHE_DIR", (home + "/.cache/gdr").c_str(), 1);
  const DiskCacheStats before = compiler::disk_cache_stats();
  testing::internal::CaptureStderr();
  compile_and_check("in another user's home");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_NE(err.find("will not create " + home + "/.cache in " + home + ", which is owned by uid " +
                     std::to_string(kOtherUid)),
            std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(home + "/.cache"));
  EXPECT_EQ((compiler::disk_cache_stats() - before).stores, 0);
}

// A damaged entry that cannot be deleted is reported as such, not as
// deleted. Root deletes anything, so the load runs in a child process as the
// other user, in a read-only folder of that user's.
TEST_F(DiskCacheTest, EntryThatCannotBeDeletedIsReportedAsSuch) {
  const std::string description =
      recurrent_description(kSpec, kSchedule, compiler::host_target());
  const std::string folder = dir_ + "/locked";
  ASSERT_EQ(::mkdir(folder.c_str(), 0755), 0);
  const DiskCache cache(folder);
  cache.store(description, {'o', 'k'});
  std::vector<char> bytes = read_file(cache.entry_path(description));
  bytes.back() ^= 1;
  write_file(cache.entry_path(description), bytes);
  const bool as_root = ::geteuid() == 0;
  if (as_root) {
    ASSERT_EQ(::chmod(dir_.c_str(), 0711), 0);  // the other user may pass through
    for (const std::string& path : {folder, cache.entry_path(description)})
      if (std::string why = give_to_other_user(path); !why.empty()) GTEST_SKIP() << why;
  }
  ASSERT_EQ(::chmod(folder.c_str(), 0555), 0);
  const std::string err_path = dir_ + "/stderr.txt";
  const pid_t child = ::fork();
  if (child == 0) {
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (err < 0 || ::dup2(err, 2) < 0 || ::fchmod(err, 0666) != 0) ::_exit(3);
    if (as_root && ::setuid(kOtherUid) != 0) ::_exit(4);
    std::vector<char> payload;
    ::_exit(cache.load(description, &payload) ? 5 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  std::vector<char> err_bytes = read_file(err_path);
  const std::string err(err_bytes.begin(), err_bytes.end());
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_NE(err.find("fails its SHA-256 checksum (corrupt); cannot delete it (Permission denied)"),
            std::string::npos) << err;
  EXPECT_TRUE(fs::exists(cache.entry_path(description)));
  ::chmod(folder.c_str(), 0755);
}

}  // namespace
}  // namespace gdr::test
