#include "gdr/loader.h"

#include <dlfcn.h>

#include <cstdint>

#include "gdr/kernel_abi.h"

namespace gdr {

Status load_kernel(const std::string& path, const std::string& symbol, Kernel* kernel) {
  // RTLD_LOCAL: two libraries may hold kernels of the same name.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    return Status::error("cannot load kernel library " + path + ": " + (why ? why : "unknown error"));
  }
  auto fn = reinterpret_cast<gdr_kernel_fn>(dlsym(library, symbol.c_str()));
  auto info = static_cast<const int64_t*>(dlsym(library, (symbol + "_info").c_str()));
  auto fail = [&](const std::string& why) {
    dlclose(library);
    return Status::error(path + ": " + why);
  };
  if (!fn || !info) return fail("no kernel '" + symbol + "' (entry point and " + symbol + "_info)");
  if (info[GDR_INFO_ABI_VERSION] != GDR_KERNEL_ABI_VERSION)
    return fail("kernel '" + symbol + "' was built for kernel ABI version " +
                std::to_string(info[GDR_INFO_ABI_VERSION]) + ", this runtime speaks " +
                std::to_string(GDR_KERNEL_ABI_VERSION));
  const int64_t K = info[GDR_INFO_K], V = info[GDR_INFO_V];
  const int64_t align = info[GDR_INFO_COLUMN_ALIGN], scratch = info[GDR_INFO_SCRATCH_FLOATS];
  if (K <= 0 || V <= 0 || align < 0 || scratch < 0)
    return fail("kernel '" + symbol + "' has an impossible description (K=" + std::to_string(K) +
                ", V=" + std::to_string(V) + ", column_align=" + std::to_string(align) +
                ", scratch_floats=" + std::to_string(scratch) + ")");
  Kernel k;
  k.name = symbol;
  k.fn = fn;
  k.K = K;
  k.V = V;
  k.column_align = align;
  if (scratch > 0) k.scratch_floats = [scratch](int64_t, int64_t, int64_t) { return scratch; };
  *kernel = std::move(k);
  return Status::ok();
}

}  // namespace gdr
