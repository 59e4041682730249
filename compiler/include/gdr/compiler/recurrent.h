// The recurrent route: gdr dialect -> MLIR passes -> LLVM IR -> object ->
// in-process JIT, returning a runtime kernel.
#pragma once

#include <string>
#include <vector>

#include "gdr/compiler/kernel_spec.h"
#include "gdr/compiler/target.h"
#include "gdr/runtime.h"
#include "gdr/status.h"

namespace gdr::compiler {

// The gdr module of one recurrent kernel, as text (what gdr-opt reads).
std::string recurrent_module_text(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                  const Target& target);

// Ok if the dialect's verifier accepts `schedule` for `spec` on `target`
// (the checks compile_recurrent_object makes first), else its diagnostic.
Status check_recurrent_schedule(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                const Target& target);

// Where compile_recurrent_object stops: the relocatable object, or the same
// code as assembly or as (optimised) LLVM IR text.
enum class RecurrentOutput { Object, Assembly, LlvmIr };

// Generates the kernel for `target`.
Status compile_recurrent_object(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                const Target& target, std::vector<char>* object,
                                RecurrentOutput output = RecurrentOutput::Object);

// Generates the kernel for `target` (one the host runs: x86-64-v3 on an
// AVX-512 host, say), or loads it from the disk cache
// (DiskCache::from_environment(), keyed by variant.h's cache_description())
// and stores it there on a miss, and loads it into the process-wide JIT,
// which owns the code for the rest of the process. Not cached in process: each call loads the object again.
Status compile_recurrent(const KernelSpec& spec, const RecurrentSchedule& schedule, Kernel* kernel,
                         const Target& target = host_target());

// compile_recurrent through a process-wide cache keyed by the Variant:
// each variant is compiled once, also when several threads ask at once.
Status compiled_recurrent_kernel(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                 Kernel* kernel);

// A route runner for `schedule` with K, V and the form taken from each
// call's tensors: validates, compiles through compiled_recurrent_kernel's
// cache, executes (as chunked_runner does for a chunked schedule).
RouteRunner recurrent_runner(const RecurrentSchedule& schedule);

// Installs runners for Route::Recurrent and Route::Auto into gdr::run: each
// runs what plan() picks (tuned or default schedule; Auto may pick the
// chunked route), compiling each (K, V, schedule) once, then gdr::execute.
void install_routes();

}  // namespace gdr::compiler
