// The gdr dialect: its attributes and operations (generated from the .td).
#pragma once

#include <mlir/IR/BuiltinAttributes.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Dialect.h>
#include <mlir/IR/OpDefinition.h>
#include <mlir/IR/SymbolTable.h>

#include "gdr/Dialect/GdrDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "gdr/Dialect/GdrAttrs.h.inc"

namespace mlir::gdr {
class KernelOp;
LogicalResult verifyKernel(KernelOp op);
}  // namespace mlir::gdr

#define GET_OP_CLASSES
#include "gdr/Dialect/GdrOps.h.inc"
