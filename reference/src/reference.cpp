#include "gdr/reference/reference.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

#include "gdr/runtime.h"

namespace gdr::test {
namespace {

int64_t heads_or(int64_t heads, int64_t H) { return heads > 0 ? heads : H; }

// Element offset of (batch, head, token, 0) of a tensor with `heads` heads
// of rows `width` wide: the contract's layouts, written out on their own.
struct Indexer {
  Layout layout;
  int64_t T;
  int64_t at(int64_t heads, int64_t width, int64_t b, int64_t head, int64_t token) const {
    return layout == Layout::TokenMajor ? ((b * T + token) * heads + head) * width
                                        : ((b * heads + head) * T + token) * width;
  }
};

}  // namespace

Tensors Problem::tensors() {
  Tensors t;
  t.query = query.data();
  t.key = key.data();
  t.value = value.data();
  t.decay = decay.data();
  t.beta = beta.data();
  t.initial_state = initial_state.data();
  t.out = out.data();
  t.final_state = form.in_place ? initial_state.data() : final_state.data();
  t.B = B, t.H = H, t.T = T, t.K = K, t.V = V;
  t.key_heads = form.key_heads;
  t.query_heads = form.query_heads;
  t.layout = form.layout;
  t.decay_kind = form.decay;
  t.in_place = form.in_place;
  auto indices = [&](const std::vector<int64_t>& i64, const std::vector<int32_t>& i32, bool given) {
    Indices i;
    if (!given) return i;
    i.size = static_cast<int64_t>(i64.size());
    i.type = form.int32_indices ? Indices::Type::Int32 : Indices::Type::Int64;
    i.data = form.int32_indices ? static_cast<const void*>(i32.data()) : i64.data();
    return i;
  };
  t.cu_seqlens = indices(cu_seqlens, cu_seqlens32, !form.seqlens.empty());
  t.initial_state_indices =
      indices(initial_indices, initial_indices32, !form.initial_state_indices.empty());
  t.final_state_indices = indices(final_indices, final_indices32, !form.final_state_indices.empty());
  t.initial_state_slots = form.initial_state_indices.empty() ? 0 : form.initial_state_slots;
  t.final_state_slots = form.final_state_indices.empty() ? 0 : form.final_state_slots;
  return t;
}

gdr_kernel_args single_head_args(const Tensors& t) {
  gdr_kernel_args a{};
  a.query = t.query, a.key = t.key, a.value = t.value, a.decay = t.decay, a.beta = t.beta;
  a.initial_state = t.initial_state, a.out = t.out, a.final_state = t.final_state;
  a.T = t.T, a.K = t.K, a.V = t.V;
  a.decay_kind = GDR_DECAY_CHANNEL;
  a.readouts = 1;
  a.query_token_stride = a.key_token_stride = a.decay_token_stride = t.K;
  a.value_token_stride = a.out_token_stride = t.V;
  a.beta_token_stride = 1;
  a.query_readout_stride = t.T * t.K;
  a.out_readout_stride = t.T * t.V;
  a.v_begin = 0;
  a.v_end = t.V;
  return a;
}

Problem make_problem(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V,
                     const ProblemOptions& o) {
  Problem p;
  p.form = o.form;
  const ProblemForm& f = p.form;
  if (!f.seqlens.empty()) {
    B = 1;
    T = std::accumulate(f.seqlens.begin(), f.seqlens.end(), int64_t{0});
    p.cu_seqlens = {0};
    for (int64_t n : f.seqlens) p.cu_seqlens.push_back(p.cu_seqlens.back() + n);
  }
  p.B = B, p.H = H, p.T = T, p.K = K, p.V = V;
  p.initial_indices = f.initial_state_indices;
  p.final_indices = f.final_state_indices;
  for (auto [from, to] : {std::make_pair(&p.cu_seqlens, &p.cu_seqlens32),
                          std::make_pair(&p.initial_indices, &p.initial_indices32),
                          std::make_pair(&p.final_indices, &p.final_indices32)})
    to->assign(from->begin(), from->end());

  const int64_t N = f.seqlens.empty() ? B : static_cast<int64_t>(f.seqlens.size());
  const int64_t Hk = heads_or(f.key_heads, H), Hq = heads_or(f.query_heads, H);
  const int64_t Hout = std::max(Hq, H);
  const int64_t initial_rows = f.initial_state_indices.empty() ? N : f.initial_state_slots;
  const int64_t final_rows = f.final_state_indices.empty() ? N : f.final_state_slots;
  const int64_t tokens = B * T;
  std::mt19937_64 rng(o.seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  auto fill_normal = [&](LineAlignedFloats& x, int64_t n) {
    x.resize(n);
    for (float& e : x) e = normal(rng);
  };
  fill_normal(p.query, tokens * Hq * K);
  fill_normal(p.key, tokens * Hk * K);
  fill_normal(p.value, tokens * H * V);
  fill_normal(p.initial_state, initial_rows * H * K * V);
  if (o.normalize) {
    // Rows of K are contiguous in either layout.
    for (LineAlignedFloats* x : {&p.query, &p.key})
      for (size_t i = 0; i < x->size(); i += K) {
        double norm = 0;
        for (int64_t r = 0; r < K; ++r) norm += double((*x)[i + r]) * (*x)[i + r];
        const float scale = norm > 0 ? float(1.0 / std::sqrt(norm)) : 0.f;
        for (int64_t r = 0; r < K; ++r) (*x)[i + r] *= scale;
      }
  }
  p.decay.resize(tokens * H * (f.decay == DecayKind::Scalar ? 1 : K));
  for (float& d : p.decay) {
    switch (o.decay) {
      case DecayRegime::Uniform: d = uniform(rng); break;
      case DecayRegime::NearOne: d = 0.9f + 0.1f * uniform(rng); break;
      case DecayRegime::Zeros: d = uniform(rng) < 0.125f ? 0.f : uniform(rng); break;
      case DecayRegime::One: d = 1.f; break;
      case DecayRegime::Strong: d = std::exp(-5.f); break;
    }
  }
  p.beta.resize(tokens * H);
  for (float& b : p.beta)
    b = o.beta == BetaRegime::Zero ? 0.f : o.beta == BetaRegime::One ? 1.f : uniform(rng);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  p.out.assign(tokens * Hout * V, nan);
  if (!f.in_place) {
    // Rows a sequence writes start as NaN; the others must keep this value.
    p.final_state.assign(final_rows * H * K * V, -7.f);
    for (int64_t i = 0; i < N; ++i) {
      const int64_t row = f.final_state_indices.empty() ? i : f.final_state_indices[i];
      if (row >= 0 && row < final_rows)
        std::fill_n(p.final_state.begin() + row * H * K * V, H * K * V, nan);
    }
  }
  return p;
}

Reference reference_f64(const Problem& p) {
  const ProblemForm& f = p.form;
  const int64_t H = p.H, K = p.K, V = p.V;
  const int64_t Hk = heads_or(f.key_heads, H), Hq = heads_or(f.query_heads, H);
  const int64_t Hout = std::max(Hq, H);
  const bool scalar = f.decay == DecayKind::Scalar;
  const Indexer ix{f.layout, p.T};
  const int64_t N = f.seqlens.empty() ? p.B : static_cast<int64_t>(f.seqlens.size());
  Reference ref;
  ref.out.assign(p.B * p.T * Hout * V, 0.0);
  const LineAlignedFloats& pool = p.final_pool();
  ref.final_state.assign(pool.begin(), pool.end());
  std::vector<double> S(K * V), pred(V), delta(V);
  for (int64_t i = 0; i < N; ++i) {
    const int64_t b = f.seqlens.empty() ? i : 0;
    const int64_t first = f.seqlens.empty() ? 0 : p.cu_seqlens[i];
    const int64_t length = f.seqlens.empty() ? p.T : f.seqlens[i];
    const int64_t initial_row = f.initial_state_indices.empty() ? i : f.initial_state_indices[i];
    const int64_t final_row = f.final_state_indices.empty() ? i : f.final_state_indices[i];
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t e = 0; e < K * V; ++e)
        S[e] = initial_row < 0 ? 0.0 : p.initial_state[(initial_row * H + h) * K * V + e];
      for (int64_t s = 0; s < length; ++s) {
        const int64_t token = first + s;
        const float* k = &p.key[ix.at(Hk, K, b, h / (H / Hk), token)];
        const float* g = &p.decay[ix.at(H, scalar ? 1 : K, b, h, token)];
        const float* v = &p.value[ix.at(H, V, b, h, token)];
        const double beta = p.beta[ix.at(H, 1, b, h, token)];
        for (int64_t r = 0; r < K; ++r)
          for (int64_t c = 0; c < V; ++c) S[r * V + c] *= g[scalar ? 0 : r];
        std::fill(pred.begin(), pred.end(), 0.0);
        for (int64_t r = 0; r < K; ++r)
          for (int64_t c = 0; c < V; ++c) pred[c] += S[r * V + c] * k[r];
        for (int64_t c = 0; c < V; ++c) delta[c] = beta * (v[c] - pred[c]);
        for (int64_t r = 0; r < K; ++r)
          for (int64_t c = 0; c < V; ++c) S[r * V + c] += k[r] * delta[c];
        // Query heads reading state head h, and the out heads they write.
        const int64_t readouts = Hq > H ? Hq / H : 1;
        for (int64_t j = 0; j < readouts; ++j) {
          const int64_t query_head = Hq > H ? h * readouts + j : h / (H / Hq);
          const int64_t out_head = Hq > H ? query_head : h;
          const float* q = &p.query[ix.at(Hq, K, b, query_head, token)];
          double* o = &ref.out[ix.at(Hout, V, b, out_head, token)];
          for (int64_t r = 0; r < K; ++r)
            for (int64_t c = 0; c < V; ++c) o[c] += S[r * V + c] * q[r];
        }
      }
      std::copy(S.begin(), S.end(), ref.final_state.begin() + (final_row * H + h) * K * V);
    }
  }
  return ref;
}

double relative_error(const Problem& p, const Reference& ref) {
  double worst = 0;
  auto scan = [&](const LineAlignedFloats& got, const std::vector<double>& want) {
    if (got.size() != want.size()) worst = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
      const double e = std::abs(double(got[i]) - want[i]) / (1.0 + std::abs(want[i]));
      if (!(e <= worst)) worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
    }
  };
  scan(p.out, ref.out);
  scan(p.final_pool(), ref.final_state);
  return worst;
}

LineAlignedFloats swap_heads_and_tokens(const LineAlignedFloats& x, int64_t B, int64_t heads,
                                        int64_t T, int64_t width, bool back) {
  LineAlignedFloats y(x.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < width; ++i) {
          const int64_t head_major = ((b * heads + h) * T + t) * width + i;
          const int64_t token_major = ((b * T + t) * heads + h) * width + i;
          if (back)
            y[head_major] = x[token_major];
          else
            y[token_major] = x[head_major];
        }
  return y;
}

Problem token_major_copy(const Problem& p) {
  Problem q = p;
  q.form.layout = Layout::TokenMajor;
  const int64_t H = p.H, Hk = heads_or(p.form.key_heads, H), Hq = heads_or(p.form.query_heads, H);
  const int64_t decay_width = p.form.decay == DecayKind::Scalar ? 1 : p.K;
  for (auto [x, heads, width] : {std::tuple{&q.query, Hq, p.K}, {&q.key, Hk, p.K}, {&q.value, H, p.V},
                                 {&q.decay, H, decay_width}, {&q.beta, H, int64_t{1}},
                                 {&q.out, std::max(Hq, H), p.V}})
    *x = swap_heads_and_tokens(*x, p.B, heads, p.T, width);
  return q;
}

std::string describe(const Problem& p) {
  const ProblemForm& f = p.form;
  std::string s = "B=" + std::to_string(p.B) + " H=" + std::to_string(p.H) + " T=" + std::to_string(p.T) +
                  " K=" + std::to_string(p.K) + " V=" + std::to_string(p.V);
  if (f.key_heads) s += " Hk=" + std::to_string(f.key_heads);
  if (f.query_heads) s += " Hq=" + std::to_string(f.query_heads);
  if (f.layout != Layout::HeadMajor) s += std::string(" layout=") + layout_name(f.layout);
  if (f.decay != DecayKind::Channel) s += std::string(" decay=") + decay_kind_name(f.decay);
  if (!f.seqlens.empty()) s += " sequences=" + std::to_string(f.seqlens.size());
  if (!f.initial_state_indices.empty() || !f.final_state_indices.empty()) s += " slots";
  if (f.in_place) s += " in-place";
  return s;
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
