// Counts of the in-process kernel caches (each compiled variant is kept for
// the life of the process): a hit reused a kernel, a miss compiled or loaded
// one. The on-disk cache counts its own (disk_cache_stats()).
#pragma once

#include <cstdint>

namespace gdr::compiler {

struct KernelCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
};
KernelCacheStats kernel_cache_stats();

// Called by the recurrent and chunked kernel caches on every lookup.
void count_kernel_cache_lookup(bool hit);

}  // namespace gdr::compiler
