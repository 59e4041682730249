// The passes of the gdr dialect and their registration (for gdr-opt).
#pragma once

#include <memory>

#include <mlir/Dialect/Arithmetic/IR/Arithmetic.h>
#include <mlir/Dialect/LLVMIR/LLVMDialect.h>
#include <mlir/Dialect/MemRef/IR/MemRef.h>
#include <mlir/Dialect/SCF/SCF.h>
#include <mlir/Dialect/StandardOps/IR/Ops.h>
#include <mlir/Dialect/Vector/IR/VectorOps.h>
#include <mlir/Pass/Pass.h>

#include "gdr/Dialect/GdrDialect.h"

namespace mlir::gdr {

std::unique_ptr<Pass> createAttachSchedulePass();
std::unique_ptr<Pass> createLowerRecurrentPass();
std::unique_ptr<Pass> createLowerToLLVMPass();

// The whole pipeline from a gdr module to the LLVM dialect.
void buildLowerToLLVMPipeline(OpPassManager& pm);

#define GEN_PASS_REGISTRATION
#include "gdr/Dialect/GdrPasses.h.inc"

}  // namespace mlir::gdr
