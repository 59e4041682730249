// gdr-lower-recurrent: the recurrent route as scf + vector + memref + arith.
//
// Each state column evolves on its own, so the kernel walks the state in
// V-tiles and runs all T tokens of the call on one tile while it stays in
// cache: the state is read once (initial_state) and written once
// (final_state) per call, whatever T is. With dk = decay ⊙ k, dq = decay ⊙ q,
// per token:
//   v_pred = Sᵀ dk,  sq = Sᵀ dq         (vertical sums over K rows: one vector
//                                          accumulator per column vector)
//   delta  = beta (v − v_pred)
//   out    = sq + (k · q) delta          (exact algebra: (DS + k δᵀ)ᵀ q)
//   S      = decay ⊙ S + k ⊗ delta
// Fused across tokens: the sweep that writes token t's update also
// accumulates Sᵀ dk and Sᵀ dq of token t + 1; a read-only sweep before the
// first token gives token 0's sums. Every column goes through the same
// operations in the same order whichever tile or lane holds it, so splitting
// a head's columns over threads gives bit-identical results.
//
// Deferred decay: between tokens the tile holds S̃ with S = diag(P) S̃, P
// the product of the decays since the tile last held S itself. Then
// Sᵀ dk = S̃ᵀ (P' ⊙ k) with P' = P ⊙ decay, and the update is
// S̃ += (k / P') ⊗ delta: a token's sweep costs three FMAs per vector
// instead of a multiply and three FMAs. When P' leaves [kMinScale,
// 1 / kMinScale] (or is NaN: a decay of 0 makes it 0 at once), at the last
// token of every GDR_TOKEN_BLOCK (where the runtime may end a token-major
// call: blocking then changes no bit) and at the call's last token, the
// sweep is S = diag(P') S̃ + k ⊗ delta, and P restarts at 1.
// Measured on the 2-core Sapphire Rapids VM (LLVM: rocketlake, FMA peak
// ~130 GFLOP/s per core), B = 1, H = 32, K = V = 128, T = 512, decay
// U(0.9, 1), one interleaved run of 41 rounds, 2026-12-02: min / median
// 19.7 / 26.5 ms against 22.0 / 28.7 with every sweep full on 1 thread,
// 11.2 / 13.7 against 12.2 / 15.4 on 2.
//
// Forms, facts of the kernel: with scalar decay (gate = scalar) a token's
// decay is one broadcast instead of one per row of the sweep; with R
// readouts (grouped readout) the sweep accumulates Sᵀdq of each of the R
// queries, so the state is updated once for all of them. The task's rows
// come from its arguments (pointers at the task's sequence and head, token
// strides), so layout, head groups, offsets and slots cost nothing per token.
//
// Schedule knobs: vector_width = lanes of the vector type; v_tile = columns
// (v_tile / vector_width vectors, two accumulators each) a sweep keeps in
// registers; unroll = K rows per iteration of the sweep loop; prefetch =
// tokens ahead whose input and output rows each token prefetches. Columns past
// the last whole tile run in smaller whole tiles, then masked vectors.
// Between tokens the tile lives packed in the worker's scratch (K · v_tile
// floats), then the next token's P ⊙ k and R P ⊙ q, P and the sweep's row
// factors (K each, computed once per token): the first token reads
// initial_state, the last writes final_state.
//
// Streaming final state (the entry point's flag, kernel_abi.h): the last
// sweep writes whole vectors with non-temporal stores, which skip reading
// the line first, and prefetches the tile the task (or the worker's next
// task, `next_initial_state`) reads next, so the bus reads while it writes.
//
// Every op is built in a statement of its own (or in a braced list, which
// C++ evaluates left to right), never as one of several arguments of a call:
// the order of those is up to the compiler (GCC and clang differ), and the
// emitted IR must not depend on the compiler that built gdr.
#include <functional>

#include <mlir/Dialect/StandardOps/IR/Ops.h>
#include <mlir/IR/BuiltinOps.h>

#include "PassDetail.h"
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
  RecurrentEmitter(OpBuilder& b, Location loc, ProblemAttr problem, ScheduleAttr schedule)
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
        f32_(b.getF32Type()),
        vec_(VectorType::get({W_}, f32_)) {}

  // Scratch floats: the packed tile, then P ⊙ k and the R P ⊙ q of one
  // token, P and the sweep's row factors.
  static int64_t scratchFloats(ProblemAttr problem, ScheduleAttr schedule) {
    return problem.getK() * (schedule.getVTile() + 3 + problem.getReadouts());
  }

  // The function's arguments: the 8 tensors, the scratch and the next
  // task's initial state as memrefs, then T, the token strides of query,
  // key, value, decay, beta and out, the readout strides of query and out,
  // v_begin, v_end and whether to stream the final state (0 or 1).
  static FunctionType signature(OpBuilder& b) {
    Type mem = MemRefType::get({ShapedType::kDynamicSize}, b.getF32Type());
    Type idx = b.getIndexType();
    SmallVector<Type> args(10, mem);
    args.append(12, idx);
    return b.getFunctionType(args, {});
  }

  void emit(Block* entry) {
    auto a = entry->getArguments();
    query_ = a[0], key_ = a[1], value_ = a[2], decay_ = a[3], beta_ = a[4];
    s0_ = a[5], out_ = a[6], s1_ = a[7], scratch_ = a[8], next_ = a[9];
    T_ = a[10];
    qStride_ = a[11], kStride_ = a[12], vStride_ = a[13], dStride_ = a[14], bStride_ = a[15],
    oStride_ = a[16], qReadout_ = a[17], oReadout_ = a[18];
    Value vBegin = a[19];
    vEnd_ = a[20];
    Value vEnd = vEnd_;
    // Tiles after one that is not whole cache lines start inside lines.
    if (tile_ % kLineFloats == 0)
      streaming_ = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ne, a[21], c(0));
    zero_ = b_.create<arith::ConstantOp>(loc_, vec_, DenseElementsAttr::get(vec_, 0.0f));

    Value columns = sub(vEnd, vBegin);
    Value tiles = div(columns, c(tile_));
    Value whole = mul(tiles, c(tile_));
    Value tilesEnd = add(vBegin, whole);
    loop(vBegin, tilesEnd, c(tile_), {}, [&](Value col, ValueRange) {
      emitTile(col, tile_ / W_, Value());
      return SmallVector<Value>{};
    });
    // Columns past the whole tiles (a head split over threads leaves
    // parts narrower than a tile): one tile of each power-of-two number of
    // vectors below the tile's that still fits, then masked vectors.
    Value rest = tilesEnd;
    for (int64_t m = pow2Below(tile_ / W_); m >= 1; m /= 2) {
      Value width = c(m * W_);
      Value end = add(rest, mul(div(sub(vEnd, rest), width), width));
      loop(rest, end, width, {}, [&](Value col, ValueRange) {
        emitTile(col, m, Value());
        return SmallVector<Value>{};
      });
      rest = end;
    }
    loop(rest, vEnd, c(W_), {}, [&](Value col, ValueRange) {
      Value mask = b_.create<vector::CreateMaskOp>(loc_, VectorType::get({W_}, b_.getI1Type()),
                                                   ValueRange{sub(vEnd, col)});
      emitTile(col, 1, mask);
      return SmallVector<Value>{};
    });
  }

 private:
  using Body = function_ref<SmallVector<Value>(Value iv, ValueRange iterArgs)>;

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

  // Runs `row(k, accs)` for k in [0, K): `unroll` rows per iteration, then
  // the K % unroll remaining rows.
  SmallVector<Value> sweepRows(ValueRange inits, Body row) {
    const int64_t main = K_ - K_ % unroll_;
    SmallVector<Value> accs(inits.begin(), inits.end());
    if (main > 0) {
      Value begin = c(0), end = c(main), step = c(unroll_);
      accs = loop(begin, end, step, accs, [&](Value k0, ValueRange args) {
        SmallVector<Value> acc(args.begin(), args.end());
        for (int64_t r = 0; r < unroll_; ++r) acc = row(add(k0, c(r)), acc);
        return acc;
      });
    }
    if (main < K_) {
      Value begin = c(main), end = c(K_), step = c(1);
      accs = loop(begin, end, step, accs, row);
    }
    return accs;
  }

  // Where a sweep reads or writes the tile: a memref and the index of
  // vector j of row k.
  struct Place {
    Value mem;
    std::function<Value(Value k, int64_t j)> at;
  };

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

  void emitTile(Value col, int64_t n, Value mask) {
    // initial_state and final_state rows are V apart; between tokens the tile
    // lives packed in the worker's scratch (rows n·W apart), which uses every
    // L1 set instead of the few a strided tile maps to.
    Place initial{s0_, [&, col](Value k, int64_t j) {
                    Value row = mul(k, c(V_));
                    Value inRow = add(row, c(j * W_));
                    return add(col, inRow);
                  }};
    Place final{s1_, initial.at};
    Place packed{scratch_, [&](Value k, int64_t j) {
                   Value row = mul(k, c(n * W_));
                   return add(row, c(j * W_));
                 }};
    auto eq = [&](Value x, int64_t v) {
      return b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::eq, x, c(v)).getResult();
    };
    ifElse(eq(T_, 0), [&] {
      // T = 0: the final state is the initial state.
      streamedOrCached(mask, n, [&](bool stream) {
        sweepRows({}, [&](Value k, ValueRange) {
          for (int64_t j = 0; j < n; ++j) {
            Value s = load(s0_, initial.at(k, j), mask);
            store(s, s1_, final.at(k, j), mask, stream);
          }
          return SmallVector<Value>{};
        });
      });
    }, [&] {
      // Token 0's sums Sᵀdk, Sᵀdq over the initial state (read only).
      emitRunningDecay(c(0), Value());
      SmallVector<Value> sums = sweepRows(zeros((1 + R_) * n), [&](Value k, ValueRange acc) {
        SmallVector<Value> gated;
        for (int64_t g = 0; g <= R_; ++g) gated.push_back(splat(scalar(scratch_, add(c(gatedAt(g)), k))));
        SmallVector<Value> next(acc.begin(), acc.end());
        for (int64_t j = 0; j < n; ++j) {
          Value s = load(s0_, initial.at(k, j), mask);
          for (int64_t g = 0; g <= R_; ++g) next[g * n + j] = fma(s, gated[g], acc[g * n + j]);
        }
        return next;
      });
      ifElse(eq(T_, 1), [&] {
        emitToken(col, c(0), initial, final, n, mask, sums, /*last=*/true);
      }, [&] {
        SmallVector<Value> acc = emitToken(col, c(0), initial, packed, n, mask, sums, false);
        Value last = sub(T_, c(1));
        Value second = c(1), step = c(1);
        acc = loop(second, last, step, acc, [&](Value t, ValueRange a) {
          return emitToken(col, t, packed, packed, n, mask, a, false);
        });
        emitToken(col, last, packed, final, n, mask, acc, /*last=*/true);
      });
    });
  }

  // Emits `sweep(stream)` for a tile of n vectors twice, chosen by the
  // streaming flag at run time; once, cached, for masked vectors (no
  // non-temporal masked store) and tiles that are not whole cache lines or
  // follow ones that are not (rows start lines, LowerToLLVM.cpp).
  void streamedOrCached(Value mask, int64_t n, function_ref<void(bool stream)> sweep) {
    if (!streaming_ || mask || (n * W_) % kLineFloats != 0) return sweep(false);
    ifElse(streaming_, [&] { sweep(true); }, [&] { sweep(false); });
  }

  // Finishes token t (delta, the R outputs) from its sums `acc` (Sᵀdk, then
  // Sᵀdq of each readout), then sweeps the tile from `source` to `dest`,
  // accumulating the sums of token t + 1 on the way unless t is the last
  // token (whose sweep writes final_state, streamed or cached).
  //
  // The update is S̃ += (k / P) ⊗ delta (cheap), or S = diag(P) S̃ + k ⊗
  // delta (full: emitRowFactors says when), as the file's comment says.
  SmallVector<Value> emitToken(Value col, Value t, const Place& source, const Place& dest,
                               int64_t n, Value mask, ValueRange acc, bool last) {
    Value keyRow = mul(t, kStride_);
    Value queryRow = mul(t, qStride_);
    Value valueRow = add(mul(t, vStride_), col);
    Value outRow = add(mul(t, oStride_), col);
    Value beta = splat(scalar(beta_, mul(t, bStride_)));
    SmallVector<Value> delta(n);
    for (int64_t j = 0; j < n; ++j) {
      Value v = load(value_, add(valueRow, c(j * W_)), mask);
      delta[j] = b_.create<arith::MulFOp>(loc_, beta, b_.create<arith::SubFOp>(loc_, v, acc[j]));
    }
    for (int64_t g = 0; g < R_; ++g) {
      Value kq = splat(dot(keyRow, add(queryRow, readout(qReadout_, g))));
      Value row = add(outRow, readout(oReadout_, g));
      for (int64_t j = 0; j < n; ++j) {
        Value out = fma(kq, delta[j], acc[(1 + g) * n + j]);
        store(out, out_, add(row, c(j * W_)), mask);
      }
    }
    // Scalar decay: P is one float, broadcast once per token.
    Value tokenScale = scalarDecay_ ? splat(scalar(scratch_, c(runAt()))) : Value();
    // Scalar decay's cheap update k ⊗ (delta / P): the division once per
    // token, not per row.
    SmallVector<Value> scaledDelta = delta;
    Value full;
    if (!last) {
      full = emitRowFactors(t, keyRow);
      if (scalarDecay_) {
        Value one = b_.create<arith::ConstantOp>(loc_, b_.getF32FloatAttr(1.0f));
        Value inverse = b_.create<arith::DivFOp>(loc_, one, scalar(scratch_, c(runAt())));
        Value inverseVector = splat(inverse);
        for (int64_t j = 0; j < n; ++j) scaledDelta[j] = mulf(delta[j], inverseVector);
      }
      emitRunningDecay(add(t, c(1)), full);
      if (prefetch_ > 0) emitPrefetch(col, t, n);
    }
    // Row k of a sweep: S = scale · S̃ + key · delta (full), or
    // S̃ += key · delta (cheap, no scale): the row's broadcasts, once per row.
    struct RowUpdate {
      Value scale, key;
      const SmallVector<Value>& delta;
    };
    auto rowUpdate = [&](Value k, bool isFull) -> RowUpdate {
      auto key = [&] { return splat(scalar(key_, add(keyRow, k))); };
      if (scalarDecay_) return {isFull ? tokenScale : Value(), key(), isFull ? delta : scaledDelta};
      Value factor = splat(scalar(scratch_, add(c(last ? runAt() : factorAt()), k)));
      if (!isFull) return {Value(), factor, delta};
      return {factor, key(), delta};
    };
    auto update = [&](const RowUpdate& u, int64_t j, Value s) {
      if (u.scale) s = mulf(s, u.scale);
      return fma(u.key, u.delta[j], s);
    };
    if (last) {
      streamedOrCached(mask, n, [&](bool stream) {
        NextTile ahead = stream ? nextTile(col, n) : NextTile{};
        sweepRows({}, [&](Value k, ValueRange) {
          RowUpdate u = rowUpdate(k, /*isFull=*/true);
          if (stream) prefetchRow(ahead, k, n);
          for (int64_t j = 0; j < n; ++j) {
            Value s = load(source.mem, source.at(k, j), mask);
            s = update(u, j, s);
            store(s, dest.mem, dest.at(k, j), mask, stream);
          }
          return SmallVector<Value>{};
        });
      });
      return {};
    }
    auto sweep = [&](bool isFull) {
      return sweepRows(zeros((1 + R_) * n), [&](Value k, ValueRange sums) {
        RowUpdate u = rowUpdate(k, isFull);
        SmallVector<Value> gated;
        for (int64_t g = 0; g <= R_; ++g) gated.push_back(splat(scalar(scratch_, add(c(gatedAt(g)), k))));
        SmallVector<Value> next(sums.begin(), sums.end());
        for (int64_t j = 0; j < n; ++j) {
          Value s = load(source.mem, source.at(k, j), mask);
          s = update(u, j, s);
          store(s, dest.mem, dest.at(k, j), mask);
          for (int64_t g = 0; g <= R_; ++g) next[g * n + j] = fma(s, gated[g], sums[g * n + j]);
        }
        return next;
      });
    };
    return ifElseValues(full, (1 + R_) * n, [&] { return sweep(true); }, [&] { return sweep(false); });
  }

  // Where the tile read after this one starts: the next tile of the task's
  // columns, else the worker's next task's first column (initial_state
  // rows of both are V apart).
  struct NextTile {
    Value mem, column;
  };
  NextTile nextTile(Value col, int64_t n) {
    Value after = add(col, c(n * W_));
    Value inTask = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, after, vEnd_);
    Value mem = b_.create<SelectOp>(loc_, inTask, s0_, next_);
    Value column = b_.create<SelectOp>(loc_, inTask, after, c(0));
    return {mem, column};
  }
  // Prefetches row k of that tile (n vectors), one prefetch per 64-byte line.
  void prefetchRow(const NextTile& ahead, Value k, int64_t n) {
    Value row = add(mul(k, c(V_)), ahead.column);
    for (int64_t j = 0; j < n * W_; j += kLineFloats) prefetch(ahead.mem, add(row, c(j)), /*write=*/false);
  }

  // Offset of readout g: g · stride (no op for the first).
  Value readout(Value stride, int64_t g) { return g == 0 ? c(0) : mul(stride, c(g)); }

  // Scratch offset of the gated keys of the token whose sums the next sweep
  // accumulates (after the packed tile): g = 0 is P ⊙ key, g ≥ 1 P ⊙ query
  // of readout g - 1. Computing them once per token keeps the sweep's
  // per-row scalars to broadcasts from memory, which use load ports instead
  // of the FMA ports.
  int64_t gatedAt(int64_t g) const { return K_ * tile_ + g * K_; }
  // P, the product of the decays of the tokens since the tile last held S
  // (one float with scalar decay), then the row factors of the next sweep.
  int64_t runAt() const { return gatedAt(1 + R_); }
  int64_t factorAt() const { return runAt() + K_; }

  // How far P may get from 1 before a full sweep folds it into the tile:
  // |S̃| <= |S| / P overflows only past |S| = 2^108, and a channel that
  // decays by 0.1 per token costs a full sweep every 6 tokens.
  static constexpr float kMinScale = 1.0f / (1 << 20);

  // Token t's P (the previous token's times decay[t], or decay[t] alone
  // after a full sweep: `restart`, null for the first token) and its gated
  // keys, into scratch.
  void emitRunningDecay(Value t, Value restart) {
    Value keyRow = mul(t, kStride_);
    Value queryRow = mul(t, qStride_);
    Value decayRow = mul(t, dStride_);
    SmallVector<Value> rows{keyRow};  // key, then each readout's query row
    SmallVector<Value> mems{key_};
    for (int64_t g = 0; g < R_; ++g) {
      rows.push_back(add(queryRow, readout(qReadout_, g)));
      mems.push_back(query_);
    }
    // P times decay: scalars or vectors of either.
    auto running = [&](Value decay, int64_t at) {
      if (!restart) return decay;
      Value atIndex = c(at);
      Value previous = decay.getType().isa<VectorType>() ? load(scratch_, atIndex, Value()) : scalar(scratch_, atIndex);
      Value one = b_.create<arith::ConstantOp>(loc_, decay.getType(), oneAttr(decay.getType()));
      Value from = b_.create<SelectOp>(loc_, restart, one, previous);
      return mulf(decay, from);
    };
    auto write = [&](Value x, int64_t at) {
      if (x.getType().isa<VectorType>())
        store(x, scratch_, c(at), Value());
      else
        b_.create<memref::StoreOp>(loc_, x, scratch_, ValueRange{c(at)});
    };
    const int64_t vectors = K_ / W_;
    Value tokenScale, tokenScaleVector;
    if (scalarDecay_) {
      tokenScale = running(scalar(decay_, decayRow), runAt());
      write(tokenScale, runAt());
      tokenScaleVector = splat(tokenScale);
    }
    for (int64_t i = 0; i < vectors; ++i) {
      Value p = tokenScaleVector;
      if (!scalarDecay_) {
        Value d = load(decay_, add(decayRow, c(i * W_)), Value());
        p = running(d, runAt() + i * W_);
        write(p, runAt() + i * W_);
      }
      for (int64_t g = 0; g <= R_; ++g) {
        Value x = mulf(p, load(mems[g], add(rows[g], c(i * W_)), Value()));
        write(x, gatedAt(g) + i * W_);
      }
    }
    for (int64_t k = vectors * W_; k < K_; ++k) {
      Value p = tokenScale;
      if (!scalarDecay_) {
        Value d = scalar(decay_, add(decayRow, c(k)));
        p = running(d, runAt() + k);
        write(p, runAt() + k);
      }
      for (int64_t g = 0; g <= R_; ++g) {
        Value x = mulf(p, scalar(mems[g], add(rows[g], c(k))));
        write(x, gatedAt(g) + k);
      }
    }
  }

  // Whether token t's sweep is a full one (its P out of range or NaN, or
  // the last token of a GDR_TOKEN_BLOCK, which the runtime may end a call
  // with) and, for channel decay, its row factors into scratch: P for a
  // full sweep, key / P for the cheap one.
  Value emitRowFactors(Value t, Value keyRow) {
    const int64_t vectors = K_ / W_;
    Value low = b_.create<arith::ConstantOp>(loc_, b_.getF32FloatAttr(kMinScale));
    Value high = b_.create<arith::ConstantOp>(loc_, b_.getF32FloatAttr(1.0f / kMinScale));
    auto outside = [&](Value p, Value lowest, Value highest) {
      Value below = b_.create<arith::CmpFOp>(loc_, arith::CmpFPredicate::ULT, p, lowest);
      Value above = b_.create<arith::CmpFOp>(loc_, arith::CmpFPredicate::UGT, p, highest);
      return b_.create<arith::OrIOp>(loc_, below, above).getResult();
    };
    Value next = add(t, c(1));
    Value inBlock = b_.create<arith::RemUIOp>(loc_, next, c(GDR_TOKEN_BLOCK));
    Value full = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::eq, inBlock, c(0));
    if (scalarDecay_) {
      Value out = outside(scalar(scratch_, c(runAt())), low, high);
      return b_.create<arith::OrIOp>(loc_, full, out);
    }
    if (vectors > 0) {
      Value lowVector = splat(low);
      Value highVector = splat(high);
      Value any;
      for (int64_t i = 0; i < vectors; ++i) {
        Value p = load(scratch_, c(runAt() + i * W_), Value());
        Value out = outside(p, lowVector, highVector);
        any = any ? b_.create<arith::OrIOp>(loc_, any, out).getResult() : out;
      }
      Value out = b_.create<vector::ReductionOp>(loc_, b_.getI1Type(), "or", any, ValueRange{});
      full = b_.create<arith::OrIOp>(loc_, full, out);
    }
    for (int64_t k = vectors * W_; k < K_; ++k) {
      Value out = outside(scalar(scratch_, c(runAt() + k)), low, high);
      full = b_.create<arith::OrIOp>(loc_, full, out);
    }
    for (int64_t i = 0; i < vectors; ++i) {
      Value p = load(scratch_, c(runAt() + i * W_), Value());
      Value key = load(key_, add(keyRow, c(i * W_)), Value());
      Value cheap = b_.create<arith::DivFOp>(loc_, key, p);
      Value factor = b_.create<SelectOp>(loc_, full, p, cheap);
      store(factor, scratch_, c(factorAt() + i * W_), Value());
    }
    for (int64_t k = vectors * W_; k < K_; ++k) {
      Value p = scalar(scratch_, c(runAt() + k));
      Value key = scalar(key_, add(keyRow, c(k)));
      Value cheap = b_.create<arith::DivFOp>(loc_, key, p);
      Value factor = b_.create<SelectOp>(loc_, full, p, cheap);
      b_.create<memref::StoreOp>(loc_, factor, scratch_, ValueRange{c(factorAt() + k)});
    }
    return full;
  }

  // Prefetches the rows token t + prefetch will use (clamped to the last
  // token): key, decay and each query, beta, the tile's value columns for
  // reading, its output columns for writing. One prefetch per 64-byte line.
  void emitPrefetch(Value col, Value t, int64_t n) {
    Value ahead = add(t, c(prefetch_));
    Value inRange = b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, ahead, T_);
    Value token = b_.create<SelectOp>(loc_, inRange, ahead, sub(T_, c(1)));
    Value keyRow = mul(token, kStride_);
    Value queryRow = mul(token, qStride_);
    Value decayRow = mul(token, dStride_);
    SmallVector<Value> queryRows, outRows;
    Value valueRow = add(mul(token, vStride_), col);
    Value outRow = add(mul(token, oStride_), col);
    for (int64_t g = 0; g < R_; ++g) {
      queryRows.push_back(add(queryRow, readout(qReadout_, g)));
      outRows.push_back(add(outRow, readout(oReadout_, g)));
    }
    for (int64_t k = 0; k < K_; k += kLineFloats) {
      prefetch(key_, add(keyRow, c(k)), /*write=*/false);
      if (!scalarDecay_) prefetch(decay_, add(decayRow, c(k)), /*write=*/false);
      for (Value row : queryRows) prefetch(query_, add(row, c(k)), /*write=*/false);
    }
    // The token's scalars too: token-major, they are H floats apart, a line
    // per token that no hardware prefetcher follows, and beta is on the path
    // to every column's delta.
    Value betaAt = mul(token, bStride_);
    prefetch(beta_, betaAt, /*write=*/false);
    if (scalarDecay_) prefetch(decay_, decayRow, /*write=*/false);
    for (int64_t j = 0; j < n * W_; j += kLineFloats) {
      prefetch(value_, add(valueRow, c(j)), /*write=*/false);
      for (Value row : outRows) prefetch(out_, add(row, c(j)), /*write=*/true);
    }
  }

  // k_t · q_t (rows at keyRow, queryRow): whole vectors, one fixed-order
  // reduction, then scalars.
  Value dot(Value keyRow, Value queryRow) {
    Value sum = b_.create<arith::ConstantOp>(loc_, b_.getF32FloatAttr(0.0f));
    const int64_t vectors = K_ / W_;
    if (vectors > 0) {
      Value acc = zero_;
      for (int64_t i = 0; i < vectors; ++i) {
        Value key = load(key_, add(keyRow, c(i * W_)), Value());
        Value query = load(query_, add(queryRow, c(i * W_)), Value());
        acc = fma(key, query, acc);
      }
      sum = b_.create<vector::ReductionOp>(loc_, f32_, "add", acc, ValueRange{});
    }
    for (int64_t k = vectors * W_; k < K_; ++k) {
      Value key = scalar(key_, add(keyRow, c(k)));
      Value query = scalar(query_, add(queryRow, c(k)));
      sum = b_.create<arith::AddFOp>(loc_, sum, mulf(key, query));
    }
    return sum;
  }

  Value c(int64_t v) { return b_.create<arith::ConstantIndexOp>(loc_, v); }
  void prefetch(Value mem, Value i, bool write) {
    b_.create<memref::PrefetchOp>(loc_, mem, ValueRange{i}, write, /*localityHint=*/3,
                                  /*isDataCache=*/true);
  }
  Value add(Value x, Value y) { return b_.create<arith::AddIOp>(loc_, x, y); }
  Value sub(Value x, Value y) { return b_.create<arith::SubIOp>(loc_, x, y); }
  Value mul(Value x, Value y) { return b_.create<arith::MulIOp>(loc_, x, y); }
  Value div(Value x, Value y) { return b_.create<arith::DivUIOp>(loc_, x, y); }
  Value mulf(Value x, Value y) { return b_.create<arith::MulFOp>(loc_, x, y); }
  Value fma(Value x, Value y, Value acc) { return b_.create<vector::FMAOp>(loc_, x, y, acc); }
  Value splat(Value s) { return b_.create<vector::BroadcastOp>(loc_, vec_, s); }
  Value scalar(Value mem, Value i) { return b_.create<memref::LoadOp>(loc_, mem, ValueRange{i}); }
  SmallVector<Value> zeros(int64_t count) { return SmallVector<Value>(count, zero_); }
  // 1.0 as an attribute of f32 or of the vector type.
  Attribute oneAttr(Type type) {
    if (type.isa<VectorType>()) return DenseElementsAttr::get(vec_, 1.0f);
    return b_.getF32FloatAttr(1.0f);
  }
  Value load(Value mem, Value i, Value mask) {
    if (mask)
      return b_.create<vector::MaskedLoadOp>(loc_, vec_, mem, ValueRange{i}, mask, zero_);
    return b_.create<vector::LoadOp>(loc_, vec_, mem, ValueRange{i});
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
  Type f32_;
  VectorType vec_;
  Value query_, key_, value_, decay_, beta_, s0_, out_, s1_, scratch_, next_, T_, zero_;
  Value vEnd_, streaming_;
  Value qStride_, kStride_, vStride_, dStride_, bStride_, oStride_, qReadout_, oReadout_;
};

struct LowerRecurrentPass : GdrLowerRecurrentBase<LowerRecurrentPass> {
  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation().walk([&](KernelOp k) {
      if (k.getProblem().getRoute() == "recurrent") kernels.push_back(k);
    });
    for (KernelOp kernel : kernels) {
      if (!kernel.getScheduleAttr()) {
        kernel.emitOpError() << "has no schedule: run gdr-attach-schedule first";
        return signalPassFailure();
      }
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
      RecurrentEmitter(b, kernel.getLoc(), kernel.getProblem(), kernel.getScheduleAttr()).emit(entry);
      b.create<ReturnOp>(kernel.getLoc());
      kernel.erase();
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createLowerRecurrentPass() { return std::make_unique<LowerRecurrentPass>(); }

}  // namespace mlir::gdr
