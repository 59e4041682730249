// The C entry points of JIT chunked kernels (compiler/src/chunked_trampolines.h):
// a process gets kTrampolines of them, each distinct, then a clear error.
// A binary of its own: the test takes every one.
#include <gtest/gtest.h>

#include <set>

#include "chunked_trampolines.h"

namespace gdr::compiler {
namespace {

TEST(ChunkedTrampolines, EveryOneIsDistinctThenTheyRunOut) {
  std::set<gdr_kernel_fn> entries;
  for (int i = 0; i < kTrampolines; ++i) {
    gdr_kernel_fn entry = nullptr;
    ASSERT_TRUE(bind_trampoline(nullptr, i + 1, &entry)) << i;
    entries.insert(entry);
  }
  EXPECT_EQ(entries.size(), static_cast<size_t>(kTrampolines));
  EXPECT_GE(kTrampolines, 1024);
  gdr_kernel_fn entry = nullptr;
  const Status s = bind_trampoline(nullptr, 1, &entry);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "too many chunked kernels in one process (" + std::to_string(kTrampolines) + ")");
}

}  // namespace
}  // namespace gdr::compiler
