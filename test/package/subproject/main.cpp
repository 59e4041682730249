// Runs the runtime's built-in float32 reference route through gdr::run and
// checks it against the AOT example's float64 loop: the runtime built inside
// a parent project works. Exits 0 on a match.
#include <gdr/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "reference_f64.h"

int main() {
  const int64_t B = 1, H = 2, T = 9, K = 8, V = 12;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  std::vector<float> query(B * H * T * K), key(B * H * T * K), value(B * H * T * V),
      decay(B * H * T * K), beta(B * H * T), state(B * H * K * V), out(B * H * T * V),
      final_state(B * H * K * V);
  for (std::vector<float>* x : {&query, &key, &value, &state})
    for (float& e : *x) e = uniform(rng) - 0.5f;
  for (float& d : decay) d = 0.9f + 0.1f * uniform(rng);
  for (float& b : beta) b = uniform(rng);
  gdr::Tensors t;
  t.query = query.data(), t.key = key.data(), t.value = value.data();
  t.decay = decay.data(), t.beta = beta.data(), t.initial_state = state.data();
  t.out = out.data(), t.final_state = final_state.data();
  t.B = B, t.H = H, t.T = T, t.K = K, t.V = V;
  gdr::Options options;
  options.route = gdr::Route::Auto;  // without the JIT: the reference
  if (gdr::Status s = gdr::run(t, options); !s) {
    std::fprintf(stderr, "subproject: %s\n", s.message().c_str());
    return 1;
  }
  std::vector<double> want_out, want_state;
  gated_delta_rule_f64(B, H, T, K, V, query.data(), key.data(), value.data(), decay.data(),
                       beta.data(), state.data(), &want_out, &want_state);
  double error = 0;
  for (size_t i = 0; i < out.size(); ++i)
    error = std::max(error, std::abs(out[i] - want_out[i]) / (1 + std::abs(want_out[i])));
  for (size_t i = 0; i < final_state.size(); ++i)
    error = std::max(error, std::abs(final_state[i] - want_state[i]) / (1 + std::abs(want_state[i])));
  const bool ok = error <= 1e-4;  // NaN fails too
  std::printf("subproject: reference route, max relative error %.2e against float64: %s\n", error,
              ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
