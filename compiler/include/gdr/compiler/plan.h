// Which route and schedule a call runs: the tuning database's winner for
// (host CPU, K, V, kernel's and call's form, T bucket, threads) when it
// has one, else the measured defaults. The routes ask it on every call; tools
// and tests ask it to say what would run.
#pragma once

#include <cstdint>
#include <string>

#include "gdr/compiler/tuning_db.h"
#include "gdr/compiler/variant.h"
#include "gdr/runtime.h"

namespace gdr::compiler {

struct Plan {
  Variant variant;     // its route is Recurrent or Chunked
  bool tuned = false;  // from the tuning database
  // "recurrent w16-vt128-u1-p2 (tuned)"
  std::string str() const;
};

// The sequence length a call is planned for: T, or with cu_seqlens the
// mean length of its sequences, rounded up. A varlen batch of one-token
// sequences is decode, not a prefill of their sum: planned by the sum it
// ran the prefill tile, or the chunked route where a record had chunked
// faster from 23 tokens (10x slower than recurrent there). By the mean,
// chunked runs only batches whose sequences are long on average, where
// the few short ones are little of the work. `sequences` 0: not varlen.
int64_t planned_T(int64_t T, int64_t sequences);
int64_t planned_T(const Tensors& t);

// What `route` (Auto, Recurrent or Chunked) runs for a call of t's sizes
// and form (B, H, T, K, V, heads, layout, in place; for varlen cu_seqlens'
// pointer and size, not its data) at planned_T(t), with `requested_threads` (as
// Options::threads), using process_tuning_db(): the record of the thread
// count the runtime will run the call on (threads_for_call; the generated
// kernels set no max_threads).
Plan plan(Route route, const Tensors& t, int requested_threads);

// The same against a given database (of one host) for a call of `form`
// that runs on exactly `threads` threads.
Plan plan(const TuningDb& db, Route route, const KernelSpec& spec, int64_t T, int threads,
          const CallForm& form = {});

// Runs the call as plan(route, ...) says (the runner of the Auto, Recurrent
// and Chunked routes; in routes.cpp). A tuned schedule that fails to compile
// falls back to the default one, saying so once on stderr.
Status run_planned(Route route, const Tensors& t, const Options& options);

// Compiles (or loads) what run_planned(route, t, options) would run, without
// running it: only t's sizes are read (validate_sizes).
Status warm_up_planned(Route route, const Tensors& t, const Options& options);

}  // namespace gdr::compiler
