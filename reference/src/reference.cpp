#include "gdr/reference/reference.h"

#include <cmath>
#include <limits>

#include "gdr/runtime.h"

namespace gdr::test {

Tensors Problem::tensors() {
  Tensors t;
  t.query = query.data();
  t.key = key.data();
  t.value = value.data();
  t.decay = decay.data();
  t.beta = beta.data();
  t.initial_state = initial_state.data();
  t.out = out.data();
  t.final_state = final_state.data();
  t.B = B, t.H = H, t.T = T, t.K = K, t.V = V;
  return t;
}

Problem make_problem(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V,
                     const ProblemOptions& o) {
  Problem p;
  p.B = B, p.H = H, p.T = T, p.K = K, p.V = V;
  std::mt19937_64 rng(o.seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  const int64_t tokens = B * H * T;
  auto fill_normal = [&](std::vector<float>& x, int64_t n) {
    x.resize(n);
    for (float& e : x) e = normal(rng);
  };
  fill_normal(p.query, tokens * K);
  fill_normal(p.key, tokens * K);
  fill_normal(p.value, tokens * V);
  fill_normal(p.initial_state, B * H * K * V);
  if (o.normalize) {
    for (std::vector<float>* x : {&p.query, &p.key})
      for (int64_t i = 0; i < tokens; ++i) {
        double norm = 0;
        for (int64_t r = 0; r < K; ++r) norm += double((*x)[i * K + r]) * (*x)[i * K + r];
        const float scale = norm > 0 ? float(1.0 / std::sqrt(norm)) : 0.f;
        for (int64_t r = 0; r < K; ++r) (*x)[i * K + r] *= scale;
      }
  }
  p.decay.resize(tokens * K);
  for (float& d : p.decay) {
    switch (o.decay) {
      case DecayRegime::Uniform: d = uniform(rng); break;
      case DecayRegime::NearOne: d = 0.9f + 0.1f * uniform(rng); break;
      case DecayRegime::Zeros: d = uniform(rng) < 0.125f ? 0.f : uniform(rng); break;
      case DecayRegime::One: d = 1.f; break;
      case DecayRegime::Strong: d = std::exp(-5.f); break;
    }
  }
  p.beta.resize(tokens);
  for (float& b : p.beta)
    b = o.beta == BetaRegime::Zero ? 0.f : o.beta == BetaRegime::One ? 1.f : uniform(rng);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  p.out.assign(tokens * V, nan);
  p.final_state.assign(B * H * K * V, nan);
  return p;
}

Reference reference_f64(const Problem& p) {
  const int64_t T = p.T, K = p.K, V = p.V;
  Reference ref;
  ref.out.assign(p.B * p.H * T * V, 0.0);
  ref.final_state.assign(p.B * p.H * K * V, 0.0);
  std::vector<double> pred(V), delta(V);
  for (int64_t bh = 0; bh < p.B * p.H; ++bh) {
    double* S = ref.final_state.data() + bh * K * V;
    for (int64_t i = 0; i < K * V; ++i) S[i] = p.initial_state[bh * K * V + i];
    for (int64_t s = 0; s < T; ++s) {
      const int64_t tok = bh * T + s;
      const float* k = &p.key[tok * K];
      const float* q = &p.query[tok * K];
      const float* g = &p.decay[tok * K];
      const float* v = &p.value[tok * V];
      for (int64_t r = 0; r < K; ++r)
        for (int64_t c = 0; c < V; ++c) S[r * V + c] *= g[r];
      std::fill(pred.begin(), pred.end(), 0.0);
      for (int64_t r = 0; r < K; ++r)
        for (int64_t c = 0; c < V; ++c) pred[c] += S[r * V + c] * k[r];
      for (int64_t c = 0; c < V; ++c) delta[c] = double(p.beta[tok]) * (v[c] - pred[c]);
      for (int64_t r = 0; r < K; ++r)
        for (int64_t c = 0; c < V; ++c) S[r * V + c] += k[r] * delta[c];
      double* o = ref.out.data() + tok * V;
      for (int64_t r = 0; r < K; ++r)
        for (int64_t c = 0; c < V; ++c) o[c] += S[r * V + c] * q[r];
    }
  }
  return ref;
}

double relative_error(const Problem& p, const Reference& ref) {
  double worst = 0;
  auto scan = [&](const std::vector<float>& got, const std::vector<double>& want) {
    for (size_t i = 0; i < want.size(); ++i) {
      const double e = std::abs(double(got[i]) - want[i]) / (1.0 + std::abs(want[i]));
      if (!(e <= worst)) worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
    }
  };
  scan(p.out, ref.out);
  scan(p.final_state, ref.final_state);
  return worst;
}

std::string describe(const Problem& p) {
  return "B=" + std::to_string(p.B) + " H=" + std::to_string(p.H) + " T=" + std::to_string(p.T) +
         " K=" + std::to_string(p.K) + " V=" + std::to_string(p.V);
}

Status measure_accuracy(Problem& p, const std::function<Status(const Tensors&)>& run, Accuracy* a) {
  Problem yard = p;
  Options ref_options;
  ref_options.route = Route::Reference;
  if (Status s = gdr::run(yard.tensors(), ref_options); !s) return s;
  const Reference ref = reference_f64(p);
  const Status s = run(p.tensors());
  a->yardstick_error = relative_error(yard, ref);
  a->error = relative_error(p, ref);  // a failed run left NaN sentinels: +inf
  return s;
}

}  // namespace gdr::test
