// Installs the generated routes' runners into gdr::run: each call asks
// plan() which route and schedule to run (the tuning database's winner or
// the measured default), and each (K, V, schedule) is compiled once per
// process.
#include <tuple>

#include "gdr/compiler/chunked.h"
#include "gdr/compiler/compiled_kernel.h"
#include "gdr/compiler/once_cache.h"
#include "gdr/compiler/plan.h"
#include "gdr/compiler/recurrent.h"

namespace gdr::compiler {

namespace {

const CompiledKernel& cached_kernel(const KernelSpec& spec, const RecurrentSchedule& schedule) {
  static OnceCache<std::tuple<int64_t, int64_t, RecurrentSchedule>, CompiledKernel> cache;
  return cache.get({spec.K, spec.V, schedule}, [&] {
    CompiledKernel compiled;
    compiled.status = compile_recurrent(spec, schedule, &compiled.kernel);
    return compiled;
  });
}

}  // namespace

// Per call: one lookup in the tuning database and one in a kernel cache
// (maps), next to a decode call's ~70 us.
Status run_planned(Route route, const Tensors& t, const Options& options) {
  if (Status s = validate(t); !s) return s;  // a bad call pays no compile
  const Plan p = plan(route, t.K, t.V, t.T, options.threads);
  if (p.route == Route::Chunked) {
    const CompiledKernel c = compile_chunked(t.K, t.V, p.chunked);
    return c.status ? execute(c.kernel, t, options) : c.status;
  }
  const CompiledKernel& compiled = cached_kernel(KernelSpec{t.K, t.V}, p.recurrent);
  if (!compiled.status) return compiled.status;
  return execute(compiled.kernel, t, options);
}

Status compiled_recurrent_kernel(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                 Kernel* kernel) {
  const CompiledKernel& compiled = cached_kernel(spec, schedule);
  if (compiled.status) *kernel = compiled.kernel;
  return compiled.status;
}

void install_routes() {
  set_route_runner(Route::Recurrent, [](const Tensors& t, const Options& o) {
    return run_planned(Route::Recurrent, t, o);
  });
  set_route_runner(Route::Auto, [](const Tensors& t, const Options& o) {
    return run_planned(Route::Auto, t, o);
  });
}

}  // namespace gdr::compiler
