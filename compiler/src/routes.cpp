// Installs the generated recurrent route into gdr::run, compiling each
// (K, V, schedule) once per process.
#include <future>
#include <map>
#include <mutex>
#include <tuple>

#include "gdr/compiler/recurrent.h"

namespace gdr::compiler {

namespace {

struct CompiledKernel {
  Status status = Status::ok();
  Kernel kernel;
};

// One shared future per key: threads that miss on the same key compile once.
std::shared_future<CompiledKernel> cached_kernel(const KernelSpec& spec,
                                                 const RecurrentSchedule& schedule) {
  using Key = std::tuple<int64_t, int64_t, RecurrentSchedule>;
  static std::mutex mutex;
  static std::map<Key, std::shared_future<CompiledKernel>> cache;
  std::promise<CompiledKernel> promise;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, inserted] = cache.emplace(Key{spec.K, spec.V, schedule}, promise.get_future().share());
    if (!inserted) return it->second;
  }
  CompiledKernel compiled;
  compiled.status = compile_recurrent(spec, schedule, &compiled.kernel);
  promise.set_value(compiled);
  std::lock_guard<std::mutex> lock(mutex);
  return cache.at(Key{spec.K, spec.V, schedule});
}

// The default-schedule kernel of (K, V): looked up once, then a map hit per
// call (asking the attach pass costs about a tenth of a millisecond).
Status run_recurrent(const Tensors& t, const Options& options) {
  if (t.K <= 0 || t.V <= 0) return validate(t);  // names the bad size
  static std::mutex mutex;
  static std::map<std::pair<int64_t, int64_t>, std::shared_future<CompiledKernel>> defaults;
  std::shared_future<CompiledKernel> found;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = defaults.find({t.K, t.V});
    if (it != defaults.end()) found = it->second;
  }
  if (!found.valid()) {
    const KernelSpec spec{t.K, t.V};
    found = cached_kernel(spec, default_recurrent_schedule(spec, host_target()));
    std::lock_guard<std::mutex> lock(mutex);
    defaults.emplace(std::make_pair(t.K, t.V), found);
  }
  const CompiledKernel& compiled = found.get();
  if (!compiled.status) return compiled.status;
  return execute(compiled.kernel, t, options);
}

}  // namespace

Status compiled_recurrent_kernel(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                 Kernel* kernel) {
  const CompiledKernel& compiled = cached_kernel(spec, schedule).get();
  if (compiled.status) *kernel = compiled.kernel;
  return compiled.status;
}

void install_routes() {
  set_route_runner(Route::Recurrent, run_recurrent);
  // Until the chunked route exists, the recurrent kernel is the fastest
  // route for every T.
  set_route_runner(Route::Auto, run_recurrent);
}

}  // namespace gdr::compiler
