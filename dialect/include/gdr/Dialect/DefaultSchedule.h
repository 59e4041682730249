// The default schedule of each route for a target: one place that decides.
#pragma once

#include "gdr/Dialect/GdrDialect.h"

namespace mlir::gdr {

// The schedule gdr-attach-schedule writes for `problem` on a target whose
// widest vector register has `vectorBits` bits.
ScheduleAttr defaultSchedule(ProblemAttr problem, int64_t vectorBits);

}  // namespace mlir::gdr
