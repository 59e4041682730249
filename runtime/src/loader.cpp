#include "gdr/loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "checked_dlopen.h"
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
  return bits <= 128;  // SSE, or the 32- and 64-bit vectors of widths 1 and 2
#else
  return true;
#endif
}

}  // namespace

Status load_kernel(const std::string& path, const std::string& symbol, Kernel* kernel) {
  if (!kernel) return Status::error("load_kernel: kernel is a null pointer");
  if (path.empty()) return Status::error("kernel library path is empty");
  // dlopen searches the library path for a bare name; a file name means a file.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // Before dlopen runs any of it (its initialisers): the library's
  // architecture, that it is a kernel of gdr's (the entry point and its
  // <symbol>_info table, read from the file), and the CPU features
  // gdr-compile recorded for the kernel (older libraries have none: the
  // vector check is all there is for them).
  const std::string info_symbol = symbol + "_info", features_symbol = symbol + "_cpu_features";
  LibraryFacts on_disk;
  if (Status s = read_library_facts(file, {symbol, info_symbol, features_symbol}, &on_disk); !s)
    return Status::error(s.message());
  if (this_elf_machine() != 0 && on_disk.machine != this_elf_machine())
    return Status::error(path + ": built for " + elf_machine_name(on_disk.machine) + ", this program runs on " +
                         elf_machine_name(this_elf_machine()) + " (build it with gdr-compile --target for this machine)");
  const auto features = on_disk.symbols.find(features_symbol);
  if (features != on_disk.symbols.end()) {
    // gdr-compile writes a string, its NUL at least: none is no answer.
    if (features->second.empty())
      return Status::error(path + ": kernel '" + symbol + "' has a " + features_symbol +
                           " with no bytes in the file: its CPU features cannot be checked");
    bool unknown = false;
    const std::string missing = first_missing_cpu_feature(features->second.c_str(), &unknown);
    if (!missing.empty())
      return Status::error(path + ": kernel '" + symbol + "' needs the CPU feature " + missing +
                           (unknown ? ", which this runtime cannot check" : ", which this CPU lacks") +
                           " (built for another CPU; build it with gdr-compile --target for this one)");
  }
  if (!on_disk.symbols.count(symbol)) return Status::error(path + ": no kernel '" + symbol + "'");
  const auto info_bytes = on_disk.symbols.find(info_symbol);
  if (info_bytes == on_disk.symbols.end())
    return Status::error(path + ": kernel '" + symbol + "' has no " + info_symbol + " (built before it existed?)");
  // The table's length changed with the ABI: another version is said as such
  // (read_kernel_info checks it first), whatever the length.
  const std::string& info = info_bytes->second;
  int64_t table[GDR_KERNEL_INFO_FIELDS] = {};
  std::memcpy(table, info.data(), std::min(info.size(), sizeof table));
  const bool other_abi = info.size() >= sizeof table[0] && table[GDR_INFO_ABI_VERSION] != GDR_KERNEL_ABI_VERSION;
  if (info.size() != sizeof table && !other_abi)
    return Status::error(path + ": " + info_symbol + " is " + std::to_string(info.size()) + " bytes, not the " +
                         std::to_string(sizeof table) + " of a gdr kernel's table");
  KernelInfo facts;
  if (Status s = read_kernel_info(symbol, table, &facts); !s) return Status::error(path + ": " + s.message());
  // The recorded features are the exact check (an AVX-only CPU runs a
  // 256-bit kernel built for it): the vector guess only without them.
  if (features == on_disk.symbols.end() && !cpu_runs(facts.vector_bits))
    return Status::error(path + ": kernel '" + symbol + "' uses " + std::to_string(facts.vector_bits) +
                         "-bit vectors, which this CPU does not run (build it for this CPU)");
  std::string why;
  void* library = dlopen_checked_file(on_disk.file, file, &why);
  if (!library) return Status::error("cannot load kernel library " + path + ": " + why);
  // The kernel that runs must be the one read. A library loaded before
  // from this path by other means than load_kernel (dlopen_checked_file
  // knows its own) is seen by its entry point, table and CPU features.
  auto as_read = [&](const std::string& name) {
    const auto read = on_disk.symbols.find(name);
    if (read == on_disk.symbols.end()) return true;
    const void* loaded = dlsym(library, name.c_str());
    return loaded && std::memcmp(loaded, read->second.data(), read->second.size()) == 0;
  };
  auto fn = reinterpret_cast<gdr_kernel_fn>(dlsym(library, symbol.c_str()));
  if (!fn || !as_read(info_symbol) || !as_read(features_symbol)) {
    dlclose(library);
    return Status::error("cannot load kernel library " + path + ": " + kStaleLibrary);
  }
  *kernel = kernel_from_info(symbol, fn, facts);
  // A chunked library's bridge keeps its Halide errors' messages.
  kernel->error_message = reinterpret_cast<const char* (*)()>(dlsym(library, "gdr_halide_chunked_error"));
  return Status::success();
}

}  // namespace gdr
