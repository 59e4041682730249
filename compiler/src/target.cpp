#include "gdr/compiler/target.h"

#include <fcntl.h>
#include <unistd.h>

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/Triple.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include "gdr/Dialect/DefaultSchedule.h"

namespace gdr::compiler {

void initialize_native_target() {
  static const bool done = [] {
    // Every target Debian's LLVM has, so that gdr-compile can build for
    // another machine (aarch64 from x86); the JIT uses the native one.
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    return true;
  }();
  (void)done;
}

namespace {

// The x86-64 microarchitecture level (x86-64-v4, -v3, -v2, else x86-64)
// whose features the host has: the name of an x86 CPU newer than LLVM 14,
// which getHostCPUName() calls "generic" (AMD Zen 5, family 26). The host's
// own features still come with it, so the code uses all of them.
std::string x86_level(const llvm::StringMap<bool>& has) {
  auto all = [&](std::initializer_list<const char*> names) {
    for (const char* name : names)
      if (!has.lookup(name)) return false;
    return true;
  };
  if (!all({"cx16", "sahf", "popcnt", "sse4.2", "ssse3"})) return "x86-64";
  if (!all({"avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"})) return "x86-64-v2";
  if (!all({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"})) return "x86-64-v3";
  return "x86-64-v4";
}

}  // namespace

const Target& host_target() {
  // Never destroyed: calls may come while the process exits.
  static const Target& host = *new Target([] {
    Target t;
    t.triple = llvm::sys::getProcessTriple();
    t.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features;
    if (llvm::sys::getHostCPUFeatures(features)) {
      if (t.cpu == "generic" && llvm::Triple(t.triple).isX86()) t.cpu = x86_level(features);
      for (const auto& f : features) {
        if (!t.features.empty()) t.features += ",";
        t.features += (f.getValue() ? "+" : "-") + f.getKey().str();
      }
      t.vector_bits = features.lookup("avx512f") ? 512 : features.lookup("avx") ? 256 : 128;
    }
    return t;
  }());
  return host;
}

std::string why_triple_unknown(const std::string& triple) {
  initialize_native_target();
  std::string error;
  if (llvm::TargetRegistry::lookupTarget(triple, error)) return "";
  return "no LLVM target for " + triple + ": " + error;
}

std::string why_triple_not_served(const std::string& triple) {
  const llvm::Triple t(llvm::Triple::normalize(triple));
  const bool arch = t.getArch() == llvm::Triple::x86_64 || t.getArch() == llvm::Triple::aarch64;
  if (arch && t.isOSBinFormatELF() && !t.isX32() && t.getEnvironment() != llvm::Triple::GNUILP32) return "";
  return "gdr builds kernels for 64-bit little-endian ELF targets (x86-64 and aarch64), not " + triple;
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

std::string why_features_bad(const std::string& triple, const std::string& features) {
  if (std::string why = why_triple_unknown(triple); !why.empty()) return why;
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(triple, error);
  const std::unique_ptr<llvm::MCSubtargetInfo> subtarget(llvm_target->createMCSubtargetInfo(triple, "", ""));
  llvm::SmallVector<llvm::StringRef, 16> items;
  llvm::StringRef(features).split(items, ',');
  for (llvm::StringRef item : items)
    if (item.empty() || (item[0] != '+' && item[0] != '-'))
      return "'" + item.str() + "' must start with + (enable) or - (disable)";
  // LLVM 14 has no public table of the names: a known name toggles its bit,
  // an unknown one only prints a warning, sent to /dev/null meanwhile.
  std::string unknown;
  llvm::errs().flush();
  const int saved_stderr = ::fcntl(2, F_DUPFD_CLOEXEC, 3), null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  const bool quiet = saved_stderr >= 0 && null >= 0 && ::dup2(null, 2) == 2;
  for (llvm::StringRef item : items) {
    const llvm::FeatureBitset before = subtarget->getFeatureBits();
    subtarget->ToggleFeature(item.drop_front());
    if (subtarget->getFeatureBits() == before) {
      unknown = item.drop_front().str();
      break;
    }
  }
  llvm::errs().flush();
  if (quiet) ::dup2(saved_stderr, 2);
  if (saved_stderr >= 0) ::close(saved_stderr);
  if (null >= 0) ::close(null);
  if (unknown.empty()) return "";
  return "unknown feature '" + unknown + "' for " + architecture_name(triple) + " (llc-14 -mtriple=" + triple +
         " -mattr=help lists the known ones)";
}

Status target_for(const std::string& triple, const std::string& cpu, const std::string& features,
                  Target* target) {
  const Target& host = host_target();
  const bool host_cpu = triple.empty() && cpu.empty();
  Target t;
  t.triple = triple.empty() ? host.triple : triple;
  t.cpu = host_cpu ? host.cpu : cpu.empty() ? "generic" : cpu;
  // A CPU implies its own features; only the host's CPU implies the host's.
  t.features = !features.empty() ? features : host_cpu ? host.features : "";
  if (std::string why = why_cpu_unknown(t.triple, t.cpu); !why.empty()) return Status::error(why);
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(t.triple, error);
  const std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      llvm_target->createMCSubtargetInfo(t.triple, t.cpu, t.features));
  // The widest float vectors the CPU and features give: AVX-512F 512, AVX
  // 256, else (SSE, NEON) 128. Features are only asked of x86 CPUs: LLVM
  // stops the process for a feature name the target does not know.
  t.vector_bits = 128;
  if (llvm::Triple(t.triple).isX86() && subtarget)
    t.vector_bits = subtarget->checkFeatures("+avx512f") ? 512 : subtarget->checkFeatures("+avx") ? 256 : 128;
  *target = t;
  return Status::success();
}

int vector_registers(const Target& target) {
  return static_cast<int>(mlir::gdr::vectorRegisters(target.vector_bits, llvm::Triple(target.triple).isX86()));
}

std::string architecture_name(const std::string& triple) {
  return llvm::Triple::getArchTypeName(llvm::Triple(llvm::Triple::normalize(triple)).getArch()).str();
}

bool target_has_features(const Target& target, const std::string& features) {
  initialize_native_target();
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!llvm_target) return false;
  const std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      llvm_target->createMCSubtargetInfo(target.triple, target.cpu, target.features));
  return subtarget && subtarget->checkFeatures(features);
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

Status emit_code(llvm::TargetMachine& tm, llvm::Module& module, std::vector<char>* code, bool assembly) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  if (tm.addPassesToEmitFile(codegen, os, nullptr, assembly ? llvm::CGFT_AssemblyFile : llvm::CGFT_ObjectFile))
    return Status::error(std::string("the target machine cannot emit ") + (assembly ? "assembly" : "objects"));
  codegen.run(module);
  code->assign(buffer.begin(), buffer.end());
  return Status::success();
}

}  // namespace gdr::compiler
