#include "gdr/Dialect/DefaultSchedule.h"

#include <algorithm>

#include <llvm/Support/X86TargetParser.h>

namespace mlir::gdr {

int64_t vectorRegisters(int64_t vectorBits, bool x86) { return x86 && vectorBits < 512 ? 16 : 32; }
int64_t vectorRegisters(int64_t vectorBits, StringRef cpu) {
  return vectorRegisters(vectorBits, vectorBits == 256 || llvm::X86::parseArchX86(cpu) != llvm::X86::CK_None);
}

RecurrentScheduleKnobs defaultRecurrentSchedule(int64_t k, int64_t vectorBits, int64_t registers,
                                                StringRef cpu) {
  // The widest vectors of the target.
  const int64_t width = vectorBits / 32;
  // Tokens per sweep: a pair, whose sweep loads and stores the tile once for
  // two tokens, except on SSE's 16 registers of 4 floats (measurements
  // below, 16 registers at the end).
  const bool sse = registers < 32 && width < 8;
  const int64_t sweepTokens = sse ? 1 : 2;
  // V-tile: as many vectors as keep the packed tile (K x v_tile floats, kept
  // in scratch between tokens) within 32 KiB, two thirds of a 48 KiB L1, and
  // at most 4, 2 with pairs of 16-float vectors on AMD's cores (or a
  // generic CPU, x86-64-v4, or none) or on AVX2. Measured with gdr-bench
  // on the 2-core Xeon (LLVM: icelake-client, AVX-512, 48 KiB L1d, FMA
  // peak 196 GFLOP/s per core) at B = 1, H = 32, K = V = 128, T = 512, 1
  // thread, 2026-11-29, one token per sweep: a tile of 2 / 4 / 8 vectors
  // (w16) took 15.6 / 13.4 / 23.9 ms (70% / 82% / 46% of peak); 8 vectors
  // is a 64 KiB tile that goes back to L2 on every token. unroll = 2 / 4
  // took 13.6 / 13.3 ms: within noise, so 1 (less code). With pairs (AMD
  // Zen 5, AVX-512, one gdr-bench run, 2026-12-03, % of the FMA peak on
  // 1 / 2 threads for 1 / 2 / 4 vectors): K = V = 128, H = 32, T = 512
  // 74 / 99 / 92% and 74 / 101 / 92%, T = 128 85 / 113 / 97% and 83 /
  // 112 / 97%; K = V = 64 T = 512 77 / 101 / 91% and 75 / 101 / 92%;
  // K = V = 256, H = 16, T = 512 85 / 113 / 98% and 77 / 105 / 96%:
  // a pair's 16 accumulators of 4 vectors and its 8 deltas crowd the 32
  // registers. Intel's cores take them: on Sapphire Rapids (2 cores,
  // AVX-512, 48 KiB L1d, 2026-12-05, one gdr-bench run, % of the
  // interleaved FMA peak on 1 / 2 threads, 2 -> 4 vectors) K = V = 64,
  // H = 32, T = 128 80 / 81 -> 86 / 87%, T = 512 80 / 81 -> 86 / 86%;
  // K = V = 128 T = 128 89 / 87 -> 95 / 93%, T = 512 82 / 89 -> 89 / 95%;
  // Qwen3-Next's form (16 key heads, scalar decay, token-major) T = 512
  // 78 / 80 -> 80 / 84% (K = 256 keeps 2: 32 KiB). NEON's pairs (4 floats
  // a vector, only ever run under qemu here) keep 4, a tile of a whole line.
  k = std::max<int64_t>(1, k);
  const bool notIntel = cpu.empty() || cpu.startswith("znver") || cpu.startswith("x86-64");
  const int64_t maxVectors = (width >= 16 && notIntel) || (registers < 32 && !sse) ? 2 : 4;
  const int64_t vectors = std::clamp<int64_t>((32 * 1024) / (k * width * 4), 1, maxVectors);
  // AVX2's pairs of 2 vectors sweep K = 64 rows two at a time (below; the
  // verifier wants unroll <= k). Intel's 2-vector tiles of 16 floats
  // (K = 171 to 256) sweep four: a row's 12 FMAs come with 8 loads, 2 stores
  // and the loop's 3, close to what the core renames in the 6 cycles the
  // FMAs take. gdr-bench, 2026-12-06, Ice Lake Xeon, K = V = 256, H = 16,
  // unroll 1 -> 2, ms: T = 512 29.1 -> 27.0 and 29.4 -> 27.8 (1 thread),
  // 12.4 -> 12.0 and 14.4 -> 13.9 (2); T = 128 7.05 -> 6.64, 6.24 -> 6.10;
  // T = 2048 112 -> 108, 107 -> 100; B = 16, T = 2048 1629 -> 1590, 1720 ->
  // 1704; unroll 4 as 2 there. On Sapphire Rapids (AOT kernels alternated
  // in one process, medians, 2026-12-06) unroll 2 -> 4: T = 512 28.80 ->
  // 27.86 and 28.03 -> 27.64 ms (1 thread), 14.01 -> 13.63 (2), token-major
  // 29.10 -> 28.79; T = 128 6.61 -> 6.46; 2 and 4 readouts 35.77 -> 34.42
  // and 81.63 -> 80.50; unroll 8 as 4. At K = 128 and 64
  // the same tiles took within 2% either way; 4-vector tiles at unroll 2
  // spill (58% of peak against 88%).
  // One-group blocks (decode) step one row at a time (LowerRecurrent's
  // oneGroupBlock).
  const int64_t unroll = registers < 32 && !sse && k <= 64   ? std::min<int64_t>(k, 2)
                         : registers == 32 && width >= 16 && vectors == 2 && !notIntel ? 4
                                                                                      : 1;
  // Prefetch 2 tokens ahead: same machine and shape, 2026-11-30, medians of
  // 21 interleaved runs: 1 thread 13.70 -> 13.11 ms, 2 threads 6.77 ->
  // 6.50 ms (+4%; H = 64: +6%); 3, 4 or 8 tokens ahead gained less. Most of
  // it is the write-prefetch of the output row, whose store would otherwise
  // wait for its cache line behind the sweep's stores.
  // 16 registers. AVX2 (AMD Zen 3, 16 ymm registers, 32 KiB L1d, FMA peak
  // ~100 GFLOP/s per core): pairs of 4 vectors spill (60% of peak,
  // 2026-12-02). Pairs of 2 vectors spilled accumulators while their row's
  // 4 broadcasts were loaded first; summed one broadcast at a time
  // (LowerRecurrent's accumulateEachGated) they spill nothing. AOT kernels
  // alternated call by call (2026-12-03, /tmp harness), H = 32 (K = 256:
  // 16), median / p25 ms, one token on 4 vectors -> pairs of 2 vectors, 1
  // thread: K = V = 128 T = 128 7.52 / 7.09 -> 7.34 / 6.42, T = 512 29.4 /
  // 27.9 -> 27.3 / 25.0; K = V = 256 T = 128 15.1 / 14.0 -> 13.3 / 12.2,
  // T = 512 59.9 / 58.9 -> 58.1 / 52.6; 2 threads within 1% at the median,
  // 3-12% faster at the minimum. K = V = 64 wants the rows unrolled by 2:
  // T = 128 1.87 / 1.73 -> 2.01 / 1.82 (unroll 1) or 1.66 / 1.49 (unroll 2),
  // T = 512 7.97 / 7.12 -> 8.77 / 7.96 or 8.26 / 7.46; 2 threads T = 128
  // 1.17 -> 1.03, T = 512 4.47 -> 4.44; decode (T = 1, 8-vector tiles, B =
  // 1 and 16) the same with either unroll (B = 16, 1 thread: 1.43 / 1.45
  // ms at the median, 2 threads 1.73 / 1.67). SSE (x86-64-v2 on the same
  // machine, 16 registers of 4 floats): pairs of 2 vectors took 8-19%
  // longer than one token on 4 vectors at K = 64 and 128 (T = 128, 512).
  return {width, width * vectors, unroll, /*prefetch=*/2, sweepTokens};
}

int64_t tileWithinAccumulators(int64_t tile, int64_t width, int64_t perVector, int64_t accumulators) {
  while (tile > width && tile / width * perVector > accumulators) tile -= width;
  return tile;
}

RecurrentScheduleKnobs fitReadouts(RecurrentScheduleKnobs s, int64_t readouts, int64_t registers) {
  // On 16 registers a pair of two or more readouts keeps one vector only:
  // one token per sweep instead. AVX2 (Zen 3), H = 16, 32 query heads, K =
  // V = 128, one gdr-bench run (2026-12-03), 1 / 2 threads: T = 512 one
  // token on 2 vectors 19.2 / 9.6 ms, pairs of 1 or 2 vectors 28.5 / 13.7
  // and 24.2 / 12.6; T = 128 2.61 ms on 2 threads against 3.66 and 3.32.
  // Unroll 1, as measured (AVX2's unroll 2 at K <= 64 was for pairs).
  if (s.sweepTokens == 2 && readouts > 1 && registers < 32) {
    s.sweepTokens = 1;
    s.unroll = 1;
  }
  // The tile shrinks to what half the registers hold; the deltas,
  // broadcasts and state vectors need the rest. AVX2 (Zen 3), H = 16, 32
  // query heads (2 readouts), K = V = 128, T = 512, 1 thread, one
  // gdr-bench run (2026-12-02), one token per sweep: 2 / 3 / 4 vectors (6 /
  // 9 / 12 accumulators) 19.2 / 20.5 / 23.3 ms. AVX-512 (Zen 5, 32
  // registers), same shape, pairs, one gdr-bench run (2026-12-03): 2 / 4 /
  // 8 vectors (12 / 24 / 48 accumulators) 5.21 / 5.99 / 9.63 ms on 1
  // thread, 2.64 / 3.14 / 5.42 on 2; one readout keeps 4 vectors (16
  // accumulators).
  s.vTile = tileWithinAccumulators(s.vTile, s.vectorWidth, (1 + readouts) * s.sweepTokens, registers / 2);
  return s;
}

ScheduleAttr defaultSchedule(ProblemAttr problem, int64_t vectorBits, int64_t registers, StringRef cpu) {
  const RecurrentScheduleKnobs s =
      fitReadouts(defaultRecurrentSchedule(problem.getK(), vectorBits, registers, cpu), problem.getReadouts(), registers);
  return ScheduleAttr::get(problem.getContext(), s.vectorWidth, s.vTile, s.unroll, s.prefetch,
                           s.sweepTokens);
}

}  // namespace mlir::gdr
