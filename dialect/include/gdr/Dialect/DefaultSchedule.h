// The default schedule of each route for a target: one place that decides.
#pragma once

#include <cstdint>

#include "gdr/Dialect/GdrDialect.h"

namespace mlir::gdr {

// The knobs of #gdr.schedule as plain numbers, for callers without an
// MLIRContext (gdr::compiler's default_variant).
struct RecurrentScheduleKnobs {
  int64_t vectorWidth, vTile, unroll, prefetch;
};

// The default for a K x V state on a target whose widest vector register
// has `vectorBits` bits (V does not change it).
RecurrentScheduleKnobs defaultRecurrentSchedule(int64_t k, int64_t vectorBits);

// The schedule gdr-attach-schedule writes for `problem`: the same knobs.
ScheduleAttr defaultSchedule(ProblemAttr problem, int64_t vectorBits);

}  // namespace mlir::gdr
