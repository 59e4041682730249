// The JIT, as a program uses it: install the generated routes into gdr::run,
// ask what a call would run, compile a variant ahead of its first call, and
// read the caches' counts. Link gdr::jit (it brings LLVM, MLIR and Halide);
// a program that only runs ahead-of-time kernels links gdr::runtime alone.
//
//   if (gdr::Status s = gdr::jit::install(); !s) ...   // once, before running
//   gdr::Status s = gdr::run(tensors);                   // Route::Auto
#pragma once

#include <cstdint>
#include <string>

#include "gdr/runtime.h"
#include "gdr/status.h"
#include "gdr/tensors.h"

namespace gdr::jit {

// Where compiled kernels and tuning records live and how much gdr says on
// stderr. An empty field (or verbosity < 0) is taken from the environment,
// read once, by install():
struct Options {
  // The on-disk kernel cache's folder; "off" disables it. Empty:
  // $GDR_CACHE_DIR, else $XDG_CACHE_HOME/gdr, else $HOME/.cache/gdr. A
  // relative path is taken from the working folder at install().
  std::string cache_dir;
  // The tuning database gdr-tune writes; "off": none (default schedules).
  // Empty: tuning.db in the cache folder (none when the cache is off).
  // Relative: as cache_dir.
  std::string tuning_db;
  // 0 silent, 1 warnings (a damaged cache entry, an unusable database), 2
  // also one line per kernel compiled or loaded. < 0: $GDR_VERBOSE, else 1.
  int verbosity = -1;
};

// Applies `options` to the whole process and installs the generated routes
// (Auto, Recurrent, Chunked, ChunkedAutoschedule) into gdr::run; until then
// Auto runs Reference and the other generated routes are refused. Errors,
// naming the field (or environment variable): a verbosity (or $GDR_VERBOSE)
// outside 0..2, a cache_dir that is a file, a tuning_db that cannot be read
// (a missing file is an empty database). A cache folder from the
// environment that cannot be used (a file, not writable) is no error: a
// warning says so when it is first used, and kernels are compiled in memory. Call it before running; calling it again replaces
// the options (kernels compiled so far stay).
Status install(const Options& options = {});

// Whether the route of `options` takes a call of t's sizes, without
// planning it (no tuning database, no thread pool): validate_sizes(), and
// at most 8 query heads per state head for the generated routes. What
// plan() checks first; an error here is the caller's.
Status takes(const Tensors& t, const gdr::Options& options);

// What gdr::run(t, options) runs once install() has been called. Only t's
// sizes and form are read (for varlen, cu_seqlens' pointer and size, not
// its data). More query heads per state head than the generated kernels
// read out (8) is an error naming query_heads, as gdr::run's.
struct Plan {
  Route route = Route::Reference;  // the route that computes: Auto resolves to Recurrent or Chunked
  std::string schedule;            // "w16-vt64-u1-p2", "c16-w16", "adams2019"; "" for built-in routes
  bool tuned = false;              // the schedule comes from the tuning database
  std::string kernel;              // the compiled kernel's name; "" for built-in routes
  // "recurrent w16-vt64-u1-p2 (tuned)", or the route's name.
  std::string str() const;
};
Status plan(const Tensors& t, const gdr::Options& options, Plan* plan);

// Compiles, or loads from the kernel cache, the kernel plan() names, so that
// the first gdr::run of those sizes does not wait for it. Only t's sizes
// and form are read, as plan()'s. Nothing to do (ok) for built-in routes.
Status warm_up(const Tensors& t, const gdr::Options& options);

// What the caches did in this process so far.
struct CacheStats {
  int64_t memory_hits = 0;    // a call reused a kernel compiled or loaded earlier in the process
  int64_t memory_misses = 0;  // a variant's first use: compiled or loaded from disk
  // The disk counts are of objects: the kernels and the one Halide runtime
  // the chunked kernels link against.
  int64_t disk_hits = 0;      // objects loaded from the on-disk cache
  int64_t disk_misses = 0;    // no entry (or the cache is off): compiled
  int64_t disk_rejected = 0;  // damaged or mismatched entries, deleted and rebuilt
  int64_t disk_stores = 0;    // entries written
};
CacheStats cache_stats();

}  // namespace gdr::jit
