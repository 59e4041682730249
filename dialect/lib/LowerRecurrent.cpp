// gdr-lower-recurrent: the recurrent route as scf + vector + memref + arith.
//
// Each state column evolves on its own, so the kernel walks the state in
// V-tiles and runs a block of tokens on one tile while it stays in cache.
// With dk = decay ⊙ k, dq = decay ⊙ q, per token:
//   v_pred = Sᵀ dk,  sq = Sᵀ dq         (vertical sums over K rows: one vector
//                                          accumulator per column vector)
//   delta  = beta (v − v_pred)
//   out    = sq + (k · q) delta          (exact algebra: (DS + k δᵀ)ᵀ q)
//   S      = decay ⊙ S + k ⊗ delta
//
// Deferred decay: between tokens the tile holds S̃ with S = diag(P) S̃, P
// the product of the decays since the tile last held S. Then
// Sᵀ dk = S̃ᵀ (P ⊙ k) and the update is S̃ += (k / P) ⊗ delta, FMAs alone.
// When a P leaves [kMinScale, 1 / kMinScale] (or is NaN: a decay of 0 makes
// it 0 at once), at the end of every GDR_TOKEN_BLOCK (so that a sequence
// split across calls there gives the bits of one call) and at a block's
// last token, the sweep is S = diag(P) S̃ + ..., and P restarts at 1.
//
// Pairs: a sweep applies two tokens' updates and accumulates the next two
// tokens' sums, so the tile is loaded and stored once per two tokens (a
// token's sweep was bound by its 64-byte stores, docs/recurrent-route.md).
// The second token's sums over the tile after the first are its sums over
// the tile before plus (k_t · (decay_{t+1} ⊙ k_{t+1})) delta_t (likewise per
// query); in a group of more tokens, token t's sums see every earlier
// token s through k_s · (decay_{s+1} ⊙ ... ⊙ decay_t ⊙ k_t). Pairs start
// at a block's first token; a block of odd length ends with one token
// alone. A pair's sweep keeps twice the accumulators; with
// sweep_tokens = 1 every sweep updates one token and accumulates the next
// one's sums. On 16 vector registers (x86 SSE and AVX2) the sweep
// sums one broadcast at a time (accumulateEachGated).
//
// Blocks: a task's tokens run in blocks of kBlockTokens (token-major rows:
// kStridedBlockTokens). Everything per token that does not depend on the
// columns (P, whether a sweep is full, the gated keys P ⊙ k and P ⊙ q, the
// row factors, the dot products) is computed once per block into scratch,
// before the block's tiles run: a head of several tiles does not repeat it
// per tile (a head of one tile computes most of it as it sweeps:
// interleavesRows). A block's tile starts from initial_state (the first block) or
// from where the block before left it (the worker's scratch; the last
// block writes final_state), with one read-only sweep for its first sums.
// The last one to four tokens past a GDR_TOKEN_BLOCK edge (decode,
// speculative decode) run as a block of one group, after the loop over the
// others: its whole tiles in turn, the sweep that writes one tile's final
// state summing the next tile: only the first tile's sums sweep is
// read-only, and that one is skipped when the worker's task before summed
// it (kernel ABI 5, emitOneGroupBlock).
//
// Every column goes through the same operations in the same order whichever
// tile or lane holds it, so splitting a head's columns over threads gives
// bit-identical results.
//
// Forms, facts of the kernel: with scalar decay (gate = scalar) a token's
// decay is one load, broadcast; from there the rows are channelwise's. With
// R readouts (grouped readout) the sweep accumulates Sᵀdq of each of the R
// queries, so the state is updated once for all of them. The task's rows
// come from its arguments (pointers at the task's sequence and head, token
// strides), so layout, head groups, offsets and slots cost nothing per token.
//
// Schedule knobs: vector_width = lanes of the vector type; v_tile = columns
// (v_tile / vector_width vectors, (1 + R) accumulators each per token of the
// sweep) a sweep keeps in registers; unroll = K rows per iteration of the
// sweep loop; prefetch = tokens ahead whose beta, value and output rows each
// token prefetches; sweep_tokens = tokens per sweep (2: pairs, or 1).
// Columns past the last whole tile run in smaller whole tiles, then masked
// vectors. Between blocks the task's state lives in the worker's scratch
// (K · V floats), between tokens the tile lives packed after it (K · v_tile
// floats), followed by the block's rows.
//
// Streaming final state (the entry point's flag, kernel_abi.h): the task's
// last sweep writes whole vectors with non-temporal stores, which skip
// reading the line first, and prefetches the tile the task (or the worker's
// next task, `next_task`) reads next, so the bus reads while it writes.
//
// Every op is built in a statement of its own (or in a braced list, which
// C++ evaluates left to right), never as one of several arguments of a call:
// the order of those is up to the compiler (GCC and clang differ), and the
// emitted IR must not depend on the compiler that built gdr.
#include <functional>

#include <mlir/Dialect/StandardOps/IR/Ops.h>
#include <mlir/IR/BuiltinOps.h>

#include "PassDetail.h"
#include "gdr/Dialect/DefaultSchedule.h"
#include "gdr/kernel_abi.h"

namespace mlir::gdr {
namespace {

// Emits the body of one kernel function: one task (one state head of one
// sequence). Flat memrefs at the task's rows: token t of query readout g at
// g·query_readout_stride + t·query_token_stride, likewise key, value,
// decay, beta and out; states k·V + c.
class RecurrentEmitter {
  static constexpr int64_t kLineFloats = 16;  // floats per 64-byte cache line

 public:
  // Tokens per block: a task runs its tokens in blocks of at most this
  // many, each block's per-token rows computed once, before its tiles run it
  // or (a head of one tile) as its tile runs it (a multiple of
  // GDR_TOKEN_BLOCK and even: pairs never straddle them).
  // Blocks of 64, 128, 256 and 512 tokens were within 3% of each other
  // (AOT kernels interleaved in one process, 2026-12-02, 1 thread, T = 512:
  // K = V = 128, H = 32, min 14.2 / 14.0 / 13.4 / 14.1 ms; K = V = 256,
  // H = 16, 30.9 / 30.9 / 30.3 / 31.6); 128 keeps the rows (about 4 K
  // floats a token) in L2 at K = 256.
  static constexpr int64_t kBlockTokens = 2 * GDR_TOKEN_BLOCK;
  // Token-major rows (nextBlockRows): a block's rows prefetched a block
  // ahead stay in L2 at 64 tokens; at 128 they miss (every token's row in
  // a page of its own, so their lines crowd a few sets) and the rows pass
  // waited on memory. AOT kernels alternated in one process (K = V = 128,
  // H = 32, 1 thread, 2026-12-06, Ice Lake Xeon, medians of 15 calls, the
  // state between blocks in scratch), 128 / 64 tokens: T = 512 13.9 / 13.1
  // and 14.7 / 13.6 ms, T = 128 3.36 / 3.24 and 3.41 / 3.26; before the
  // state moved to scratch, 64 / 32 / 16 tokens at T = 512: 14.4 / 14.9 /
  // 16.0, 13.8 / 14.5 / 15.6 ms. A multiple of GDR_TOKEN_BLOCK, like
  // kBlockTokens, so that token-major gives head-major's bits.
  static constexpr int64_t kStridedBlockTokens = GDR_TOKEN_BLOCK;
  // The most tokens a block run as one group has (oneGroupBlocks).
  static constexpr int64_t kMaxGroup = 4;

  RecurrentEmitter(OpBuilder& b, Location loc, ProblemAttr problem, ScheduleAttr schedule,
                   int64_t registers)
      : b_(b),
        loc_(loc),
        K_(problem.getK()),
        V_(problem.getV()),
        R_(problem.getReadouts()),
        scalarDecay_(problem.getGate() == "scalar"),
        W_(schedule.getVectorWidth()),
        tile_(schedule.getVTile()),
        unroll_(schedule.getUnroll()),
        prefetch_(schedule.getPrefetch()),
        G_(schedule.getSweepTokens()),
        scarceRegisters_(registers < 32),
        at_(K_, V_, R_, tile_, G_),
        f32_(b.getF32Type()),
        vec_(VectorType::get({W_}, f32_)) {}

  // Scratch floats: the whole ScratchLayout (its parts are described there).
  static int64_t scratchFloats(ProblemAttr problem, ScheduleAttr schedule) {
    return ScratchLayout(problem.getK(), problem.getV(), problem.getReadouts(), schedule.getVTile(),
                         schedule.getSweepTokens())
        .end;
  }

  // The function's arguments: the 8 tensors, the scratch, the next task's
  // initial state (at its first column) and its query, key and decay as
  // memrefs, then T, the token strides of query, key, value, decay, beta and
  // out, the readout strides of query and out, the next task's T, its token
  // strides of query, key and decay and its query readout stride, v_begin,
  // v_end, whether to stream the final state and whether to stream out (0
  // or 1 each), this task's tag, the next task's (0: none) and the next
  // task's column count.
  static FunctionType signature(OpBuilder& b) {
    Type mem = MemRefType::get({ShapedType::kDynamicSize}, b.getF32Type());
    Type idx = b.getIndexType();
    SmallVector<Type> args(13, mem);
    args.append(21, idx);
    return b.getFunctionType(args, {});
  }

  void emit(Block* entry) {
    auto a = entry->getArguments();
    query_ = a[0], key_ = a[1], value_ = a[2], decay_ = a[3], beta_ = a[4];
    s0_ = a[5], out_ = a[6], s1_ = a[7], scratch_ = a[8], next_ = a[9];
    nextQuery_ = a[10], nextKey_ = a[11], nextDecay_ = a[12];
    T_ = a[13];
    qStride_ = a[14], kStride_ = a[15], vStride_ = a[16], dStride_ = a[17], bStride_ = a[18],
    oStride_ = a[19], qReadout_ = a[20], oReadout_ = a[21];
    nextT_ = a[22], nextQStride_ = a[23], nextKStride_ = a[24], nextDStride_ = a[25], nextQReadout_ = a[26];
    vBegin_ = a[27];
    vEnd_ = a[28];
    // Tiles after one that is not whole cache lines start inside lines.
    if (tile_ % kLineFloats == 0) {
      streaming_ = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ne, a[29], c(0));
      outStreaming_ = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ne, a[30], c(0));
    }
    zero_ = b_.create<arith::ConstantOp>(loc_, vec_, DenseElementsAttr::get(vec_, 0.0f));
    Value tokenMajor = stridedRows();
    Value stridedBlock = c(kStridedBlockTokens);
    Value block = c(kBlockTokens);
    blockTokens_ = b_.create<SelectOp>(loc_, tokenMajor, stridedBlock, block);
    ownTag_ = a[31], nextTag_ = a[32], nextColumns_ = a[33];

    ifElse(eq(T_, 0), [&] {
      // T = 0: the final state is the initial state, copied row by row: tile
      // by tile, the copy strided over the rows (B = 16, H = 32,
      // K = V = 128, 4-vector tiles, AOT kernels alternated, 2026-12-03, Zen
      // 5: 2.14 / 1.44 ms on 1 / 2 threads tile by tile, 1.90 / 1.23 row by
      // row).
      streamedOrCached(streaming_, Value(), tile_ / W_, 0, [&](bool stream) {
        return sweepRows(unroll_, {}, [&](Value k, ValueRange) {
          forEachTile([&](Value col, int64_t n, Value mask) {
            Place initial = statePlace(s0_, col);
            Place final = statePlace(s1_, col);
            const bool streamed = stream && wholeLines(mask, n);
            for (int64_t j = 0; j < n; ++j) {
              Value s = load(s0_, initial.at(k, j), mask);
              store(s, s1_, final.at(k, j), mask, streamed);
            }
          });
          return SmallVector<Value>{};
        });
      });
    }, [&] {
      // A last block of 1 to oneGroupTokens() tokens (decode, speculative
      // decoding's verification, a sequence's last tokens) runs as one
      // group (emitOneGroupBlock), after the loop over the others: inside
      // it, LLVM's loop passes walked its code with the loop's every time
      // (2026-12-06, Ice Lake Xeon, gdr-compile --route recurrent, K = V =
      // 64 / 128 / 256: 1.86 / 1.69 / 1.72 s before, 1.52 / 1.40 / 1.55
      // after). Counted from the last GDR_TOKEN_BLOCK edge, not the last
      // block's start, so that head-major, token-major and a sequence split
      // across calls at such an edge run the same last tokens as one group
      // (the same bits).
      Value left = rem(T_, c(GDR_TOKEN_BLOCK));
      Value beforeOne = sub(left, c(1));  // wraps when no block is left over
      Value hasTail = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, beforeOne, c(oneGroupTokens()));
      Value none = c(0);
      Value tail = b_.create<SelectOp>(loc_, hasTail, left, none);
      Value blocksEnd = sub(T_, tail);
      Value begin = c(0);
      loop(begin, blocksEnd, blockTokens_, {}, [&](Value first, ValueRange) {
        Value remaining = sub(blocksEnd, first);
        Value fits = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ule, remaining, blockTokens_);
        Value count = b_.create<SelectOp>(loc_, fits, remaining, blockTokens_);
        Value end = add(first, count);
        Value isLast = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::eq, end, T_);
        Block block = loopBlock(first, count, isLast);
        emitTokenRows(block);
        forEachTile([&](Value col, int64_t n, Value mask) { emitTile(block, col, n, mask); });
        return SmallVector<Value>{};
      });
      ifElse(hasTail, [&] {
        Block block = oneGroupBlock(blocksEnd, tail);
        std::function<void(int64_t)> from = [&](int64_t tokens) {
          auto run = [&] {
            emitGroupRows(block, c(0), tokens);
            emitOneGroupBlock(block, tokens);
          };
          if (tokens == oneGroupTokens()) return run();
          ifElse(eq(tail, tokens), run, [&] { from(tokens + 1); });
        };
        from(1);
      }, [] {});
    });
  }

 private:
  using Body = function_ref<SmallVector<Value>(Value iv, ValueRange iterArgs)>;

  // A block of `count` tokens from token `first` of the task; its state
  // comes from `source` and goes to `dest` (rows V apart, from their
  // starts); the task's last block may stream it.
  struct Block {
    Value first, count, isFirst, isLast;
    Value source, dest;
    int64_t rowsPerStep;  // rows per iteration of its sweeps (rowRange)
  };
  // A block of the loop over a task's blocks (tile by tile) and the task's
  // last block when it runs as one group. A block reads initial_state in
  // the task's first block, else the scratch (from its start) the block
  // before wrote; it writes final_state in the task's last block, else the
  // scratch. Writing final_state in every block read its lines from memory
  // before the first block's stores and made the last block's non-temporal
  // stores write back lines still in cache: AOT kernels alternated in one
  // process (K = V = 128, H = 32, 1 thread, 2026-12-06, Ice Lake Xeon,
  // medians) at T = 512 took 12.6 / 12.8 ms before, 11.7 / 12.2 after
  // (token-major 14.7 / 15.1, 14.0 / 14.2); at T = 128 blocks of 64 tokens
  // took 3.7 ms against 3.1 for one block of 128 before, within 1% with
  // cached stores.
  Block loopBlock(Value first, Value count, Value isLast) {
    Value isFirst = eq(first, 0);
    Value source = b_.create<SelectOp>(loc_, isFirst, s0_, scratch_);
    Value dest = b_.create<SelectOp>(loc_, isLast, s1_, scratch_);
    return {first, count, isFirst, isLast, source, dest, unroll_};
  }
  // A one-group block's sweeps step one row at a time whatever the
  // schedule's unroll: four tokens on 2 vectors took 4-14% longer at unroll
  // 2 (K = V = 256, H = 16, T = 4, B = 1 and 16, 1 and 2 threads,
  // gdr-bench, 2026-12-06, Ice Lake Xeon), while blocks of pairs took 2-7%
  // less (DefaultSchedule).
  Block oneGroupBlock(Value first, Value count) {
    Value isFirst = eq(first, 0);
    Value source = b_.create<SelectOp>(loc_, isFirst, s0_, scratch_);
    return {first, count, isFirst, boolean(true), source, s1_, 1};
  }
  Value boolean(bool x) { return b_.create<arith::ConstantOp>(loc_, b_.getBoolAttr(x)); }

  // Where a sweep reads or writes the tile: a memref and the index of
  // vector j of row k.
  struct Place {
    Value mem;
    std::function<Value(Value k, int64_t j)> at;
  };

  // A state's tile at column col: rows V apart.
  Place statePlace(Value mem, Value col) {
    return {mem, [this, col](Value k, int64_t j) {
              Value row = mul(k, c(V_));
              Value inRow = add(row, c(j * W_));
              return add(col, inRow);
            }};
  }

  // Calls fn for every tile of the task's columns: whole tiles, then (a
  // head split over threads leaves parts narrower than a tile) one tile of
  // each power-of-two number of vectors below the tile's that still fits,
  // then masked vectors.
  void forEachTile(function_ref<void(Value col, int64_t n, Value mask)> fn) {
    Value tilesEnd = wholeTilesEnd(tile_);
    loop(vBegin_, tilesEnd, c(tile_), {}, [&](Value col, ValueRange) {
      fn(col, tile_ / W_, Value());
      return SmallVector<Value>{};
    });
    forEachTileAfter(tilesEnd, tile_ / W_, fn);
  }
  // Where the task's whole tiles of `width` columns end.
  Value wholeTilesEnd(int64_t width) {
    Value columns = sub(vEnd_, vBegin_);
    Value tiles = div(columns, c(width));
    Value whole = mul(tiles, c(width));
    return add(vBegin_, whole);
  }
  // The tiles after the whole ones (of n vectors), from column `rest`.
  void forEachTileAfter(Value rest, int64_t n, function_ref<void(Value col, int64_t n, Value mask)> fn) {
    for (int64_t m = pow2Below(n); m >= 1; m /= 2) {
      Value width = c(m * W_);
      Value end = add(rest, mul(div(sub(vEnd_, rest), width), width));
      loop(rest, end, width, {}, [&](Value col, ValueRange) {
        fn(col, m, Value());
        return SmallVector<Value>{};
      });
      rest = end;
    }
    loop(rest, vEnd_, c(W_), {}, [&](Value col, ValueRange) {
      Value mask = b_.create<vector::CreateMaskOp>(loc_, VectorType::get({W_}, b_.getI1Type()),
                                                   ValueRange{sub(vEnd_, col)});
      fn(col, 1, mask);
      return SmallVector<Value>{};
    });
  }

  // The largest power of two below n (0 when n <= 1).
  static int64_t pow2Below(int64_t n) {
    int64_t p = 1;
    while (p * 2 < n) p *= 2;
    return n > 1 ? p : 0;
  }

  // scf.for whose body `body` emits with b_; returns the loop's results.
  SmallVector<Value> loop(Value lb, Value ub, Value step, ValueRange inits, Body body) {
    auto op = b_.create<scf::ForOp>(
        loc_, lb, ub, step, inits, [&](OpBuilder& nested, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b_);
          b_.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
          SmallVector<Value> results = body(iv, args);
          b_.create<scf::YieldOp>(loc_, results);
        });
    return SmallVector<Value>(op.getResults().begin(), op.getResults().end());
  }

  // Runs `row(k, accs)` for k in [0, K). With `everyLine`, the rows go in
  // groups of a cache line's floats, everyLine(k0) before each group that
  // starts at k0 (the rows after the last whole group go without it).
  SmallVector<Value> sweepRows(int64_t rowsPerStep, ValueRange inits, Body row,
                               function_ref<void(Value k0)> everyLine = nullptr) {
    if (!everyLine) return rowRange(Value(), 0, K_, rowsPerStep, inits, row);
    const int64_t lines = K_ / kLineFloats * kLineFloats;
    SmallVector<Value> accs(inits.begin(), inits.end());
    if (lines > 0) {
      Value begin = c(0), end = c(lines), step = c(kLineFloats);
      accs = loop(begin, end, step, accs, [&](Value k0, ValueRange args) {
        everyLine(k0);
        return rowRange(k0, 0, kLineFloats, rowsPerStep, args, row);
      });
    }
    if (lines < K_) accs = rowRange(Value(), lines, K_, rowsPerStep, accs, row);
    return accs;
  }

  // Runs `row(k, accs)` for rows [base + first, base + last) (base: 0 if
  // null): `rowsPerStep` rows per iteration, then the remaining rows one by
  // one.
  SmallVector<Value> rowRange(Value base, int64_t first, int64_t last, int64_t rowsPerStep, ValueRange inits,
                              Body row) {
    auto at = [&](int64_t k) { return !base ? c(k) : k == 0 ? base : add(base, c(k)); };
    const int64_t main = first + (last - first) / rowsPerStep * rowsPerStep;
    SmallVector<Value> accs(inits.begin(), inits.end());
    if (main > first) {
      Value begin = at(first), end = at(main), step = c(rowsPerStep);
      accs = loop(begin, end, step, accs, [&](Value k0, ValueRange args) {
        SmallVector<Value> acc(args.begin(), args.end());
        for (int64_t r = 0; r < rowsPerStep; ++r) acc = row(add(k0, c(r)), acc);
        return acc;
      });
    }
    if (main < last) {
      Value begin = at(main), end = at(last), step = c(1);
      accs = loop(begin, end, step, accs, row);
    }
    return accs;
  }

  void ifElse(Value cond, function_ref<void()> then, function_ref<void()> otherwise) {
    auto op = b_.create<scf::IfOp>(loc_, TypeRange{}, cond, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(op.thenBlock()->getTerminator());
    then();
    b_.setInsertionPoint(op.elseBlock()->getTerminator());
    otherwise();
  }

  // scf.if yielding `count` vectors, which `then` or `otherwise` return.
  SmallVector<Value> ifElseValues(Value cond, int64_t count, function_ref<SmallVector<Value>()> then,
                                  function_ref<SmallVector<Value>()> otherwise) {
    if (count == 0) {
      ifElse(cond, [&] { then(); }, [&] { otherwise(); });
      return {};
    }
    auto op = b_.create<scf::IfOp>(loc_, SmallVector<Type>(count, vec_), cond, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(op.thenBlock());
    SmallVector<Value> yielded = then();
    b_.create<scf::YieldOp>(loc_, yielded);
    b_.setInsertionPointToStart(op.elseBlock());
    yielded = otherwise();
    b_.create<scf::YieldOp>(loc_, yielded);
    return SmallVector<Value>(op.getResults().begin(), op.getResults().end());
  }

  // ---- The block's per-token rows, once per task and block ----

  // Scratch offsets: the task's state between blocks (K · V floats, rows V
  // apart, from the start), the packed tile (from a line), then the block's
  // rows. Token j of the block: its gated
  // key (x = 0: P ⊙ key), gated queries (x = 1 .. R: P ⊙ query of readout
  // x - 1) and row factor (x = 1 + R: key / P for a cheap sweep; for a full
  // one the key times the decays of its group's later tokens), P being the
  // product of the decays since the tile last held S. Group i's scale (the P
  // of its last token; a full sweep's S = scale ⊙ S̃ + ...). Token j's
  // scalars: whether its group's sweep is full (1 or 0; the group's first
  // token), k · q of each readout, and for each earlier token s of its
  // group (nearest first) the corrections k_s · (decay_{s+1..t} ⊙ k_t) and,
  // per readout, k_s · (decay_{s+1..t} ⊙ q_t), decay_{s+1..t} the product
  // of the decays of tokens s + 1 to t. Then P of the group computed last
  // (1 after a full sweep). Then the first sums handed to the next task and their
  // tag (an i64 in two floats). Each part's start (in floats), written once
  // for scratchFloats and the emitter alike:
  static constexpr int64_t kTagFloats = 2;
  static int64_t scalarsPerToken(int64_t R) { return 1 + R + (kMaxGroup - 1) * (1 + R); }
  struct ScratchLayout {
    ScratchLayout(int64_t K, int64_t V, int64_t R, int64_t tile, int64_t G)
        : packed((K * V + kLineFloats - 1) / kLineFloats * kLineFloats),
          rows(packed + K * tile),
          scales(rows + kBlockTokens * (2 + R) * K),
          scalars(scales + kBlockTokens / G * K),
          run(scalars + kBlockTokens * scalarsPerToken(R)),
          handed(run + K),
          tag(handed + kMaxGroup * (1 + R) * tile),
          end(tag + kTagFloats) {}
    int64_t packed, rows, scales, scalars, run, handed, tag, end;
  };
  int64_t handedSumAt(int64_t i) const { return at_.handed + i * W_; }
  enum Scalar : int64_t { kFull = 0, kKq = 1 };  // then kq of each readout, the corrections
  // The correction of a token by the token `back` + 1 before it in its
  // group; g = 0: key, 1 + r: readout r.
  int64_t correctionSlot(int64_t back, int64_t g) const { return 1 + R_ + back * (1 + R_) + g; }

  Value rowIndex(Value j, int64_t x, Value k) {
    Value row = mul(j, c((2 + R_) * K_));
    Value at = add(row, c(at_.rows + x * K_));
    return add(at, k);
  }
  Value scalarIndex(Value j, int64_t y) {
    Value row = mul(j, c(scalarsPerToken(R_)));
    return add(row, c(at_.scalars + y));
  }
  Value scaleIndex(Value group, Value k) {
    Value row = mul(group, c(K_));
    Value at = add(row, c(at_.scales));
    return add(at, k);
  }

  // How far P may get from 1 before a full sweep folds it into the tile:
  // |S̃| <= |S| / P overflows only past |S| = 2^108, and a channel that
  // decays by 0.1 per token costs a full sweep every 6 tokens.
  static constexpr float kMinScale = 1.0f / (1 << 20);

  // Calls fn(at, vector) for the K channels: whole vectors (at = their first
  // channel), then single channels.
  void forEachChunk(function_ref<void(int64_t at, bool vector)> fn) {
    const int64_t vectors = K_ / W_;
    for (int64_t v = 0; v < vectors; ++v) fn(v * W_, true);
    for (int64_t k = vectors * W_; k < K_; ++k) fn(k, false);
  }
  Value read(Value mem, Value at, bool vector) { return vector ? load(mem, at, Value()) : scalar(mem, at); }
  void write(Value x, Value mem, Value at) {
    if (x.getType().isa<VectorType>())
      store(x, mem, at, Value());
    else
      b_.create<memref::StoreOp>(loc_, x, mem, ValueRange{at});
  }
  // The decay of token t at channel `at`: a chunk of the row, or the
  // token's one factor (scalar decay), broadcast to a vector chunk.
  Value decayAt(Value t, int64_t at, bool vector) {
    Value row = mul(t, dStride_);
    if (!scalarDecay_) return read(decay_, add(row, c(at)), vector);
    Value d = scalar(decay_, row);
    return vector ? splat(d) : d;
  }
  Value constant(float x, bool vector) {
    if (vector) return b_.create<arith::ConstantOp>(loc_, vec_, DenseElementsAttr::get(vec_, x));
    return b_.create<arith::ConstantOp>(loc_, b_.getF32FloatAttr(x));
  }

  // The block's groups: pairs from its first token, then its last token
  // alone if it has an odd count; each group's sweep is full when it is the
  // block's last, ends a GDR_TOKEN_BLOCK (where a caller may split a
  // sequence across calls) or has a P out of [kMinScale, 1 / kMinScale]
  // (or NaN: a decay of 0 makes it 0 at once).
  void emitTokenRows(const Block& block) {
    Value groups = div(block.count, c(G_));
    if (!interleavesRows()) return emitRowsBefore(block, groups, groups, Value());
    // The first kRowsAhead groups only, when the tile computes the others.
    Value wholeTile = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ne, wholeTilesEnd(tile_), vBegin_);
    Value ahead = c(kRowsAhead);
    Value enough = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::uge, groups, ahead);
    Value interleaved = b_.create<arith::AndIOp>(loc_, wholeTile, enough);
    Value upfront = b_.create<SelectOp>(loc_, interleaved, ahead, groups);
    emitRowsBefore(block, groups, upfront, interleaved);
  }
  // The rows of the block's groups before `upfront`, then the odd token's
  // group unless `interleaved` (null: never).
  void emitRowsBefore(const Block& block, Value groups, Value upfront, Value interleaved) {
    Value begin = c(0), step = c(1);
    loop(begin, upfront, step, {}, [&](Value group, ValueRange) {
      emitGroupRows(block, group, G_);
      return SmallVector<Value>{};
    });
    if (G_ == 1) return;
    Value odd = isOdd(block.count);
    if (interleaved) {
      Value allHere = b_.create<arith::XOrIOp>(loc_, interleaved, boolean(true));
      odd = b_.create<arith::AndIOp>(loc_, allHere, odd);
    }
    emitOddRows(block, groups, odd);
  }
  // With pairs, the rows of the block's last token alone (group `groups`)
  // if `when`.
  void emitOddRows(const Block& block, Value groups, Value when) {
    ifElse(when, [&] { emitGroupRows(block, groups, 1); }, [] {});
  }

  // Whether a head's tile computes its block's rows from group kRowsAhead
  // on as it sweeps, a group's rows before the sweep kRowsAhead groups
  // earlier (emitRowsAhead), so that the out-of-order core runs them beside
  // that sweep, in the FMA ports' idle cycles; only the first kRowsAhead
  // groups' rows come before the tile (all of them when the task has no
  // whole tile or the block fewer groups). It pays where a head is one tile
  // (nothing amortizes the rows) and a group's rows are few enough
  // instructions for the core to hold beside the sweep. AOT kernels
  // alternated in one process (T = 512, 2026-12-06, Ice Lake Xeon,
  // medians, rows before the tiles -> interleaved): K = V = 64, H = 32
  // 3.45 -> 3.29 ms on 1 thread, 1.83 -> 1.74 on 2, token-major 3.86 ->
  // 3.77, T = 128 0.84 -> 0.81; K = V = 32 1.10 -> 1.11; heads of two or
  // more tiles: K = V = 96 7.47 -> 7.43, 128 13.98 -> 13.99 (2 threads
  // 6.44 -> 6.46), 256 (H = 16) 26.7 -> 27.6.
  bool interleavesRows() const { return V_ == tile_ && K_ * (1 + R_) <= 128; }
  // A group's sweep reads the next group's gated rows.
  static constexpr int64_t kRowsAhead = 2;
  // The rows of group `group` + kRowsAhead of the block's `groups` (after
  // the last pair, the odd token's).
  void emitRowsAhead(const Block& block, Value group, Value groups) {
    Value target = add(group, c(kRowsAhead));
    Value inBlock = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, target, groups);
    ifElse(inBlock, [&] { emitGroupRows(block, target, G_); }, [&] {
      if (G_ == 1) return;
      Value last = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::eq, target, groups);
      Value odd = b_.create<arith::AndIOp>(loc_, last, isOdd(block.count));
      emitOddRows(block, groups, odd);
    });
  }

  // Group `group` of the block: its `count` tokens from token G·group
  // (a block of one group: group 0, the block's count).
  void emitGroupRows(const Block& block, Value group, int64_t count) {
    SmallVector<Value> local = groupTokens(mul(group, c(G_)), count);
    SmallVector<Value> tokens;
    for (Value j : local) tokens.push_back(add(block.first, j));
    SmallVector<SmallVector<Value>> rows(count);  // per token: key, then each readout's query row
    for (int64_t i = 0; i < count; ++i) {
      rows[i].push_back(mul(tokens[i], kStride_));
      Value queryRow = mul(tokens[i], qStride_);
      for (int64_t g = 0; g < R_; ++g) rows[i].push_back(add(queryRow, readout(qReadout_, g)));
    }
    auto mem = [&](int64_t g) { return g == 0 ? key_ : query_; };
    // P of each token (the first's is the last group's times its decay:
    // 1 after a full sweep, and at the block's start), its gated keys and
    // queries, its row factor for a cheap sweep (key / P), whether any P is
    // out of range, and the last P, which the next group starts from: one
    // pass over the rows.
    Value first = eq(group, 0);
    Value low = b_.create<arith::ConstantOp>(loc_, b_.getF32FloatAttr(kMinScale));
    Value high = b_.create<arith::ConstantOp>(loc_, b_.getF32FloatAttr(1.0f / kMinScale));
    Value lowVector = splat(low);
    Value highVector = splat(high);
    Value anyVector, anyScalar;
    forEachChunk([&](int64_t at, bool vector) {
      Value p;
      for (int64_t i = 0; i < count; ++i) {
        Value d = decayAt(tokens[i], at, vector);
        if (i == 0) {
          Value prior = read(scratch_, c(at_.run + at), vector);
          Value one = constant(1.0f, vector);
          Value from = b_.create<SelectOp>(loc_, first, one, prior);
          p = mulf(d, from);
        } else {
          p = mulf(d, p);
        }
        Value key;
        for (int64_t g = 0; g <= R_; ++g) {
          Value x = read(mem(g), add(rows[i][g], c(at)), vector);
          if (g == 0) key = x;
          Value gated = mulf(p, x);
          write(gated, scratch_, rowIndex(local[i], g, c(at)));
        }
        Value cheap = b_.create<arith::DivFOp>(loc_, key, p);
        write(cheap, scratch_, rowIndex(local[i], 1 + R_, c(at)));
        Value below = b_.create<arith::CmpFOp>(loc_, arith::CmpFPredicate::ULT, p, vector ? lowVector : low);
        Value above = b_.create<arith::CmpFOp>(loc_, arith::CmpFPredicate::UGT, p, vector ? highVector : high);
        Value out = b_.create<arith::OrIOp>(loc_, below, above);
        Value& any = vector ? anyVector : anyScalar;
        any = any ? b_.create<arith::OrIOp>(loc_, any, out).getResult() : out;
      }
      write(p, scratch_, c(at_.run + at));
    });
    Value last = add(local[count - 1], c(1));
    Value blockEnd = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::eq, last, block.count);
    Value next = add(tokens[count - 1], c(1));
    Value inBlock = rem(next, c(GDR_TOKEN_BLOCK));
    Value full = b_.create<arith::OrIOp>(loc_, blockEnd, eq(inBlock, 0));
    if (anyVector) {
      Value out = b_.create<vector::ReductionOp>(loc_, b_.getI1Type(), "or", anyVector, ValueRange{});
      full = b_.create<arith::OrIOp>(loc_, full, out);
    }
    if (anyScalar) full = b_.create<arith::OrIOp>(loc_, full, anyScalar);
    Value one = constant(1.0f, false), zero = constant(0.0f, false);
    Value fullFloat = b_.create<SelectOp>(loc_, full, one, zero);
    b_.create<memref::StoreOp>(loc_, fullFloat, scratch_, ValueRange{scalarIndex(local[0], kFull)});
    // A full sweep (rare in a long block) rewrites what it needs: each row
    // factor is the key times the decays of the group's later tokens, the
    // scale is the last P, and the next group starts from 1. A second pass
    // over every group's rows (selecting the factor once `full` was known)
    // cost 2-4% (AOT kernels alternated in one process, 1 thread, T = 512,
    // 2026-12-06, Ice Lake Xeon, medians, two passes -> one: K = V = 64,
    // H = 32 3.39 / 3.40 / 3.59 -> 3.28 / 3.29 / 3.46 ms; K = V = 128
    // 13.1 -> 12.8, token-major 15.5 -> 15.2; K = V = 256, H = 16 31.0 ->
    // 30.0).
    ifElse(
        full,
        [&] {
          forEachChunk([&](int64_t at, bool vector) {
            // laterDecays[i]: the product of the decays of the tokens after i.
            SmallVector<Value> laterDecays(count);
            for (int64_t i = count - 2; i >= 0; --i) {
              Value d = decayAt(tokens[i + 1], at, vector);
              laterDecays[i] = laterDecays[i + 1] ? mulf(laterDecays[i + 1], d) : d;
            }
            for (int64_t i = 0; i < count; ++i) {
              Value key = read(key_, add(rows[i][0], c(at)), vector);
              Value whole = laterDecays[i] ? mulf(laterDecays[i], key) : key;
              write(whole, scratch_, rowIndex(local[i], 1 + R_, c(at)));
            }
            Value p = read(scratch_, c(at_.run + at), vector);
            write(p, scratch_, scaleIndex(group, c(at)));
            Value restart = constant(1.0f, vector);
            write(restart, scratch_, c(at_.run + at));
          });
        },
        [] {});
    // The dot products.
    for (int64_t i = 0; i < count; ++i) {
      for (int64_t g = 0; g < R_; ++g) {
        Value kq = gatedDot(rows[i][0], {}, query_, rows[i][1 + g]);
        b_.create<memref::StoreOp>(loc_, kq, scratch_, ValueRange{scalarIndex(local[i], kKq + g)});
      }
    }
    for (int64_t t = 1; t < count; ++t) {
      for (int64_t s = t - 1; s >= 0; --s) {
        ArrayRef<Value> decays = ArrayRef<Value>(tokens).slice(s + 1, t - s);
        for (int64_t g = 0; g <= R_; ++g) {
          Value correction = gatedDot(rows[s][0], decays, mem(g), rows[t][g]);
          b_.create<memref::StoreOp>(loc_, correction, scratch_,
                                     ValueRange{scalarIndex(local[t], correctionSlot(t - 1 - s, g))});
        }
      }
    }
  }

  // Block tokens j, j + 1, ... of a group of `count`.
  SmallVector<Value> groupTokens(Value j, int64_t count) {
    SmallVector<Value> local{j};
    for (int64_t i = 1; i < count; ++i) local.push_back(add(j, c(i)));
    return local;
  }

  // Whether a token's key, query or channelwise decay row is not K floats
  // after the token before's (token-major; one key or query head gives
  // rows K apart, the other rows still not).
  Value stridedRows() {
    Value keys = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ne, kStride_, c(K_));
    Value queries = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ne, qStride_, c(K_));
    Value strided = b_.create<arith::OrIOp>(loc_, keys, queries);
    if (scalarDecay_) return strided;
    Value decays = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ne, dStride_, c(K_));
    return b_.create<arith::OrIOp>(loc_, strided, decays);
  }

  // The rows of `token` a rows pass reads (memref, row start): the key,
  // each readout's query and the channelwise decay, of this task if
  // `inTask`, else of the worker's next task; scalar decay's one float is
  // prefetched here.
  SmallVector<std::pair<Value, Value>> passRows(Value token, Value inTask) {
    auto pick = [&](Value own, Value next) { return b_.create<SelectOp>(loc_, inTask, own, next).getResult(); };
    SmallVector<std::pair<Value, Value>> rows;
    Value key = pick(key_, nextKey_);
    Value keyStride = pick(kStride_, nextKStride_);
    rows.push_back({key, mul(token, keyStride)});
    Value query = pick(query_, nextQuery_);
    Value queryStride = pick(qStride_, nextQStride_);
    Value queryRow = mul(token, queryStride);
    Value readoutStride = R_ > 1 ? pick(qReadout_, nextQReadout_) : Value();
    for (int64_t g = 0; g < R_; ++g) rows.push_back({query, add(queryRow, readout(readoutStride, g))});
    Value decay = pick(decay_, nextDecay_);
    Value decayStride = pick(dStride_, nextDStride_);
    Value decayRow = mul(token, decayStride);
    if (scalarDecay_)
      prefetch(decay, decayRow, /*write=*/false);
    else
      rows.push_back({decay, decayRow});
    return rows;
  }

  // Σ_k key[keyRow + k] · Π_t decay_t[k] · mem[row + k] over the tokens t
  // of `decays` (none: no decay): whole vectors, one fixed-order
  // reduction, then scalars.
  Value gatedDot(Value keyRow, ArrayRef<Value> decays, Value mem, Value row) {
    Value sum = b_.create<arith::ConstantOp>(loc_, b_.getF32FloatAttr(0.0f));
    Value acc;
    forEachChunk([&](int64_t at, bool vector) {
      Value key = read(key_, add(keyRow, c(at)), vector);
      for (Value t : decays) key = mulf(key, decayAt(t, at, vector));
      Value other = read(mem, add(row, c(at)), vector);
      if (vector) {
        acc = fma(key, other, acc ? acc : zero_);
        return;
      }
      if (acc) {
        sum = b_.create<vector::ReductionOp>(loc_, f32_, "add", acc, ValueRange{});
        acc = Value();
      }
      sum = b_.create<arith::AddFOp>(loc_, sum, mulf(key, other));
    });
    if (acc) sum = b_.create<vector::ReductionOp>(loc_, f32_, "add", acc, ValueRange{});
    return sum;
  }

  // ---- One tile over one block ----

  // Whether a block of `tokens` tokens runs as one group, as a block of one
  // token does (emitOneGroupBlock), rather than packed (emitTile): one
  // token always; a pair with pairs (sweep_tokens 2), not on 16 registers,
  // where the sweep that writes one tile and sums the next one's pair would
  // spill; three or four tokens likewise, in tiles narrow enough
  // (groupVectors). Pairs, gdr-bench, 3 rounds alternated with the build
  // before (2026-12-06, Sapphire Rapids, --impl auto --T 0,2,4
  // --interleave-cases 1), T = 2 / T = 0 before -> after on 1 / 2 threads:
  // K = V = 128, H = 32 1.21-1.26 -> 1.18-1.26 / 1.45-1.46 -> 1.23-1.26;
  // K = V = 64, B = 16 1.21 -> 1.09 / 1.18 -> 1.05; K = V = 128, B = 16
  // 1.24 -> 1.24 / 1.20 -> 1.20; K = V = 256, H = 16 1.10 -> 1.17 / 1.19 ->
  // 1.16 (1.08-1.17 and 1.13-1.17 over the rounds: within their noise).
  // Three and four tokens (with the L2 prefetches of readAhead), the same
  // way (2026-12-06, Ice Lake, --T 0,1,2,3,4 over 14 decode shapes),
  // T = 4 / T = 0 on 1 / 2 threads: K = V = 128, H = 32, B = 16 1.36-1.41
  // -> 1.17-1.20 / 1.36-1.39 -> 1.18-1.23; K = V = 256, H = 16, B = 16
  // 1.32-1.37 -> 1.14-1.15 / 1.35-1.36 -> 1.14-1.16; Qwen3-Next's form,
  // B = 16 1.41-1.44 -> 1.14-1.15 / 1.37-1.43 -> 1.14-1.15; T = 3 alike;
  // B = 1 less, states in L2 not (docs/recurrent-route.md). The kernel
  // compiles in about twice the time.
  bool oneGroupBlocks(int64_t tokens) const {
    if (tokens == 1) return true;
    return G_ == 2 && !scarceRegisters_ && groupVectors(tokens) > 0;
  }
  // The most tokens a one-group block has: blocks of 1 to this many run as
  // one group (fewer tokens never need more registers).
  int64_t oneGroupTokens() const {
    int64_t tokens = 1;
    while (tokens < kMaxGroup && oneGroupBlocks(tokens + 1)) ++tokens;
    return tokens;
  }
  // The vectors of a one-group block's tile: the schedule's, or for three
  // or four tokens the most (a power of two, at most the schedule's) whose
  // sums fit 16 registers, next to the deltas and the row (none: 0): four
  // tokens on 4 vectors would take 32 sums, every register.
  int64_t groupVectors(int64_t tokens) const {
    const int64_t n = tile_ / W_;
    if (tokens <= 2) return n;
    int64_t m = pow2Below(n + 1);
    while (m > 0 && tokens * (1 + R_) * m > 16) m /= 2;
    return m;
  }

  // A block of one token (decode), or of 2 to 4 (oneGroupBlocks, above): each
  // whole tile's sweep that writes final_state also sums the next whole
  // tile, so that of the read-only sums sweeps only the first tile's runs
  // apart from the state's stream. Without any sums sweep (wrong results,
  // the bound) T = 1 took 1.02-1.04x the copy (T = 0) at K = V = 128 and
  // 256, against 1.11-1.25x with them. AOT
  // kernels alternated in one process (2026-12-03, Zen 5, streamed, H = 16,
  // K = V = 256, 8-vector tiles, 2 a head), T = 1 against T = 0 before /
  // after: 1.20x / 1.13x on 1 thread, 1.11x / 1.07x on 2; with 4-vector
  // tiles 1.20x / 1.10x and 1.09x / 1.04x. With 2 and 3 readouts, and AVX2
  // kernels (x86-64-v3, 8-vector tiles, the same machine) with 1 to 3, the
  // new time was 0.88-1.01x the old one.
  //
  // Across tasks (kernel ABI 5): the sweep that writes the last whole tile
  // of a task that ends on a one-group block of n tokens (always its last
  // block) sums the first tile of the worker's next task too, when that
  // task is n tokens with a whole tile, and leaves the sums in
  // scratch under the next task's tag; that task, finding its tag there,
  // skips its read-only sweep. In a run of such tasks only the first
  // task's first sweep (and the sweeps of partial tiles) then reads without
  // writing. The sums are the same operations in the same order as the
  // task's own: the task's first gated rows are its decay times its key and
  // queries (P starts at 1; each next token's, that times its decay times
  // its key and queries). The same kernel with and without tags, alternated in one
  // process (2026-12-03, Zen 3, AVX2, streamed, 8-vector tiles, H = 32),
  // T = 1 median ms on 1 / 2 threads: K = V = 64 0.069 -> 0.057 / 0.028 ->
  // 0.022, K = V = 128 0.182 -> 0.156 / 0.126 -> 0.110; K = V = 256 (H =
  // 16) 0.312 -> 0.293 / 0.177 -> 0.167.
  void emitOneGroupBlock(const Block& block, int64_t tokens) {
    Value sourceMem = block.source;
    Value destMem = block.dest;
    const int64_t n = groupVectors(tokens);
    const int64_t width = n * W_;
    const int64_t sums = tokens * (1 + R_) * n;
    Value tilesEnd = wholeTilesEnd(width);
    Value any = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, vBegin_, tilesEnd);
    Value handed = b_.create<arith::AndIOp>(loc_, block.isFirst, sumsHandedIn());
    SmallVector<Value> first = ifElseValues(any, sums, [&] {
      return ifElseValues(handed, sums, [&] { return loadHandedSums(sums); }, [&] {
        return emitFirstSums(block, statePlace(sourceMem, vBegin_), nullptr, tokens, n, Value());
      });
    }, [&] { return zeros(sums); });
    Value handOff = handsOff(tokens, width);
    loop(vBegin_, tilesEnd, c(width), first, [&](Value col, ValueRange acc) {
      Tile tile{block, col, n, Value()};
      Place source = statePlace(sourceMem, col);
      Place final = statePlace(destMem, col);
      Value next = add(col, c(width));
      Value more = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, next, tilesEnd);
      return ifElseValues(more, sums, [&] {
        Following following{statePlace(sourceMem, next), [&](Value k) { return gatedRow(c(0), k, tokens); },
                            [&] { return nextTile(sourceMem, add(col, c(2 * width))); }};
        return emitGroup(tile, c(0), tokens, 0, source, final, acc, &following);
      }, [&] {
        ifElse(handOff, [&] {
          Place theirFirst = statePlace(next_, c(0));
          Following nextTasks{theirFirst, [&](Value k) { return nextTaskGatedRow(k, tokens); },
                              [&] { return NextTile{next_, c(width)}; }};
          SmallVector<Value> theirs = emitGroup(tile, c(0), tokens, 0, source, final, acc, &nextTasks);
          for (int64_t i = 0; i < sums; ++i) store(theirs[i], scratch_, c(handedSumAt(i)), Value());
          storeTag(nextTag_);
        }, [&] { emitGroup(tile, c(0), tokens, 0, source, final, acc); });
        return zeros(sums);
      });
    });
    forEachTileAfter(tilesEnd, n, [&](Value col, int64_t n, Value mask) {
      Place source = statePlace(sourceMem, col);
      SmallVector<Value> sums = emitFirstSums(block, source, nullptr, tokens, n, mask);
      emitGroup(Tile{block, col, n, mask}, c(0), tokens, 0, source, statePlace(destMem, col), sums);
    });
  }

  // One tile over a block that does not run as one group (oneGroupBlocks).
  void emitTile(const Block& block, Value col, int64_t n, Value mask) {
    // Between tokens the tile lives packed in the worker's scratch (rows
    // n·W apart), which uses every L1 set instead of the few a strided tile
    // maps to.
    Place source = statePlace(block.source, col);
    Place final = statePlace(block.dest, col);
    Place packed{scratch_, [&](Value k, int64_t j) {
                   Value row = mul(k, c(n * W_));
                   return add(row, c(at_.packed + j * W_));
                 }};
    Tile tile{block, col, n, mask};
    // Groups of G_ tokens (the first sweep packs the state while it
    // sums); with pairs, the last token alone if the count is odd.
    SmallVector<Value> acc = emitFirstSums(block, source, &packed, G_, n, mask);
    Value groups = div(block.count, c(G_));
    Value beforeLast = sub(groups, c(1));
    Value lastGroup = mul(beforeLast, c(G_));
    Value begin = c(0), step = c(G_);
    // A head of one tile computes the block's later rows as it sweeps
    // (interleavesRows): its whole tile is the task's only one, and runs
    // this loop only if the block has kRowsAhead groups or more.
    const bool rowsAhead = interleavesRows() && n == tile_ / W_ && !mask;
    acc = loop(begin, lastGroup, step, acc, [&](Value j, ValueRange a) {
      if (rowsAhead) emitRowsAhead(block, div(j, c(G_)), groups);
      return emitGroup(tile, j, G_, G_, packed, packed, a);
    });
    if (G_ == 1) {
      emitGroup(tile, lastGroup, 1, 0, packed, final, acc);
      return;
    }
    ifElse(isOdd(block.count), [&] {
      SmallVector<Value> single = emitGroup(tile, lastGroup, 2, 1, packed, packed, acc);
      emitGroup(tile, sub(block.count, c(1)), 1, 0, packed, final, single);
    }, [&] {
      emitGroup(tile, lastGroup, 2, 0, packed, final, acc);
    });
  }

  // Where a tile read later starts (nextTile).
  struct NextTile {
    Value mem, column;
  };

  struct Tile {
    const Block& block;
    Value col;
    int64_t n;
    Value mask;
  };

  // A whole tile a one-group sweep sums while it writes another: where it
  // is, row k's broadcasts of the gated key and queries it is summed with,
  // and the tile read after it (which a streamed sweep prefetches).
  struct Following {
    Place tile;
    std::function<SmallVector<Value>(Value k)> gated;  // 1 + R broadcasts a token of the group
    std::function<NextTile()> ahead;
  };

  // ---- First sums handed from task to task (kernel ABI 5) ----

  // Whether this task's first sums are in scratch: its tag is non-zero and
  // the scratch holds it.
  Value sumsHandedIn() {
    Value tagged = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ne, ownTag_, c(0));
    Value held = load(scratch_, c(at_.tag), Value(), tagType());
    Value bits = b_.create<vector::BitCastOp>(loc_, VectorType::get({1}, b_.getI64Type()), held);
    Value mark = b_.create<vector::ExtractOp>(loc_, bits, ArrayRef<int64_t>{0});
    Value mine = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::eq, mark, tagMark(ownTag_));
    return b_.create<arith::AndIOp>(loc_, tagged, mine);
  }
  // A tag is kept inverted: its high float is then all ones, a NaN no
  // arithmetic makes, so floats other work left in scratch never read as a
  // tag (runtime tags are small positive numbers).
  Value tagMark(Value tag) {
    Value wide = b_.create<arith::IndexCastOp>(loc_, b_.getI64Type(), tag);
    Value ones = b_.create<arith::ConstantOp>(loc_, b_.getI64IntegerAttr(-1));
    return b_.create<arith::XOrIOp>(loc_, wide, ones);
  }
  // Whether this task hands its next task's first sums on: the next task
  // has a tag, `tokens` tokens (its one group) and a whole tile (`width`
  // columns).
  Value handsOff(int64_t tokens, int64_t width) {
    Value tagged = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ne, nextTag_, c(0));
    Value oneGroup = eq(nextT_, tokens);
    Value whole = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::uge, nextColumns_, c(width));
    Value both = b_.create<arith::AndIOp>(loc_, tagged, oneGroup);
    return b_.create<arith::AndIOp>(loc_, both, whole);
  }
  VectorType tagType() { return VectorType::get({kTagFloats}, f32_); }
  void storeTag(Value tag) {
    Value mark = tagMark(tag);
    Value one = b_.create<vector::BroadcastOp>(loc_, VectorType::get({1}, b_.getI64Type()), mark);
    Value bits = b_.create<vector::BitCastOp>(loc_, tagType(), one);
    b_.create<vector::StoreOp>(loc_, bits, scratch_, ValueRange{c(at_.tag)});
  }
  SmallVector<Value> loadHandedSums(int64_t count) {
    SmallVector<Value> sums;
    for (int64_t i = 0; i < count; ++i) sums.push_back(load(scratch_, c(handedSumAt(i)), Value()));
    return sums;
  }
  // Row k's broadcasts of the gated key and queries of the next task's
  // first `count` tokens (its one group), as its own rows pass computes
  // them: P is its first decay, then that times each next one.
  SmallVector<Value> nextTaskGatedRow(Value k, int64_t count) {
    SmallVector<Value> gated;
    Value p;
    for (int64_t i = 0; i < count; ++i) {
      // Index x of the token's row of a tensor whose token stride is `stride`.
      auto at = [&](Value stride, Value x) {
        if (i == 0) return x;
        Value row = i == 1 ? stride : mul(stride, c(i));
        return add(row, x);
      };
      Value decay = scalar(nextDecay_, at(nextDStride_, scalarDecay_ ? c(0) : k));
      p = i == 0 ? decay : mulf(decay, p);
      Value key = scalar(nextKey_, at(nextKStride_, k));
      Value gatedKey = mulf(p, key);
      gated.push_back(splat(gatedKey));
      for (int64_t g = 0; g < R_; ++g) {
        Value readoutAt = add(readout(nextQReadout_, g), k);
        Value query = scalar(nextQuery_, at(nextQStride_, readoutAt));
        Value gatedQuery = mulf(p, query);
        gated.push_back(splat(gatedQuery));
      }
    }
    return gated;
  }

  // The sums of the first group's `count` tokens over the state, copying it
  // into `pack` on the way if given.
  SmallVector<Value> emitFirstSums(const Block& block, const Place& source, const Place* pack, int64_t count,
                                   int64_t n, Value mask) {
    return sweepRows(block.rowsPerStep, zeros(count * (1 + R_) * n), [&](Value k, ValueRange acc) {
      SmallVector<Value> gated = gatedRow(c(0), k, count);
      SmallVector<Value> next(acc.begin(), acc.end());
      for (int64_t j = 0; j < n; ++j) {
        Value s = load(source.mem, source.at(k, j), mask);
        if (pack) store(s, pack->mem, pack->at(k, j), mask);
        accumulate(s, gated, j, n, next);
      }
      return next;
    });
  }

  // Row k's broadcasts of the gated keys and queries of the `count` tokens
  // from block token j (token i's key, then its readouts' queries).
  SmallVector<Value> gatedRow(Value j, Value k, int64_t count) {
    SmallVector<Value> gated;
    for (int64_t i = 0; i < count; ++i) {
      Value token = i == 0 ? j : add(j, c(i));
      for (int64_t g = 0; g <= R_; ++g) gated.push_back(gatedAt(token, g, k));
    }
    return gated;
  }
  // Row k's broadcast of block token `token`'s gated row g (0: key, then
  // its readouts' queries).
  Value gatedAt(Value token, int64_t g, Value k) { return splat(scalar(scratch_, rowIndex(token, g, k))); }
  // acc[x · n + j] += s · gated[x] for every gated row x (vector j of a row).
  void accumulate(Value s, ArrayRef<Value> gated, int64_t j, int64_t n, SmallVector<Value>& acc) {
    for (size_t x = 0; x < gated.size(); ++x) acc[x * n + j] = fma(s, gated[x], acc[x * n + j]);
  }
  // The same sums over a whole row (its n vectors) of gatedRow(j, k, count),
  // one broadcast at a time: on 16 registers a pair's 8 accumulators, its 4
  // deltas and the row leave no room for its 4 broadcasts at once, and LLVM
  // spilled accumulators when they were all loaded first.
  void accumulateEachGated(ArrayRef<Value> row, Value j, Value k, int64_t count, SmallVector<Value>& acc) {
    const int64_t n = row.size();
    for (int64_t i = 0; i < count; ++i) {
      Value token = i == 0 ? j : add(j, c(i));
      for (int64_t g = 0; g <= R_; ++g) {
        Value gated = gatedAt(token, g, k);
        const int64_t x = i * (1 + R_) + g;
        for (int64_t v = 0; v < n; ++v) acc[x * n + v] = fma(row[v], gated, acc[x * n + v]);
      }
    }
  }

  // Emits `sweep(stream)` (the final state's sweep or out's stores) for a
  // tile of n vectors twice, chosen by `stream` at run time; once, cached,
  // without a `stream` flag (tiles that are not whole cache lines), for
  // masked vectors (no non-temporal masked store) and tiles that are not
  // whole lines or follow ones that are not (rows start lines,
  // LowerToLLVM.cpp). The sweep returns `results` vectors.
  SmallVector<Value> streamedOrCached(Value stream, Value mask, int64_t n, int64_t results,
                                      function_ref<SmallVector<Value>(bool stream)> sweep) {
    if (!stream || !wholeLines(mask, n)) return sweep(false);
    return ifElseValues(stream, results, [&] { return sweep(true); }, [&] { return sweep(false); });
  }
  // Whether a tile of n vectors (masked or not) is whole 64-byte lines,
  // which non-temporal stores need.
  bool wholeLines(Value mask, int64_t n) const { return !mask && (n * W_) % kLineFloats == 0; }

  // Finishes the group of `count` tokens from block token j (delta, the
  // outputs) from their sums `acc` (per token: Sᵀdk, then Sᵀdq of each
  // readout, over the tile before the group), then sweeps the tile from
  // `source` to `dest` with the group's updates, accumulating the sums of
  // the next group's `nextCount` tokens on the way; none (0) after the
  // block's last token, whose sweep writes the block's dest (final_state,
  // streamed or cached, in the task's last block; else the scratch) and,
  // given a `following` tile of a one-group block, returns that tile's
  // sums.
  //
  // A token sees the updates of the group's earlier ones through its sums'
  // corrections: Sᵀdk of token t over the tile after token s is its sum
  // over the tile before plus (k_s · (decay_{s+1} ⊙ ... ⊙ decay_t ⊙ k_t))
  // delta_s, and likewise for each query. The update is S̃ += Σ_i f_i ⊗ delta_i (cheap),
  // or S = scale ⊙ S̃ + Σ_i f_i ⊗ delta_i (full), f_i the tokens' row
  // factors.
  SmallVector<Value> emitGroup(const Tile& tile, Value j, int64_t count, int64_t nextCount,
                               const Place& source, const Place& dest, ValueRange acc,
                               const Following* following = nullptr) {
    const int64_t n = tile.n;
    const Value mask = tile.mask;
    const int64_t perToken = (1 + R_) * n;
    SmallVector<Value> local = groupTokens(j, count);
    SmallVector<Value> tokens;
    for (Value x : local) tokens.push_back(add(tile.block.first, x));
    SmallVector<SmallVector<Value>> delta(count, SmallVector<Value>(n));
    for (int64_t i = 0; i < count; ++i) {
      Value token = tokens[i];
      Value valueRow = add(mul(token, vStride_), tile.col);
      Value outRow = add(mul(token, oStride_), tile.col);
      Value beta = splat(scalar(beta_, mul(token, bStride_)));
      // The earlier tokens' updates as this token's sums see them (nearest
      // first); factors[s] is the broadcast correction by token i - 1 - s.
      auto corrected = [&](Value sum, int64_t g, int64_t x, SmallVector<Value>& factors) {
        for (int64_t back = 0; back < i; ++back) {
          if (factors.size() == size_t(back))
            factors.push_back(splat(scalar(scratch_, scalarIndex(local[i], correctionSlot(back, g)))));
          sum = fma(factors[back], delta[i - 1 - back][x], sum);
        }
        return sum;
      };
      SmallVector<Value> keyFactors;
      for (int64_t x = 0; x < n; ++x) {
        Value v = load(value_, add(valueRow, c(x * W_)), mask);
        Value predicted = corrected(acc[i * perToken + x], 0, x, keyFactors);
        delta[i][x] = b_.create<arith::MulFOp>(loc_, beta, b_.create<arith::SubFOp>(loc_, v, predicted));
      }
      SmallVector<std::pair<Value, Value>> outs;  // (where, what)
      for (int64_t g = 0; g < R_; ++g) {
        Value kq = splat(scalar(scratch_, scalarIndex(local[i], kKq + g)));
        Value outAt = add(outRow, readout(oReadout_, g));
        SmallVector<Value> queryFactors;
        for (int64_t x = 0; x < n; ++x) {
          Value sq = corrected(acc[i * perToken + (1 + g) * n + x], 1 + g, x, queryFactors);
          Value out = fma(kq, delta[i][x], sq);
          outs.push_back({add(outAt, c(x * W_)), out});
        }
      }
      streamedOrCached(outStreaming_, mask, n, 0, [&](bool streamed) {
        for (auto [at, out] : outs) store(out, out_, at, mask, streamed);
        return SmallVector<Value>{};
      });
    }
    const bool last = nextCount == 0;
    if (!last && prefetch_ > 0)
      for (Value token : tokens) emitPrefetch(tile.col, token, n, mask);
    Value group = div(j, c(G_));
    // Row k of a sweep: the scale (full only) and each token's row factor,
    // broadcast once per row.
    auto rowFactors = [&](Value k, bool isFull) {
      SmallVector<Value> f;
      if (isFull) f.push_back(splat(scalar(scratch_, scaleIndex(group, k))));
      for (int64_t i = 0; i < count; ++i) f.push_back(splat(scalar(scratch_, rowIndex(local[i], 1 + R_, k))));
      return f;
    };
    auto update = [&](ArrayRef<Value> f, bool isFull, int64_t x, Value s) {
      if (isFull) s = mulf(s, f[0]);
      for (int64_t i = 0; i < count; ++i) s = fma(f[(isFull ? 1 : 0) + i], delta[i][x], s);
      return s;
    };
    if (last) {
      Value stream = streaming_ ? b_.create<arith::AndIOp>(loc_, streaming_, tile.block.isLast).getResult() : Value();
      const int64_t results = following ? count * perToken : 0;  // its group's sums
      return streamedOrCached(stream, mask, n, results, [&](bool streamed) {
        // The tile read after the one this sweep sums (if any).
        NextTile ahead;
        if (streamed && following) {
          ahead = following->ahead();
        } else if (streamed) {
          Value after = add(tile.col, c(n * W_));
          ahead = nextTile(tile.block.source, after);
        }
        return sweepRows(tile.block.rowsPerStep, zeros(results), [&](Value k, ValueRange sums) {
          SmallVector<Value> f = rowFactors(k, /*isFull=*/true);
          SmallVector<Value> gated = following ? following->gated(k) : SmallVector<Value>{};
          if (streamed && following) prefetchReadAhead(following->tile, ahead, k, n);
          else if (streamed) prefetchRow(ahead, k, n);
          SmallVector<Value> out(sums.begin(), sums.end());
          for (int64_t x = 0; x < n; ++x) {
            Value s = load(source.mem, source.at(k, x), mask);
            s = update(f, true, x, s);
            // Streamed only in the task's last block: dest is final_state.
            store(s, streamed ? s1_ : dest.mem, dest.at(k, x), mask, streamed);
            if (!following) continue;
            Value next = load(following->tile.mem, following->tile.at(k, x), mask);
            accumulate(next, gated, x, n, out);
          }
          return out;
        });
      });
    }
    Value next = add(j, c(count));
    SmallVector<std::pair<Value, Value>> ahead = nextBlockRows(tokens);
    auto sweep = [&](bool isFull) {
      return sweepRows(tile.block.rowsPerStep, zeros(nextCount * perToken), [&](Value k, ValueRange sums) {
        SmallVector<Value> f = rowFactors(k, isFull);
        // Wider targets keep the broadcasts first and sum each vector as it
        // is stored: their IR as it was measured.
        SmallVector<Value> gated = scarceRegisters_ ? SmallVector<Value>{} : gatedRow(next, k, nextCount);
        SmallVector<Value> out(sums.begin(), sums.end());
        SmallVector<Value> row;
        for (int64_t x = 0; x < n; ++x) {
          Value s = load(source.mem, source.at(k, x), mask);
          s = update(f, isFull, x, s);
          store(s, dest.mem, dest.at(k, x), mask);
          if (scarceRegisters_) row.push_back(s);
          else accumulate(s, gated, x, n, out);
        }
        if (scarceRegisters_) accumulateEachGated(row, next, k, nextCount, out);
        return out;
      }, [&](Value k0) {
        for (auto [mem, row] : ahead) prefetch(mem, add(row, k0), /*write=*/false, kIntoL2);
      });
    };
    Value fullFloat = scalar(scratch_, scalarIndex(j, kFull));
    Value full = b_.create<arith::CmpFOp>(loc_, arith::CmpFPredicate::ONE, fullFloat, constant(0.0f, false));
    return ifElseValues(full, nextCount * perToken, [&] { return sweep(true); },
                        [&] { return sweep(false); });
  }

  // Where a tile read later starts: column `after` of the task's columns
  // in `source` (the block's), else (past them) the worker's next task's
  // first column (rows of both are V apart).
  NextTile nextTile(Value source, Value after) {
    Value inTask = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, after, vEnd_);
    Value mem = b_.create<SelectOp>(loc_, inTask, source, next_);
    Value column = b_.create<SelectOp>(loc_, inTask, after, c(0));
    return {mem, column};
  }
  // A one-group block's sweep that writes one tile and sums the next
  // (`reading`) prefetches the row readAhead() rows after the one it sums,
  // past the tile's last row the tile read after it (`after`): a stream a few
  // KiB ahead of the loads. Prefetching the row k of the tile after, a whole
  // tile ahead, left the sums' loads waiting. AOT decode kernels (8-vector
  // tiles, streamed) alternated in one process over 64 copies of the states
  // (512 MiB), 2026-12-06, Sapphire Rapids, median ms of T = 1 (T = 0 beside
  // it): K = V = 256, H = 16, 1 thread 0.501-0.521 (0.448) before, 0.479-0.485
  // (16 or 32 rows ahead), 0.492 (64); K = V = 128, H = 32 0.243-0.253
  // (0.232) before, 0.236-0.240 (16), 0.233-0.243 (32), 0.232 (64); on 2
  // threads 1-4% faster at 8 to 64 rows. gdr-bench: docs/recurrent-route.md.
  // Into L2 (kIntoL2), not L1: the same kind of kernels (4-vector tiles, 64
  // copies), 2026-12-06, Ice Lake, p10 ms of T = 1 / 2 / 4 into L1 -> L2:
  // K = V = 128, H = 32, 1 thread 0.296 / 0.326 / 0.377 -> 0.279 / 0.313 /
  // 0.362, 2 threads 0.136 / 0.151 / 0.176 -> 0.127 / 0.142 / 0.169;
  // K = V = 256, H = 16, 1 thread 0.583 / 0.612 / 0.700 -> 0.544 / 0.574 /
  // 0.663, 2 threads 0.299 / 0.306 / 0.358 -> 0.282 / 0.281 / 0.341;
  // K = V = 64 within 1%; T = 0 the same.
  int64_t readAhead() const { return std::min<int64_t>(32, K_); }
  void prefetchReadAhead(const Place& reading, const NextTile& after, Value k, int64_t n) {
    Value ahead = add(k, c(readAhead()));
    Value inTile = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, ahead, c(K_));
    Value past = sub(ahead, c(K_));
    Value pastRow = add(mul(past, c(V_)), after.column);
    Value mem = b_.create<SelectOp>(loc_, inTile, reading.mem, after.mem);
    for (int64_t j = 0; j < n * W_; j += kLineFloats) {
      Value here = reading.at(ahead, j / W_);
      Value there = add(pastRow, c(j));
      Value at = b_.create<SelectOp>(loc_, inTile, here, there);
      prefetch(mem, at, /*write=*/false, kIntoL2);
    }
  }
  // Prefetches row k of that tile (n vectors), one prefetch per 64-byte
  // line, into L2: AOT kernels as above, p10 ms into L1 -> L2, T = 8 / 16:
  // K = V = 128, H = 32, 1 thread 0.500 / 0.728 -> 0.486 / 0.710, 2 threads
  // 0.247 / 0.352 -> 0.234 / 0.340; K = V = 256, H = 16, 1 thread 0.964 /
  // 1.426 -> 0.921 / 1.396, 2 threads 0.483 / 0.748 -> 0.457 / 0.724;
  // prefill (T = 128, 512) within 0.5%.
  void prefetchRow(const NextTile& ahead, Value k, int64_t n) {
    Value row = add(mul(k, c(V_)), ahead.column);
    for (int64_t j = 0; j < n * W_; j += kLineFloats) prefetch(ahead.mem, add(row, c(j)), /*write=*/false, kIntoL2);
  }

  // The rows of the tokens a block after a group's that the next block's
  // rows pass reads: key, each query and (channelwise) decay; past the
  // task's last token, those of the worker's next task, from its first (the
  // next task's token t + blockTokens_ - T, clamped to its last), whose
  // first block would otherwise wait on them. The group's sweeps prefetch
  // them into L2, a line of each row every kLineFloats rows of the tile, so
  // that the rows pass finds them in cache instead of waiting on memory
  // while the FMA ports idle; scalar decay's row is one float, prefetched
  // here once. Every tile prefetches (the later ones find the lines in
  // cache): the first tile alone, behind a branch, was slower at V = 256
  // (docs/recurrent-route.md); token-major, the first or the last tile
  // alone gained nothing (2026-12-06).
  //
  // Token-major, a token's rows are heads · K floats apart, each in a page
  // of its own, and their lines crowd a few cache sets: only blocks of
  // kStridedBlockTokens keep them in L2 until the rows pass. With blocks of
  // 128 the rows pass prefetching its own rows 4 tokens ahead had been
  // faster (2026-12-03, Zen 3); with blocks of 64 these prefetches are
  // (2026-12-06, Ice Lake Xeon; the numbers are at kStridedBlockTokens).
  //
  // Into L2, not L1 (head-major, AOT kernels alternated in one process, 1
  // thread, T = 512, 2026-12-06, Ice Lake Xeon, medians, L1 -> L2): K = V =
  // 128, H = 32 13.3 / 12.7 / 12.8 -> 13.0 / 12.5 / 12.3 ms; K = V = 256,
  // H = 16 28.0 / 28.1 / 28.8 -> 27.6 / 27.5 / 28.2; K = V = 64 within 1%.
  SmallVector<std::pair<Value, Value>> nextBlockRows(ArrayRef<Value> tokens) {
    SmallVector<std::pair<Value, Value>> rows;  // memref, row start
    for (Value t : tokens) {
      Value at = add(t, blockTokens_);
      Value inTask = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, at, T_);
      Value past = sub(at, T_);
      Value nextLast = sub(nextT_, c(1));
      Value pastLast = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ugt, past, nextLast);
      Value nextToken = b_.create<SelectOp>(loc_, pastLast, nextLast, past);
      Value token = b_.create<SelectOp>(loc_, inTask, at, nextToken);
      rows.append(passRows(token, inTask));
    }
    return rows;
  }

  // Offset of readout g: g · stride (no op for the first).
  Value readout(Value stride, int64_t g) { return g == 0 ? c(0) : mul(stride, c(g)); }

  // Prefetches the rows of token t + prefetch (clamped to the last token)
  // that the tile (n vectors, masked or not) reads apart from the block's
  // rows: beta, the tile's value columns for reading, its output columns
  // for writing (unless streamed). One prefetch per 64-byte line.
  void emitPrefetch(Value col, Value t, int64_t n, Value mask) {
    Value ahead = add(t, c(prefetch_));
    Value inRange = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, ahead, T_);
    Value token = b_.create<SelectOp>(loc_, inRange, ahead, sub(T_, c(1)));
    SmallVector<Value> outRows;
    Value valueRow = add(mul(token, vStride_), col);
    Value outRow = add(mul(token, oStride_), col);
    for (int64_t g = 0; g < R_; ++g) outRows.push_back(add(outRow, readout(oReadout_, g)));
    // Token-major, beta is H floats apart per token, a line per token that
    // no hardware prefetcher follows, and it is on the path to every
    // column's delta.
    Value betaAt = mul(token, bStride_);
    prefetch(beta_, betaAt, /*write=*/false);
    for (int64_t j = 0; j < n * W_; j += kLineFloats) prefetch(value_, add(valueRow, c(j)), /*write=*/false);
    // Streamed out lines are not read: fetching them would only cost the
    // read that streaming saves.
    auto prefetchOut = [&] {
      for (int64_t j = 0; j < n * W_; j += kLineFloats)
        for (Value row : outRows) prefetch(out_, add(row, c(j)), /*write=*/true);
    };
    if (outStreaming_ && wholeLines(mask, n)) ifElse(outStreaming_, [] {}, prefetchOut);
    else prefetchOut();
  }

  Value c(int64_t v) { return b_.create<arith::ConstantIndexOp>(loc_, v); }
  Value isOdd(Value x) {
    Value parity = rem(x, c(2));
    Value zero = c(0);
    return b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ne, parity, zero).getResult();
  }
  Value eq(Value x, int64_t v) {
    Value constantV = c(v);
    return b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::eq, x, constantV).getResult();
  }
  // Where a prefetch brings its line (memref.prefetch's locality hint: 3
  // every cache level, x86 prefetcht0; 2 from L2 out, prefetcht1).
  static constexpr uint32_t kIntoL1 = 3, kIntoL2 = 2;
  void prefetch(Value mem, Value i, bool write, uint32_t locality = kIntoL1) {
    b_.create<memref::PrefetchOp>(loc_, mem, ValueRange{i}, write, locality,
                                  /*isDataCache=*/true);
  }
  Value add(Value x, Value y) { return b_.create<arith::AddIOp>(loc_, x, y); }
  Value sub(Value x, Value y) { return b_.create<arith::SubIOp>(loc_, x, y); }
  Value mul(Value x, Value y) { return b_.create<arith::MulIOp>(loc_, x, y); }
  Value div(Value x, Value y) { return b_.create<arith::DivUIOp>(loc_, x, y); }
  Value rem(Value x, Value y) { return b_.create<arith::RemUIOp>(loc_, x, y); }
  Value mulf(Value x, Value y) { return b_.create<arith::MulFOp>(loc_, x, y); }
  Value fma(Value x, Value y, Value acc) { return b_.create<vector::FMAOp>(loc_, x, y, acc); }
  Value splat(Value s) { return b_.create<vector::BroadcastOp>(loc_, vec_, s); }
  Value scalar(Value mem, Value i) { return b_.create<memref::LoadOp>(loc_, mem, ValueRange{i}); }
  SmallVector<Value> zeros(int64_t count) { return SmallVector<Value>(count, zero_); }
  Value load(Value mem, Value i, Value mask, VectorType type = {}) {
    if (mask)
      return b_.create<vector::MaskedLoadOp>(loc_, vec_, mem, ValueRange{i}, mask, zero_);
    return b_.create<vector::LoadOp>(loc_, type ? type : vec_, mem, ValueRange{i});
  }
  void store(Value v, Value mem, Value i, Value mask, bool nontemporal = false) {
    if (mask) {
      b_.create<vector::MaskedStoreOp>(loc_, mem, ValueRange{i}, mask, v);
      return;
    }
    auto op = b_.create<vector::StoreOp>(loc_, v, mem, ValueRange{i});
    if (nontemporal) op->setAttr(kNontemporalAttr, b_.getUnitAttr());
  }

  OpBuilder& b_;
  Location loc_;
  const int64_t K_, V_, R_;
  const bool scalarDecay_;
  const int64_t W_, tile_, unroll_, prefetch_;
  const int64_t G_;  // tokens per sweep (sweep_tokens): 1 or 2
  // A target of 16 vector registers (x86 SSE and AVX2; #gdr.target's
  // vector_registers): sweeps sum one broadcast at a time
  // (accumulateEachGated; on SSE 18% faster than the 32-register sweeps,
  // docs/recurrent-route.md).
  const bool scarceRegisters_;
  const ScratchLayout at_;
  Type f32_;
  VectorType vec_;
  Value query_, key_, value_, decay_, beta_, s0_, out_, s1_, scratch_, next_, T_, zero_;
  Value vBegin_, vEnd_, streaming_, outStreaming_;
  Value ownTag_, nextTag_, nextColumns_;  // first_sums_tag of this and the next task; its columns
  Value blockTokens_;  // kBlockTokens, or kStridedBlockTokens token-major (stridedRows)
  Value qStride_, kStride_, vStride_, dStride_, bStride_, oStride_, qReadout_, oReadout_;
  // The worker's next task (this task's own if none): the rows its first
  // block reads, its T and their strides.
  Value nextQuery_, nextKey_, nextDecay_, nextT_;
  Value nextQStride_, nextKStride_, nextDStride_, nextQReadout_;
};
struct LowerRecurrentPass : GdrLowerRecurrentBase<LowerRecurrentPass> {
  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation().walk([&](KernelOp k) {
      if (k.getProblem().getRoute() == "recurrent") kernels.push_back(k);
    });
    // Every kernel checked before any is lowered (a lowered kernel's symbol
    // is gone: a taken <name>_body would be seen only in one order).
    for (KernelOp kernel : kernels) {
      if (!kernel.getScheduleAttr()) {
        kernel.emitOpError() << "has no schedule: run gdr-attach-schedule first";
        return signalPassFailure();
      }
      // The entry point goes into the module the passes run on (LowerToLLVM).
      if (kernel->getParentOp() != getOperation()) {
        kernel.emitOpError() << "must be at the top level of the module the passes run on";
        return signalPassFailure();
      }
      // The body takes the name beside the kernel's: a symbol already there
      // (a kernel @k next to @k_body) would be redefined at the end.
      if (SymbolTable::lookupSymbolIn(getOperation(), kernel.getSymName().str() + "_body")) {
        kernel.emitOpError() << "needs the symbol @" << kernel.getSymName() << "_body for its body, and the module has one";
        return signalPassFailure();
      }
    }
    for (KernelOp kernel : kernels) {
      OpBuilder b(kernel);
      const std::string name = kernel.getSymName().str();
      auto fn = b.create<FuncOp>(kernel.getLoc(), name + "_body", RecurrentEmitter::signature(b));
      fn->setAttr("gdr.abi_entry", b.getStringAttr(name));
      fn->setAttr("gdr.vector_bits", b.getI64IntegerAttr(kernel.getScheduleAttr().getVectorWidth() * 32));
      fn->setAttr("gdr.k", b.getI64IntegerAttr(kernel.getProblem().getK()));
      fn->setAttr("gdr.v", b.getI64IntegerAttr(kernel.getProblem().getV()));
      fn->setAttr("gdr.decay_kind", b.getI64IntegerAttr(kernel.getProblem().getGate() == "scalar"
                                                            ? GDR_DECAY_SCALAR
                                                            : GDR_DECAY_CHANNEL));
      fn->setAttr("gdr.readouts", b.getI64IntegerAttr(kernel.getProblem().getReadouts()));
      fn->setAttr("gdr.scratch_floats",
                  b.getI64IntegerAttr(RecurrentEmitter::scratchFloats(kernel.getProblem(),
                                                                      kernel.getScheduleAttr())));
      fn.setPrivate();
      Block* entry = fn.addEntryBlock();
      b.setInsertionPointToStart(entry);
      // The target's registers, else those the schedule's width implies.
      const TargetAttr target = kernel.getTargetAttr();
      const int64_t registers = target ? target.getVectorRegisters()
                                       : vectorRegisters(kernel.getScheduleAttr().getVectorWidth() * 32, "");
      RecurrentEmitter(b, kernel.getLoc(), kernel.getProblem(), kernel.getScheduleAttr(), registers).emit(entry);
      b.create<ReturnOp>(kernel.getLoc());
      kernel.erase();
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createLowerRecurrentPass() { return std::make_unique<LowerRecurrentPass>(); }

}  // namespace mlir::gdr
