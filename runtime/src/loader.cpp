#include "gdr/loader.h"

#include <dlfcn.h>

#include <cstdint>

#include "cpu_features.h"
#include "gdr/kernel_abi.h"
#include "gdr/kernel_info.h"
#include "library_facts.h"

namespace gdr {
namespace {

// Whether this CPU runs vectors of `bits` (a library built for the host runs
// the host's widest vectors: on an older CPU they would be illegal
// instructions, not an error).
bool cpu_runs(int64_t bits) {
#if defined(__x86_64__) || defined(__i386__)
  if (bits == 512) return __builtin_cpu_supports("avx512f");
  if (bits == 256) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return bits == 128 || bits == 0;
#else
  return true;
#endif
}

}  // namespace

Status load_kernel(const std::string& path, const std::string& symbol, Kernel* kernel) {
  if (path.empty()) return Status::error("kernel library path is empty");
  // dlopen searches the library path for a bare name; a file name means a file.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // Before dlopen runs any of it: the library's architecture, and the CPU
  // features gdr-compile recorded for the kernel (older libraries have none:
  // the vector check below is all there is for them).
  LibraryFacts facts_on_disk;
  if (Status s = read_library_facts(file, symbol + "_cpu_features", &facts_on_disk); !s)
    return Status::error(s.message());
  if (this_elf_machine() != 0 && facts_on_disk.machine != this_elf_machine())
    return Status::error(path + ": built for " + elf_machine_name(facts_on_disk.machine) + ", this program runs on " +
                         elf_machine_name(this_elf_machine()) + " (build it with gdr-compile --target for this machine)");
  if (facts_on_disk.has_string) {
    bool unknown = false;
    const std::string missing = first_missing_cpu_feature(facts_on_disk.string, &unknown);
    if (!missing.empty())
      return Status::error(path + ": kernel '" + symbol + "' needs the CPU feature " + missing +
                           (unknown ? ", which this runtime cannot check" : ", which this CPU lacks") +
                           " (built for another CPU; build it with gdr-compile --target for this one)");
  }
  // RTLD_LOCAL: two libraries may hold kernels of the same name.
  void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    return Status::error("cannot load kernel library " + path + ": " + (why ? why : "unknown error"));
  }
  auto fail = [&](const std::string& why) {
    dlclose(library);
    return Status::error(path + ": " + why);
  };
  auto fn = reinterpret_cast<gdr_kernel_fn>(dlsym(library, symbol.c_str()));
  if (!fn) return fail("no kernel '" + symbol + "'");
  auto info = static_cast<const int64_t*>(dlsym(library, (symbol + "_info").c_str()));
  if (!info) return fail("kernel '" + symbol + "' has no " + symbol + "_info (built before it existed?)");
  KernelInfo facts;
  if (Status s = read_kernel_info(symbol, info, &facts); !s) return fail(s.message());
  if (!cpu_runs(facts.vector_bits))
    return fail("kernel '" + symbol + "' uses " + std::to_string(facts.vector_bits) +
                "-bit vectors, which this CPU does not run (build it for this CPU)");
  *kernel = kernel_from_info(symbol, fn, facts);
  // A chunked library's bridge keeps its Halide errors' messages.
  kernel->error_message = reinterpret_cast<const char* (*)()>(dlsym(library, "gdr_halide_chunked_error"));
  return Status::ok();
}

}  // namespace gdr
