// The tuning database: gdr-tune's winners, one line per (host CPU, K, V,
// T bucket, threads, route), which the routes read to pick their schedules.
// A small text file (no JSON parser in the dependencies); format and
// location in docs/tuning.md.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "gdr/compiler/kernel_spec.h"
#include "gdr/runtime.h"
#include "gdr/schedules/schedule.h"
#include "gdr/status.h"

namespace gdr::compiler {

constexpr int64_t kUnboundedT = std::numeric_limits<int64_t>::max();  // "inf" in the file

struct TuningRecord {
  std::string host_cpu;            // LLVM's name of the CPU (host_target().cpu)
  int64_t K = 0, V = 0;
  int64_t T_min = 0, T_max = 0;    // the T bucket, both ends included
  int threads = 1;
  Route route = Route::Recurrent;  // Recurrent or Chunked
  std::string schedule;            // recurrent_schedule_str() or schedules::Schedule::str()
  double median_ns = 0;            // the winner's median at the T it was tuned at
  // `schedule` parsed for `route`, filled in by TuningDb so that a lookup
  // per call does not parse text.
  RecurrentSchedule recurrent;
  schedules::Schedule chunked;
};

// The file's first line; a file that starts otherwise is not read.
extern const char kTuningDbHeader[];

// Reads `path` into *records. A missing file is an empty database (ok). Any
// other problem is one error naming the file and line ("FILE:LINE: why"),
// *records untouched.
Status read_tuning_db(const std::string& path, std::vector<TuningRecord>* records);

// Writes `records` to `path` atomically (a temporary file in the same folder,
// then rename), creating the folder.
Status write_tuning_db(const std::string& path, const std::vector<TuningRecord>& records);

// `fresh` plus the records of `old` that no fresh record supersedes: a fresh
// record supersedes the old ones of the same host, K, V, threads and route
// whose T bucket overlaps its own (a new run may cut the buckets elsewhere).
std::vector<TuningRecord> merge_tuning_records(const std::vector<TuningRecord>& old,
                                               const std::vector<TuningRecord>& fresh);

// tuning.db in the kernel cache's folder (disk_cache_dir_from_environment:
// $GDR_CACHE_DIR, else $XDG_CACHE_HOME/gdr, else $HOME/.cache/gdr); empty
// when there is none or GDR_CACHE_DIR=off.
std::string default_tuning_db_path();

// Records indexed for the per-call lookup (a record whose schedule does not
// parse for its route is left out).
class TuningDb {
 public:
  TuningDb() = default;
  explicit TuningDb(std::vector<TuningRecord> records);

  // The record of `route` for this host, K, V and threads whose bucket holds
  // T; null if there is none.
  const TuningRecord* find(const std::string& host_cpu, Route route, int64_t K, int64_t V,
                           int64_t T, int threads) const;
  const std::vector<TuningRecord>& records() const { return records_; }

 private:
  using Key = std::tuple<std::string, Route, int64_t, int64_t, int>;
  std::vector<TuningRecord> records_;
  std::map<Key, std::vector<size_t>> index_;  // indices into records_
};

// Reads `path` into a TuningDb; a malformed file prints one line on stderr
// ("gdr: tuning db FILE:LINE: why; ignored") and gives an empty database.
TuningDb load_tuning_db(const std::string& path);

// The process's database: load_tuning_db(default_tuning_db_path()), read on
// first use and kept for the life of the process.
const TuningDb& process_tuning_db();

}  // namespace gdr::compiler
