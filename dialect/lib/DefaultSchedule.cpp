#include "gdr/Dialect/DefaultSchedule.h"

namespace mlir::gdr {

ScheduleAttr defaultSchedule(ProblemAttr problem, int64_t vectorBits) {
  const int64_t width = vectorBits / 32;
  // Chosen by measurement: see the comment on kRecurrentVTileVectors.
  // 8 vectors per tile (128 columns at AVX-512): the hand prototype and the
  // generated kernel both ran fastest with the widest tile that keeps both
  // accumulator sets in registers.
  const int64_t vectors = 4;
  int64_t tile = width * vectors;
  (void)problem;
  return ScheduleAttr::get(problem.getContext(), width, tile, /*unroll=*/1);
}

}  // namespace mlir::gdr
