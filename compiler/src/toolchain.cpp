#include "gdr/compiler/toolchain.h"

#include <Halide.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/Host.h>
#include <mlir/Dialect/Arithmetic/IR/Arithmetic.h>
#include <mlir/Dialect/LLVMIR/LLVMDialect.h>
#include <mlir/Dialect/MemRef/IR/MemRef.h>
#include <mlir/Dialect/SCF/SCF.h>
#include <mlir/Dialect/Vector/IR/VectorOps.h>
#include <mlir/IR/MLIRContext.h>

namespace gdr::compiler {

ToolchainInfo probe_toolchain() {
  ToolchainInfo info;
  info.llvm_version = LLVM_VERSION_STRING;
  info.host_triple = llvm::sys::getProcessTriple();
  info.host_cpu = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features;
  if (llvm::sys::getHostCPUFeatures(features)) info.avx512 = features.lookup("avx512f");

  mlir::MLIRContext context;
  context.loadDialect<mlir::arith::ArithmeticDialect, mlir::scf::SCFDialect,
                      mlir::vector::VectorDialect, mlir::memref::MemRefDialect,
                      mlir::LLVM::LLVMDialect>();
  info.mlir_dialects = static_cast<int>(context.getLoadedDialects().size());

  info.halide_target = Halide::get_host_target().to_string();
  return info;
}

}  // namespace gdr::compiler
