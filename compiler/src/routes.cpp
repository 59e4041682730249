// Installs the generated routes' runners into gdr::run: each call asks
// plan() which route and schedule to run (the tuning database's winner or
// the measured default), and each (K, V, schedule) is compiled once per
// process.
#include <string>

#include "gdr/compiler/chunked.h"
#include "gdr/compiler/compiled_kernel.h"
#include "gdr/compiler/diagnostics.h"
#include "gdr/compiler/kernel_cache_stats.h"
#include "gdr/compiler/once_cache.h"
#include "gdr/compiler/plan.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/settings.h"
#include "gdr/compiler/tuning_db.h"
#include "gdr/compiler/variant.h"

namespace gdr::compiler {

namespace {

const CompiledKernel& cached_kernel(const Variant& v) {
  // Never destroyed: calls may come while the process exits.
  static auto* cache = new OnceCache<Variant, CompiledKernel>;
  bool computed = false;
  const CompiledKernel& kernel = cache->get(v, [&] {
    CompiledKernel compiled;
    compiled.status = compile_recurrent(v.spec(), v.recurrent, &compiled.kernel);
    return compiled;
  }, &computed);
  count_kernel_cache_lookup(!computed);
  return kernel;
}

// Says once per process and schedule that a tuned schedule did not compile
// (the database's checks should have left it out) and the default runs.
void warn_tuned_failed(const Plan& p, const Status& why) {
  static auto* warned = new OnceCache<Variant, bool>;
  warned->get(p.variant, [&] {
    warn("gdr: tuning db " + current_tuning_db_path() + ": " + p.str() + " for K=" +
         std::to_string(p.variant.K) + " V=" + std::to_string(p.variant.V) +
         " failed to compile (" + why.message() + "); running the default");
    return true;
  });
}

const CompiledKernel& kernel_of(const Plan& p) {
  return p.variant.route == Route::Chunked
             ? compile_chunked(chunked_spec(p.variant))
             : cached_kernel(p.variant);
}

// The kernel `p` (planned for `route`) names for a call of t's sizes or, if
// a tuned one does not compile, what `route` runs untuned (the plan of an
// empty database: for auto, the default model's route, not the route the
// tuned plan had picked).
const CompiledKernel& planned_kernel(Route route, const Plan& p, const Tensors& t) {
  const CompiledKernel& compiled = kernel_of(p);
  if (compiled.status || !p.tuned) return compiled;
  warn_tuned_failed(p, compiled.status);
  return kernel_of(plan(TuningDb(), route, kernel_spec(t), planned_T(t), 1));
}

}  // namespace

// Per call: one lookup in the tuning database and one in a kernel cache
// (maps), next to a decode call's 0.07-0.08 ms (H = 32, K = V = 128, 2
// threads; 0.18 ms on 1).
Status run_planned(Route route, const Tensors& t, const Options& options) {
  if (Status s = validate(t); !s) return s;  // a bad call pays no compile
  if (Status s = generated_kernels_take(t); !s) return s;
  const CompiledKernel& compiled = planned_kernel(route, plan(route, t, options.threads), t);
  return compiled.status ? execute(compiled.kernel, t, options) : compiled.status;
}

Status warm_up_planned(Route route, const Tensors& t, const Options& options) {
  if (Status s = validate_sizes(t); !s) return s;
  if (Status s = generated_kernels_take(t); !s) return s;
  return planned_kernel(route, plan(route, t, options.threads), t).status;
}

Status compiled_recurrent_kernel(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                 Kernel* kernel) {
  const CompiledKernel& compiled = cached_kernel(recurrent_variant(spec, schedule));
  if (compiled.status) *kernel = compiled.kernel;
  return compiled.status;
}

RouteRunner recurrent_runner(const RecurrentSchedule& schedule) {
  return [schedule](const Tensors& t, const Options& o) {
    if (Status s = validate(t); !s) return s;  // a bad call pays no compile
    if (Status s = generated_kernels_take(t); !s) return s;
    Kernel kernel;
    if (Status s = compiled_recurrent_kernel(kernel_spec(t), schedule, &kernel); !s) return s;
    return execute(kernel, t, o);
  };
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
