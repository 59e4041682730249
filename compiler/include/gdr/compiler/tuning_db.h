// The tuning database: gdr-tune's winners, one line per (host CPU, K, V,
// kernel's and call's form, T bucket, threads, route), which the routes
// read to pick their schedules.
// A small text file (no JSON parser in the dependencies); format and
// location in docs/tuning.md.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "gdr/compiler/target.h"
#include "gdr/compiler/variant.h"
#include "gdr/runtime.h"
#include "gdr/status.h"

namespace gdr::compiler {

constexpr int64_t kUnboundedT = std::numeric_limits<int64_t>::max();  // "inf" in the file

// The call's form beyond the kernel's (run-time facts, not compile-time
// ones): what a schedule was tuned under. Part of the key, so that tuning
// one form does not replace another's records; a call of a form with no
// record of its own uses the plain form's (TuningDb::find).
struct CallForm {
  Layout layout = Layout::HeadMajor;
  int64_t key_group = 1;  // state heads per key head (GVA): H / key_heads
  bool varlen = false;    // cu_seqlens given
  bool in_place = false;
  auto fields() const { return std::make_tuple(layout, key_group, varlen, in_place); }
  bool operator==(const CallForm& o) const { return fields() == o.fields(); }
  bool operator<(const CallForm& o) const { return fields() < o.fields(); }
};

// The form of a call of t's (valid) sizes.
CallForm call_form_of(const Tensors& t);

struct TuningRecord {
  std::string host_cpu;            // LLVM's name of the CPU (host_target().cpu)
  int64_t K = 0, V = 0;
  int64_t T_min = 0, T_max = 0;    // the T bucket, both ends included
  int threads = 1;
  Route route = Route::Recurrent;  // Recurrent or Chunked
  std::string schedule;            // Variant::schedule_str()
  double median_ns = 0;            // the winner's median at the T it was tuned at
  DecayKind decay = DecayKind::Channel;  // the kernel's form (KernelSpec), part of the key
  int64_t readouts = 1;
  CallForm form;                         // the call's, part of the key
  // The route, K, V and `schedule` parsed, filled in by read_tuning_db and
  // TuningDb so that a lookup per call does not parse text.
  Variant variant;
};

// The file's first line; a file that starts otherwise is not read.
extern const char kTuningDbHeader[];

// One record as a line of the file (without the newline).
std::string tuning_record_line(const TuningRecord& record);

// What read_tuning_db found in a file.
struct TuningDbFile {
  std::vector<TuningRecord> records;
  std::vector<std::string> bad_lines;  // "FILE:LINE: why" for each line skipped
};

// Reads `path` into *file. A missing file is an empty database (ok). A file
// that cannot be read, is not a regular file (a folder, a FIFO), is owned by
// another user (support/file_trust.h), is over 64 MiB or starts with a line
// that is not this version's header is an error naming it, *file untouched
// (an empty file is an empty database). Lines are trimmed (CRLF and indented comments
// read fine); a record line that does not parse is skipped and named in
// bad_lines, the others are still read.
Status read_tuning_db(const std::string& path, TuningDbFile* file);

// Writes `records` to `path` atomically (a unique temporary file in the same
// folder, then rename), creating the folder (mode 0700) if need be. A file
// replaced keeps its mode, less any write right of its group or others.
Status write_tuning_db(const std::string& path, const std::vector<TuningRecord>& records);

// `fresh` plus the records of `old` that no fresh record supersedes: a fresh
// record supersedes the old ones of the same host, K, V, forms (kernel's
// and call's) and threads whose T bucket overlaps its own, of either route
// (a new run may cut the buckets elsewhere, and auto compares only one
// run's medians).
std::vector<TuningRecord> merge_tuning_records(const std::vector<TuningRecord>& old,
                                               const std::vector<TuningRecord>& fresh);

// The records of the database at `path` (none if it does not exist), or an
// error if a writer must not replace the file: it cannot be read, or it
// holds lines that do not parse (rewriting would drop them).
Status read_tuning_db_to_replace(const std::string& path, std::vector<TuningRecord>* records);

// The file a database path names: a symbolic link's target (through a chain
// of links, each relative to its own folder), also one that does not exist
// yet (a link made with the user's dotfiles before the first run); else
// `path`.
std::string tuning_db_file(const std::string& path);

// Merges `fresh` into the database at `path` (merge_tuning_records) and
// writes it, holding an exclusive lock (flock of `<path>.lock`, a file of
// its own: the database is replaced by rename) from the read to the write,
// so that two writers (gdr-tune runs tuning other shapes) keep each
// other's records; waits while another holds it. A symbolic link is
// followed (tuning_db_file): the file it names is locked and replaced.
// *merged: what was written.
Status merge_into_tuning_db(const std::string& path, const std::vector<TuningRecord>& fresh,
                            std::vector<TuningRecord>* merged);

// tuning.db in the kernel cache's folder (disk_cache_dir_from_environment:
// $GDR_CACHE_DIR, else $XDG_CACHE_HOME/gdr, else $HOME/.cache/gdr); empty
// when there is none or GDR_CACHE_DIR=off.
std::string default_tuning_db_path();

// The records of one host indexed for the per-call lookup. A record of that
// host is indexed only if its schedule parses for its route and compiles
// there: the recurrent ones pass the dialect's verifier for (K, V, host), the
// chunked ones Schedule::check() and the host's vector width. Otherwise a
// record that could never compile would make every matching call fail.
class TuningDb {
 public:
  TuningDb() = default;
  TuningDb(std::vector<TuningRecord> records, const Target& host);

  // The record of `route` for the spec (K, V, kernel's form), the call's
  // form and threads whose bucket holds T; without one, that of the plain
  // call form (head-major, no key groups, no varlen, not in place), which is
  // all a database of plain tuning runs has; null if neither.
  const TuningRecord* find(Route route, const KernelSpec& spec, int64_t T, int threads,
                           const CallForm& form = {}) const;
  // Every record given, those of other hosts and the skipped ones included.
  const std::vector<TuningRecord>& records() const { return records_; }
  // One sentence per record of this host left out, saying why.
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  using Key = std::tuple<Route, int64_t, int64_t, DecayKind, int64_t, CallForm, int>;
  const TuningRecord* find_exactly(const Key& key, int64_t T) const;
  std::vector<TuningRecord> records_;
  std::vector<std::string> skipped_;
  std::map<Key, std::vector<size_t>> index_;  // indices into records_
};

// Reads `path` into a TuningDb for `host`. Says on stderr, one line each,
// what it leaves out: the whole file if it cannot be read ("gdr: tuning db
// FILE: why; ignored"), its bad lines (one line naming the first and how
// many), each record that cannot compile on the host.
TuningDb load_tuning_db(const std::string& path, const Target& host);

// The process's database: load_tuning_db(current_tuning_db_path(),
// host_target()) (settings.h), read on first use and again after
// set_settings(); each one read stays valid for the life of the process.
const TuningDb& process_tuning_db();
// Forgets the database read so far (set_settings() calls it).
void reset_process_tuning_db();

}  // namespace gdr::compiler
