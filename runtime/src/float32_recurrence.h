// The float32 recurrence in the contract's loop order, over one task's
// arguments: the reference kernel (the accuracy yardstick and the
// runtime's fallback route) and the chunked kernels' rerun of a chunk's
// columns whose outputs are not all finite (halide_chunked_abi.cpp). Any K, V, decay
// kind and number of readouts; columns [v_begin, v_end).
#pragma once

#include <cstdint>
#include <cstring>

#include "gdr/kernel_abi.h"

namespace gdr {

inline int32_t float32_recurrence(const gdr_kernel_args* a) {
  const int64_t T = a->T, K = a->K, V = a->V, c0 = a->v_begin, c1 = a->v_end;
  const bool scalar_decay = a->decay_kind == GDR_DECAY_SCALAR;
  float* S = a->final_state;
  const float* S0 = a->initial_state;
  // In place (S0 == S) the copy is a no-op; memmove keeps it defined.
  for (int64_t r = 0; r < K; ++r)
    std::memmove(S + r * V + c0, S0 + r * V + c0, (c1 - c0) * sizeof(float));
  for (int64_t s = 0; s < T; ++s) {
    const float* ks = a->key + s * a->key_token_stride;
    const float* gs = a->decay + s * a->decay_token_stride;
    const float* vs = a->value + s * a->value_token_stride;
    const float beta = a->beta[s * a->beta_token_stride];
    for (int64_t c = c0; c < c1; ++c) {
      float pred = 0.f;
      for (int64_t r = 0; r < K; ++r) {
        S[r * V + c] *= scalar_decay ? gs[0] : gs[r];
        pred += S[r * V + c] * ks[r];
      }
      const float delta = beta * (vs[c] - pred);
      for (int64_t r = 0; r < K; ++r) S[r * V + c] += ks[r] * delta;
      for (int64_t g = 0; g < a->readouts; ++g) {
        const float* qs = a->query + g * a->query_readout_stride + s * a->query_token_stride;
        float o = 0.f;
        for (int64_t r = 0; r < K; ++r) o += S[r * V + c] * qs[r];
        a->out[g * a->out_readout_stride + s * a->out_token_stride + c] = o;
      }
    }
  }
  return 0;
}

}  // namespace gdr
