// gdr-lower-to-llvm: scf/vector/memref/arith/std to the LLVM dialect, plus the
// C entry point `int32_t <name>(const gdr_kernel_args*)` of every kernel.
//
// Every op is built in a statement of its own (or in a braced list, which
// C++ evaluates left to right), never as one of several arguments of a call:
// the order of those is up to the compiler (GCC and clang differ), and the
// emitted IR must not depend on the compiler that built gdr.
#include <mlir/Conversion/ArithmeticToLLVM/ArithmeticToLLVM.h>
#include <mlir/Conversion/LLVMCommon/ConversionTarget.h>
#include <mlir/Conversion/LLVMCommon/Pattern.h>
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
  kT, kK, kV, kDecayKind, kReadouts,
  kQueryTokenStride, kKeyTokenStride, kValueTokenStride, kDecayTokenStride, kBetaTokenStride,
  kOutTokenStride, kQueryReadoutStride, kOutReadoutStride,
  kVBegin, kVEnd, kScratch, kScratchFloats, kFinalStateStores, kNextTask, kFirstSumsTag, kOutStores,
  kArgFields
};
constexpr int kPointerFields[] = {kQuery, kKey, kValue, kDecay, kBeta, kInitialState, kOut,
                                  kFinalState, kScratch};

struct Entry {
  std::string name, body;
  int64_t K, V, decayKind, readouts, scratchFloats, vectorBits;
};

// Streamed rows start cache lines: a non-temporal store fills a line in a
// write-combining buffer, and a line written in parts that leaves it
// before it is whole costs a read of the line after all. Measured on the
// dev VM (Xeon, AVX-512), B = 1, H = 16, K = V = 256 (tiles of half a
// row), 1 thread, gdr-bench --impl recurrent+cached,recurrent+streaming:
// with 128-bit stores at 16-byte aligned rows (lines written in parts at
// each tile's ends) T = 0 took 1.85 ms streamed against 0.99 cached; at
// rows that start lines, with whole vectors, 0.40 against 0.69.
constexpr int64_t kLineBytes = 64;

// The entry point's frame is aligned to a page of this many bytes.
constexpr int64_t kFramePageBytes = 4096;

// The memref descriptors' size of every tensor: the body indexes only the
// task's rows (the runtime checked them), and no pass reads the size.
constexpr int64_t kUnknownSize = int64_t{1} << 62;

// Adds `llvm.func @<entry.name>(!llvm.ptr<struct<gdr_kernel_args>>) -> i32`:
// returns 1 if K, V, the decay kind or the readouts differ from the
// kernel's, 2 if the scratch is too small, else calls the body with each
// tensor as a memref descriptor (allocated = aligned pointer, offset 0,
// stride 1), the sizes and strides and whether to stream the final state
// and out, and returns 0. The worker's next task (next_task; this task's own if
// null) gives the body its initial state at its first column, its query,
// key and decay, its T and their strides, its tag (0 if none) and column
// count, and this task's tag (first_sums_tag). It streams the final state
// (out) when asked to and every row of the task's final state (of every
// readout's out) starts a cache line (kLineBytes); then a fence after the
// body orders its non-temporal stores before whatever the caller publishes
// next (x86 does not order them with ordinary stores).
void addEntryPoint(ModuleOp module, const Entry& entry) {
  MLIRContext* ctx = module.getContext();
  Location loc = module.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Type f32Ptr = LLVM::LLVMPointerType::get(b.getF32Type());
  // next_task points to the struct itself: an i8 pointer, cast when read.
  Type bytePtr = LLVM::LLVMPointerType::get(b.getI8Type());
  SmallVector<Type> fields(kArgFields, i64);
  for (int f : kPointerFields) fields[f] = f32Ptr;
  fields[kNextTask] = bytePtr;
  auto argsType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Type argsPtr = LLVM::LLVMPointerType::get(argsType);
  auto fn = b.create<LLVM::LLVMFuncOp>(loc, entry.name, LLVM::LLVMFunctionType::get(i32, {argsPtr}));
  Block* start = fn.addEntryBlock();
  Block* run = fn.addBlock();
  Block* reject = fn.addBlock();
  b.setInsertionPointToStart(start);
  Value args = start->getArgument(0);
  auto constant = [&](Type t, int64_t v) {
    return b.create<LLVM::ConstantOp>(loc, t, b.getIntegerAttr(t, v)).getResult();
  };
  // The body's frame starts at a page: its 32-byte vector spill slots,
  // which LLVM aligns to 16 bytes only (it keeps the frame pointer
  // register for the loops), then never straddle a 4 KiB page wherever
  // the caller's stack is. A straddling spill slot made a whole decode call
  // take 4-9x as long in about 1 process in 25 (the stack moves with the
  // environment): AVX2 (Zen 3), K = V = 128, H = 32, T = 1, 8-vector
  // tiles, one process per stack position over 86 positions, 2026-12-03;
  // forcing the body to realign its own stack instead cost 8-11% at
  // K = V = 64, T = 512 (one register fewer). The body's frame (2.4 KiB at
  // K = V = 128 on AVX2, with its spills) then lies within the page below
  // (the body is never inlined); each call takes up to 8 KiB more stack.
  {
    Type i8 = b.getI8Type();
    Value one = constant(i64, 1);
    Value page = b.create<LLVM::AllocaOp>(loc, LLVM::LLVMPointerType::get(i8), one, kFramePageBytes);
    // Volatile: the byte is there for its alignment alone, which LLVM
    // would otherwise drop with it.
    Value zero = constant(i8, 0);
    b.create<LLVM::StoreOp>(loc, zero, page, /*alignment=*/0, /*isVolatile=*/true);
  }
  auto fieldOf = [&](Value from, ArgField f, Type t) -> Value {
    Value at = b.create<LLVM::GEPOp>(loc, LLVM::LLVMPointerType::get(t), from,
                                     ValueRange{constant(i64, 0), constant(i32, f)});
    return b.create<LLVM::LoadOp>(loc, at);
  };
  auto field = [&](ArgField f, Type t) { return fieldOf(args, f, t); };
  auto fieldIs = [&](ArgField f, int64_t want) -> Value {
    Value got = field(f, i64);
    Value wanted = constant(i64, want);
    return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, got, wanted);
  };
  Value kMatches = fieldIs(kK, entry.K);
  Value vMatches = fieldIs(kV, entry.V);
  Value decayMatches = fieldIs(kDecayKind, entry.decayKind);
  Value readoutsMatch = fieldIs(kReadouts, entry.readouts);
  Value sizesMatch = b.create<LLVM::AndOp>(loc, kMatches, vMatches);
  Value formMatches = b.create<LLVM::AndOp>(loc, decayMatches, readoutsMatch);
  Value matches = b.create<LLVM::AndOp>(loc, sizesMatch, formMatches);
  b.create<LLVM::CondBrOp>(loc, matches, run, reject);

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
  SmallVector<Value> operands;
  // Size: the scratch's floats, else kUnknownSize.
  auto addMemRef = [&](Value p, Value size = Value()) {
    Value offset = constant(i64, 0);
    if (!size) size = constant(i64, kUnknownSize);
    Value stride = constant(i64, 1);
    operands.append({p, p, offset, size, stride});
  };
  for (ArgField f : {kQuery, kKey, kValue, kDecay, kBeta, kInitialState, kOut, kFinalState}) {
    Value p = field(f, f32Ptr);
    addMemRef(p);
  }
  {
    Value p = field(kScratch, f32Ptr);
    addMemRef(p, scratchFloats);
  }
  // No next task: this task's own (its rows and state in cache by then).
  Value nextTask = field(kNextTask, bytePtr);
  Value null = b.create<LLVM::NullOp>(loc, bytePtr);
  Value none = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, nextTask, null);
  Value nextArgs = b.create<LLVM::BitcastOp>(loc, argsPtr, nextTask);
  Value next = b.create<LLVM::SelectOp>(loc, none, args, nextArgs);
  {
    Value state = fieldOf(next, kInitialState, f32Ptr);
    Value column = fieldOf(next, kVBegin, i64);
    Value p = b.create<LLVM::GEPOp>(loc, f32Ptr, state, ValueRange{column});
    addMemRef(p);
  }
  for (ArgField f : {kQuery, kKey, kDecay}) {
    Value p = fieldOf(next, f, f32Ptr);
    addMemRef(p);
  }
  for (ArgField f : {kT, kQueryTokenStride, kKeyTokenStride, kValueTokenStride, kDecayTokenStride,
                     kBetaTokenStride, kOutTokenStride, kQueryReadoutStride, kOutReadoutStride}) {
    Value v = field(f, i64);
    operands.push_back(v);
  }
  for (ArgField f : {kT, kQueryTokenStride, kKeyTokenStride, kDecayTokenStride, kQueryReadoutStride}) {
    Value v = fieldOf(next, f, i64);
    operands.push_back(v);
  }
  for (ArgField f : {kVBegin, kVEnd}) {
    Value v = field(f, i64);
    operands.push_back(v);
  }
  // Whether `bytes` (an i64) is a multiple of a cache line.
  auto lineAligned = [&](Value bytes) -> Value {
    Value misalignment = b.create<LLVM::AndOp>(loc, bytes, constant(i64, kLineBytes - 1));
    return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, misalignment, constant(i64, 0));
  };
  // Whether the task's first column of `f` (a tensor) starts a line.
  auto firstColumnAligned = [&](ArgField f) {
    Value base = field(f, f32Ptr);
    Value address = b.create<LLVM::PtrToIntOp>(loc, i64, base);
    Value vBegin = field(kVBegin, i64);
    Value columnBytes = b.create<LLVM::MulOp>(loc, vBegin, constant(i64, 4));
    Value first = b.create<LLVM::AddOp>(loc, address, columnBytes);
    return lineAligned(first);
  };
  // Whether the stride `f` (in floats) is whole lines.
  auto strideAligned = [&](ArgField f) {
    Value stride = field(f, i64);
    Value bytes = b.create<LLVM::MulOp>(loc, stride, constant(i64, 4));
    return lineAligned(bytes);
  };
  // Rows of V floats that do not start lines never stream (the flag 0).
  Value streaming;
  if ((entry.V * 4) % kLineBytes == 0) {
    Value asked = fieldIs(kFinalStateStores, GDR_STATE_STORES_STREAMING);
    Value aligned = firstColumnAligned(kFinalState);
    streaming = b.create<LLVM::AndOp>(loc, asked, aligned);
  }
  // Out streams when every row of every readout starts a line.
  Value outStreaming;
  {
    Value asked = fieldIs(kOutStores, GDR_STATE_STORES_STREAMING);
    Value aligned = firstColumnAligned(kOut);
    Value rows = strideAligned(kOutTokenStride);
    if (entry.readouts > 1) {
      Value readouts = strideAligned(kOutReadoutStride);
      rows = b.create<LLVM::AndOp>(loc, rows, readouts);
    }
    Value starts = b.create<LLVM::AndOp>(loc, aligned, rows);
    outStreaming = b.create<LLVM::AndOp>(loc, asked, starts);
  }
  for (Value flag : {streaming, outStreaming}) {
    Value wide = flag ? b.create<LLVM::ZExtOp>(loc, i64, flag).getResult() : constant(i64, 0);
    operands.push_back(wide);
  }
  // This task's tag, the next task's (0 without one) and its columns.
  {
    Value own = field(kFirstSumsTag, i64);
    Value theirs = fieldOf(next, kFirstSumsTag, i64);
    Value zero = constant(i64, 0);
    Value nextTag = b.create<LLVM::SelectOp>(loc, none, zero, theirs);
    Value nextBegin = fieldOf(next, kVBegin, i64);
    Value nextEnd = fieldOf(next, kVEnd, i64);
    Value nextColumns = b.create<LLVM::SubOp>(loc, nextEnd, nextBegin);
    operands.append({own, nextTag, nextColumns});
  }
  b.create<LLVM::CallOp>(loc, TypeRange{}, SymbolRefAttr::get(ctx, entry.body), operands);
  {
    Value streamed = streaming ? b.create<LLVM::OrOp>(loc, streaming, outStreaming).getResult() : outStreaming;
    Block* fence = fn.addBlock();
    Block* done = fn.addBlock();
    b.create<LLVM::CondBrOp>(loc, streamed, fence, done);
    b.setInsertionPointToStart(fence);
    b.create<LLVM::FenceOp>(loc, LLVM::AtomicOrdering::seq_cst, StringRef());
    b.create<LLVM::BrOp>(loc, ValueRange{}, done);
    b.setInsertionPointToStart(done);
  }
  b.create<LLVM::ReturnOp>(loc, ValueRange{constant(i32, 0)});
}

// vector.store marked gdr.nontemporal (LowerRecurrent's streamed final
// state and out) as a non-temporal llvm.store aligned to its size (a non-temporal
// store to an unaligned address faults on x86): the entry point streams
// only rows that start a cache line, and LowerRecurrent only tiles of whole
// lines.
struct NontemporalStore : ConvertOpToLLVMPattern<vector::StoreOp> {
  explicit NontemporalStore(LLVMTypeConverter& converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(vector::StoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    if (!op->hasAttr(kNontemporalAttr)) return failure();
    VectorType vector = op.getVectorType();
    Value element = getStridedElementPtr(op.getLoc(), op.getMemRefType(), adaptor.base(),
                                         adaptor.indices(), rewriter);
    auto pointer = LLVM::LLVMPointerType::get(typeConverter->convertType(vector));
    Value at = rewriter.create<LLVM::BitcastOp>(op.getLoc(), pointer, element);
    const unsigned bytes = vector.getNumElements() * vector.getElementTypeBitWidth() / 8;
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, adaptor.valueToStore(), at, bytes,
                                               /*isVolatile=*/false, /*isNonTemporal=*/true);
    return success();
  }
};

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
  info[GDR_INFO_DECAY_KIND] = entry.decayKind;
  info[GDR_INFO_READOUTS] = entry.readouts;
  info[GDR_INFO_TOKEN_STEPS] = 1;  // LowerRecurrent.cpp: "Fused across tokens"
  auto type = LLVM::LLVMArrayType::get(b.getI64Type(), info.size());
  auto value = DenseElementsAttr::get(
      RankedTensorType::get({static_cast<int64_t>(info.size())}, b.getI64Type()),
      ArrayRef<int64_t>(info));
  b.create<LLVM::GlobalOp>(module.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::External,
                           entry.name + "_info", value);
}

// Adds LLVM function attributes to the ones fn passes through.
void addPassthrough(LLVM::LLVMFuncOp fn, ArrayRef<Attribute> attributes) {
  SmallVector<Attribute> all;
  if (auto given = fn->getAttrOfType<ArrayAttr>("passthrough")) all.append(given.begin(), given.end());
  all.append(attributes.begin(), attributes.end());
  fn->setAttr("passthrough", ArrayAttr::get(fn->getContext(), all));
}

// The schedule's vector width as LLVM function attributes: without them
// LLVM splits 512-bit vectors on CPUs that prefer 256-bit ones (Ice Lake).
void requireVectorWidth(ModuleOp module, const Entry& e) {
  Builder b(module.getContext());
  const std::string bits = std::to_string(e.vectorBits);
  const Attribute widths[] = {b.getStrArrayAttr({"prefer-vector-width", bits}),
                              b.getStrArrayAttr({"min-legal-vector-width", bits})};
  for (StringRef name : {StringRef(e.name), StringRef(e.body)})
    if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name)) addPassthrough(fn, widths);
}

struct LowerToLLVMPass : GdrLowerToLLVMBase<LowerToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext* ctx = &getContext();
    // A kernel left here has no lowering of gdr-opt's: say so, not "failed
    // to legalize".
    WalkResult kernels = module.walk([&](KernelOp kernel) {
      const StringRef route = kernel.getProblem().getRoute();
      kernel.emitOpError() << "has route = " << route << ", which gdr-opt cannot lower to LLVM: "
                           << (route == "recurrent" ? "run gdr-lower-recurrent first"
                                                    : "write route = recurrent (gdr-compile builds the "
                                                      "chunked route through Halide and chooses auto's route "
                                                      "per call)");
      return WalkResult::interrupt();
    });
    if (kernels.wasInterrupted()) return signalPassFailure();
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
        auto decay = fn->getAttrOfType<IntegerAttr>("gdr.decay_kind");
        auto readouts = fn->getAttrOfType<IntegerAttr>("gdr.readouts");
        entries.push_back({name.str(), fn.getName().str(), k.getInt(), v.getInt(),
                           decay ? decay.getInt() : GDR_DECAY_CHANNEL,
                           readouts ? readouts.getInt() : 1, scratch.getInt(),
                           bits ? bits.getInt() : 0});
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
    patterns.add<NontemporalStore>(converter);
    populateMemRefToLLVMConversionPatterns(converter, patterns);
    arith::populateArithmeticToLLVMConversionPatterns(converter, patterns);
    populateStdToLLVMConversionPatterns(converter, patterns);
    populateReconcileUnrealizedCastsPatterns(patterns);
    LLVMConversionTarget target(*ctx);
    target.addLegalOp<ModuleOp>();
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    for (const Entry& e : entries) {
      // The body is only called by its entry point: internal. Never inlined:
      // its frame must start below the entry point's page (addEntryPoint).
      if (auto body = module.lookupSymbol<LLVM::LLVMFuncOp>(e.body)) {
        body.setLinkageAttr(LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
        body->removeAttr("sym_visibility");
        addPassthrough(body, {StringAttr::get(ctx, "noinline")});
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
