#include "gdr/schedules/chunked_schedule.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace gdr::schedules {

using namespace Halide;

namespace {

// Register tile of a product: kTileVectors vectors of `width` floats wide,
// chunked_tile_rows() rows tall, its accumulators half the vector
// registers. 32 registers (AVX-512, AArch64): 8 rows, 16 accumulators, 2
// loads + 8 broadcasts per 16 FMAs; measured at c16-w16, K = V = 128,
// H = 32, T = 2048, 1 thread, otherwise the same code at the time, vectors
// x rows: 2x8 105 ms, 4x4 110 ms. 16 registers (AVX2, SSE, any other
// target): 4 rows, 8 accumulators; the 16 of 8 rows spilled. AVX2, AMD Zen
// 3, c16-w8, H = 32, T = 512, 1 thread (2026-12-06, gdr-bench --impl
// chunked@c16-w8, one process per tile), vectors x rows at K = V = 128 /
// 256 (H = 16): 2x8 45.9 / 85.0 ms, 2x4 34.5-35.0 / 61.4-65.3, 2x6 37.3 /
// 64.6, 2x3 41.9 / 84.6, 3x4 38.8 / 60.9, 1x8 43.2 / 71.4, 4x2 47.1 /
// 80.1. Rows of 8 and 4 divide C, 2C and K = 128, so no tile recomputes
// rows.
constexpr int kTileVectors = 2;

// Vector registers of a Halide target: 32 on AArch64 and with AVX-512,
// else 16 (the recurrent route's rule, mlir::gdr::vectorRegisters, for
// the same CPUs).
int vector_registers(const Target& target) {
  if (target.arch == Target::ARM) return target.bits == 64 ? 32 : 16;
  if (target.arch != Target::X86) return 16;
  for (Target::Feature f : {Target::AVX512, Target::AVX512_KNL, Target::AVX512_Skylake,
                            Target::AVX512_Cannonlake, Target::AVX512_SapphireRapids})
    if (target.has_feature(f)) return 32;
  return 16;
}

struct ColumnTile {
  int tile;  // columns per tile
  int vec;   // floats per vector, 0 for scalar code
};

// The widest tile of at most `vectors` vectors that fits in `extent`
// columns; narrower vectors when a single one does not fit.
ColumnTile column_tile(int extent, int width, int vectors) {
  for (int w : {width, 8, 4})
    if (w <= width && extent >= w) return {w * std::min(vectors, extent / w), w};
  return {extent, 0};
}

void vectorize_if(Func f, VarOrRVar x, int vec) {
  if (vec > 1) f.vectorize(x, vec);
}
void vectorize_if(Stage s, VarOrRVar x, int vec) {
  if (vec > 1) s.vectorize(x, vec);
}

// The loop over the column tiles of schedule_product's result (Halide names
// a loop by its Var's name): what a producer computed per column tile is
// computed at.
const char kColumnTiles[] = "co";

// Schedules the reduction `f` (pure init + one update over `red`) as a
// register-blocked product: its wrapper holds the result at root, tiled over
// (col, row); f itself is computed per tile, so its accumulators stay in
// registers while `red` runs innermost over the whole reduction. With
// `strip`, a wrapper of the right-hand side for f, the column tiles are the
// outer loop and each tile's columns of the right-hand side are copied into
// `strip` (contiguous) once for all its rows.
Func schedule_product(Func f, Var col, Var row, RVar red, int col_extent, int row_extent,
                      int width, int vectors, int tile_rows, Func output = Func(), int row_min = 0,
                      Func strip = Func()) {
  const ColumnTile ct = column_tile(col_extent, width, vectors);
  const int rows = std::min(tile_rows, row_extent);
  // An output Func that only copies f is tiled itself; otherwise a wrapper
  // at root holds the result for the consumers.
  Func result = output.defined() ? output : f.in();
  Var co(kColumnTiles), ro("ro"), ci("ci"), ri("ri"), cv("cv"), cl("cl");
  // The columns computed may be a part of col_extent (a column part of a
  // head), but the storage is always col_extent wide: a constant size, so
  // small results go on the stack instead of a halide_malloc per call.
  if (!output.defined())
    result.compute_root().bound(row, row_min, row_extent).bound_storage(col, col_extent);
  // The two tile loops: column tiles outermost when a strip is copied.
  const Var inner_tiles = strip.defined() ? ro : co, outer_tiles = strip.defined() ? co : ro;
  result.tile(col, row, co, ro, ci, ri, ct.tile, rows);
  std::vector<VarOrRVar> order = {ci, ri};
  if (ct.vec > 1) {
    result.split(ci, cv, cl, ct.vec).vectorize(cl).unroll(cv);
    order = {cl, cv, ri};
  }
  order.insert(order.end(), {inner_tiles, outer_tiles});
  result.reorder(order).unroll(ri);
  if (strip.defined()) {
    strip.compute_at(result, co);
    if (ct.vec > 1) strip.vectorize(strip.args()[0], ct.vec);
  }

  f.compute_at(result, inner_tiles);
  Var fo("fo"), fi("fi");
  if (ct.vec > 1) f.split(col, fo, fi, ct.vec).vectorize(fi).unroll(fo);
  f.unroll(row);
  Stage up = f.update();
  if (ct.vec > 1) {
    up.split(col, fo, fi, ct.vec).reorder(fi, fo, row, red).vectorize(fi).unroll(fo);
  } else {
    up.reorder(col, row, red);
  }
  up.unroll(row);
  return result;
}

}  // namespace

int chunked_tile_rows(const Target& target) { return vector_registers(target) >= 32 ? 8 : 4; }

int chunked_column_align(int V, const Schedule& s) {
  const ColumnTile ct = column_tile(V, s.vector_width, kTileVectors);
  // Parts must be at least one tile wide, so split only into whole tiles.
  return V > ct.tile && V % ct.tile == 0 ? ct.tile : 0;
}

void apply_hand_schedule(ChunkedAlgorithm& g, const Schedule& s, const Target& target) {
  const int K = g.K, V = g.V, C = g.C, W = s.vector_width;
  const int rows = chunked_tile_rows(target);
  const int vk = column_tile(K, W, 1).vec, vv = column_tile(V, W, 1).vec;
  const int vc = W;  // over the chunk's C >= kSubBlock = 16 >= W columns
  Var r = g.r, v = g.v, i = g.i, j = g.j, jl = g.jl, il = g.il, bI = g.bI, bJ = g.bJ;
  RVar rk = g.rk.x, rc = g.rc.x;

  // Per-token inputs and decay products: small, computed once per chunk.
  for (Func f : {g.k, g.q, g.d}) {
    f.compute_root();
    vectorize_if(f, r, vk);
  }
  g.b.compute_root();
  g.vb.compute_root().bound_storage(v, V);  // constant size: on the stack
  vectorize_if(g.vb, v, vv);
  // The scans run over tokens or sub-blocks with the channels r innermost.
  const std::pair<Func, RDom> scans[] = {
      {g.fwd, g.rf}, {g.bwd, g.rb}, {g.pre, g.rpre}, {g.suf, g.rs}, {g.mid, g.rs}};
  for (const auto& [f, scan] : scans) {
    Func fn = f;
    fn.compute_root();
    vectorize_if(fn, r, vk);
    if (fn.num_update_definitions() == 0) continue;
    Stage up = fn.update();
    up.reorder(r, scan.x);
    vectorize_if(up, r, vk);
  }

  // Pairs inside sub-blocks, vectorised over the column j of the pair.
  // The per-pair decays are made for 16 channels at a time (16 KiB, in L1)
  // right where the reduction over those channels consumes them; the key
  // and the R queries (e, unrolled) share each product of decay and key.
  RVar rko("rko"), rki("rki");
  const int channels = std::min(16, K);
  g.diag.compute_root();
  g.diag.vectorize(jl, vc);
  g.diag.update()
      .split(rk, rko, rki, channels)
      .reorder(jl, g.e, rki, il, rko, bI)
      .vectorize(jl, vc)
      .unroll(g.e);
  g.pair_decay.compute_at(g.diag, rko).vectorize(jl, vc);
  g.pair_decay.update().reorder(jl, r, g.rp.x, bI).vectorize(jl, vc);
  g.k_t.compute_root().vectorize(j, vc);

  // Pairs across sub-blocks: a product over K, two results per tile.
  if (C > kSubBlock) {
    g.kb_t.compute_root().vectorize(j, vc);
    // One row kind e at a time, half a tile wide (the width of the tiles
    // when key and query shared them as a Tuple).
    Func off = schedule_product(g.off, j, i, rk, C - kSubBlock, C - kSubBlock, W,
                                std::max(1, kTileVectors / 2), rows, Func(), kSubBlock);
    g.xf.compute_at(off, Var(kColumnTiles));
    vectorize_if(g.xf, r, vk);
  }
  for (Func f : {g.a, g.aqk}) f.compute_root().vectorize(j, vc);

  g.tinv.compute_root().vectorize(j, vc);
  g.tinv.update().reorder(j, g.rt.x).vectorize(j, vc);

  g.k_beta.compute_root();
  vectorize_if(g.k_beta, r, vk);
  schedule_product(g.w, r, i, rc, K, C, W, kTileVectors, rows);
  schedule_product(g.u, v, i, rc, V, C, W, kTileVectors, rows);

  g.q_in.compute_root();
  vectorize_if(g.q_in, r, vk);
  g.lhs.compute_root();
  vectorize_if(g.lhs, r, vk);
  // The state product reads the whole state once per tile of rows:
  // (1 + R) C / rows times a chunk (8 at c16 with 4-row tiles, one
  // readout). Past 128 KiB of state (which with the next state no longer
  // fits half a 512 KiB L2) each column tile's rows of the state are copied
  // into a contiguous strip (16 KiB at K = 256, at most: half an L1, and
  // Halide's stack) and the tile's rows all read it from L1. AVX2, AMD Zen 3,
  // c16-w8, T = 512, AOT libraries alternated in one gdr-bench run, two runs
  // (2026-12-07), without / with, ms on 1 and 2 threads: K = V = 256, H = 16
  // 60.4 / 57.3 and 34.7 / 32.0, 62.2 / 57.7 and 30.9 / 29.0; K = V = 128
  // and 64 (H = 32) within 2%. Measured on 16 registers only (4-row tiles).
  const int64_t strip_bytes = int64_t{K} * column_tile(V, W, kTileVectors).tile * 4;
  const bool state_strips = rows == 4 && int64_t{K} * V * 4 > 128 * 1024 && strip_bytes <= 16 * 1024;
  schedule_product(g.wq, v, i, rk, V, (1 + g.R) * C, W, kTileVectors, rows, Func(), 0,
                   state_strips ? g.state_in.in(g.wq) : Func());
  schedule_product(g.intra, v, i, rc, V, C, W, kTileVectors, rows);
  g.k_out.compute_root();
  vectorize_if(g.k_out, r, vk);
  g.state_decay.compute_root();
  schedule_product(g.s_upd, v, r, rc, V, K, W, kTileVectors, rows, g.state_out);

  vectorize_if(g.out, v, vv);
}

std::string apply_autoschedule(ChunkedAlgorithm& g, const Target& target,
                               const std::string& plugin_path) {
  const int K = g.K, V = g.V, C = g.C;
  try {
    // Halide 14's Adams2019 takes its options from the environment only. A
    // greedy search (beam 1) keeps compile time to seconds instead of
    // minutes; a value the user set wins. Set once, with the plugin load,
    // because setenv races with other threads reading the environment.
    static std::once_flag loaded;
    std::call_once(loaded, [&] {
      setenv("HL_BEAM_SIZE", "1", 0);
      load_plugin(plugin_path);
    });
    g.query.set_estimates({{0, K}, {0, C}, {0, g.R}});
    g.key.set_estimates({{0, K}, {0, C}});
    if (g.scalar_decay)
      g.decay.set_estimates({{0, C}});
    else
      g.decay.set_estimates({{0, K}, {0, C}});
    g.value.set_estimates({{0, V}, {0, C}});
    g.beta.set_estimates({{0, C}});
    g.state_in.set_estimates({{0, V}, {0, K}});
    g.out.set_estimates({{0, V}, {0, C}, {0, g.R}});
    g.state_out.set_estimates({{0, V}, {0, K}});
    // One thread: the runtime parallelises over heads itself.
    g.pipeline().auto_schedule("Adams2019", target, MachineParams(1, 32 * 1024 * 1024, 40));
  } catch (const Halide::Error& e) {
    return std::string("Adams2019 autoscheduler failed: ") + e.what();
  }
  return "";
}

}  // namespace gdr::schedules
