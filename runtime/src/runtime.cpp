#include "gdr/runtime.h"

#include "call_tasks.h"
#include "name_table.h"
#include "state_stores.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace gdr {
namespace {

const std::pair<Route, const char*> kRouteNames[] = {
    {Route::Auto, "auto"},
    {Route::Recurrent, "recurrent"},
    {Route::Chunked, "chunked"},
    {Route::ChunkedAutoschedule, "chunked-autoschedule"},
    {Route::Reference, "reference"},
    {Route::BaselineTwoPass, "baseline-two-pass"},
    {Route::BaselineChunked, "baseline-chunked"},
};

// int64 copies of a call's index arrays (offsets, slots).
struct IndexCopies {
  std::vector<int64_t> cu_seqlens, initial_state_indices, final_state_indices;
};

// `t` with its index arrays read once, into `copies`: the tasks read the
// indices again, and must see the values validate() checked even if the
// caller's arrays change during the call (another thread of a program that
// released Python's GIL around it).
Tensors with_copied_indices(const Tensors& t, IndexCopies* copies) {
  Tensors copied = t;
  auto copy = [](const Indices& from, std::vector<int64_t>* to, Indices* into) {
    if (!from.given()) return;
    to->assign(std::max<int64_t>(from.size, 1), 0);  // a data pointer even for none
    for (int64_t i = 0; i < from.size; ++i) (*to)[i] = from[i];
    *into = {to->data(), Indices::Type::Int64, from.size};
  };
  copy(t.cu_seqlens, &copies->cu_seqlens, &copied.cu_seqlens);
  copy(t.initial_state_indices, &copies->initial_state_indices, &copied.initial_state_indices);
  copy(t.final_state_indices, &copies->final_state_indices, &copied.final_state_indices);
  return copied;
}

std::mutex& runners_mutex() {
  static std::mutex m;
  return m;
}
std::map<Route, RouteRunner>& runners() {
  static auto* r = new std::map<Route, RouteRunner>;  // never destroyed: calls may come while the process exits
  return *r;
}

// Splits [0, V) into `parts` ranges whose starts are multiples of `align`.
void column_range(int64_t V, int64_t align, int64_t parts, int64_t part, int64_t* begin,
                  int64_t* end) {
  int64_t blocks = (V + align - 1) / align;
  *begin = std::min(V, blocks * part / parts * align);
  *end = std::min(V, blocks * (part + 1) / parts * align);
}

}  // namespace

const char* route_name(Route route) { return name_in(kRouteNames, route); }

bool parse_route(const std::string& name, Route* route) { return parse_in(kRouteNames, name, route); }

void set_route_runner(Route route, RouteRunner runner) {
  std::lock_guard<std::mutex> lock(runners_mutex());
  runners()[route] = std::move(runner);
}

int threads_for_call(const Tensors& t, int requested, int kernel_max_threads, const ThreadPool& pool) {
  int threads = requested <= 0 ? pool.size() : std::min(requested, pool.size());
  if (kernel_max_threads > 0) threads = std::min(threads, kernel_max_threads);
  if (requested > 0) return threads;
  // Left to the runtime, a call too small to share runs on fewer threads:
  // below about two heads of 128 x 128 decode per thread, waking a helper
  // costs more than it saves (dev VM, 2-core Xeon, T = 1, threads 1 / 2:
  // H = 1 0.003 / 0.005-0.011 ms, H = 2 0.004-0.006 / 0.006-0.007 ms,
  // H = 4 0.010 / 0.010 ms). Saturating: the product is not bounded by
  // validate(), which bounds B·H·K·V and B·H·T·K.
  constexpr int64_t kMinCellTokensPerThread = 2 * 128 * 128;
  int64_t cell_tokens = 0;
  const int64_t tokens = std::max<int64_t>(1, t.T);
  if (__builtin_mul_overflow(t.B * t.H, t.K * t.V, &cell_tokens) ||
      __builtin_mul_overflow(cell_tokens, tokens, &cell_tokens))
    cell_tokens = INT64_MAX;
  return static_cast<int>(std::clamp<int64_t>(cell_tokens / kMinCellTokensPerThread, 1, threads));
}

Kernel any_shape_kernel(std::string name, gdr_kernel_fn fn, int64_t column_align, int max_threads,
                        std::function<int64_t(int64_t T, int64_t K, int64_t V)> scratch_floats) {
  Kernel k;
  k.name = std::move(name);
  k.fn = fn;
  k.column_align = column_align;
  k.max_threads = max_threads;
  k.scratch_floats = std::move(scratch_floats);
  return k;
}

Status validate_options(const Options& o) {
  // The enums' values are contiguous (runtime.h): a range check, no string
  // on a decode call's path.
  if (o.route < Route::Auto || o.route > Route::BaselineChunked)
    return Status::error("route: " + std::to_string(static_cast<int>(o.route)) + " is none of Route's values");
  for (const auto& [name, stores] : {std::pair{"final_state_stores", o.final_state_stores}, {"out_stores", o.out_stores}})
    if (stores < StateStores::Automatic || stores > StateStores::Streaming)
      return Status::error(std::string(name) + ": " + std::to_string(static_cast<int>(stores)) +
                           " is none of StateStores' values");
  if (o.column_parts < 0)
    return Status::error("column_parts must be >= 0 (0: the runtime chooses), got " + std::to_string(o.column_parts));
  return Status::success();
}

Status execute(const Kernel& kernel, const Tensors& given, const Options& options, ThreadPool& pool) {
  if (Status s = validate_options(options); !s) return s;
  if (Status s = validate(given); !s) return s;
  if (!kernel.fn) return Status::error("kernel " + kernel.name + ": its entry point (fn) is a null pointer");
  // The call runs on copies of its indices, validated again (their values):
  // what was checked is what runs.
  IndexCopies copies;
  const bool indexed =
      given.cu_seqlens.given() || given.initial_state_indices.given() || given.final_state_indices.given();
  const Tensors t = indexed ? with_copied_indices(given, &copies) : given;
  if (indexed)
    if (Status s = validate(t); !s) return s;
  const CallShape shape = call_shape(t);
  if ((kernel.K && kernel.K != t.K) || (kernel.V && kernel.V != t.V))
    return Status::error("kernel " + kernel.name + " was built for K=" + std::to_string(kernel.K) +
                         ", V=" + std::to_string(kernel.V) + " but the tensors have K=" +
                         std::to_string(t.K) + ", V=" + std::to_string(t.V));
  if (kernel.decay_kind && *kernel.decay_kind != t.decay_kind)
    return Status::error("kernel " + kernel.name + " reads " + decay_kind_name(*kernel.decay_kind) +
                         " decay but the call has " + decay_kind_name(t.decay_kind) + " decay");
  if (kernel.readouts && kernel.readouts != shape.readouts)
    return Status::error("kernel " + kernel.name + " reads each state head with " +
                         std::to_string(kernel.readouts) + " queries but the call has " +
                         std::to_string(shape.readouts) + " (query_heads / H)");
  if (options.column_parts < 0)
    return Status::error("column_parts must be >= 0, got " + std::to_string(options.column_parts));

  const CallTasks tasks(t);
  const int threads = threads_for_call(t, options.threads, kernel.max_threads, pool);
  const int64_t heads = tasks.count();
  int64_t parts = 1;
  if (kernel.column_align > 0) {
    const int64_t max_parts = (t.V + kernel.column_align - 1) / kernel.column_align;
    // (A batch of no sequences, cu_seqlens = {0}, has no heads.)
    parts = options.column_parts > 0   ? options.column_parts
            : 0 < heads && heads < threads ? (threads + heads - 1) / heads
                                           : 1;
    parts = std::min(parts, max_parts);
  }
  const int64_t scratch_floats = kernel.scratch_floats ? kernel.scratch_floats(t.T, t.K, t.V) : 0;

  // Each state is read and written once per call.
  const int64_t state_bytes = 2 * heads * t.K * t.V * int64_t{sizeof(float)};
  const TensorSizes sizes = tensor_sizes(t);
  const int64_t input_and_out_floats = sizes.query + sizes.key + sizes.value + sizes.decay + sizes.beta + sizes.out;
  const bool stream_out =
      stream_outputs(options.out_stores, state_bytes + input_and_out_floats * int64_t{sizeof(float)}, threads);
  const int64_t count = heads * parts;
  std::atomic<int32_t> failure{0};
  std::mutex message_mutex;
  std::string message;  // the first failed task's, if its kernel keeps one
  // Every task of the process gets a tag of its own (kernel_abi.h).
  static std::atomic<int64_t> tags{1};
  const int64_t first_tag = tags.fetch_add(count, std::memory_order_relaxed);
  // Task `task`'s arguments; false if it has nothing to do: no columns, or
  // no tokens over its own state (in place: a kernel would copy the state
  // onto itself, a sweep of it for nothing).
  auto task_args = [&](int64_t task, gdr_kernel_args* a) {
    *a = tasks.args(task / parts);
    column_range(t.V, std::max<int64_t>(1, kernel.column_align), parts, task % parts, &a->v_begin, &a->v_end);
    a->first_sums_tag = first_tag + task;
    return a->v_begin != a->v_end && !(a->T == 0 && a->final_state == a->initial_state);
  };
  // Each task runs all its tokens, token-major too: running every task over
  // a block of 64 tokens before the next (the rows of one token's heads are
  // adjacent) was slower once the kernel prefetched the next 128 tokens'
  // rows itself, the prefetch then clamped to the block's end (H = 32,
  // K = V = 128, T = 512, Zen 5, two gdr-bench runs of line-aligned
  // inputs, outputs 16 bytes past a line: token-major 1.22-1.24x / 1.20-1.22x head-major's time on 1 / 2
  // threads in blocks of 64, 1.06x / 1.05-1.08x unblocked; Qwen3-Next's
  // form 74-75% / 73-76% of the FMA peak in blocks, 81-83% / 79-81%
  // unblocked).
  const bool ran = pool.parallel_for(count, threads, scratch_floats, [&](int64_t task, int, float* scratch) {
    gdr_kernel_args a;
    if (!task_args(task, &a)) return;
    const bool over_initial = a.final_state == a.initial_state;
    if (stream_final_state(options.final_state_stores, state_bytes, threads, over_initial))
      a.final_state_stores = GDR_STATE_STORES_STREAMING;
    if (stream_out) a.out_stores = GDR_STATE_STORES_STREAMING;
    // A worker runs the consecutive tasks of its block (ThreadPool::parallel_for);
    // the task after the block's last is another worker's.
    gdr_kernel_args next;
    if (task + 1 < count && ThreadPool::same_block(count, threads, task, task + 1) &&
        task_args(task + 1, &next) && next.T > 0)
      a.next_task = &next;
    if (scratch_floats > 0) {
      a.scratch = scratch;
      a.scratch_floats = scratch_floats;
    }
    if (int32_t code = kernel.fn(&a); code != 0) {
      failure.store(code);
      std::lock_guard<std::mutex> lock(message_mutex);
      if (message.empty() && kernel.error_message)
        if (const char* said = kernel.error_message()) message = said;
    }
  });
  // Scratch is reserved before any task runs, so this failure writes nothing.
  if (!ran)
    return Status::error("out of memory: kernel " + kernel.name + " needs " +
                         std::to_string(scratch_floats) + " floats of scratch per worker");
  // A kernel refuses only arguments the runtime should have caught: a bug.
  if (int32_t code = failure.load(); code != 0)
    return Status::error("kernel " + kernel.name + " failed with code " + std::to_string(code) +
                         (message.empty() ? "" : ": " + message));
  return Status::success();
}

Status run(const Tensors& t, const Options& options) {
  if (Status s = validate_options(options); !s) return s;
  RouteRunner runner;
  {
    std::lock_guard<std::mutex> lock(runners_mutex());
    auto it = runners().find(options.route);
    if (it != runners().end()) runner = it->second;
  }
  if (runner) return runner(t, options);
  if (options.route == Route::Auto || options.route == Route::Reference)
    return execute(reference_kernel(), t, options);
  return Status::error(std::string("route '") + route_name(options.route) +
                       "' is not available in this build (no runner installed for it)");
}

}  // namespace gdr
