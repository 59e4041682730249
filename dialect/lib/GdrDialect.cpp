// The gdr dialect: registers its attributes and operations.
#include "gdr/Dialect/GdrDialect.h"

using namespace mlir;
using namespace mlir::gdr;

#include "gdr/Dialect/GdrDialect.cpp.inc"

void GdrDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "gdr/Dialect/GdrOps.cpp.inc"
      >();
}
