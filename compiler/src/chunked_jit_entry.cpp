#include "chunked_jit_entry.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <vector>

#include "gdr/compiler/aot_entry.h"
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
  auto address = [&](const void* p) {
    return llvm::ConstantExpr::getIntToPtr(
        llvm::ConstantInt::get(llvm::Type::getInt64Ty(context), reinterpret_cast<uintptr_t>(p)),
        llvm::Type::getInt8PtrTy(context));
  };
  define_halide_entry(module, entry_name, address(reinterpret_cast<const void*>(&gdr_halide_chunked_entry)),
                      address(reinterpret_cast<const void*>(fn)), chunk);
  std::string verify;
  llvm::raw_string_ostream verify_os(verify);
  if (llvm::verifyModule(module, &verify_os)) return Status::error("the entry module of " + name + ": " + verify);

  std::vector<char> object;
  if (Status s = emit_code(*tm, module, &object); !s) return s;
  void* loaded = nullptr;
  if (Status s = jit_load_object(object, entry_name, &loaded); !s) return s;
  *entry = reinterpret_cast<gdr_kernel_fn>(loaded);
  return Status::success();
}

}  // namespace gdr::compiler
