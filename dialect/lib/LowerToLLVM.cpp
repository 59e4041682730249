// gdr-lower-to-llvm: scf/vector/memref/arith/std to the LLVM dialect, plus the
// C entry point `int32_t <name>(const gdr_kernel_args*)` of every kernel.
//
// Every op is built in a statement of its own (or in a braced list, which
// C++ evaluates left to right), never as one of several arguments of a call:
// the order of those is up to the compiler (GCC and clang differ), and the
// emitted IR must not depend on the compiler that built gdr.
#include <mlir/Conversion/ArithmeticToLLVM/ArithmeticToLLVM.h>
#include <mlir/Conversion/LLVMCommon/ConversionTarget.h>
#include <mlir/Conversion/LLVMCommon/TypeConverter.h>
#include <mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h>
#include <mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h>
#include <mlir/Conversion/SCFToStandard/SCFToStandard.h>
#include <mlir/Conversion/StandardToLLVM/ConvertStandardToLLVM.h>
#include <mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h>
#include <mlir/Pass/PassManager.h>
#include <mlir/Transforms/GreedyPatternRewriteDriver.h>
#include <mlir/Transforms/DialectConversion.h>

#include "PassDetail.h"
#include "gdr/kernel_abi.h"

namespace mlir::gdr {
namespace {

// Field positions in gdr_kernel_args (runtime/include/gdr/kernel_abi.h).
enum ArgField : int32_t {
  kQuery, kKey, kValue, kDecay, kBeta, kInitialState, kOut, kFinalState,
  kT, kK, kV, kBhBegin, kBhEnd, kVBegin, kVEnd, kScratch, kScratchFloats
};

struct Entry {
  std::string name, body;
  int64_t K, V, scratchFloats, vectorBits;
};

// Adds `llvm.func @<entry.name>(!llvm.ptr<struct<gdr_kernel_args>>) -> i32`:
// returns 1 if K or V differ from the kernel's, 2 if the scratch is too
// small, else calls the body with
// each tensor as a memref descriptor (allocated = aligned pointer, offset 0,
// size, stride 1) and returns 0.
void addEntryPoint(ModuleOp module, const Entry& entry) {
  MLIRContext* ctx = module.getContext();
  Location loc = module.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Type f32Ptr = LLVM::LLVMPointerType::get(b.getF32Type());
  auto argsType = LLVM::LLVMStructType::getLiteral(
      ctx, {f32Ptr, f32Ptr, f32Ptr, f32Ptr, f32Ptr, f32Ptr, f32Ptr, f32Ptr, i64, i64, i64, i64,
            i64, i64, i64, f32Ptr, i64});
  auto fn = b.create<LLVM::LLVMFuncOp>(
      loc, entry.name,
      LLVM::LLVMFunctionType::get(i32, {LLVM::LLVMPointerType::get(argsType)}));
  Block* start = fn.addEntryBlock();
  Block* run = fn.addBlock();
  Block* reject = fn.addBlock();
  b.setInsertionPointToStart(start);
  Value args = start->getArgument(0);
  auto constant = [&](Type t, int64_t v) {
    return b.create<LLVM::ConstantOp>(loc, t, b.getIntegerAttr(t, v)).getResult();
  };
  auto field = [&](ArgField f, Type t) -> Value {
    Value at = b.create<LLVM::GEPOp>(loc, LLVM::LLVMPointerType::get(t), args,
                                     ValueRange{constant(i64, 0), constant(i32, f)});
    return b.create<LLVM::LoadOp>(loc, at);
  };
  auto fieldIs = [&](ArgField f, int64_t want) -> Value {
    Value got = field(f, i64);
    Value wanted = constant(i64, want);
    return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, got, wanted);
  };
  Value kMatches = fieldIs(kK, entry.K);
  Value vMatches = fieldIs(kV, entry.V);
  Value sizesMatch = b.create<LLVM::AndOp>(loc, kMatches, vMatches);
  b.create<LLVM::CondBrOp>(loc, sizesMatch, run, reject);

  b.setInsertionPointToStart(reject);
  b.create<LLVM::ReturnOp>(loc, ValueRange{constant(i32, 1)});

  b.setInsertionPointToStart(run);
  Block* noScratch = fn.addBlock();
  Block* call = fn.addBlock();
  Value scratchFloats = field(kScratchFloats, i64);
  b.create<LLVM::CondBrOp>(
      loc,
      b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::sge, scratchFloats,
                             constant(i64, entry.scratchFloats)),
      call, noScratch);
  b.setInsertionPointToStart(noScratch);
  b.create<LLVM::ReturnOp>(loc, ValueRange{constant(i32, 2)});

  b.setInsertionPointToStart(call);
  Value T = field(kT, i64), bhEnd = field(kBhEnd, i64);
  auto mul = [&](Value x, Value y) { return b.create<LLVM::MulOp>(loc, x, y).getResult(); };
  Value tokens = mul(bhEnd, T);
  Value qkSize = mul(tokens, constant(i64, entry.K)), vSize = mul(tokens, constant(i64, entry.V));
  Value stateSize = mul(bhEnd, constant(i64, entry.K * entry.V));
  SmallVector<Value> operands;
  auto tensor = [&](ArgField f, Value size) {
    Value p = field(f, f32Ptr);
    operands.append({p, p, constant(i64, 0), size, constant(i64, 1)});
  };
  tensor(kQuery, qkSize);
  tensor(kKey, qkSize);
  tensor(kValue, vSize);
  tensor(kDecay, qkSize);
  tensor(kBeta, tokens);
  tensor(kInitialState, stateSize);
  tensor(kOut, vSize);
  tensor(kFinalState, stateSize);
  tensor(kScratch, scratchFloats);
  operands.append({T, field(kBhBegin, i64), bhEnd, field(kVBegin, i64), field(kVEnd, i64)});
  b.create<LLVM::CallOp>(loc, TypeRange{}, SymbolRefAttr::get(ctx, entry.body), operands);
  b.create<LLVM::ReturnOp>(loc, ValueRange{constant(i32, 0)});
}

// Adds `llvm.mlir.global constant @<entry.name>_info`: the kernel's facts in
// the layout of gdr_kernel_info_field (kernel_abi.h), for loaders without a
// compiler. Column ranges may start at any multiple of the vector width.
void addInfo(ModuleOp module, const Entry& entry) {
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  SmallVector<int64_t> info(GDR_KERNEL_INFO_FIELDS, 0);
  info[GDR_INFO_ABI_VERSION] = GDR_KERNEL_ABI_VERSION;
  info[GDR_INFO_K] = entry.K;
  info[GDR_INFO_V] = entry.V;
  info[GDR_INFO_COLUMN_ALIGN] = entry.vectorBits / 32;
  info[GDR_INFO_SCRATCH_FLOATS] = entry.scratchFloats;
  info[GDR_INFO_VECTOR_BITS] = entry.vectorBits;
  auto type = LLVM::LLVMArrayType::get(b.getI64Type(), info.size());
  auto value = DenseElementsAttr::get(
      RankedTensorType::get({static_cast<int64_t>(info.size())}, b.getI64Type()),
      ArrayRef<int64_t>(info));
  b.create<LLVM::GlobalOp>(module.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::External,
                           entry.name + "_info", value);
}

// The schedule's vector width as LLVM function attributes: without them
// LLVM splits 512-bit vectors on CPUs that prefer 256-bit ones (Ice Lake).
void requireVectorWidth(ModuleOp module, const Entry& e) {
  Builder b(module.getContext());
  const std::string bits = std::to_string(e.vectorBits);
  ArrayAttr passthrough = b.getArrayAttr(
      {b.getStrArrayAttr({"prefer-vector-width", bits}),
       b.getStrArrayAttr({"min-legal-vector-width", bits})});
  for (StringRef name : {StringRef(e.name), StringRef(e.body)})
    if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name)) fn->setAttr("passthrough", passthrough);
}

struct LowerToLLVMPass : GdrLowerToLLVMBase<LowerToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext* ctx = &getContext();
    std::vector<Entry> entries;
    module.walk([&](FuncOp fn) {
      if (auto name = fn->getAttrOfType<StringAttr>("gdr.abi_entry")) {
        auto k = fn->getAttrOfType<IntegerAttr>("gdr.k"), v = fn->getAttrOfType<IntegerAttr>("gdr.v");
        auto scratch = fn->getAttrOfType<IntegerAttr>("gdr.scratch_floats");
        if (!k || !v || !scratch) {
          fn.emitOpError() << "has gdr.abi_entry but no gdr.k, gdr.v or gdr.scratch_floats";
          return signalPassFailure();
        }
        auto bits = fn->getAttrOfType<IntegerAttr>("gdr.vector_bits");
        entries.push_back({name.str(), fn.getName().str(), k.getInt(), v.getInt(),
                           scratch.getInt(), bits ? bits.getInt() : 0});
      }
    });

    // Vector ops the LLVM conversion has no direct pattern for (broadcast of
    // a scalar) become simpler vector ops first, as convert-vector-to-llvm does.
    {
      RewritePatternSet lowering(ctx);
      vector::populateVectorBroadcastLoweringPatterns(lowering);
      vector::populateVectorMaskOpLoweringPatterns(lowering);
      if (failed(applyPatternsAndFoldGreedily(module, std::move(lowering))))
        return signalPassFailure();
    }

    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateLoopToStdConversionPatterns(patterns);
    vector::populateVectorMaskMaterializationPatterns(patterns, /*indexOptimizations=*/true);
    // Reassociation only makes the k·q reduction a fixed tree instead of a
    // chain; it is still the same order for every column.
    populateVectorToLLVMConversionPatterns(converter, patterns, /*reassociateFPReductions=*/true);
    populateMemRefToLLVMConversionPatterns(converter, patterns);
    arith::populateArithmeticToLLVMConversionPatterns(converter, patterns);
    populateStdToLLVMConversionPatterns(converter, patterns);
    populateReconcileUnrealizedCastsPatterns(patterns);
    LLVMConversionTarget target(*ctx);
    target.addLegalOp<ModuleOp>();
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    for (const Entry& e : entries) {
      // The body is only called by its entry point: internal, so LLVM inlines it.
      if (auto body = module.lookupSymbol<LLVM::LLVMFuncOp>(e.body)) {
        body.setLinkageAttr(LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
        body->removeAttr("sym_visibility");
      }
      addEntryPoint(module, e);
      addInfo(module, e);
      if (e.vectorBits > 0) requireVectorWidth(module, e);
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createLowerToLLVMPass() { return std::make_unique<LowerToLLVMPass>(); }

void buildLowerToLLVMPipeline(OpPassManager& pm) {
  pm.addPass(createAttachSchedulePass());
  pm.addPass(createLowerRecurrentPass());
  pm.addPass(createLowerToLLVMPass());
}

}  // namespace mlir::gdr
