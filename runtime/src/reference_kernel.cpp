// The float32 recurrence in the contract's loop order: the accuracy
// yardstick for generated kernels and the runtime's fallback route.
#include <cstring>

#include "gdr/runtime.h"

namespace gdr {
namespace {

int32_t reference_recurrence(const gdr_kernel_args* a) {
  const int64_t T = a->T, K = a->K, V = a->V;
  for (int64_t bh = a->bh_begin; bh < a->bh_end; ++bh) {
    const float* q = a->query + bh * T * K;
    const float* k = a->key + bh * T * K;
    const float* v = a->value + bh * T * V;
    const float* g = a->decay + bh * T * K;
    const float* beta = a->beta + bh * T;
    float* out = a->out + bh * T * V;
    float* S = a->final_state + bh * K * V;
    const float* S0 = a->initial_state + bh * K * V;
    for (int64_t r = 0; r < K; ++r)
      for (int64_t c = a->v_begin; c < a->v_end; ++c) S[r * V + c] = S0[r * V + c];
    for (int64_t s = 0; s < T; ++s) {
      const float* ks = k + s * K;
      const float* qs = q + s * K;
      const float* gs = g + s * K;
      for (int64_t c = a->v_begin; c < a->v_end; ++c) {
        float pred = 0.f;
        for (int64_t r = 0; r < K; ++r) {
          S[r * V + c] *= gs[r];
          pred += S[r * V + c] * ks[r];
        }
        const float delta = beta[s] * (v[s * V + c] - pred);
        float o = 0.f;
        for (int64_t r = 0; r < K; ++r) {
          S[r * V + c] += ks[r] * delta;
          o += S[r * V + c] * qs[r];
        }
        out[s * V + c] = o;
      }
    }
  }
  return 0;
}

}  // namespace

const Kernel& reference_kernel() {
  static const Kernel kernel{"reference", reference_recurrence, 0, 0, 1, 0, nullptr};
  return kernel;
}

}  // namespace gdr
