// gdr's JIT from a program: install the generated routes, ask what a call
// will run, compile it ahead of the first call, run it, and check the result
// against the float32 reference kernel that ships in the runtime. Exits 0
// when every route matches, 1 otherwise.
#include <gdr/jit.h>
#include <gdr/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

// One problem's tensors, drawn as the op contract says: L2-normalised query
// and key, decay in (0.9, 1), beta in (0, 1), a normal initial state.
struct Problem {
  int64_t B = 2, H = 3, T = 37, K = 32, V = 48;
  std::vector<float> query, key, value, decay, beta, state;

  Problem() {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.f, 1.f);
    std::uniform_real_distribution<float> uniform(0.f, 1.f);
    const int64_t tokens = B * H * T;
    auto normalised = [&](std::vector<float>& x) {
      x.resize(tokens * K);
      for (int64_t i = 0; i < tokens; ++i) {
        float norm = 0;
        for (int64_t k = 0; k < K; ++k) norm += (x[i * K + k] = normal(rng)) * x[i * K + k];
        for (int64_t k = 0; k < K; ++k) x[i * K + k] /= std::sqrt(norm);
      }
    };
    normalised(query);
    normalised(key);
    value.resize(tokens * V);
    for (float& v : value) v = normal(rng);
    decay.resize(tokens * K);
    for (float& d : decay) d = 0.9f + 0.1f * uniform(rng);
    beta.resize(tokens);
    for (float& b : beta) b = uniform(rng);
    state.resize(B * H * K * V);
    for (float& s : state) s = normal(rng);
  }

  // The call's tensors, writing into `out` and `final_state`.
  gdr::Tensors tensors(std::vector<float>& out, std::vector<float>& final_state) const {
    out.assign(B * H * T * V, 0.f);
    final_state.assign(B * H * K * V, 0.f);
    gdr::Tensors t;
    t.query = query.data(), t.key = key.data(), t.value = value.data();
    t.decay = decay.data(), t.beta = beta.data(), t.initial_state = state.data();
    t.out = out.data(), t.final_state = final_state.data();
    t.B = B, t.H = H, t.T = T, t.K = K, t.V = V;
    return t;
  }
};

// max |got - want| / (1 + |want|)
double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = std::abs(double(got[i]) - want[i]) / (1 + std::abs(double(want[i])));
    worst = std::isnan(e) ? INFINITY : std::max(worst, e);
  }
  return worst;
}

}  // namespace

int main() {
  // Cache folder, tuning database and verbosity from the environment
  // (GDR_CACHE_DIR, GDR_VERBOSE); set the Options' fields to choose them here.
  gdr::jit::Options jit_options;
  if (gdr::Status s = gdr::jit::install(jit_options); !s) {
    std::fprintf(stderr, "jit example: %s\n", s.message().c_str());
    return 1;
  }

  const Problem p;
  std::vector<float> want_out, want_state;
  gdr::Options reference;
  reference.route = gdr::Route::Reference;
  if (gdr::Status s = gdr::run(p.tensors(want_out, want_state), reference); !s) {
    std::fprintf(stderr, "jit example: reference: %s\n", s.message().c_str());
    return 1;
  }

  bool ok = true;
  for (gdr::Route route : {gdr::Route::Auto, gdr::Route::Chunked}) {
    std::vector<float> out, final_state;
    const gdr::Tensors t = p.tensors(out, final_state);
    gdr::Options options;
    options.route = route;
    gdr::jit::Plan plan;
    gdr::Status s = gdr::jit::plan(t, options, &plan);
    if (s) s = gdr::jit::warm_up(t, options);  // the compile happens here, not in run()
    if (s) s = gdr::run(t, options);
    if (!s) {
      std::fprintf(stderr, "jit example: %s: %s\n", gdr::route_name(route), s.message().c_str());
      return 1;
    }
    const double error = std::max(relative_error(out, want_out), relative_error(final_state, want_state));
    const bool match = error <= 1e-4;
    std::printf("%-8s ran %s (kernel %s): max relative error %.2e against the reference: %s\n",
                gdr::route_name(route), plan.str().c_str(), plan.kernel.c_str(), error,
                match ? "match" : "MISMATCH");
    ok = ok && match;
  }
  const gdr::jit::CacheStats stats = gdr::jit::cache_stats();
  std::printf("kernel caches: in process %lld hits, %lld misses; on disk %lld hits, %lld misses\n",
              (long long)stats.memory_hits, (long long)stats.memory_misses, (long long)stats.disk_hits,
              (long long)stats.disk_misses);
  std::printf("jit example: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
