#include "gdr/compiler/target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
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

std::string why_triple_unknown(const std::string& triple) {
  initialize_native_target();
  std::string error;
  if (llvm::TargetRegistry::lookupTarget(triple, error)) return "";
  return "no LLVM target for " + triple + ": " + error;
}

std::string why_cpu_unknown(const std::string& triple, const std::string& cpu) {
  if (std::string why = why_triple_unknown(triple); !why.empty()) return why;
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(triple, error);
  const std::unique_ptr<llvm::MCSubtargetInfo> subtarget(llvm_target->createMCSubtargetInfo(triple, "", ""));
  if (cpu.empty() || (subtarget && subtarget->isCPUStringValid(cpu))) return "";
  return "unknown CPU '" + cpu + "' for " + triple + " (llc-14 -mtriple=" + triple +
         " -mcpu=help lists the known ones)";
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const Target& target, std::string* error) {
  // LLVM only warns about an unknown CPU and then builds for a generic one:
  // refuse it instead.
  *error = why_cpu_unknown(target.triple, target.cpu);
  if (!error->empty()) return nullptr;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(target.triple, *error);
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(llvm_target->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_, llvm::None,
      llvm::CodeGenOpt::Aggressive));
}

}  // namespace gdr::compiler
