// The op in float64, straight from its definition (docs/op-contract.md),
// for checking a kernel without any gdr code.
#pragma once

#include <cstdint>
#include <vector>

// Per head: S = initial_state; per token: S = diag(decay) S;
// delta = beta (value - Sᵀ key); S += key ⊗ delta; out = Sᵀ query.
inline void gated_delta_rule_f64(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V,
                                 const float* query, const float* key, const float* value,
                                 const float* decay, const float* beta, const float* initial_state,
                                 std::vector<double>* out, std::vector<double>* final_state) {
  out->assign(B * H * T * V, 0.0);
  final_state->assign(B * H * K * V, 0.0);
  std::vector<double> S(K * V), delta(V);
  for (int64_t bh = 0; bh < B * H; ++bh) {
    for (int64_t i = 0; i < K * V; ++i) S[i] = initial_state[bh * K * V + i];
    for (int64_t t = 0; t < T; ++t) {
      const int64_t tok = bh * T + t;
      const float *q = query + tok * K, *k = key + tok * K, *d = decay + tok * K;
      const float* v = value + tok * V;
      for (int64_t r = 0; r < K; ++r)
        for (int64_t c = 0; c < V; ++c) S[r * V + c] *= d[r];
      for (int64_t c = 0; c < V; ++c) {
        double pred = 0;
        for (int64_t r = 0; r < K; ++r) pred += S[r * V + c] * k[r];
        delta[c] = beta[tok] * (v[c] - pred);
      }
      for (int64_t r = 0; r < K; ++r)
        for (int64_t c = 0; c < V; ++c) S[r * V + c] += double(k[r]) * delta[c];
      for (int64_t c = 0; c < V; ++c) {
        double o = 0;
        for (int64_t r = 0; r < K; ++r) o += S[r * V + c] * q[r];
        (*out)[tok * V + c] = o;
      }
    }
    for (int64_t i = 0; i < K * V; ++i) (*final_state)[bh * K * V + i] = S[i];
  }
}
