#include "gdr/compiler/tuning_db.h"

#include "gdr/compiler/disk_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gdr/compiler/disk_cache.h"
#include "gdr/compiler/kernel_spec.h"
#include "gdr/schedules/schedule.h"

namespace gdr::compiler {

const char kTuningDbHeader[] = "# gdr tuning db v1";

namespace {

const char kColumns[] = "# host_cpu K V T_min T_max threads route schedule median_ns";

// Parses r->schedule for r->route into r->recurrent or r->chunked; why
// not, or "".
std::string parse_schedule_of(TuningRecord* r) {
  std::string error;
  if (r->route == Route::Recurrent)
    return parse_recurrent_schedule(r->schedule, &r->recurrent, &error) ? "" : error;
  if (r->route == Route::Chunked)
    return schedules::parse_schedule(r->schedule, &r->chunked, &error) ? "" : error;
  return std::string("route '") + route_name(r->route) + "' has no tuned schedules";
}

// One record line, or why not.
std::string parse_record(const std::string& line, TuningRecord* r) {
  std::istringstream in(line);
  std::vector<std::string> f;
  for (std::string word; in >> word;) f.push_back(word);
  if (f.size() != 9) return "expected 9 fields (" + std::string(kColumns + 2) + "), got " +
                            std::to_string(f.size());
  auto integer = [](const std::string& text, int64_t min, int64_t* out) {
    if (text == "inf") return *out = kUnboundedT, true;
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0 || v < min) return false;
    *out = v;
    return true;
  };
  int64_t threads = 0;
  r->host_cpu = f[0];
  if (!integer(f[1], 1, &r->K) || r->K == kUnboundedT) return "K: expected a positive integer, got '" + f[1] + "'";
  if (!integer(f[2], 1, &r->V) || r->V == kUnboundedT) return "V: expected a positive integer, got '" + f[2] + "'";
  if (!integer(f[3], 0, &r->T_min) || r->T_min == kUnboundedT) return "T_min: expected an integer >= 0, got '" + f[3] + "'";
  if (!integer(f[4], 0, &r->T_max) || r->T_max < r->T_min)
    return "T_max: expected an integer >= T_min or 'inf', got '" + f[4] + "'";
  if (!integer(f[5], 1, &threads) || threads > 1024) return "threads: expected 1 to 1024, got '" + f[5] + "'";
  r->threads = static_cast<int>(threads);
  if (!parse_route(f[6], &r->route)) return "route: unknown route '" + f[6] + "'";
  r->schedule = f[7];
  if (std::string why = parse_schedule_of(r); !why.empty()) return why;
  char* end = nullptr;
  r->median_ns = std::strtod(f[8].c_str(), &end);
  if (*end != '\0' || !(r->median_ns > 0)) return "median_ns: expected a positive number, got '" + f[8] + "'";
  return "";
}

bool overlaps(const TuningRecord& a, const TuningRecord& b) {
  return a.host_cpu == b.host_cpu && a.K == b.K && a.V == b.V && a.threads == b.threads &&
         a.route == b.route && a.T_min <= b.T_max && b.T_min <= a.T_max;
}

}  // namespace

Status read_tuning_db(const std::string& path, std::vector<TuningRecord>* records) {
  std::ifstream in(path);
  if (!in) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return Status::error(path + ": cannot be read");
    records->clear();
    return Status::ok();
  }
  std::vector<TuningRecord> read;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    auto where = [&] { return path + ":" + std::to_string(number) + ": "; };
    if (number == 1) {
      if (line != kTuningDbHeader)
        return Status::error(where() + "expected the header '" + kTuningDbHeader + "'");
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
    TuningRecord r;
    if (std::string why = parse_record(line, &r); !why.empty()) return Status::error(where() + why);
    read.push_back(r);
  }
  if (in.bad()) return Status::error(path + ": read failed");
  *records = std::move(read);
  return Status::ok();
}

Status write_tuning_db(const std::string& path, const std::vector<TuningRecord>& records) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) return Status::error(path + ": cannot create its folder: " + ec.message());
  // Same folder, so the rename is atomic; the pid keeps two writers apart.
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp);
    out << kTuningDbHeader << "\n" << kColumns << "\n";
    char median[64];
    for (const TuningRecord& r : records) {
      std::snprintf(median, sizeof median, "%.0f", r.median_ns);
      out << r.host_cpu << ' ' << r.K << ' ' << r.V << ' ' << r.T_min << ' '
          << (r.T_max == kUnboundedT ? std::string("inf") : std::to_string(r.T_max)) << ' '
          << r.threads << ' ' << route_name(r.route) << ' ' << r.schedule << ' ' << median << "\n";
    }
    out.flush();
    if (!out) {
      fs::remove(temp, ec);
      return Status::error(path + ": write failed");
    }
  }
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return Status::error(path + ": cannot replace it: " + ec.message());
  }
  return Status::ok();
}

std::vector<TuningRecord> merge_tuning_records(const std::vector<TuningRecord>& old,
                                               const std::vector<TuningRecord>& fresh) {
  std::vector<TuningRecord> merged;
  for (const TuningRecord& o : old)
    if (std::none_of(fresh.begin(), fresh.end(), [&](const TuningRecord& f) { return overlaps(o, f); }))
      merged.push_back(o);
  merged.insert(merged.end(), fresh.begin(), fresh.end());
  return merged;
}

std::string default_tuning_db_path() {
  const std::string dir = disk_cache_dir_from_environment();
  return dir.empty() ? std::string() : dir + "/tuning.db";
}

TuningDb::TuningDb(std::vector<TuningRecord> records) : records_(std::move(records)) {
  for (size_t i = 0; i < records_.size(); ++i) {
    TuningRecord& r = records_[i];
    if (parse_schedule_of(&r).empty()) index_[Key{r.host_cpu, r.route, r.K, r.V, r.threads}].push_back(i);
  }
}

const TuningRecord* TuningDb::find(const std::string& host_cpu, Route route, int64_t K, int64_t V,
                                   int64_t T, int threads) const {
  auto it = index_.find(Key{host_cpu, route, K, V, threads});
  if (it == index_.end()) return nullptr;
  for (size_t i : it->second)
    if (records_[i].T_min <= T && T <= records_[i].T_max) return &records_[i];
  return nullptr;
}

TuningDb load_tuning_db(const std::string& path) {
  std::vector<TuningRecord> records;
  if (path.empty()) return TuningDb();
  if (Status s = read_tuning_db(path, &records); !s) {
    std::fprintf(stderr, "gdr: tuning db %s; ignored (routes use their default schedules)\n",
                 s.message().c_str());
    return TuningDb();
  }
  return TuningDb(std::move(records));
}

const TuningDb& process_tuning_db() {
  static const TuningDb db = load_tuning_db(default_tuning_db_path());
  return db;
}

}  // namespace gdr::compiler
