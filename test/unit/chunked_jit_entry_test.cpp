// The C entry points of JIT chunked kernels (compiler/src/chunked_jit_entry.h):
// each calls its own pipeline with its own chunk size, however many a process
// makes (a fixed table of 1024 trampolines preceded them: kernel 1025 was
// refused). A binary of its own: it loads 1100 objects into the process JIT.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "chunked_jit_entry.h"

namespace gdr::compiler {
namespace {

int g_calls[2];

// A pipeline that only counts its calls (one per chunk): the outputs stay
// the zeros they were, which the bridge's check of them takes as finite.
template <int N>
int counting_pipeline(halide_buffer_t*, halide_buffer_t*, halide_buffer_t*, halide_buffer_t*,
                      halide_buffer_t*, halide_buffer_t*, halide_buffer_t*, halide_buffer_t*) {
  ++g_calls[N];
  return 0;
}

TEST(ChunkedJitEntry, EachCallsItsOwnPipelineWithItsOwnChunkPastAThousand) {
  constexpr int kEntries = 1100;
  // K = V = 1: a token's row of any tensor is one float.
  std::vector<float> rows(kEntries + 1, 0.0f), out(kEntries + 1, 0.0f);
  float initial_state = 0, final_state = 0, scratch = 0;
  std::set<gdr_kernel_fn> entries;
  for (int i = 0; i < kEntries; ++i) {
    const int counter = i % 2;
    const int64_t chunk = i + 1;
    gdr_kernel_fn entry = nullptr;
    ASSERT_TRUE(jit_chunked_entry("kernel" + std::to_string(i),
                                  counter ? &counting_pipeline<1> : &counting_pipeline<0>, chunk, &entry))
        << i;
    entries.insert(entry);
    // One chunk's tokens take one pipeline call, one token more two.
    for (int64_t T : {chunk, chunk + 1}) {
      gdr_kernel_args a{};
      a.query = a.key = a.value = a.decay = a.beta = rows.data();
      a.initial_state = &initial_state;
      a.out = out.data();
      a.final_state = &final_state;
      a.T = T, a.K = 1, a.V = 1;
      a.decay_kind = GDR_DECAY_CHANNEL;
      a.readouts = 1;
      a.query_token_stride = a.key_token_stride = a.value_token_stride = 1;
      a.decay_token_stride = a.beta_token_stride = a.out_token_stride = 1;
      a.v_begin = 0, a.v_end = 1;
      a.scratch = &scratch, a.scratch_floats = 1;
      g_calls[0] = g_calls[1] = 0;
      ASSERT_EQ(entry(&a), 0) << i;
      EXPECT_EQ(g_calls[counter], T == chunk ? 1 : 2) << "entry " << i << ", T = " << T;
      EXPECT_EQ(g_calls[1 - counter], 0) << i;
    }
  }
  EXPECT_EQ(entries.size(), static_cast<size_t>(kEntries));
}

}  // namespace
}  // namespace gdr::compiler
