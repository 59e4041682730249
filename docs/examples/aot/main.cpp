// An ahead-of-time kernel from a program that links only gdr's runtime: the
// object and header gdr-compile wrote (CMakeLists.txt) become a gdr::Kernel,
// gdr::execute runs it over the thread pool, and the result is checked
// against a float64 loop. Exits 0 when it matches, 1 otherwise.
#include <gdr/kernel_info.h>
#include <gdr/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "recurrent.h"  // written by gdr-compile: the entry point and its constants
#include "reference_f64.h"

// GDR_KERNEL is the kernel's symbol (CMakeLists.txt); its facts table,
// declared by the header, is named after it.
#define GDR_JOIN2(a, b) a##b
#define GDR_JOIN(a, b) GDR_JOIN2(a, b)
#define GDR_STRING2(x) #x
#define GDR_STRING(x) GDR_STRING2(x)

int main() {
  // The kernel's facts from the kernel itself (gdr/kernel_info.h), as the
  // runtime's loader and the JIT read them.
  gdr::KernelInfo info;
  if (gdr::Status s = gdr::read_kernel_info(GDR_STRING(GDR_KERNEL), GDR_JOIN(GDR_KERNEL, _info), &info); !s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  const gdr::Kernel kernel = gdr::kernel_from_info(GDR_STRING(GDR_KERNEL), GDR_KERNEL, info);

  // Inputs as the op contract draws them: normalised query and key, decay in
  // (0.9, 1), beta in (0, 1), a normal initial state.
  const int64_t B = 2, H = 3, T = 29, K = kernel.K, V = kernel.V;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  std::vector<float> query(B * H * T * K), key(B * H * T * K), value(B * H * T * V),
      decay(B * H * T * K), beta(B * H * T), state(B * H * K * V);
  for (std::vector<float>* x : {&query, &key})
    for (int64_t i = 0; i < B * H * T; ++i) {
      float norm = 0;
      for (int64_t k = 0; k < K; ++k) norm += ((*x)[i * K + k] = normal(rng)) * (*x)[i * K + k];
      for (int64_t k = 0; k < K; ++k) (*x)[i * K + k] /= std::sqrt(norm);
    }
  for (float& v : value) v = normal(rng);
  for (float& d : decay) d = 0.9f + 0.1f * uniform(rng);
  for (float& b : beta) b = uniform(rng);
  for (float& s : state) s = normal(rng);

  std::vector<float> out(B * H * T * V), final_state(B * H * K * V);
  gdr::Tensors t;
  t.query = query.data(), t.key = key.data(), t.value = value.data();
  t.decay = decay.data(), t.beta = beta.data(), t.initial_state = state.data();
  t.out = out.data(), t.final_state = final_state.data();
  t.B = B, t.H = H, t.T = T, t.K = K, t.V = V;
  gdr::Options options;
  options.threads = 2;
  if (gdr::Status s = gdr::execute(kernel, t, options); !s) {
    std::fprintf(stderr, "aot example: %s\n", s.message().c_str());
    return 1;
  }

  std::vector<double> want_out, want_state;
  gated_delta_rule_f64(B, H, T, K, V, query.data(), key.data(), value.data(), decay.data(),
                       beta.data(), state.data(), &want_out, &want_state);
  double error = 0;  // max |got - want| / (1 + |want|), NaN counting as a mismatch
  auto measure = [&](const std::vector<float>& got, const std::vector<double>& want) {
    for (size_t i = 0; i < got.size(); ++i) {
      const double e = std::abs(got[i] - want[i]) / (1 + std::abs(want[i]));
      error = std::isnan(e) ? INFINITY : std::max(error, e);
    }
  };
  measure(out, want_out);
  measure(final_state, want_state);
  const bool ok = error <= 1e-4;
  std::printf("%s: max relative error %.2e against float64: %s\n", kernel.name.c_str(), error,
              ok ? "match" : "MISMATCH");
  std::printf("aot example: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
