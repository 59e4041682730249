// Baselines: our re-creations of today's best CPU kernels (ExecuTorch's
// llama::channelwise_gated_delta_rule), the bar gdr is measured against.
// Plain C++ loops compiled -O3 -march=native, run on the same thread pool.
#pragma once

#include "gdr/runtime.h"

namespace gdr::baselines {

// Two-pass decode, one token at a time, one thread (ExecuTorch's decode is
// serial). Pass 1 reads S to get v_pred with the decay folded into the key;
// pass 2 applies decay and the rank-one write and accumulates the output in
// the same sweep.
const Kernel& two_pass_kernel();

// The chunk size ExecuTorch's chunked path uses.
constexpr int64_t kChunk = 32;

// Chunked WY/UT prefill with C = 32, parallel over (b, h). Its guard: a
// serial pre-scan sends the whole call to the one-thread two-pass recurrence
// when any decay is <= 0 or NaN, or when in any channel of any chunk the sum
// of -log(decay) exceeds 80 (where exp(-G) would overflow float32).
Status run_chunked(const Tensors& t, const Options& options);
// The pre-scan alone: true when run_chunked would fall back.
bool chunked_needs_fallback(const Tensors& t);

// Registers both baselines with gdr::run as Route::BaselineTwoPass and
// Route::BaselineChunked.
void install_routes();

}  // namespace gdr::baselines
