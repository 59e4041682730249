// The public entry points: run the op by route, or execute one kernel.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "gdr/kernel_abi.h"
#include "gdr/status.h"
#include "gdr/tensors.h"
#include "gdr/thread_pool.h"

namespace gdr {

// Which implementation computes the op.
enum class Route {  // contiguous values (validate_options checks the range)
  Auto,             // the best available for the shape
  Recurrent,        // generated fused recurrence (decode, short T)
  Chunked,          // generated chunked WY prefill, best hand schedule
  ChunkedAutoschedule,  // the same algorithm scheduled by Halide's Adams2019
  Reference,        // float32 token-by-token recurrence, contract loop order
  BaselineTwoPass,  // baseline: ExecuTorch-style two-pass decode, one thread
  BaselineChunked,  // baseline: ExecuTorch-style chunked WY, C = 32
};
const char* route_name(Route route);
// Parses the names route_name() gives; false if `name` is none of them.
bool parse_route(const std::string& name, Route* route);

// How the kernels write final states and outputs (kernel_abi.h's gdr_state_stores).
enum class StateStores {  // contiguous values, as Route
  Automatic,  // final states: streaming when the call's states outgrow its cores' L2
              // caches, except over the initial state (in place); outputs: when all the
              // call's data does (state_stores.cpp)
  Cached,     // through the cache: for data read again while it is still there
  Streaming,  // non-temporal stores, no read of each line first: for data not read again soon
};
const char* state_stores_name(StateStores stores);
// Parses the names state_stores_name() gives; false if `name` is none of them.
bool parse_state_stores(const std::string& name, StateStores* stores);

struct Options {
  int threads = 0;  // <= 0: the runtime decides (every worker, fewer for tiny calls); capped at the pool
  Route route = Route::Auto;
  // Column parts each head is split into; 0 lets the runtime choose (it
  // splits only when there are fewer heads than threads).
  int column_parts = 0;
  // A program that runs many layers between two calls on one state (the
  // states of a whole model do not fit in cache) may ask for Streaming.
  StateStores final_state_stores = StateStores::Automatic;
  // How out is written: Streaming suits a caller that reads it only after
  // many more calls, Cached one that reads it at once and small.
  StateStores out_stores = StateStores::Automatic;
};

// A kernel with the C ABI and what the runtime must know to schedule it.
struct Kernel {
  std::string name;
  gdr_kernel_fn fn = nullptr;
  int64_t K = 0, V = 0;      // sizes it was built for; 0 means any
  int64_t column_align = 0;  // column ranges start at multiples of this; 0: no split
  int max_threads = 0;       // 0: no limit, 1: serial
  // Scratch floats one worker needs for one task; null means none.
  std::function<int64_t(int64_t T, int64_t K, int64_t V)> scratch_floats;
  std::optional<DecayKind> decay_kind;  // the decay it reads; none: either
  int64_t readouts = 0;                 // queries per state head it reads out; 0: any
  // A sequence run as consecutive calls of multiples of GDR_TOKEN_BLOCK
  // tokens (each from the state the last one wrote) gives the bits of one
  // call (every generated recurrent kernel).
  bool token_steps = false;
  // The calling thread's message for its last failed call of fn, if the
  // kernel keeps one (chunked kernels: Halide's errors); null: none.
  const char* (*error_message)() = nullptr;
};

// A kernel of any K, V, decay kind and readouts that runs `fn`;
// column_align, max_threads and scratch_floats as in Kernel. For
// hand-written kernels (the reference, the baselines).
Kernel any_shape_kernel(std::string name, gdr_kernel_fn fn, int64_t column_align, int max_threads,
                        std::function<int64_t(int64_t T, int64_t K, int64_t V)> scratch_floats = nullptr);

// Success if `options` holds values of its types (enums from an integer
// cast by a C caller or a binding are checked) and column_parts >= 0, else
// an error naming the field. execute() and run() check it; so do the JIT's plan()
// and warm_up().
Status validate_options(const Options& options);

// Validates `options` and `t`, then runs `kernel` (its entry point not null)
// over (sequence, state head, column part) tasks on `pool`.
Status execute(const Kernel& kernel, const Tensors& t, const Options& options,
               ThreadPool& pool = ThreadPool::shared());

// The threads execute() runs a call on (t must be valid): `requested`
// (Options::threads) capped by the pool and the kernel's max_threads; when
// requested <= 0, every worker except for calls too small to share.
int threads_for_call(const Tensors& t, int requested, int kernel_max_threads,
                     const ThreadPool& pool = ThreadPool::shared());

// Runs the op with options.route. Only Reference is built in; generated
// routes (Auto, Recurrent, Chunked, ChunkedAutoschedule) need a runner
// installed by the JIT (gdr::jit::install), and the baselines one that only
// gdr's own tools install (they are not part of the installed package);
// without one Auto runs Reference and the others are an error.
Status run(const Tensors& t, const Options& options = {});

using RouteRunner = std::function<Status(const Tensors&, const Options&)>;
void set_route_runner(Route route, RouteRunner runner);

// The float32 recurrence in the contract's loop order, any K and V.
const Kernel& reference_kernel();

}  // namespace gdr
