// Installs the generated recurrent route into gdr::run, compiling each
// (K, V, schedule) once per process.
#include <tuple>

#include "gdr/compiler/compiled_kernel.h"
#include "gdr/compiler/once_cache.h"
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

// Decode (T <= kDecodeTokens) is bound by reading and writing the state
// once; it runs fastest with the widest tile the registers hold (fewer
// passes of the per-token setup), whereas longer sequences want the packed
// tile to stay in L1 (default schedule). Measured with gdr-bench, H = 32,
// K = V = 128, 1 thread: T = 1 takes 0.167 ms with 8 vectors per tile
// against 0.203 ms with the default 4.
constexpr int64_t kDecodeTokens = 2;

RecurrentSchedule schedule_for(const KernelSpec& spec, int64_t T) {
  RecurrentSchedule s = default_recurrent_schedule(spec, host_target());
  if (T <= kDecodeTokens) s.v_tile = 8 * s.vector_width;
  return s;
}

// The kernel for (K, V, decode or not): looked up once, then a map hit per
// call (asking the attach pass costs about a tenth of a millisecond).
Status run_recurrent(const Tensors& t, const Options& options) {
  if (Status s = validate(t); !s) return s;  // a bad call pays no compile
  static OnceCache<std::tuple<int64_t, int64_t, bool>, CompiledKernel> chosen;
  const CompiledKernel& compiled = chosen.get({t.K, t.V, t.T <= kDecodeTokens}, [&] {
    const KernelSpec spec{t.K, t.V};
    return cached_kernel(spec, schedule_for(spec, t.T));
  });
  if (!compiled.status) return compiled.status;
  return execute(compiled.kernel, t, options);
}

}  // namespace

Status compiled_recurrent_kernel(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                 Kernel* kernel) {
  const CompiledKernel& compiled = cached_kernel(spec, schedule);
  if (compiled.status) *kernel = compiled.kernel;
  return compiled.status;
}

void install_routes() {
  set_route_runner(Route::Recurrent, run_recurrent);
  // The recurrent kernel is the fastest route for every T measured (dev VM,
  // Xeon AVX-512, H = 32, K = V = 128, 1 thread: 14.4 ms against the chunked
  // route's 20.8 ms at T = 512, 60.3 against 81.4 ms at T = 2048).
  set_route_runner(Route::Auto, run_recurrent);
}

}  // namespace gdr::compiler
