#include "gdr/schedules/chunked_algorithm.h"

namespace gdr::schedules {

using namespace Halide;

void define_chunked_algorithm(ChunkedAlgorithm& g, int K, int V, int C, bool scalar_decay, int R) {
  g.K = K;
  g.V = V;
  g.C = C;
  g.R = R;
  g.scalar_decay = scalar_decay;
  if (scalar_decay) g.decay = ImageParam(Float(32), 1, "decay");
  const int SB = kSubBlock, n = C / SB;  // n sub-blocks per chunk
  Var r = g.r, v = g.v, i = g.i, j = g.j, jl = g.jl, il = g.il, bI = g.bI, bJ = g.bJ;
  Var gr = g.g, e = g.e;

  // Layout the caller promises (see halide_chunked_abi.h): dense rows, any
  // token stride (head-major rows are K or V apart, token-major rows H·K).
  g.query.dim(0).set_bounds(0, K).set_stride(1);
  g.key.dim(0).set_bounds(0, K).set_stride(1);
  g.value.dim(0).set_bounds(0, V).set_stride(1);
  g.query.dim(1).set_min(0);
  g.query.dim(2).set_bounds(0, R);  // readouts, any stride
  g.key.dim(1).set_min(0);
  g.value.dim(1).set_min(0);
  // Per-token scalars are H apart in token-major tensors: no stride-1 rule.
  g.beta.dim(0).set_min(0).set_stride(Expr());
  if (scalar_decay) {
    g.decay.dim(0).set_min(0).set_stride(Expr());
  } else {
    g.decay.dim(0).set_bounds(0, K).set_stride(1);
    g.decay.dim(1).set_min(0);
  }
  g.state_in.dim(0).set_bounds(0, V).set_stride(1);
  g.state_in.dim(1).set_bounds(0, K).set_stride(V);

  // Rows past the last token L are padding that changes nothing: no key,
  // query, value or write strength, and decay 1.
  Expr L = g.key.dim(1).extent();
  auto row = [&](Expr t) { return clamp(t, 0, L - 1); };
  g.k(r, i) = select(i < L, g.key(r, row(i)), 0.f);
  g.q(r, i, gr) = select(i < L, g.query(r, row(i), gr), 0.f);
  g.d(r, i) = select(i < L, scalar_decay ? g.decay(row(i)) : g.decay(r, row(i)), 1.f);
  g.b(i) = select(i < L, g.beta(row(i)), 0.f);
  g.vb(v, i) = select(i < L, g.beta(row(i)) * g.value(v, row(i)), 0.f);

  // Decay products inside sub-blocks, forwards from the start and
  // backwards to the end: each a product of factors <= 1.
  g.fwd(r, i) = g.d(r, i);
  RDom rf = g.rf = RDom(1, C - 1, "rf");
  g.fwd(r, rf) = select(rf % SB == 0, g.fwd(r, rf), g.fwd(r, rf - 1) * g.d(r, rf));
  g.bwd(r, j) = 1.f;
  RDom rb = g.rb = RDom(0, C - 1, "rb");
  Expr jb = C - 2 - rb;  // C - 2 down to 0
  g.bwd(r, jb) = select(jb % SB == SB - 1, 1.f, g.bwd(r, jb + 1) * g.d(r, jb + 1));

  // Whole sub-blocks: before B, after B, strictly between J and I.
  auto block_total = [&](Expr B) { return g.fwd(r, B * SB + SB - 1); };
  g.pre(r, bI) = 1.f;
  RDom rpre = g.rpre = RDom(1, n, "rpre");
  g.pre(r, rpre) = g.pre(r, rpre - 1) * block_total(rpre - 1);
  g.suf(r, bI) = 1.f;
  g.mid(r, bI, bJ) = 1.f;
  if (n > 1) {
    RDom rs = g.rs = RDom(0, n - 1, "rs");
    Expr B = n - 2 - rs;
    g.suf(r, B) = g.suf(r, B + 1) * block_total(B + 1);
    g.mid(r, bI, B) = select(B < bI - 1, g.mid(r, bI, B + 1) * block_total(B + 1), 1.f);
  }

  // Pairs inside a sub-block, per pair: prod d(j+1..i) by a recurrence over
  // the row i; 1 on the diagonal, 0 above it.
  g.pair_decay(jl, r, il, bI) = select(jl == il, 1.f, 0.f);
  RDom rp = g.rp = RDom(1, SB - 1, "rp");
  g.pair_decay(jl, r, rp, bI) =
      select(jl < rp, g.pair_decay(jl, r, rp - 1, bI) * g.d(r, bI * SB + rp), g.pair_decay(jl, r, rp, bI));

  g.rk = RDom(0, K, "rk");
  g.rc = RDom(0, C, "rc");
  RVar rk = g.rk.x, rc = g.rc.x;

  // Every pair product is taken with the key (e = 0, for the WY matrix a)
  // and with each query (e = 1 + g, for the readouts' aqk) at once.
  g.x(r, i, e) = select(e == 0, g.k(r, i), g.q(r, i, max(e - 1, 0)));
  g.k_t(j, r) = g.k(r, j);
  g.diag(jl, il, bI, e) = 0.f;
  {
    Expr t = g.k_t(bI * SB + jl, rk) * g.pair_decay(jl, rk, il, bI);
    g.diag(jl, il, bI, e) += g.x(rk, bI * SB + il, e) * t;
  }

  // Pairs across sub-blocks, anchored at the last row of j's sub-block J:
  // (x_i * prod d(start(I)..i) * mid(I, J)) . (k_j * prod d(j+1..end(J))).
  g.kb_t(j, r) = g.k(r, j) * g.bwd(r, j);
  g.xf(r, i, bJ, e) = g.x(r, i, e) * g.fwd(r, i) * g.mid(r, i / SB, bJ);
  g.off(j, i, e) = 0.f;
  g.off(j, i, e) += g.xf(rk, i, j / SB, e) * g.kb_t(j, rk);

  // x_i.k_j decay(j, i) for the pair (j, i) of row kind `kind`. A chunk of
  // one sub-block has no pairs across sub-blocks.
  auto pair = [&](Expr kind) {
    Expr inside = g.diag(j % SB, i % SB, i / SB, kind);
    if (n == 1) return inside;
    // Rows of the first sub-block and columns of the last never cross
    // sub-blocks below the diagonal: the clamps keep them out of off's
    // region without changing any value used.
    Expr jc = min(j, C - SB - 1), ic = max(i, SB);
    Expr across = g.off(jc, ic, kind);
    return select(j / SB == i / SB, inside, across);
  };
  g.a(j, i) = select(j >= i, 0.f, g.b(i) * pair(0));
  g.aqk(j, i, gr) = select(j > i, 0.f, pair(gr + 1));

  // T = (I + a)^-1, unit lower triangular, by forward substitution in its
  // column-oriented form: once row m is final, subtract it from every row
  // below (rows below m are independent of each other within a step).
  // One flattened RVar (m outer, row inner) leaves a scheduler nothing to
  // reorder that could break the order of the steps.
  g.tinv(j, i) = select(i == j, 1.f, 0.f);
  g.rt = RDom(0, C * C, "rt");
  g.rt.where(g.rt.x % C > g.rt.x / C);
  {
    Expr row = g.rt.x % C, m = g.rt.x / C;
    g.tinv(j, row) = g.tinv(j, row) - g.a(m, row) * g.tinv(j, m);
  }

  // WY: w = T diag(beta) (k * decay(start..m)), u = T diag(beta) v.
  g.k_beta(r, i) = g.b(i) * g.k(r, i) * g.pre(r, i / SB) * g.fwd(r, i);
  g.w(r, i) = 0.f;
  g.w(r, i) += g.tinv(rc, i) * g.k_beta(r, rc);
  g.u(v, i) = 0.f;
  g.u(v, i) += g.tinv(rc, i) * g.vb(v, rc);

  // The state-dependent part: one product of [-w; q_in] with the state,
  // started from [u; 0], gives delta = u - w S in its first C rows and the
  // inter-chunk output q_in S of readout g in the C rows from (1 + g) C.
  g.q_in(r, i, gr) = g.q(r, i, gr) * g.pre(r, i / SB) * g.fwd(r, i);
  {
    Expr qrow = max(i - C, 0);
    g.lhs(r, i) = select(i < C, -g.w(r, min(i, C - 1)), g.q_in(r, qrow % C, qrow / C));
  }
  g.wq(v, i) = select(i < C, g.u(v, min(i, C - 1)), 0.f);
  g.wq(v, i) += g.lhs(rk, i) * g.state_in(v, rk);
  g.delta(v, i) = g.wq(v, i);

  // Started from the inter-chunk output, so out is a copy of it.
  g.intra(v, i, gr) = g.wq(v, i + C * (1 + gr));
  g.intra(v, i, gr) += g.aqk(rc, i, gr) * g.delta(v, rc);
  g.out(v, i, gr) = g.intra(v, i, gr);

  g.k_out(r, j) = g.k(r, j) * g.bwd(r, j) * g.suf(r, j / SB);
  g.state_decay(r) = g.pre(r, n);
  g.s_upd(v, r) = g.state_decay(r) * g.state_in(v, r);
  g.s_upd(v, r) += g.k_out(r, rc) * g.delta(v, rc);
  g.state_out(v, r) = g.s_upd(v, r);

  g.out.output_buffer().dim(0).set_stride(1);
  g.out.output_buffer().dim(1).set_min(0);
  g.out.output_buffer().dim(2).set_bounds(0, R);
  g.state_out.output_buffer().dim(0).set_stride(1);
  g.state_out.output_buffer().dim(1).set_bounds(0, K).set_stride(V);
}

}  // namespace gdr::schedules
