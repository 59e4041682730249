// ExecuTorch-style chunked WY/UT prefill. Per sequence, head and chunk of L <= 32
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
  const bool scalar_decay = a->decay_kind == GDR_DECAY_SCALAR;
  Slab m(a->scratch, K, V);
  float* S = a->final_state;
  const float* S0 = a->initial_state;
  if (S != S0)
    for (int64_t i = 0; i < K * V; ++i) S[i] = S0[i];
  for (int64_t t0 = 0; t0 < T; t0 += C) {
    const int64_t L = std::min(C, T - t0);
    const float* g = a->decay + t0 * a->decay_token_stride;
    const float* beta = a->beta + t0 * a->beta_token_stride;
    auto k = [&](int64_t i) { return a->key + (t0 + i) * a->key_token_stride; };
    auto v = [&](int64_t i) { return a->value + (t0 + i) * a->value_token_stride; };

    for (int64_t i = 0; i < L; ++i)
      for (int64_t r = 0; r < K; ++r) {
        const float prev = i ? m.G[(i - 1) * K + r] : 0.f;
        const float d = g[i * a->decay_token_stride + (scalar_decay ? 0 : r)];
        m.G[i * K + r] = prev + std::log(d);
      }
    for (int64_t i = 0; i < L; ++i)
      for (int64_t r = 0; r < K; ++r) {
        const float e = std::exp(m.G[i * K + r]);
        m.kg[i * K + r] = k(i)[r] * e;
        m.kinv[i * K + r] = k(i)[r] / e;
      }
    // A = strict lower (beta kg kinv^T).
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = 0; j < i; ++j) {
        float kk = 0.f;
        for (int64_t r = 0; r < K; ++r) kk += m.kg[i * K + r] * m.kinv[j * K + r];
        m.A[i * C + j] = beta[i * a->beta_token_stride] * kk;
      }
    // Forward substitution: row i of w and u from the rows above it.
    for (int64_t i = 0; i < L; ++i) {
      const float bi = beta[i * a->beta_token_stride];
      for (int64_t r = 0; r < K; ++r) m.w[i * K + r] = bi * m.kg[i * K + r];
      for (int64_t c = 0; c < V; ++c) m.u[i * V + c] = bi * v(i)[c];
      for (int64_t j = 0; j < i; ++j) {
        const float aij = m.A[i * C + j];
        for (int64_t r = 0; r < K; ++r) m.w[i * K + r] -= aij * m.w[j * K + r];
        for (int64_t c = 0; c < V; ++c) m.u[i * V + c] -= aij * m.u[j * V + c];
      }
    }
    // pv = u - w S.
    for (int64_t i = 0; i < L; ++i) {
      float* pv = m.pv + i * V;
      for (int64_t c = 0; c < V; ++c) pv[c] = m.u[i * V + c];
      for (int64_t r = 0; r < K; ++r) {
        const float wr = m.w[i * K + r];
        const float* row = S + r * V;
        for (int64_t c = 0; c < V; ++c) pv[c] -= wr * row[c];
      }
    }
    // Per readout: Aqk = lower (qg kinv^T), o = qg S + Aqk pv.
    for (int64_t readout = 0; readout < a->readouts; ++readout) {
      const float* q0 = a->query + readout * a->query_readout_stride + t0 * a->query_token_stride;
      float* out0 = a->out + readout * a->out_readout_stride + t0 * a->out_token_stride;
      for (int64_t i = 0; i < L; ++i)
        for (int64_t r = 0; r < K; ++r)
          m.qg[i * K + r] = q0[i * a->query_token_stride + r] * std::exp(m.G[i * K + r]);
      for (int64_t i = 0; i < L; ++i)
        for (int64_t j = 0; j <= i; ++j) {
          float qk = 0.f;
          for (int64_t r = 0; r < K; ++r) qk += m.qg[i * K + r] * m.kinv[j * K + r];
          m.Aqk[i * C + j] = qk;
        }
      for (int64_t i = 0; i < L; ++i) {
        float* o = out0 + i * a->out_token_stride;
        for (int64_t c = 0; c < V; ++c) o[c] = 0.f;
        for (int64_t r = 0; r < K; ++r) {
          const float qr = m.qg[i * K + r];
          const float* row = S + r * V;
          for (int64_t c = 0; c < V; ++c) o[c] += qr * row[c];
        }
        for (int64_t j = 0; j <= i; ++j) {
          const float aij = m.Aqk[i * C + j];
          const float* pvj = m.pv + j * V;
          for (int64_t c = 0; c < V; ++c) o[c] += aij * pvj[c];
        }
      }
    }
    // S = e^{G_last} S + (k e^{G_last - G})^T pv; kinv is reused for the factor.
    const float* Glast = m.G + (L - 1) * K;
    for (int64_t j = 0; j < L; ++j)
      for (int64_t r = 0; r < K; ++r)
        m.kinv[j * K + r] = k(j)[r] * std::exp(Glast[r] - m.G[j * K + r]);
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
  return 0;
}

// The guard's pre-scan of one task: 3 when its decay would break the
// log/exp form (<= 0, NaN, or a chunk's channel sum of -log above 80).
int32_t scan_decay(const gdr_kernel_args* a) {
  const int64_t K = a->decay_kind == GDR_DECAY_SCALAR ? 1 : a->K;
  for (int64_t t0 = 0; t0 < a->T; t0 += C) {
    const int64_t L = std::min(C, a->T - t0);
    for (int64_t r = 0; r < K; ++r) {
      float sum = 0.f;
      for (int64_t i = 0; i < L; ++i) {
        const float d = a->decay[(t0 + i) * a->decay_token_stride + r];
        if (!(d > 0.f)) return 3;  // also catches NaN
        sum -= std::log(d);
      }
      if (sum > 80.f) return 3;
    }
  }
  return 0;
}

const Kernel& chunked_kernel() {
  static const Kernel kernel = any_shape_kernel(
      "baseline-chunked", chunked, 0, 0, [](int64_t, int64_t K, int64_t V) { return Slab::floats(K, V); });
  return kernel;
}

}  // namespace

bool chunked_needs_fallback(const Tensors& t) {
  // Serial, as ExecuTorch's; a task that finds bad decay fails the call.
  static const Kernel scan = any_shape_kernel("baseline-chunked-guard", scan_decay, 0, 1);
  Options serial;
  serial.threads = 1;
  return !execute(scan, t, serial);
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
