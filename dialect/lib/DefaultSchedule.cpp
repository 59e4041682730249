#include "gdr/Dialect/DefaultSchedule.h"

#include <algorithm>

namespace mlir::gdr {

RecurrentScheduleKnobs defaultRecurrentSchedule(int64_t k, int64_t vectorBits) {
  // The widest vectors of the target.
  const int64_t width = vectorBits / 32;
  // V-tile: as many vectors as keep the packed tile (K x v_tile floats, kept
  // in scratch between tokens) within 32 KiB, two thirds of a 48 KiB L1, and
  // at most 4. Measured with gdr-bench on the 2-core Xeon (LLVM:
  // icelake-client, AVX-512, 48 KiB L1d, FMA peak 196 GFLOP/s per core) at
  // B = 1, H = 32, K = V = 128, T = 512, 1 thread, 2026-11-29: a tile of
  // 2 / 4 / 8 vectors (w16) took 15.6 / 13.4 / 23.9 ms (70% / 82% / 46% of
  // peak); 8 vectors is a 64 KiB tile that goes back to L2 on every token.
  // unroll = 2 / 4 took 13.6 / 13.3 ms: within noise, so 1 (less code).
  k = std::max<int64_t>(1, k);
  const int64_t vectors = std::clamp<int64_t>((32 * 1024) / (k * width * 4), 1, 4);
  // Prefetch 2 tokens ahead: same machine and shape, 2026-11-30, medians of
  // 21 interleaved runs: 1 thread 13.70 -> 13.11 ms, 2 threads 6.77 ->
  // 6.50 ms (+4%; H = 64: +6%); 3, 4 or 8 tokens ahead gained less. Most of
  // it is the write-prefetch of the output row, whose store would otherwise
  // wait for its cache line behind the sweep's stores.
  return {width, width * vectors, /*unroll=*/1, /*prefetch=*/2};
}

ScheduleAttr defaultSchedule(ProblemAttr problem, int64_t vectorBits) {
  const RecurrentScheduleKnobs s = defaultRecurrentSchedule(problem.getK(), vectorBits);
  return ScheduleAttr::get(problem.getContext(), s.vectorWidth, s.vTile, s.unroll, s.prefetch);
}

}  // namespace mlir::gdr
