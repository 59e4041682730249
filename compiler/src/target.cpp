#include "gdr/compiler/target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

namespace gdr::compiler {

void initialize_native_target() {
  static const bool done = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)done;
}

const Target& host_target() {
  static const Target host = [] {
    Target t;
    t.triple = llvm::sys::getProcessTriple();
    t.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features;
    if (llvm::sys::getHostCPUFeatures(features)) {
      for (const auto& f : features) {
        if (!t.features.empty()) t.features += ",";
        t.features += (f.getValue() ? "+" : "-") + f.getKey().str();
      }
      t.vector_bits = features.lookup("avx512f") ? 512 : features.lookup("avx") ? 256 : 128;
    }
    return t;
  }();
  return host;
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const Target& target, std::string* error) {
  initialize_native_target();
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(target.triple, *error);
  if (!llvm_target) return nullptr;
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(llvm_target->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_, llvm::None,
      llvm::CodeGenOpt::Aggressive));
}

}  // namespace gdr::compiler
