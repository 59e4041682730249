// ExecuTorch-style chunked WY/UT prefill. Per (b, h) and chunk of L <= 32
// tokens, with G the inclusive cumulative log-decay per channel:
//   kg = k e^G, qg = q e^G, kinv = k e^-G
//   Tinv = (I + strict_tril(beta kg kinv^T))^-1  (forward substitution)
//   w = Tinv (beta kg),  u = Tinv (beta v),  Aqk = tril(qg kinv^T)
//   pv = u - w S;  o = qg S + Aqk pv;  S = e^{G_last} S + (k e^{G_last-G})^T pv
#include <cmath>

#include "gdr/baselines.h"

namespace gdr::baselines {
namespace {

constexpr int64_t C = kChunk;

// Scratch layout for one worker, in floats.
struct Slab {
  float *G, *kg, *qg, *kinv, *w, *A, *Aqk, *u, *pv;
  static int64_t floats(int64_t K, int64_t V) { return 5 * C * K + 2 * C * C + 2 * C * V; }
  Slab(float* p, int64_t K, int64_t V)
      : G(p), kg(G + C * K), qg(kg + C * K), kinv(qg + C * K), w(kinv + C * K), A(w + C * K),
        Aqk(A + C * C), u(Aqk + C * C), pv(u + C * V) {}
};

int32_t chunked(const gdr_kernel_args* a) {
  const int64_t T = a->T, K = a->K, V = a->V;
  Slab m(a->scratch, K, V);
  for (int64_t bh = a->bh_begin; bh < a->bh_end; ++bh) {
    float* S = a->final_state + bh * K * V;
    const float* S0 = a->initial_state + bh * K * V;
    for (int64_t i = 0; i < K * V; ++i) S[i] = S0[i];
    for (int64_t t0 = 0; t0 < T; t0 += C) {
      const int64_t L = std::min(C, T - t0);
      const int64_t tok = bh * T + t0;
      const float* q = a->query + tok * K;
      const float* k = a->key + tok * K;
      const float* g = a->decay + tok * K;
      const float* v = a->value + tok * V;
      const float* beta = a->beta + tok;
      float* out = a->out + tok * V;

      for (int64_t i = 0; i < L; ++i)
        for (int64_t r = 0; r < K; ++r) {
          const float prev = i ? m.G[(i - 1) * K + r] : 0.f;
          m.G[i * K + r] = prev + std::log(g[i * K + r]);
        }
      for (int64_t i = 0; i < L * K; ++i) {
        const float e = std::exp(m.G[i]);
        m.kg[i] = k[i] * e;
        m.qg[i] = q[i] * e;
        m.kinv[i] = k[i] / e;
      }
      // A = strict lower (beta kg kinv^T), Aqk = lower (qg kinv^T).
      for (int64_t i = 0; i < L; ++i)
        for (int64_t j = 0; j <= i; ++j) {
          float kk = 0.f, qk = 0.f;
          for (int64_t r = 0; r < K; ++r) {
            kk += m.kg[i * K + r] * m.kinv[j * K + r];
            qk += m.qg[i * K + r] * m.kinv[j * K + r];
          }
          m.A[i * C + j] = j < i ? beta[i] * kk : 0.f;
          m.Aqk[i * C + j] = qk;
        }
      // Forward substitution: row i of w and u from the rows above it.
      for (int64_t i = 0; i < L; ++i) {
        for (int64_t r = 0; r < K; ++r) m.w[i * K + r] = beta[i] * m.kg[i * K + r];
        for (int64_t c = 0; c < V; ++c) m.u[i * V + c] = beta[i] * v[i * V + c];
        for (int64_t j = 0; j < i; ++j) {
          const float aij = m.A[i * C + j];
          for (int64_t r = 0; r < K; ++r) m.w[i * K + r] -= aij * m.w[j * K + r];
          for (int64_t c = 0; c < V; ++c) m.u[i * V + c] -= aij * m.u[j * V + c];
        }
      }
      // pv = u - w S; o = qg S + Aqk pv.
      for (int64_t i = 0; i < L; ++i) {
        float* pv = m.pv + i * V;
        float* o = out + i * V;
        for (int64_t c = 0; c < V; ++c) {
          pv[c] = m.u[i * V + c];
          o[c] = 0.f;
        }
        for (int64_t r = 0; r < K; ++r) {
          const float wr = m.w[i * K + r], qr = m.qg[i * K + r];
          const float* row = S + r * V;
          for (int64_t c = 0; c < V; ++c) {
            pv[c] -= wr * row[c];
            o[c] += qr * row[c];
          }
        }
        for (int64_t j = 0; j <= i; ++j) {
          const float aij = m.Aqk[i * C + j];
          const float* pvj = m.pv + j * V;
          for (int64_t c = 0; c < V; ++c) o[c] += aij * pvj[c];
        }
      }
      // S = e^{G_last} S + (k e^{G_last - G})^T pv; kinv is reused for the factor.
      const float* Glast = m.G + (L - 1) * K;
      for (int64_t j = 0; j < L; ++j)
        for (int64_t r = 0; r < K; ++r)
          m.kinv[j * K + r] = k[j * K + r] * std::exp(Glast[r] - m.G[j * K + r]);
      for (int64_t r = 0; r < K; ++r) {
        float* row = S + r * V;
        const float e = std::exp(Glast[r]);
        for (int64_t c = 0; c < V; ++c) row[c] *= e;
        for (int64_t j = 0; j < L; ++j) {
          const float f = m.kinv[j * K + r];
          const float* pvj = m.pv + j * V;
          for (int64_t c = 0; c < V; ++c) row[c] += f * pvj[c];
        }
      }
    }
  }
  return 0;
}

const Kernel& chunked_kernel() {
  static const Kernel kernel{"baseline-chunked", chunked, 0, 0, 0, 0,
                             [](int64_t, int64_t K, int64_t V) { return Slab::floats(K, V); }};
  return kernel;
}

}  // namespace

bool chunked_needs_fallback(const Tensors& t) {
  const int64_t heads = t.B * t.H;
  for (int64_t bh = 0; bh < heads; ++bh)
    for (int64_t t0 = 0; t0 < t.T; t0 += C) {
      const int64_t L = std::min(C, t.T - t0);
      const float* g = t.decay + (bh * t.T + t0) * t.K;
      for (int64_t r = 0; r < t.K; ++r) {
        float sum = 0.f;
        for (int64_t i = 0; i < L; ++i) {
          const float d = g[i * t.K + r];
          if (!(d > 0.f)) return true;  // also catches NaN
          sum -= std::log(d);
        }
        if (sum > 80.f) return true;
      }
    }
  return false;
}

Status run_chunked(const Tensors& t, const Options& options) {
  if (Status s = validate(t); !s) return s;
  if (chunked_needs_fallback(t)) {
    Options serial = options;
    serial.threads = 1;
    return execute(two_pass_kernel(), t, serial);
  }
  return execute(chunked_kernel(), t, options);
}

void install_routes() {
  set_route_runner(Route::BaselineTwoPass, [](const Tensors& t, const Options& o) {
    return execute(two_pass_kernel(), t, o);
  });
  set_route_runner(Route::BaselineChunked, run_chunked);
}

}  // namespace gdr::baselines
