#include "gdr/compiler/kernel_cache_stats.h"

#include <atomic>

namespace gdr::compiler {

namespace {
std::atomic<int64_t> g_hits{0}, g_misses{0};
}  // namespace

KernelCacheStats kernel_cache_stats() { return {g_hits.load(), g_misses.load()}; }

void count_kernel_cache_lookup(bool hit) { (hit ? g_hits : g_misses)++; }

}  // namespace gdr::compiler
