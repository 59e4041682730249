// The chunked route in process: kernels from the disk cache or compiled,
// linked into the process JIT (or Halide's own JIT for the profiler and
// Adams2019), behind generated entry points with the kernel ABI; the routes' runner.
#include "gdr/compiler/chunked.h"

#include <Halide.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "chunked_jit_entry.h"
#include "gdr/compiler/diagnostics.h"
#include "gdr/compiler/disk_cache.h"
#include "gdr/halide_chunked_abi.h"
#include "gdr/compiler/jit.h"
#include "gdr/compiler/kernel_cache_stats.h"
#include "gdr/compiler/once_cache.h"
#include "gdr/compiler/plan.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/variant.h"
#include "gdr/schedules/chunked_algorithm.h"
#include "gdr/schedules/chunked_schedule.h"
#include "halide_object_file.h"
#include "halide_pipeline.h"

namespace gdr::compiler {
namespace {

// The Halide JIT modules behind some kernels (the others live in the
// process JIT), kept alive for the life of the process.
struct JitModules {
  std::mutex mutex;
  std::vector<std::unique_ptr<Halide::Internal::JITModule>> modules;
};
JitModules& jit_modules() {
  static JitModules* m = new JitModules;  // never destroyed: kernels may run until exit
  return *m;
}

// The JIT library every cached chunked kernel links against: one Halide
// runtime per process, itself kept in the disk cache.
constexpr char kRuntimeLibrary[] = "gdr_halide_runtime";

Status load_halide_runtime(const Halide::Target& target) {
  static std::mutex mutex;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded) return Status::success();
  Status s = DiskCache::current().load_or_build(
      "route halide-runtime\n" + halide_description(target.to_string()),
      [&](std::vector<char>* object) {
        return halide_object_bytes(
            [&](const std::string& path) { Halide::compile_standalone_runtime(path, target); },
            object);
      },
      [](const std::vector<char>& object) {
        // Its errors are recorded and returned, never an abort.
        void* set_handler = nullptr;
        Status s = jit_add_library(kRuntimeLibrary, object, "halide_set_error_handler", &set_handler);
        if (s && set_handler)
          reinterpret_cast<halide_error_handler_t (*)(halide_error_handler_t)>(set_handler)(
              &halide_chunked_error_handler);
        return s;
      },
      "the Halide runtime");
  loaded = s.ok();
  return s;
}

// Halide's own JIT (a JITModule and its shared runtime), for what the disk
// cache does not take: the profiler, whose one JIT runtime gathers every
// profiled Func and reports at exit, and Adams2019, whose schedule depends
// on the plugin and its weights, which no key could name.
Status halide_jit_entry(const ChunkedSpec& spec, HalideChunkedFn* fn) {
  const auto start = std::chrono::steady_clock::now();
  // Errors of the shared JIT runtime (its kernels get no user context) are
  // recorded and returned, never an abort.
  static std::once_flag handlers_once;
  std::call_once(handlers_once, [] {
    Halide::JITHandlers handlers;
    handlers.custom_error = [](Halide::JITUserContext*, const char* message) {
      halide_chunked_error_handler(nullptr, message);
    };
    Halide::Internal::JITSharedRuntime::set_default_handlers(handlers);
  });
  Halide::Target target = Halide::get_host_target().with_feature(Halide::Target::JIT);
  if (spec.profile) target = target.with_feature(Halide::Target::Profile);
  schedules::ChunkedAlgorithm alg;
  if (Status s = build_pipeline(spec, target, alg); !s) return s;
  const std::string name = spec.variant().name();
  Halide::Module module = alg.pipeline().compile_to_module(alg.arguments(), name, target);
  auto jit = std::make_unique<Halide::Internal::JITModule>(module, module.get_function_by_name(name));
  *fn = reinterpret_cast<HalideChunkedFn>(jit->main_function());
  if (spec.profile) {
    // Halide's sampling profiler (one shared JIT runtime) reports every
    // profiled Func when the process exits: register the report once.
    static std::once_flag report_once;
    std::call_once(report_once, [&] {
      static void* report = jit->find_symbol_by_name("halide_profiler_report").address;
      if (report) std::atexit([] { reinterpret_cast<void (*)(void*)>(report)(nullptr); });
    });
  }
  if (!*fn) return Status::error("Halide JIT produced no entry point for " + name);
  note_kernel(name, /*compiled=*/true,
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  std::lock_guard<std::mutex> lock(jit_modules().mutex);
  jit_modules().modules.push_back(std::move(jit));
  return Status::success();
}

bool uses_halide_jit(const ChunkedSpec& spec) {
  return spec.profile || spec.scheduler == Scheduler::Adams2019;
}

// The hand-scheduled kernel built without a runtime (as the AOT path does),
// from the disk cache or compiled and stored, linked in the process JIT
// against the one Halide runtime object.
Status cached_object_entry(const ChunkedSpec& spec, HalideChunkedFn* fn) {
  const Halide::Target host = Halide::get_host_target();
  if (Status s = load_halide_runtime(host); !s) return s;
  const Halide::Target target = kernel_target();
  const std::string name = spec.variant().name();
  void* address = nullptr;
  Status s = DiskCache::current().load_or_build(
      cache_description(spec.variant(), host_target()),
      [&](std::vector<char>* object) {
        schedules::ChunkedAlgorithm alg;
        if (Status b = build_pipeline(spec, target, alg); !b) return b;
        Halide::Module module = alg.pipeline().compile_to_module(alg.arguments(), name, target);
        return halide_object_bytes(
            [&](const std::string& path) { module.compile({{Halide::OutputFileType::object, path}}); },
            object);
      },
      [&](const std::vector<char>& object) {
        return jit_load_object(object, name, &address, kRuntimeLibrary);
      },
      name);
  if (!s) return s;
  *fn = reinterpret_cast<HalideChunkedFn>(address);
  return Status::success();
}

CompiledKernel jit_compile(const ChunkedSpec& spec) {
  CompiledKernel result;
  try {
    HalideChunkedFn fn = nullptr;
    if (Status s = uses_halide_jit(spec) ? halide_jit_entry(spec, &fn) : cached_object_entry(spec, &fn);
        !s)
      return {s, {}};
    const std::string name = spec.variant().name();

    Kernel& k = result.kernel;
    if (Status s = jit_chunked_entry(name, fn, spec.schedule.chunk, &k.fn); !s) return {s, {}};
    k.name = name;
    k.K = spec.K;
    k.V = spec.V;
    // Column parts must follow the tiling. Only the hand schedule's is
    // known; Adams2019 picks its own, so its kernels run whole heads.
    k.column_align = spec.scheduler == Scheduler::Hand
                         ? schedules::chunked_column_align(static_cast<int>(spec.V), spec.schedule)
                         : 0;
    k.scratch_floats = halide_chunked_scratch_floats;
    k.decay_kind = spec.decay;
    k.readouts = spec.readouts;
    k.error_message = halide_chunked_error;
  } catch (const Halide::Error& e) {
    return {Status::error(std::string("Halide failed to compile ") + spec.variant().name() +
                          ": " + e.what()),
            {}};
  } catch (const std::exception& e) {  // e.g. a filesystem error: a Status, never an abort
    return {Status::error("cannot compile " + spec.variant().name() + ": " + e.what()), {}};
  }
  return result;
}

}  // namespace

CompiledKernel compile_chunked_uncached(const ChunkedSpec& spec) { return jit_compile(spec); }

const CompiledKernel& compile_chunked(const ChunkedSpec& spec) {
  using Key = std::pair<Variant, bool>;  // and profile
  static auto* cache = new OnceCache<Key, CompiledKernel>;  // never destroyed, as the code
  bool computed = false;
  const CompiledKernel& kernel = cache->get({spec.variant(), spec.profile},
                                            [&] { return jit_compile(spec); }, &computed);
  count_kernel_cache_lookup(!computed);
  return kernel;
}

RouteRunner chunked_runner(const ChunkedSpec& spec) {
  return [spec](const Tensors& t, const Options& o) {
    if (Status s = validate(t); !s) return s;  // a bad call pays no compile
    if (Status s = generated_kernels_take(t); !s) return s;
    const CompiledKernel& c = compile_chunked(spec_for_call(spec, t));
    return c.status ? execute(c.kernel, t, o) : c.status;
  };
}

void install_chunked_routes() {
  set_route_runner(Route::Chunked, [](const Tensors& t, const Options& o) {
    return run_planned(Route::Chunked, t, o);  // tuned or default schedule
  });
  ChunkedSpec adams;
  adams.scheduler = Scheduler::Adams2019;
  set_route_runner(Route::ChunkedAutoschedule, chunked_runner(adams));
}

}  // namespace gdr::compiler
