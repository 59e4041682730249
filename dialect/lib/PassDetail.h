// Generated pass base classes, shared by the pass implementations.
#pragma once

#include "gdr/Dialect/GdrPasses.h"

namespace mlir::gdr {
#define GEN_PASS_CLASSES
#include "gdr/Dialect/GdrPasses.h.inc"
}  // namespace mlir::gdr
