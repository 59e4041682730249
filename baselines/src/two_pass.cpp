#include <vector>

#include "gdr/baselines.h"

namespace gdr::baselines {
namespace {

int32_t two_pass(const gdr_kernel_args* a) {
  const int64_t T = a->T, K = a->K, V = a->V;
  const int64_t c0 = a->v_begin, c1 = a->v_end;
  const bool scalar_decay = a->decay_kind == GDR_DECAY_SCALAR;
  std::vector<float> dk(K), g(K), pred(V), out_row(V);
  float* S = a->final_state;
  const float* S0 = a->initial_state;
  if (T == 0 && S != S0)
    for (int64_t r = 0; r < K; ++r)
      for (int64_t c = c0; c < c1; ++c) S[r * V + c] = S0[r * V + c];
  for (int64_t s = 0; s < T; ++s) {
    const float* k = a->key + s * a->key_token_stride;
    const float* q = a->query + s * a->query_token_stride;
    const float* decay = a->decay + s * a->decay_token_stride;
    const float* v = a->value + s * a->value_token_stride;
    const float beta = a->beta[s * a->beta_token_stride];
    float* out = a->out + s * a->out_token_stride;
    for (int64_t r = 0; r < K; ++r) g[r] = scalar_decay ? decay[0] : decay[r];
    // Pass 1: v_pred = (decay . S)^T k, with the decay folded into k.
    // Pass 2: decay, rank-one write, and the output in one sweep.
    // The first token reads the initial state and writes the final one;
    // later tokens update in place. Two call sites so that the compiler
    // sees the in-place case as one pointer: a runtime alias check on
    // src == S would otherwise send every later token down a scalar loop.
    auto passes = [&](const float* src, float* dst) __attribute__((always_inline)) {
      for (int64_t r = 0; r < K; ++r) dk[r] = g[r] * k[r];
      for (int64_t c = c0; c < c1; ++c) pred[c] = 0.f;
      for (int64_t r = 0; r < K; ++r) {
        const float* row = src + r * V;
        for (int64_t c = c0; c < c1; ++c) pred[c] += row[c] * dk[r];
      }
      for (int64_t c = c0; c < c1; ++c) {
        pred[c] = beta * (v[c] - pred[c]);  // pred now holds delta
        out_row[c] = 0.f;
      }
      for (int64_t r = 0; r < K; ++r) {
        const float* in = src + r * V;
        float* row = dst + r * V;
        const float gr = g[r], kr = k[r], qr = q[r];
        for (int64_t c = c0; c < c1; ++c) {
          const float updated = in[c] * gr + kr * pred[c];
          row[c] = updated;
          out_row[c] += updated * qr;
        }
      }
    };
    // In place (S0 == S) the first token takes the one-pointer call too.
    if (s == 0 && S0 != S)
      passes(S0, S);
    else
      passes(S, S);
    for (int64_t c = c0; c < c1; ++c) out[c] = out_row[c];
    // Grouped readout: every further query reads the updated state.
    for (int64_t j = 1; j < a->readouts; ++j) {
      const float* qj = q + j * a->query_readout_stride;
      float* oj = out + j * a->out_readout_stride;
      for (int64_t c = c0; c < c1; ++c) out_row[c] = 0.f;
      for (int64_t r = 0; r < K; ++r)
        for (int64_t c = c0; c < c1; ++c) out_row[c] += S[r * V + c] * qj[r];
      for (int64_t c = c0; c < c1; ++c) oj[c] = out_row[c];
    }
  }
  return 0;
}

}  // namespace

const Kernel& two_pass_kernel() {
  static const Kernel kernel = any_shape_kernel("baseline-two-pass", two_pass, 0, 1);
  return kernel;
}

}  // namespace gdr::baselines
