#include "gdr/compiler/toolchain.h"

#include <Halide.h>
#include <llvm/Config/llvm-config.h>
#include <mlir/Dialect/Arithmetic/IR/Arithmetic.h>
#include <mlir/Dialect/LLVMIR/LLVMDialect.h>
#include <mlir/Dialect/MemRef/IR/MemRef.h>
#include <mlir/Dialect/SCF/SCF.h>
#include <mlir/Dialect/Vector/IR/VectorOps.h>
#include <mlir/IR/MLIRContext.h>

#include "gdr/compiler/target.h"

namespace gdr::compiler {

ToolchainInfo probe_toolchain() {
  ToolchainInfo info;
  info.llvm_version = LLVM_VERSION_STRING;
  const Target& host = host_target();
  info.host_triple = host.triple;
  info.host_cpu = host.cpu;
  info.avx512 = host.vector_bits == 512;  // host_target() says 512 exactly with AVX-512F

  mlir::MLIRContext context;
  context.loadDialect<mlir::arith::ArithmeticDialect, mlir::scf::SCFDialect,
                      mlir::vector::VectorDialect, mlir::memref::MemRefDialect,
                      mlir::LLVM::LLVMDialect>();
  info.mlir_dialects = static_cast<int>(context.getLoadedDialects().size());

  info.halide_target = Halide::get_host_target().to_string();
  return info;
}

}  // namespace gdr::compiler
