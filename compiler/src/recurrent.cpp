// The recurrent route's pipeline: a gdr module with one kernel, the gdr
// passes down to the LLVM dialect, LLVM IR, LLVM's O3 for the target, object.
#include "gdr/compiler/recurrent.h"

#include "gdr/kernel_info.h"

#include <llvm/IR/Module.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/Parser.h>
#include <mlir/Pass/PassManager.h>
#include <mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h>
#include <mlir/Target/LLVMIR/Export.h>

#include "gdr/Dialect/DefaultSchedule.h"
#include "gdr/Dialect/GdrPasses.h"
#include "gdr/compiler/disk_cache.h"
#include "gdr/compiler/jit.h"
#include "gdr/compiler/variant.h"

namespace gdr::compiler {

namespace {

void load_dialects(mlir::MLIRContext& context) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::gdr::GdrDialect, mlir::LLVM::LLVMDialect>();
  mlir::registerLLVMDialectTranslation(registry);
  context.appendDialectRegistry(registry);
  context.loadDialect<mlir::gdr::GdrDialect, mlir::LLVM::LLVMDialect>();
}

// The kernel as gdr-opt would read it.
std::string module_text(const KernelSpec& spec, const RecurrentSchedule& s, const Target& target,
                        const std::string& name) {
  std::string text = "gdr.kernel @" + name + " problem <k = " + std::to_string(spec.K) +
                     ", v = " + std::to_string(spec.V) + ", element_type = f32, gate = " +
                     (spec.decay == DecayKind::Scalar ? "scalar" : "channelwise") +
                     (spec.readouts != 1 ? ", readouts = " + std::to_string(spec.readouts) : "") +
                     ", route = recurrent>";
  text += " schedule <vector_width = " + std::to_string(s.vector_width) +
          ", v_tile = " + std::to_string(s.v_tile) + ", unroll = " + std::to_string(s.unroll) +
          ", prefetch = " + std::to_string(s.prefetch) +
          (s.sweep_tokens != 2 ? ", sweep_tokens = " + std::to_string(s.sweep_tokens) : "") + ">";
  // The registers only where the CPU's name does not tell them (an x86
  // triple's "generic"), so that other kernels' text stays as it was.
  const int64_t registers = vector_registers(target);
  text += " target <cpu = \"" + target.cpu + "\", vector_bits = " + std::to_string(target.vector_bits) +
          (registers != mlir::gdr::vectorRegisters(target.vector_bits, target.cpu)
               ? ", vector_registers = " + std::to_string(registers)
               : "") +
          ">\n";
  return text;
}

// Parses and verifies the module; a bad spec or schedule gives the
// verifier's diagnostic, which names the attribute, in `*error`.
mlir::OwningOpRef<mlir::ModuleOp> parse_module(mlir::MLIRContext& context, const std::string& text,
                                               std::string* error) {
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic& d) {
    diagnostics += (diagnostics.empty() ? "" : "; ") + d.str();
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module) *error = diagnostics;
  return module;
}

// The target on every function, so that inlining and the cost model see the
// CPU (the vector width attributes come from gdr-lower-to-llvm).
void set_function_attributes(llvm::Module& module, const Target& target) {
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", target.cpu);
    f.addFnAttr("target-features", target.features);
  }
}

void optimize(llvm::Module& module, llvm::TargetMachine& tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

}  // namespace

std::string recurrent_module_text(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                  const Target& target) {
  return module_text(spec, schedule, target, recurrent_variant(spec, schedule).name());
}

Status check_recurrent_schedule(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                const Target& target) {
  mlir::MLIRContext context;
  load_dialects(context);
  std::string error;
  if (!parse_module(context, recurrent_module_text(spec, schedule, target), &error))
    return Status::error("invalid recurrent kernel: " + error);
  return Status::success();
}

Status compile_recurrent_object(const KernelSpec& spec, const RecurrentSchedule& schedule,
                                const Target& target, std::vector<char>* object,
                                RecurrentOutput output) {
  mlir::MLIRContext context;
  load_dialects(context);
  std::string error;
  auto module = parse_module(context, recurrent_module_text(spec, schedule, target), &error);
  if (!module) return Status::error("invalid recurrent kernel: " + error);

  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic& d) {
    diagnostics += d.str() + "; ";
    return mlir::success();
  });
  mlir::PassManager pm(&context);
  mlir::gdr::buildLowerToLLVMPipeline(pm);
  if (mlir::failed(pm.run(*module)))
    return Status::error("lowering " + recurrent_variant(spec, schedule).name() +
                         " failed: " + diagnostics);

  llvm::LLVMContext llvm_context;
  std::unique_ptr<llvm::Module> llvm_module = mlir::translateModuleToLLVMIR(*module, llvm_context);
  if (!llvm_module) return Status::error("translation to LLVM IR failed: " + diagnostics);

  std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(target, &error);
  if (!tm) return Status::error(error);
  llvm_module->setDataLayout(tm->createDataLayout());
  llvm_module->setTargetTriple(target.triple);
  set_function_attributes(*llvm_module, target);
  optimize(*llvm_module, *tm);

  if (output != RecurrentOutput::LlvmIr)
    return emit_code(*tm, *llvm_module, object, output == RecurrentOutput::Assembly);
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm_module->print(os, nullptr);
  object->assign(text.begin(), text.end());
  return Status::success();
}

Status compile_recurrent(const KernelSpec& spec, const RecurrentSchedule& schedule, Kernel* kernel,
                         const Target& target) {
  const Variant variant = recurrent_variant(spec, schedule);
  const std::string name = variant.name();
  // The entry point and its <name>_info: the kernel's facts come from the
  // kernel (kernel_info.h), as for a loaded library. Read as the object is
  // accepted: a cached one whose table is impossible or of another kernel
  // is refused, discarded and rebuilt, not refused by every process.
  std::vector<void*> addresses;
  KernelInfo info;
  const auto accept = [&](const std::vector<void*>& loaded) {
    if (Status read = read_kernel_info(name, static_cast<const int64_t*>(loaded[1]), &info); !read) return read;
    if (!(KernelSpec{info.K, info.V, info.decay_kind, info.readouts} == spec))
      return Status::error(name + "_info describes another kernel (K = " + std::to_string(info.K) +
                           ", V = " + std::to_string(info.V) + ")");
    return Status::success();
  };
  Status s = DiskCache::current().load_or_build(
      cache_description(variant, target),
      [&](std::vector<char>* object) { return compile_recurrent_object(spec, schedule, target, object); },
      [&](const std::vector<char>& object) {
        return jit_load_object(object, {name, name + "_info"}, &addresses, "", accept);
      },
      name);
  if (!s) return s;
  *kernel = kernel_from_info(name, reinterpret_cast<gdr_kernel_fn>(addresses[0]), info);
  return Status::success();
}

}  // namespace gdr::compiler
