#include "chunked_jit_entry.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <vector>

#include "gdr/compiler/jit.h"
#include "gdr/compiler/target.h"

namespace gdr::compiler {

Status jit_chunked_entry(const std::string& name, HalideChunkedFn fn, int64_t chunk, gdr_kernel_fn* entry) {
  const Target& target = host_target();
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(target, &error);
  if (!tm) return Status::error(error);
  const std::string entry_name = name + "_entry";
  llvm::LLVMContext context;
  llvm::Module module(entry_name, context);
  module.setTargetTriple(target.triple);
  module.setDataLayout(tm->createDataLayout());

  // Both callees are in this process already: their addresses are
  // constants, so the object has no symbol to resolve.
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  llvm::Type* ptr = llvm::Type::getInt8PtrTy(context);
  auto address = [&](const void* p, llvm::Type* type) {
    return llvm::ConstantExpr::getIntToPtr(
        llvm::ConstantInt::get(i64, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p))), type);
  };
  auto* entry_type = llvm::FunctionType::get(i32, {ptr}, false);
  auto* bridge_type = llvm::FunctionType::get(i32, {ptr, ptr, i64}, false);
  auto* function = llvm::Function::Create(entry_type, llvm::GlobalValue::ExternalLinkage, entry_name, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", function));
  llvm::CallInst* call = b.CreateCall(
      bridge_type,
      address(reinterpret_cast<const void*>(&gdr_halide_chunked_entry), bridge_type->getPointerTo()),
      {function->getArg(0), address(reinterpret_cast<const void*>(fn), ptr), llvm::ConstantInt::get(i64, chunk)});
  call->setTailCall();
  b.CreateRet(call);
  std::string verify;
  llvm::raw_string_ostream verify_os(verify);
  if (llvm::verifyModule(module, &verify_os)) return Status::error("the entry module of " + name + ": " + verify);

  std::vector<char> object;
  if (Status s = emit_code(*tm, module, &object); !s) return s;
  void* loaded = nullptr;
  if (Status s = jit_load_object(object, entry_name, &loaded); !s) return s;
  *entry = reinterpret_cast<gdr_kernel_fn>(loaded);
  return Status::ok();
}

}  // namespace gdr::compiler
