// Float buffers that start a cache line, as PyTorch's tensors do: the
// runtime streams final states only into rows that start lines
// (kernel_abi.h, gdr_state_stores), so a tool measures what a PyTorch
// caller gets.
#pragma once

#include <cstdlib>
#include <new>
#include <vector>

namespace gdr::tools {

template <class T>
struct LineAlignedAllocator {
  using value_type = T;
  LineAlignedAllocator() = default;
  template <class U>
  LineAlignedAllocator(const LineAlignedAllocator<U>&) {}
  T* allocate(size_t n) {
    const size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    if (void* p = std::aligned_alloc(64, bytes)) return static_cast<T*>(p);
    throw std::bad_alloc();
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <class U>
  bool operator==(const LineAlignedAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const LineAlignedAllocator<U>&) const { return false; }
};

using LineAlignedFloats = std::vector<float, LineAlignedAllocator<float>>;

}  // namespace gdr::tools
