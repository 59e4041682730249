// Float buffers that start a cache line, as PyTorch's tensors do, so that
// the tools measure what a PyTorch caller gets: tensors 16 bytes past a
// line (glibc's large mallocs) split every 64-byte row access over two
// lines (H = 32, K = V = 128, T = 512, Zen 5: inputs so placed made the call
// 1.07x slower head-major and 1.25x token-major on 1 thread; the output so
// placed cost Qwen3-Next's token-major form 80% of the FMA peak against 92%
// on 1 thread, 80% against 96% on 2), and the runtime streams final states
// only into rows that start lines (kernel_abi.h, gdr_state_stores).
#pragma once

#include <cstdlib>
#include <new>
#include <vector>

namespace gdr::test {

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

}  // namespace gdr::test
