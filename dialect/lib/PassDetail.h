// Generated pass base classes, shared by the pass implementations.
#pragma once

#include "gdr/Dialect/GdrPasses.h"

namespace mlir::gdr {
#define GEN_PASS_CLASSES
#include "gdr/Dialect/GdrPasses.h.inc"

// Marks a vector.store that gdr-lower-to-llvm makes non-temporal: the
// streaming final state of gdr-lower-recurrent.
constexpr const char kNontemporalAttr[] = "gdr.nontemporal";
}  // namespace mlir::gdr
