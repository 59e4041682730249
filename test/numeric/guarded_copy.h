// A copy of a tensor in pages of its own, against an inaccessible page: its
// first float right after one (Before) or its last right before one
// (After), so that a kernel reading or writing past that edge faults
// instead of touching a neighbour (AddressSanitizer does not see inside
// generated code). Not copyable: data points into the mapping.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "gdr/reference/line_aligned.h"

namespace gdr::test {

struct GuardedCopy {
  enum class Side { Before, After };
  GuardedCopy(const LineAlignedFloats& x, Side side) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE)), bytes = x.size() * sizeof(float);
    const size_t data_pages = (bytes + page - 1) / page;
    mapped = (data_pages + 1) * page;
    void* m = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) std::abort();
    base = static_cast<char*>(m);
    char* guard = side == Side::Before ? base : base + data_pages * page;
    if (mprotect(guard, page, PROT_NONE) != 0) std::abort();
    // (An empty tensor Before points one past the mapping: never read.)
    data = reinterpret_cast<float*>(side == Side::Before ? base + page : guard - bytes);
    std::copy(x.begin(), x.end(), data);
  }
  ~GuardedCopy() { munmap(base, mapped); }
  GuardedCopy(const GuardedCopy&) = delete;
  GuardedCopy& operator=(const GuardedCopy&) = delete;

  char* base = nullptr;
  size_t mapped = 0;
  float* data = nullptr;
};

}  // namespace gdr::test
