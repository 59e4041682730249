#include "gdr/compiler/chunked.h"

#include <Halide.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "gdr/Dialect/Limits.h"
#include "gdr/compiler/diagnostics.h"
#include "gdr/compiler/disk_cache.h"
#include "gdr/compiler/halide_chunked_abi.h"
#include "gdr/compiler/jit.h"
#include "gdr/compiler/kernel_cache_stats.h"
#include "gdr/compiler/once_cache.h"
#include "gdr/compiler/plan.h"
#include "gdr/schedules/chunked_algorithm.h"
#include "gdr/schedules/chunked_schedule.h"

namespace gdr::compiler {
namespace {

// Builds the algorithm and applies the spec's schedule.
Status build_pipeline(const ChunkedSpec& spec, const Halide::Target& target,
                      schedules::ChunkedAlgorithm& alg) {
  if (std::string why = spec.schedule.check(); !why.empty()) return Status::error(why);
  using mlir::gdr::kMaxHeadSize;
  if (spec.K <= 0 || spec.V <= 0 || spec.K > kMaxHeadSize || spec.V > kMaxHeadSize)
    return Status::error("chunked kernel: K and V must be in [1, 2^20], got K=" +
                         std::to_string(spec.K) + ", V=" + std::to_string(spec.V));
  schedules::define_chunked_algorithm(alg, static_cast<int>(spec.K), static_cast<int>(spec.V),
                                      spec.schedule.chunk);
  if (spec.scheduler == Scheduler::Hand) {
    schedules::apply_hand_schedule(alg, spec.schedule);
    return Status::ok();
  }
  std::string error = schedules::apply_autoschedule(alg, target, GDR_ADAMS2019_PLUGIN);
  return error.empty() ? Status::ok() : Status::error(error);
}

Status parse_target(const std::string& name, Halide::Target* target) {
  if (name == "host") {
    *target = Halide::get_host_target();
    return Status::ok();
  }
  if (!Halide::Target::validate_target_string(name))
    return Status::error("unknown Halide target '" + name + "'");
  *target = Halide::Target(name);
  return Status::ok();
}

// JIT kernels get a plain C entry point from a fixed table of trampolines,
// each bound to one slot (the kernel ABI has no context pointer).
constexpr int kSlots = 64;
struct Slot {
  HalideChunkedFn fn = nullptr;
  int64_t chunk = 0;
};
std::array<Slot, kSlots> g_slots;

template <int N>
int32_t slot_entry(const gdr_kernel_args* a) {
  return run_halide_chunked(a, g_slots[N].fn, g_slots[N].chunk);
}
template <int... N>
constexpr std::array<gdr_kernel_fn, kSlots> make_entries(std::integer_sequence<int, N...>) {
  return {&slot_entry<N>...};
}
constexpr std::array<gdr_kernel_fn, kSlots> kEntries =
    make_entries(std::make_integer_sequence<int, kSlots>());

// Slots in use, and the Halide JIT modules behind some of them (the other
// kernels live in the process JIT), kept alive for the life of the process.
struct JitModules {
  std::mutex mutex;
  std::vector<std::unique_ptr<Halide::Internal::JITModule>> modules;
  int used_slots = 0;
};
JitModules& jit_modules() {
  static JitModules* m = new JitModules;  // never destroyed: kernels may run until exit
  return *m;
}

// The folder for Halide's scratch files: $TMPDIR if it is a folder, else
// /tmp (a bad $TMPDIR must not stop a compile; if /tmp fails too, mkstemp
// says so).
std::filesystem::path scratch_folder() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  return ec ? std::filesystem::path("/tmp") : dir;
}

// Halide writes objects only to files: `write` fills a temporary file (a
// unique mkstemp name, so threads and processes never share one), which is
// read back and removed (also when `write` throws).
Status halide_object_bytes(const std::function<void(const std::string& path)>& write,
                           std::vector<char>* object) {
  std::string path = (scratch_folder() / "gdr-halide-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0)
    return Status::error("cannot create a temporary file " + path + ": " + std::strerror(errno));
  ::close(fd);
  struct Remove {
    const std::string& path;
    ~Remove() { std::remove(path.c_str()); }
  } remove_at_exit{path};
  write(path);
  std::ifstream in(path, std::ios::binary);
  object->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad() || object->empty()) return Status::error("cannot read Halide's object " + path);
  return Status::ok();
}

// What cached kernels are built for: the host, without a runtime inside.
Halide::Target kernel_target() {
  return Halide::get_host_target().with_feature(Halide::Target::NoRuntime);
}

// The JIT library every cached chunked kernel links against: one Halide
// runtime per process, itself kept in the disk cache.
constexpr char kRuntimeLibrary[] = "gdr_halide_runtime";

Status load_halide_runtime(const Halide::Target& target) {
  static std::mutex mutex;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded) return Status::ok();
  Status s = DiskCache::current().load_or_build(
      std::string("route halide-runtime\nhalide ") + GDR_HALIDE_VERSION + "\nhalide target " +
          target.to_string(),
      [&](std::vector<char>* object) {
        return halide_object_bytes(
            [&](const std::string& path) { Halide::compile_standalone_runtime(path, target); },
            object);
      },
      [](const std::vector<char>& object) {
        return jit_add_library(kRuntimeLibrary, object, "halide_malloc");
      },
      "the Halide runtime");
  loaded = s.is_ok();
  return s;
}

// Halide's own JIT (a JITModule and its shared runtime), for what the disk
// cache does not take: the profiler, whose one JIT runtime gathers every
// profiled Func and reports at exit, and Adams2019, whose schedule depends
// on the plugin and its weights, which no key could name.
Status halide_jit_entry(const ChunkedSpec& spec, HalideChunkedFn* fn) {
  const auto start = std::chrono::steady_clock::now();
  Halide::Target target = Halide::get_host_target().with_feature(Halide::Target::JIT);
  if (spec.profile) target = target.with_feature(Halide::Target::Profile);
  schedules::ChunkedAlgorithm alg;
  if (Status s = build_pipeline(spec, target, alg); !s) return s;
  const std::string name = chunked_kernel_name(spec);
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
  return Status::ok();
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
  const std::string name = chunked_kernel_name(spec);
  void* address = nullptr;
  Status s = DiskCache::current().load_or_build(
      chunked_cache_description(spec),
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
  return Status::ok();
}

CompiledKernel jit_compile(const ChunkedSpec& spec) {
  CompiledKernel result;
  try {
    HalideChunkedFn fn = nullptr;
    if (Status s = uses_halide_jit(spec) ? halide_jit_entry(spec, &fn) : cached_object_entry(spec, &fn);
        !s)
      return {s, {}};
    const std::string name = chunked_kernel_name(spec);

    std::lock_guard<std::mutex> lock(jit_modules().mutex);
    if (jit_modules().used_slots == kSlots)
      return {Status::error("too many chunked kernels in one process (" + std::to_string(kSlots) +
                            ")"),
              {}};
    const int slot = jit_modules().used_slots++;
    g_slots[slot] = Slot{fn, spec.schedule.chunk};

    Kernel& k = result.kernel;
    k.name = name;
    k.fn = kEntries[slot];
    k.K = spec.K;
    k.V = spec.V;
    // Column parts must follow the tiling. Only the hand schedule's is
    // known; Adams2019 picks its own, so its kernels run whole heads.
    k.column_align = spec.scheduler == Scheduler::Hand
                         ? schedules::chunked_column_align(static_cast<int>(spec.V), spec.schedule)
                         : 0;
    k.scratch_floats = halide_chunked_scratch_floats;
  } catch (const Halide::Error& e) {
    return {Status::error(std::string("Halide failed to compile ") + chunked_kernel_name(spec) +
                          ": " + e.what()),
            {}};
  } catch (const std::exception& e) {  // e.g. a filesystem error: a Status, never an abort
    return {Status::error("cannot compile " + chunked_kernel_name(spec) + ": " + e.what()), {}};
  }
  return result;
}

}  // namespace

std::string chunked_kernel_name(const ChunkedSpec& spec) {
  return "gdr_chunked_f32_k" + std::to_string(spec.K) + "_v" + std::to_string(spec.V) + "__c" +
         std::to_string(spec.schedule.chunk) + "_w" + std::to_string(spec.schedule.vector_width) +
         (spec.scheduler == Scheduler::Adams2019 ? "_adams2019" : "");
}

std::string chunked_cache_description(const ChunkedSpec& spec) {
  if (uses_halide_jit(spec)) return "";
  return "route chunked\nkernel " + chunked_kernel_name(spec) + "\nschedule " +
         spec.schedule.str() + "\nhalide " + GDR_HALIDE_VERSION + "\nhalide target " +
         kernel_target().to_string();
}

CompiledKernel compile_chunked_uncached(const ChunkedSpec& spec) { return jit_compile(spec); }

const CompiledKernel& compile_chunked(const ChunkedSpec& spec) {
  using Key = std::tuple<int64_t, int64_t, schedules::Schedule, Scheduler, bool>;
  static auto* cache = new OnceCache<Key, CompiledKernel>;  // never destroyed, as the code
  bool computed = false;
  const CompiledKernel& kernel = cache->get({spec.K, spec.V, spec.schedule, spec.scheduler, spec.profile},
                                            [&] { return jit_compile(spec); }, &computed);
  count_kernel_cache_lookup(!computed);
  return kernel;
}

RouteRunner chunked_runner(const ChunkedSpec& spec) {
  return [spec](const Tensors& t, const Options& o) {
    if (Status s = validate(t); !s) return s;  // a bad call pays no compile
    ChunkedSpec s = spec;
    s.K = t.K;
    s.V = t.V;
    const CompiledKernel& c = compile_chunked(s);
    return c.status ? execute(c.kernel, t, o) : c.status;
  };
}

namespace {

// Halide names a header's include guard after the path it writes to
// (Module::compile): a header written under a staging name gets the guard
// of the name it is staged for.
Status rename_include_guard(const std::string& header, const std::string& final_path) {
  auto guard = [](const std::string& path) { return "HALIDE_" + Halide::Internal::c_print_name(path); };
  std::ifstream in(header, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = guard(header), to = guard(final_path);
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  std::ofstream out(header, std::ios::binary | std::ios::trunc);
  out << text;
  return out ? Status::ok() : Status::error("cannot rewrite " + header);
}

}  // namespace

Status compile_chunked_to_files(const ChunkedSpec& spec, const std::string& target_name,
                                const std::string& function_name, const ChunkedFiles& paths) {
  try {
    Halide::Target target;
    if (Status s = parse_target(target_name, &target); !s) return s;
    target = target.with_feature(Halide::Target::NoRuntime);
    schedules::ChunkedAlgorithm alg;
    if (Status s = build_pipeline(spec, target, alg); !s) return s;
    std::map<Halide::OutputFileType, std::string> files = {
        {Halide::OutputFileType::object, paths.object}, {Halide::OutputFileType::c_header, paths.header}};
    if (!paths.assembly.empty()) files[Halide::OutputFileType::assembly] = paths.assembly;
    alg.pipeline().compile_to(files, alg.arguments(), function_name, target);
    if (!paths.header_final.empty())
      if (Status s = rename_include_guard(paths.header, paths.header_final); !s) return s;
  } catch (const Halide::Error& e) {
    return Status::error("Halide failed to compile " + function_name + ": " + e.what());
  } catch (const std::exception& e) {
    return Status::error("cannot compile " + function_name + ": " + e.what());
  }
  return Status::ok();
}

Status compile_halide_runtime(const std::string& target_name, const std::string& object_path) {
  try {
    Halide::Target target;
    if (Status s = parse_target(target_name, &target); !s) return s;
    Halide::compile_standalone_runtime(object_path, target);
  } catch (const Halide::Error& e) {
    return Status::error(std::string("Halide failed to compile its runtime: ") + e.what());
  } catch (const std::exception& e) {
    return Status::error(std::string("cannot compile the Halide runtime: ") + e.what());
  }
  return Status::ok();
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
