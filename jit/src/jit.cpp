#include "gdr/jit.h"

#include <filesystem>

#include "gdr/compiler/chunked.h"
#include "gdr/compiler/disk_cache.h"
#include "gdr/compiler/kernel_cache_stats.h"
#include "gdr/compiler/variant.h"
#include "gdr/compiler/plan.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/settings.h"
#include "gdr/compiler/tuning_db.h"

namespace gdr::jit {

namespace {

// The one place the JIT's environment is read: each field the caller left
// empty, once per install().
Status resolve(const Options& options, compiler::Settings* settings) {
  std::error_code ec;
  if (options.cache_dir == "off") {
    settings->cache_dir = "";
  } else if (!options.cache_dir.empty()) {
    if (std::filesystem::exists(options.cache_dir, ec) &&
        !std::filesystem::is_directory(options.cache_dir, ec))
      return Status::error("cache_dir " + options.cache_dir + ": is a file, not a folder");
    // Absolute now: a relative folder must not move with a later chdir.
    settings->cache_dir = std::filesystem::absolute(options.cache_dir, ec).string();
    if (ec) return Status::error("cache_dir " + options.cache_dir + ": cannot make it absolute: " + ec.message());
  } else {
    settings->cache_dir = compiler::disk_cache_dir_from_environment();
  }

  if (options.tuning_db == "off") {
    settings->tuning_db_path = "";
  } else if (!options.tuning_db.empty()) {
    compiler::TuningDbFile file;  // read now so that a bad path is the caller's error
    if (Status s = compiler::read_tuning_db(options.tuning_db, &file); !s)
      return Status::error("tuning_db " + s.message());
    settings->tuning_db_path = std::filesystem::absolute(options.tuning_db, ec).string();
    if (ec) return Status::error("tuning_db " + options.tuning_db + ": cannot make it absolute: " + ec.message());
  } else {
    settings->tuning_db_path = settings->cache_dir.empty() ? "" : settings->cache_dir + "/tuning.db";
  }

  if (options.verbosity > 2)
    return Status::error("verbosity: expected 0, 1 or 2 (or < 0 for $GDR_VERBOSE), got " +
                         std::to_string(options.verbosity));
  settings->verbosity = options.verbosity;
  return settings->verbosity < 0 ? compiler::verbosity_from_environment(&settings->verbosity) : Status::success();
}

bool is_planned(Route route) {
  return route == Route::Auto || route == Route::Recurrent || route == Route::Chunked;
}

compiler::ChunkedSpec autoschedule_spec(const Tensors& t) {
  compiler::ChunkedSpec spec;
  spec.scheduler = compiler::Scheduler::Adams2019;
  return compiler::spec_for_call(spec, t);
}

}  // namespace

Status install(const Options& options) {
  compiler::Settings settings;
  if (Status s = resolve(options, &settings); !s) return s;
  compiler::set_settings(settings);
  compiler::install_routes();
  compiler::install_chunked_routes();
  return Status::success();
}

std::string Plan::str() const {
  if (schedule.empty()) return route_name(route);
  return std::string(route_name(route)) + " " + schedule + (tuned ? " (tuned)" : " (default)");
}

Status takes(const Tensors& t, const gdr::Options& options) {
  if (Status s = validate_options(options); !s) return s;
  if (Status s = validate_sizes(t); !s) return s;
  if (is_planned(options.route) || options.route == Route::ChunkedAutoschedule)
    return compiler::generated_kernels_take(t);
  return Status::success();
}

Status plan(const Tensors& t, const gdr::Options& options, Plan* out) {
  if (!out) return Status::error("plan: out is a null pointer");
  if (Status s = takes(t, options); !s) return s;
  Plan p;
  if (is_planned(options.route)) {
    const compiler::Plan c = compiler::plan(options.route, t, options.threads);
    p.route = c.variant.route;
    p.tuned = c.tuned;
    p.schedule = c.variant.schedule_str();
    p.kernel = c.variant.name();
  } else if (options.route == Route::ChunkedAutoschedule) {
    p.route = options.route;
    p.schedule = "adams2019";
    p.kernel = autoschedule_spec(t).variant().name();
  } else {
    p.route = options.route;
  }
  *out = p;
  return Status::success();
}

Status warm_up(const Tensors& t, const gdr::Options& options) {
  if (Status s = takes(t, options); !s) return s;
  if (is_planned(options.route)) return compiler::warm_up_planned(options.route, t, options);
  if (options.route == Route::ChunkedAutoschedule) return compiler::compile_chunked(autoschedule_spec(t)).status;
  return Status::success();
}

CacheStats cache_stats() {
  const compiler::KernelCacheStats memory = compiler::kernel_cache_stats();
  const compiler::DiskCacheStats disk = compiler::disk_cache_stats();
  CacheStats s;
  s.memory_hits = memory.hits;
  s.memory_misses = memory.misses;
  s.disk_hits = disk.hits;
  s.disk_misses = disk.misses;
  s.disk_rejected = disk.rejected;
  s.disk_stores = disk.stores;
  return s;
}

}  // namespace gdr::jit
