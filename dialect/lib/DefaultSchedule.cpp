#include "gdr/Dialect/DefaultSchedule.h"

#include <algorithm>

namespace mlir::gdr {

int64_t vectorRegisters(int64_t vectorBits, bool x86) { return x86 && vectorBits < 512 ? 16 : 32; }

RecurrentScheduleKnobs defaultRecurrentSchedule(int64_t k, int64_t vectorBits, int64_t registers) {
  // The widest vectors of the target.
  const int64_t width = vectorBits / 32;
  // Tokens per sweep: a pair where the registers hold its accumulators (2
  // per token and vector of the tile) besides the two tokens' deltas and
  // broadcasts, one token on 16 registers (measurements below).
  const int64_t sweepTokens = registers >= 32 ? 2 : 1;
  // V-tile: as many vectors as keep the packed tile (K x v_tile floats, kept
  // in scratch between tokens) within 32 KiB, two thirds of a 48 KiB L1, and
  // at most 4, 2 with pairs of 16-float vectors. Measured with gdr-bench on the 2-core Xeon
  // (LLVM: icelake-client, AVX-512, 48 KiB L1d, FMA peak 196 GFLOP/s per
  // core) at B = 1, H = 32, K = V = 128, T = 512, 1 thread, 2026-11-29, one
  // token per sweep: a tile of 2 / 4 / 8 vectors (w16) took 15.6 / 13.4 /
  // 23.9 ms (70% / 82% / 46% of peak); 8 vectors is a 64 KiB tile that goes
  // back to L2 on every token. unroll = 2 / 4 took 13.6 / 13.3 ms: within
  // noise, so 1 (less code). With pairs (AMD Zen 5, AVX-512, one gdr-bench
  // run, 2026-12-03, % of the FMA peak on 1 / 2 threads for 1 / 2 / 4
  // vectors): K = V = 128, H = 32, T = 512 74 / 99 / 92% and 74 / 101 /
  // 92%, T = 128 85 / 113 / 97% and 83 / 112 / 97%; K = V = 64 T = 512
  // 77 / 101 / 91% and 75 / 101 / 92%; K = V = 256, H = 16, T = 512 85 /
  // 113 / 98% and 77 / 105 / 96%: a pair's 16 accumulators of 4 vectors
  // and its 8 deltas crowd the 32 registers. NEON's pairs (4 floats a
  // vector, only ever run under qemu here) keep 4, a tile of a whole line.
  k = std::max<int64_t>(1, k);
  const int64_t maxVectors = sweepTokens == 2 && width >= 16 ? 2 : 4;
  const int64_t vectors = std::clamp<int64_t>((32 * 1024) / (k * width * 4), 1, maxVectors);
  // Prefetch 2 tokens ahead: same machine and shape, 2026-11-30, medians of
  // 21 interleaved runs: 1 thread 13.70 -> 13.11 ms, 2 threads 6.77 ->
  // 6.50 ms (+4%; H = 64: +6%); 3, 4 or 8 tokens ahead gained less. Most of
  // it is the write-prefetch of the output row, whose store would otherwise
  // wait for its cache line behind the sweep's stores.
  // One token per sweep on 16 registers: AVX2 (AMD Zen 3, 16 ymm
  // registers, FMA peak ~90 GFLOP/s per core), K = V = 128, H = 32, T = 512,
  // 1 thread, AOT kernels alternated in one process, 2026-12-02: pairs of 4
  // vectors spill 175 of 360 instructions of the sweep and reach 60% of
  // peak; pairs of 2 vectors (8 accumulators, still spilling the deltas)
  // min 34.0 / median 38.5 ms, one token on 3 or 4 vectors 31.4-31.7 /
  // 32.7-33.1 ms (K = 64, H = 32: 11.2 / 16.5 against 7.5-8.1 / 12.4-12.7;
  // K = 256, H = 16: 62.3 / 75.7 against 55.5-63.3 / 63.3-68.6).
  return {width, width * vectors, /*unroll=*/1, /*prefetch=*/2, sweepTokens};
}

ScheduleAttr defaultSchedule(ProblemAttr problem, int64_t vectorBits, int64_t registers) {
  const RecurrentScheduleKnobs s = defaultRecurrentSchedule(problem.getK(), vectorBits, registers);
  return ScheduleAttr::get(problem.getContext(), s.vectorWidth, s.vTile, s.unroll, s.prefetch,
                           s.sweepTokens);
}

}  // namespace mlir::gdr
