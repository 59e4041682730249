// The chunked WY prefill: compile a Halide pipeline for (K, V, schedule) in
// process (JIT, cached) or ahead of time to an object and header, and install
// it as the Chunked and ChunkedAutoschedule routes of gdr::run.
#pragma once

#include <cstdint>
#include <string>

#include "gdr/compiler/compiled_kernel.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/variant.h"
#include "gdr/runtime.h"
#include "gdr/schedules/schedule.h"

namespace gdr::compiler {

struct ChunkedSpec {
  int64_t K = 128, V = 128;
  // Untuned: the host's default.
  schedules::Schedule schedule = default_variant(Route::Chunked, {}, 0, host_target()).chunked;
  Scheduler scheduler = Scheduler::Hand;
  bool profile = false;  // JIT only: Halide's per-Func profiler, report at exit
  DecayKind decay = DecayKind::Channel;
  int64_t readouts = 1;  // query heads per state head

  // The kernel built (profile is how, not which).
  Variant variant() const { return chunked_variant({K, V, decay, readouts}, schedule, scheduler); }
};

// `spec` with K, V and the form (decay kind, readouts) of call `t` (its
// sizes valid): what a route that follows the call compiles.
inline ChunkedSpec spec_for_call(ChunkedSpec spec, const Tensors& t) {
  const KernelSpec call = kernel_spec(t);
  spec.K = call.K;
  spec.V = call.V;
  spec.decay = call.decay;
  spec.readouts = call.readouts;
  return spec;
}

// The spec of a chunked variant.
inline ChunkedSpec chunked_spec(const Variant& v) {
  ChunkedSpec spec;
  spec.K = v.K;
  spec.V = v.V;
  spec.schedule = v.chunked;
  spec.scheduler = v.scheduler;
  spec.decay = v.decay;
  spec.readouts = v.readouts;
  return spec;
}

// JIT-compiles the kernel for the host, once per spec per process: later
// calls (from any thread) return the cached kernel. Threads that ask for the
// same spec while it compiles wait for that one compilation. The reference
// lives as long as the process.
const CompiledKernel& compile_chunked(const ChunkedSpec& spec);
inline const CompiledKernel& compile_chunked(int64_t K, int64_t V, const schedules::Schedule& s) {
  return compile_chunked(ChunkedSpec{K, V, s, Scheduler::Hand});
}

// Compiles again, outside compile_chunked's process-wide cache (the disk
// cache still applies).
CompiledKernel compile_chunked_uncached(const ChunkedSpec& spec);

// A route runner for `spec` with K, V and the form taken from each call's tensors:
// validates, compiles through compile_chunked's cache, executes.
RouteRunner chunked_runner(const ChunkedSpec& spec);

// AOT: writes the Halide function `function_name` for `target` ("host" or a
// Halide target string such as "x86-64-linux-avx2-fma", see
// halide_target_string), built without a Halide runtime (link exactly one
// object from compile_halide_runtime into the program): each of the object,
// Halide's header, the assembly and the LLVM IR whose path is not empty.
// The paths are written as given (the caller stages them); the header's
// include guard is named after `header_final` when given (the path a staged
// header will have).
struct ChunkedFiles {
  std::string object, header, assembly, header_final, llvm_ir;
};
Status compile_chunked_to_files(const ChunkedSpec& spec, const std::string& target,
                                const std::string& function_name, const ChunkedFiles& files);
Status compile_halide_runtime(const std::string& target, const std::string& object_path);

// AOT as the recurrent route's objects are: one relocatable object at
// `object_path` for `target` (its Halide target from halide_target_string)
// holding the pipeline `<name>_halide` (no Halide runtime inside), the entry
// point `int32_t <name>(const gdr_kernel_args*)` (through the runtime's
// gdr_halide_chunked_entry) and `<name>_info`, `<name>_cpu_features`; and
// the pipeline's assembly where `assembly_path` is not empty.
Status compile_chunked_object(const ChunkedSpec& spec, const Target& target, const std::string& name,
                              const std::string& object_path, const std::string& assembly_path);

// Installs Route::Chunked (the tuned hand schedule, else the default; see
// plan.h) and
// Route::ChunkedAutoschedule into gdr::run.
void install_chunked_routes();

}  // namespace gdr::compiler
