#include "gdr/compiler/aot_entry.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "gdr/compiler/cpu_features.h"
#include "gdr/kernel_abi.h"

namespace gdr::compiler {

llvm::Function* define_halide_entry(llvm::Module& module, const std::string& name, llvm::Value* bridge,
                                    llvm::Value* pipeline, int64_t chunk) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  llvm::Type* ptr = llvm::Type::getInt8PtrTy(context);
  auto* entry_type = llvm::FunctionType::get(i32, {ptr}, false);
  auto* bridge_type = llvm::FunctionType::get(i32, {ptr, ptr, i64}, false);
  auto* entry = llvm::Function::Create(entry_type, llvm::GlobalValue::ExternalLinkage, name, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::CallInst* call = b.CreateCall(bridge_type, b.CreateBitCast(bridge, bridge_type->getPointerTo()),
                                      {entry->getArg(0), pipeline, llvm::ConstantInt::get(i64, chunk)});
  call->setTailCall();
  b.CreateRet(call);
  return entry;
}

Status aot_entry_object(const Target& target, const std::string& name, const EntryPoint* entry_point,
                        std::vector<char>* object) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(target, &error);
  if (!tm) return Status::error(error);
  llvm::LLVMContext context;
  llvm::Module module(name + "_entry", context);
  module.setTargetTriple(target.triple);
  module.setDataLayout(tm->createDataLayout());
  module.setPICLevel(llvm::PICLevel::BigPIC);

  const std::string features = required_cpu_features(target);
  auto* features_text = llvm::ConstantDataArray::getString(context, features, /*AddNull=*/true);
  new llvm::GlobalVariable(module, features_text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, features_text, name + "_cpu_features");

  if (entry_point) {
    if (entry_point->info.size() != GDR_KERNEL_INFO_FIELDS)
      return Status::error("the info table of " + name + " needs " + std::to_string(GDR_KERNEL_INFO_FIELDS) +
                           " values, got " + std::to_string(entry_point->info.size()));
    llvm::Type* i64 = llvm::Type::getInt64Ty(context);
    llvm::Type* i32 = llvm::Type::getInt32Ty(context);
    llvm::Type* ptr = llvm::Type::getInt8PtrTy(context);
    auto* table_type = llvm::ArrayType::get(i64, GDR_KERNEL_INFO_FIELDS);
    std::vector<llvm::Constant*> values;
    for (int64_t v : entry_point->info) values.push_back(llvm::ConstantInt::get(i64, v, /*IsSigned=*/true));
    new llvm::GlobalVariable(module, table_type, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                             llvm::ConstantArray::get(table_type, values), name + "_info");

    if (entry_point->kind == EntryPoint::Kind::Halide) {
      // return gdr_halide_chunked_entry(a, &name_halide, chunk);
      auto* halide_type = llvm::FunctionType::get(i32, std::vector<llvm::Type*>(8, ptr), false);
      llvm::FunctionCallee halide = module.getOrInsertFunction(entry_point->callee, halide_type);
      auto* bridge_type = llvm::FunctionType::get(i32, {ptr, ptr, i64}, false);
      llvm::FunctionCallee bridge = module.getOrInsertFunction("gdr_halide_chunked_entry", bridge_type);
      define_halide_entry(module, name, bridge.getCallee(),
                          llvm::ConstantExpr::getBitCast(llvm::cast<llvm::Constant>(halide.getCallee()), ptr),
                          entry_point->chunk);
    } else {
      // int32_t name(const gdr_kernel_args* a) { return callee(a); }
      auto* entry_type = llvm::FunctionType::get(i32, {ptr}, false);
      auto* entry = llvm::Function::Create(entry_type, llvm::GlobalValue::ExternalLinkage, name, module);
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
      llvm::CallInst* call =
          b.CreateCall(module.getOrInsertFunction(entry_point->callee, entry_type), {entry->getArg(0)});
      call->setTailCall();
      b.CreateRet(call);
    }
  }
  std::string verify;
  llvm::raw_string_ostream verify_os(verify);
  if (llvm::verifyModule(module, &verify_os)) return Status::error("the entry module of " + name + ": " + verify);

  return emit_code(*tm, module, object);
}

}  // namespace gdr::compiler
