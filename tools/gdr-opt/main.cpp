// gdr-opt: mlir-opt with the gdr dialect and passes, for lit tests and
// for looking at each lowering step by hand.
#include <mlir/Dialect/LLVMIR/LLVMDialect.h>
#include <mlir/Support/MlirOptMain.h>
#include <mlir/Transforms/Passes.h>

#include "gdr/Dialect/GdrPasses.h"

int main(int argc, char** argv) {
  mlir::gdr::registerGdrPasses();
  mlir::registerTransformsPasses();  // -canonicalize, -cse, ... to read lowered IR
  mlir::DialectRegistry registry;
  registry.insert<mlir::gdr::GdrDialect, mlir::arith::ArithmeticDialect, mlir::scf::SCFDialect,
                  mlir::vector::VectorDialect, mlir::memref::MemRefDialect,
                  mlir::StandardOpsDialect, mlir::LLVM::LLVMDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "gdr-opt: the gdr dialect and passes\n", registry));
}
