#include "gdr/compiler/tuning_db.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

#include "gdr/compiler/diagnostics.h"
#include "gdr/compiler/disk_cache.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/settings.h"
#include "gdr/compiler/variant.h"
#include "gdr/support/atomic_file.h"
#include "gdr/support/file_trust.h"
#include "gdr/support/regular_file.h"

namespace gdr::compiler {

const char kTuningDbHeader[] = "# gdr tuning db v1";

namespace {

// Any version's header starts so: another's is named as such.
const char kTuningDbHeaderStem[] = "# gdr tuning db v";
const char kColumns[] =
    "# host_cpu K V T_min T_max threads route schedule median_ns [decay=scalar] [readouts=R] "
    "[layout=bthd] [key_group=G] [varlen] [in_place]";
// About 70 bytes a record: room for a million records, not for /dev/zero.
constexpr uint64_t kMaxTuningDbBytes = uint64_t(64) << 20;

// Parses r->schedule for r->route, K and V into r->variant; why not, or "".
std::string parse_schedule_of(TuningRecord* r) {
  Variant v;
  v.route = r->route;
  v.K = r->K;
  v.V = r->V;
  v.decay = r->decay;
  v.readouts = r->readouts;
  std::string error;
  if (!parse_variant_schedule(r->route, r->schedule, &v, &error)) return error;
  r->variant = v;
  return "";
}

// One record line, or why not.
std::string parse_record(const std::string& line, TuningRecord* r) {
  std::istringstream in(line);
  std::vector<std::string> f;
  for (std::string word; in >> word;) f.push_back(word);
  if (f.size() < 9 || f.size() > 15)
    return "expected 9 fields and the form (" + std::string(kColumns + 2) + "), got " +
           std::to_string(f.size()) + " fields";
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
  // Decimal only: strtod alone would also take "inf", "nan", hex and
  // overflowing exponents.
  char* end = nullptr;
  errno = 0;
  r->median_ns = std::strtod(f[8].c_str(), &end);
  if (f[8].find_first_not_of("0123456789.eE+-") != std::string::npos || *end != '\0' ||
      errno != 0 || !std::isfinite(r->median_ns) || !(r->median_ns > 0))
    return "median_ns: expected a finite positive number, got '" + f[8] + "'";
  // The kernel's form, as Variant::str() writes it, and the call's.
  Variant form;
  for (size_t i = 9; i < f.size(); ++i) {
    const std::string& word = f[i];
    if (word.rfind("layout=", 0) == 0) {
      if (word != "layout=bthd" && word != "layout=bhtd")
        return "form: layout: expected bhtd or bthd, got '" + word.substr(7) + "'";
      r->form.layout = word == "layout=bthd" ? Layout::TokenMajor : Layout::HeadMajor;
    } else if (word.rfind("key_group=", 0) == 0) {
      const std::string group = word.substr(10);
      if (group.find_first_not_of("0123456789") != std::string::npos || !integer(group, 1, &r->form.key_group) ||
          r->form.key_group == kUnboundedT)
        return "form: key_group: expected a positive integer, got '" + group + "'";
    } else if (word == "varlen" || word == "in_place") {
      (word == "varlen" ? r->form.varlen : r->form.in_place) = true;
    } else if (word.rfind("decay=", 0) == 0 || word.rfind("readouts=", 0) == 0) {
      if (std::string why; !parse_form_word(word, &form, &why)) return "form: " + why;
    } else {
      return "form: unknown word '" + word +
             "' (expected decay=scalar|channel, readouts=R, layout=bhtd|bthd, key_group=G, varlen, in_place)";
    }
  }
  r->decay = form.decay;
  r->readouts = form.readouts;
  // After the form: the variant is of the record's decay and readouts.
  return parse_schedule_of(r);
}

std::string trimmed(const std::string& line) {
  const char* space = " \t\r\n\v\f";
  const size_t first = line.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return line.substr(first, line.find_last_not_of(space) + 1 - first);
}

// Why `r` (parsed) does not fit `host`, or "": a recurrent schedule the
// verifier rejects would fail to compile; a chunked one wider than the
// host's vectors would compile (Halide splits the vectors) but was measured
// on other hardware (the same CPU name with AVX-512 masked, say).
std::string why_not_on(const TuningRecord& r, const Target& host) {
  const Variant& v = r.variant;
  if (v.route == Route::Recurrent) {
    Status s = check_recurrent_schedule(v.spec(), v.recurrent, host);
    return s ? "" : s.message();
  }
  if (std::string why = v.chunked.check(); !why.empty()) return why;
  if (v.chunked.vector_width * 32 > host.vector_bits)
    return "vector width " + std::to_string(v.chunked.vector_width) + " was tuned for " +
           std::to_string(v.chunked.vector_width * 32) + "-bit vectors, the host has " +
           std::to_string(host.vector_bits);
  return "";
}

// Of either route: `auto` compares the two routes' medians of a bucket
// (plan.cpp), so both must come from one gdr-tune run (one B, H and T); a
// run that measured one route drops the other's record there.
bool overlaps(const TuningRecord& a, const TuningRecord& b) {
  return a.host_cpu == b.host_cpu && a.K == b.K && a.V == b.V && a.decay == b.decay &&
         a.readouts == b.readouts && a.form == b.form && a.threads == b.threads &&
         a.T_min <= b.T_max && b.T_min <= a.T_max;
}

}  // namespace

std::string tuning_record_line(const TuningRecord& r) {
  // Whole nanoseconds, at least 1: the reader takes only medians above 0,
  // and a median under half a nanosecond (a hand-written one) once came
  // back as "0", a line the next read refused.
  char median[64];
  std::snprintf(median, sizeof median, "%.0f", std::max(r.median_ns, 1.0));
  return r.host_cpu + ' ' + std::to_string(r.K) + ' ' + std::to_string(r.V) + ' ' +
         std::to_string(r.T_min) + ' ' +
         (r.T_max == kUnboundedT ? std::string("inf") : std::to_string(r.T_max)) + ' ' +
         std::to_string(r.threads) + ' ' + route_name(r.route) + ' ' + r.schedule + ' ' + median +
         (r.decay == DecayKind::Scalar ? " decay=scalar" : "") +
         (r.readouts > 1 ? " readouts=" + std::to_string(r.readouts) : "") +
         (r.form.layout == Layout::TokenMajor ? " layout=bthd" : "") +
         (r.form.key_group > 1 ? " key_group=" + std::to_string(r.form.key_group) : "") +
         (r.form.varlen ? " varlen" : "") + (r.form.in_place ? " in_place" : "");
}

CallForm call_form_of(const Tensors& t) {
  CallForm form;
  form.layout = t.layout;
  form.key_group = t.H / call_shape(t).key_heads;
  form.varlen = t.cu_seqlens.given();
  form.in_place = t.in_place;
  return form;
}

Status read_tuning_db(const std::string& path, TuningDbFile* file) {
  struct stat seen;
  if (::stat(path.c_str(), &seen) != 0 && errno == ENOENT) {
    *file = TuningDbFile();  // none yet
    return Status::success();
  }
  // Records choose the code that runs: only a regular file of this user's
  // is read (the rule of the kernel cache, support/file_trust.h).
  support::RegularFile opened;
  std::string text;
  Status s = support::RegularFile::open(path, &opened);
  if (s) {
    const std::string why = support::why_file_untrusted(opened.info());
    s = why.empty() ? opened.read_all(kMaxTuningDbBytes, &text) : Status::error(why);
  }
  if (!s) return Status::error(path + ": " + s.message());
  std::istringstream in(text);
  TuningDbFile read;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    auto where = [&] { return path + ":" + std::to_string(number) + ": "; };
    line = trimmed(line);
    if (number == 1) {
      if (line != kTuningDbHeader)
        return Status::error(where() + (line.rfind(kTuningDbHeaderStem, 0) == 0
                                            ? "written by another gdr (its header is '" + line + "', this gdr reads '" +
                                                  kTuningDbHeader + "')"
                                            : "expected the header '" + std::string(kTuningDbHeader) + "'"));
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    TuningRecord r;
    if (std::string why = parse_record(line, &r); !why.empty())
      read.bad_lines.push_back(where() + why);
    else
      read.records.push_back(r);
  }
  *file = std::move(read);
  return Status::success();
}

Status write_tuning_db(const std::string& path, const std::vector<TuningRecord>& records) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path())
    if (Status s = support::create_private_folders(target.parent_path().string()); !s)
      return Status::error(path + ": cannot create its folder: " + s.message());
  std::string text = std::string(kTuningDbHeader) + "\n" + kColumns + "\n";
  for (const TuningRecord& r : records) text += tuning_record_line(r) + "\n";
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  const std::string name = target.filename().string();
  support::sweep_stale_temporaries_once(dir, name, [&](const std::string& file) {
    return support::is_temporary_of(file, name);
  });
  // The old file's mode (a private 0600 stays so), else 0644; less the
  // umask and never writable by the group or others, which read_tuning_db
  // would refuse.
  struct stat old;
  const int mode = (::stat(path.c_str(), &old) == 0 ? old.st_mode & 0755 : 0644);
  if (std::string failure = support::write_file_atomically(path, {text}, mode); !failure.empty())
    return Status::error(path + ": cannot write it: " + failure);
  return Status::success();
}

Status read_tuning_db_to_replace(const std::string& path, std::vector<TuningRecord>* records) {
  TuningDbFile file;
  if (Status s = read_tuning_db(path, &file); !s) return Status::error(s.message() + "; not overwritten (fix or remove it)");
  if (!file.bad_lines.empty())
    return Status::error(file.bad_lines[0] +
                         (file.bad_lines.size() > 1 ? " (and " + std::to_string(file.bad_lines.size() - 1) +
                                                          " more bad lines)"
                                                    : "") +
                         "; not overwritten, which would drop those lines (fix or remove them)");
  *records = std::move(file.records);
  return Status::success();
}

std::string tuning_db_file(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path at = path;
  std::error_code error;
  for (int links = 0; links < 40 && fs::is_symlink(fs::symlink_status(at, error)); ++links) {
    const fs::path target = fs::read_symlink(at, error);
    if (error) break;
    at = target.is_absolute() ? target : at.parent_path() / target;
  }
  // Not normalised as text: "dir/.." is for the kernel to resolve, from the
  // folder a linked "dir" really is (a review: x.db written, sub/x.db meant).
  return at.string();
}

Status merge_into_tuning_db(const std::string& given, const std::vector<TuningRecord>& fresh,
                            std::vector<TuningRecord>* merged) {
  namespace fs = std::filesystem;
  // A symbolic link (a database kept with the user's dotfiles) is followed:
  // the file it names is locked, read and replaced, not the link.
  const std::string path = tuning_db_file(given);
  const fs::path target(path);
  if (target.has_parent_path())
    if (Status s = support::create_private_folders(target.parent_path().string()); !s)
      return Status::error(path + ": cannot create its folder: " + s.message());
  const std::string lock_path = path + ".lock";
  // O_NONBLOCK: a FIFO planted there must not stall the open.
  const int lock = ::open(lock_path.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (lock < 0) return Status::error(lock_path + ": cannot open the writers' lock: " + std::strerror(errno));
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }  // releases the flock
  } unlock{lock};
  // Only a lock of this user's: another's could be held forever.
  struct stat info;
  if (::fstat(lock, &info) != 0) return Status::error(lock_path + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) return Status::error(lock_path + ": is not a regular file");
  if (std::string why = support::why_file_untrusted(info); !why.empty()) return Status::error(lock_path + ": " + why);
  if (::flock(lock, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) return Status::error(lock_path + ": cannot lock it: " + std::strerror(errno));
    warn("gdr: waiting for another writer of " + path + " (it holds " + lock_path + ")");
    int locked;
    while ((locked = ::flock(lock, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (locked != 0) return Status::error(lock_path + ": cannot lock it: " + std::strerror(errno));
  }
  std::vector<TuningRecord> existing;
  if (Status s = read_tuning_db_to_replace(path, &existing); !s) return s;
  *merged = merge_tuning_records(existing, fresh);
  return write_tuning_db(path, *merged);
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

TuningDb::TuningDb(std::vector<TuningRecord> records, const Target& host)
    : records_(std::move(records)) {
  // A check runs the dialect's verifier (~0.3 ms): once per distinct
  // variant, not per record (20k records of one schedule took 6 s).
  std::map<Variant, std::string> checked;
  for (size_t i = 0; i < records_.size(); ++i) {
    TuningRecord& r = records_[i];
    if (r.host_cpu != host.cpu) continue;
    std::string why = parse_schedule_of(&r);
    if (why.empty()) {
      auto it = checked.find(r.variant);
      if (it == checked.end()) it = checked.emplace(r.variant, why_not_on(r, host)).first;
      why = it->second;
    }
    if (!why.empty()) {
      skipped_.push_back("record '" + tuning_record_line(r) + "' does not fit this host: " + why);
      continue;
    }
    // Two records for one call (a hand-merged file; gdr-tune's merge never
    // writes them): the earlier line is used, and the later one named.
    std::vector<size_t>& same = index_[Key{r.route, r.K, r.V, r.decay, r.readouts, r.form, r.threads}];
    const auto earlier =
        std::find_if(same.begin(), same.end(), [&](size_t j) { return overlaps(records_[j], r); });
    if (earlier == same.end())
      same.push_back(i);
    else
      skipped_.push_back("record '" + tuning_record_line(r) + "' overlaps the earlier '" +
                         tuning_record_line(records_[*earlier]) + "', which is used");
  }
}

const TuningRecord* TuningDb::find_exactly(const Key& key, int64_t T) const {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  for (size_t i : it->second)
    if (records_[i].T_min <= T && T <= records_[i].T_max) return &records_[i];
  return nullptr;
}

const TuningRecord* TuningDb::find(Route route, const KernelSpec& spec, int64_t T, int threads,
                                   const CallForm& form) const {
  auto key = [&](const CallForm& f) {
    return Key{route, spec.K, spec.V, spec.decay, spec.readouts, f, threads};
  };
  if (const TuningRecord* own = find_exactly(key(form), T)) return own;
  return form == CallForm() ? nullptr : find_exactly(key(CallForm()), T);
}

TuningDb load_tuning_db(const std::string& path, const Target& host) {
  if (path.empty()) return TuningDb();
  TuningDbFile file;
  if (Status s = read_tuning_db(path, &file); !s) {
    warn("gdr: tuning db " + s.message() + "; ignored (routes use their default schedules)");
    return TuningDb();
  }
  if (!file.bad_lines.empty()) {
    const size_t more = file.bad_lines.size() - 1;
    warn("gdr: tuning db " + file.bad_lines[0] +
         (more ? " (and " + std::to_string(more) + " more bad lines)" : std::string()) + "; " +
         (more ? "those lines" : "that line") + " ignored");
  }
  TuningDb db(std::move(file.records), host);
  // One line however many: a database shared across machines may hold
  // thousands of records for other hosts' schedules.
  if (const size_t n = db.skipped().size(); n == 1)
    warn("gdr: tuning db " + path + ": " + db.skipped()[0] + "; ignored");
  else if (n > 1)
    warn("gdr: tuning db " + path + ": " + std::to_string(n) +
         " records are ignored (the first: " + db.skipped()[0] + ")");
  return db;
}

namespace {

// The database of the current settings, read at its first use after they
// change. Databases read before stay allocated: a caller may still hold a
// reference, and there is one per set_settings() call at most.
struct ProcessDb {
  std::mutex mutex;
  std::atomic<const TuningDb*> current{nullptr};
};
ProcessDb& process_db() {
  static ProcessDb* db = new ProcessDb;
  return *db;
}

}  // namespace

void reset_process_tuning_db() {
  std::lock_guard<std::mutex> lock(process_db().mutex);
  process_db().current = nullptr;
}

const TuningDb& process_tuning_db() {
  ProcessDb& p = process_db();
  if (const TuningDb* db = p.current.load(std::memory_order_acquire)) return *db;
  std::lock_guard<std::mutex> lock(p.mutex);
  if (const TuningDb* db = p.current.load(std::memory_order_acquire)) return *db;
  const TuningDb* db = new TuningDb(load_tuning_db(current_tuning_db_path(), host_target()));
  p.current.store(db, std::memory_order_release);
  return *db;
}

}  // namespace gdr::compiler
