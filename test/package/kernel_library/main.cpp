// Runs the kernels gdr_add_kernel_library() built (decode: recurrent,
// prefill, prefill_long and prefill_readout, with two readouts: chunked, all linked in) and a chunked kernel loaded from a
// shared object, each through gdr::execute against a float64 loop. Prints
// one line per kernel and "kernel libraries: ok"; exits 1 on a mismatch.
#include <gdr/loader.h>
#include <gdr/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "decode.h"   // gdr_add_kernel_library(decode ...)
#include "prefill.h"  // gdr_add_kernel_library(prefill ...)
#include "prefill_long.h"
#include "prefill_readout.h"
#include "reference_f64.h"

namespace {

bool matches(const gdr::Kernel& kernel, int64_t T) {
  // R query heads per state head: query and out have R·H heads, query head
  // h·R + g reads state head h.
  const int64_t B = 2, H = 3, K = kernel.K, V = kernel.V, R = kernel.readouts;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  std::vector<float> query(B * H * R * T * K), key(B * H * T * K), value(B * H * T * V),
      decay(B * H * T * K), beta(B * H * T), state(B * H * K * V);
  for (std::vector<float>* x : {&query, &key})
    for (int64_t i = 0; i < static_cast<int64_t>(x->size()) / K; ++i) {
      float norm = 0;
      for (int64_t k = 0; k < K; ++k) norm += ((*x)[i * K + k] = normal(rng)) * (*x)[i * K + k];
      for (int64_t k = 0; k < K; ++k) (*x)[i * K + k] /= std::sqrt(norm);
    }
  for (float& v : value) v = normal(rng);
  for (float& d : decay) d = 0.9f + 0.1f * uniform(rng);
  for (float& b : beta) b = uniform(rng);
  for (float& s : state) s = normal(rng);
  std::vector<float> out(B * H * R * T * V, NAN), final_state(B * H * K * V, NAN);
  gdr::Tensors t;
  t.query = query.data();
  t.key = key.data();
  t.value = value.data();
  t.decay = decay.data();
  t.beta = beta.data();
  t.initial_state = state.data();
  t.out = out.data();
  t.final_state = final_state.data();
  t.B = B;
  t.H = H;
  t.T = T;
  t.K = K;
  t.V = V;
  t.query_heads = R * H;
  gdr::Options options;
  options.threads = 2;
  if (gdr::Status s = gdr::execute(kernel, t, options); !s) {
    std::printf("%s: %s\n", kernel.name.c_str(), s.message().c_str());
    return false;
  }
  double error = 0;
  auto measure = [&](const float* got, const double* want, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const double e = std::abs(got[i] - want[i]) / (1 + std::abs(want[i]));
      error = std::isnan(e) ? INFINITY : std::max(error, e);
    }
  };
  // Readout g: the float64 loop over the query heads h·R + g.
  for (int64_t g = 0; g < R; ++g) {
    std::vector<float> query_g(B * H * T * K);
    for (int64_t bh = 0; bh < B * H; ++bh)
      std::copy_n(query.begin() + (bh * R + g) * T * K, T * K, query_g.begin() + bh * T * K);
    std::vector<double> want_out, want_state;
    gated_delta_rule_f64(B, H, T, K, V, query_g.data(), key.data(), value.data(), decay.data(), beta.data(),
                         state.data(), &want_out, &want_state);
    for (int64_t bh = 0; bh < B * H; ++bh)
      measure(out.data() + (bh * R + g) * T * V, want_out.data() + bh * T * V, T * V);
    measure(final_state.data(), want_state.data(), B * H * K * V);
  }
  const bool ok = error <= 1e-4;
  std::printf("%s T=%lld: max relative error %.2e against float64: %s\n", kernel.name.c_str(), (long long)T, error,
              ok ? "match" : "MISMATCH");
  return ok;
}

}  // namespace

int main() {
  bool ok = true;
  gdr::Kernel decode, prefill, prefill_long, prefill_readout, loaded;
  for (const gdr::Status& s : {decode_kernel(&decode), prefill_kernel(&prefill), prefill_long_kernel(&prefill_long),
                               prefill_readout_kernel(&prefill_readout),
                               gdr::load_kernel(GDR_LOADED_LIBRARY, "loaded_prefill", &loaded)})
    if (!s) {
      std::printf("%s\n", s.message().c_str());
      return 1;
    }
  ok &= matches(decode, 1) && matches(decode, 29);
  ok &= matches(prefill, 40) && matches(prefill, 7);
  ok &= matches(prefill_long, 130);
  ok &= prefill_readout.readouts == 2 && matches(prefill_readout, 70);
  ok &= matches(loaded, 70);
  std::printf("kernel libraries: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
