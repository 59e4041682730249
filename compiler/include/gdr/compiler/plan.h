// Which route and schedule a call runs: the tuning database's winner for
// (host CPU, K, V, T bucket, threads) when it has one, else the measured
// defaults. The routes ask it on every call; tools and tests ask it to say
// what would run.
#pragma once

#include <cstdint>
#include <string>

#include "gdr/compiler/kernel_spec.h"
#include "gdr/compiler/tuning_db.h"
#include "gdr/runtime.h"
#include "gdr/schedules/schedule.h"

namespace gdr::compiler {

struct Plan {
  Route route = Route::Recurrent;  // Recurrent or Chunked
  RecurrentSchedule recurrent;     // when route is Recurrent
  schedules::Schedule chunked;     // when route is Chunked
  bool tuned = false;              // from the tuning database
  // "recurrent w16-vt128-u1 (tuned)"
  std::string str() const;
};

// What `route` (Auto, Recurrent or Chunked) runs for a call of this shape
// with `threads` (as Options::threads: <= 0 means every worker of the shared
// pool), using process_tuning_db() and the host CPU.
Plan plan(Route route, int64_t K, int64_t V, int64_t T, int threads);

// The same against a given database and host CPU.
Plan plan(const TuningDb& db, const std::string& host_cpu, Route route, int64_t K, int64_t V,
          int64_t T, int threads);

// Runs the call as plan(route, ...) says (the runner of the Auto, Recurrent
// and Chunked routes; in routes.cpp).
Status run_planned(Route route, const Tensors& t, const Options& options);

}  // namespace gdr::compiler
