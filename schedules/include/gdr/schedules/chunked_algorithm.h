// The chunked WY/UT form of the channelwise gated delta rule as Halide
// Funcs, for one chunk of at most C tokens of one head and a range of value
// columns. What is computed only: every scheduling decision lives in
// chunked_schedule.h. The caller loops over chunks, feeding state_out of one
// chunk into state_in of the next (the sequential scan over chunks).
//
// Numerics: no log or exp. Every decay factor is a product of decays in
// (0, 1], so no factor exceeds 1 and decay = 0 gives an exact 0 (a channel
// reset) with no NaN. Pairs inside a sub-block of kSubBlock tokens get their
// own product (per pair, by a recurrence over rows); pairs across sub-blocks
// are anchored at the last row a of the column's sub-block:
//   prod(j+1..i) = prod(a+1..i) * prod(j+1..a), both factors <= 1,
// which is what makes the cross-block terms matrix products.
//
// Grouped readout: R queries read each state head (R a fact of the kernel).
// Everything that depends on the query has a readout dimension g (query g is
// the task's query head h·R + g); the state update is computed once.
#pragma once

#include <Halide.h>

namespace gdr::schedules {

// Tokens per sub-block. Also the widest vector, so a vector over the
// columns j of a pair matrix never straddles two sub-blocks.
constexpr int kSubBlock = 16;

struct ChunkedAlgorithm {
  int K = 0, V = 0, C = 0, R = 1;
  bool scalar_decay = false;  // decay is one factor per token (i), not (r, i)
  // Inputs, one chunk of one head (tokens are rows, min 0, L = rows <= C);
  // rows are dense, the token stride is the caller's (head- or token-major).
  Halide::ImageParam query{Halide::Float(32), 3, "query"};      // (r, i, g): R x [L][K]
  Halide::ImageParam key{Halide::Float(32), 2, "key"};          // (r, i)
  Halide::ImageParam value{Halide::Float(32), 2, "value"};      // (v, i): [L][V]
  Halide::ImageParam decay{Halide::Float(32), 2, "decay"};      // (r, i), or (i) if scalar
  Halide::ImageParam beta{Halide::Float(32), 1, "beta"};        // (i), any stride
  Halide::ImageParam state_in{Halide::Float(32), 2, "state_in"};  // (v, r): [K][V]
  // Outputs over the caller's column range.
  Halide::Func out{"out"};              // (v, i, g)
  Halide::Func state_out{"state_out"};  // (v, r)

  // Intermediate stages, named so that schedules can refer to them.
  Halide::Func k{"k"}, q{"q"}, d{"d"}, b{"b"};  // masked inputs, padded to C rows (d = 1); q(r, i, g)
  Halide::Func x{"x"};                // (r, i, e): the rows read against keys: k (e = 0), q(g = e - 1)
  Halide::Func vb{"vb"};              // (v, i): beta_i * value_i, padded
  Halide::Func fwd{"fwd"};            // (r, i): prod d from i's sub-block start to i
  Halide::Func bwd{"bwd"};            // (r, j): prod d after j to j's sub-block end
  Halide::Func pre{"pre"};            // (r, B): prod d before sub-block B (B = n: whole chunk)
  Halide::Func suf{"suf"};            // (r, B): prod d after sub-block B
  Halide::Func mid{"mid"};            // (r, I, J): prod d strictly between sub-blocks J < I
  Halide::Func pair_decay{"pair_decay"};  // (jl, r, il, I): prod d(j+1..i), i, j in sub-block I
  Halide::Func k_t{"k_t"};            // (j, r): k transposed
  Halide::Func kb_t{"kb_t"};          // (j, r): k * bwd, transposed
  Halide::Func xf{"xf"};              // (r, i, J, e): x * fwd * mid(I(i), J)
  Halide::Func diag{"diag"};          // (jl, il, I, e): x.k for pairs inside sub-block I
  Halide::Func off{"off"};            // (j, i, e): x.k for pairs across sub-blocks
  Halide::Func a{"a"};                // (j, i): strict lower beta_i k_i.k_j decay(j, i)
  Halide::Func aqk{"aqk"};            // (j, i, g): lower q_i.k_j decay(j, i)
  Halide::Func tinv{"tinv"};          // (j, i): (I + a)^-1 by forward substitution
  Halide::Func k_beta{"k_beta"};      // (r, m): beta_m k_m * decay(start..m)
  Halide::Func w{"w"};                // (r, i): WY pseudo-keys
  Halide::Func u{"u"};                // (v, i): WY pseudo-values
  Halide::Func q_in{"q_in"};          // (r, i, g): q * decay(start..i)
  Halide::Func lhs{"lhs"};            // (r, i2): C rows of -w, then C rows of q_in per readout
  Halide::Func wq{"wq"};              // (v, i2): [u; 0] + lhs . state_in
  Halide::Func delta{"delta"};        // (v, i): u - w . state_in, the first C rows of wq
  Halide::Func intra{"intra"};        // (v, i, g): q_in . state_in + aqk . delta
  Halide::Func k_out{"k_out"};        // (r, j): k_j * decay(j+1..end)
  Halide::Func state_decay{"state_decay"};  // (r): decay over the whole chunk
  Halide::Func s_upd{"s_upd"};        // (v, r): state_decay * state_in + k_out^T . delta

  Halide::Var r{"r"}, v{"v"}, i{"i"}, j{"j"}, jl{"jl"}, il{"il"}, bI{"bI"}, bJ{"bJ"};
  Halide::Var g{"g"};  // readout: 0..R-1
  Halide::Var e{"e"};  // row read against keys: 0 the key, 1..R the queries
  Halide::RDom rk;    // over K: products with keys, queries and the state
  Halide::RDom rc;    // over C: products over the chunk's tokens
  Halide::RDom rt;    // m * C + row, m < row: forward substitution
  Halide::RDom rf, rb, rpre, rs, rp;  // the scans of fwd, bwd, pre, suf/mid, pair_decay

  Halide::Pipeline pipeline() { return Halide::Pipeline({out, state_out}); }
  std::vector<Halide::Argument> arguments() const {
    return {query, key, value, decay, beta, state_in};
  }
};

// Defines every Func above for head sizes K, V, chunk size C, the decay
// kind and R readouts. With scalar decay d(r, i) broadcasts decay(i): one
// load per token.
void define_chunked_algorithm(ChunkedAlgorithm& alg, int K, int V, int C, bool scalar_decay,
                              int R = 1);

}  // namespace gdr::schedules
