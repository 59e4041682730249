// gdr-opt: mlir-opt with the gdr dialect and passes, for lit tests and
// for looking at each lowering step by hand. MlirOptMain(argc, argv, ...)
// would exit 1 on a bad command line and print LLVM's version: this parses
// the command line itself so that usage errors exit 2 (exit_codes.h),
// --version is gdr's, and --help starts with gdr's passes.
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/InitLLVM.h>
#include <llvm/Support/Signals.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <mlir/Dialect/LLVMIR/LLVMDialect.h>
#include <mlir/IR/AsmState.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/Pass/PassManager.h>
#include <mlir/Pass/PassRegistry.h>
#include <mlir/Support/FileUtilities.h>
#include <mlir/Support/MlirOptMain.h>
#include <mlir/Support/Timing.h>
#include <mlir/Transforms/Passes.h>

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "exit_codes.h"
#include "gdr/Dialect/GdrPasses.h"
#include "gdr/support/staged_outputs.h"
#include "version.h"

namespace cl = llvm::cl;

namespace {

// The overview --help prints first: gdr's passes, then the exit codes.
std::string help_overview() {
  std::string text = "gdr-opt: the gdr dialect and its passes (mlir-opt's options below)\n\ngdr's passes:\n";
  std::unique_ptr<mlir::Pass> passes[] = {mlir::gdr::createAttachSchedulePass(),
                                          mlir::gdr::createLowerRecurrentPass(),
                                          mlir::gdr::createLowerToLLVMPass()};
  for (const auto& pass : passes)
    text += "  --" + pass->getArgument().str() + "  " + pass->getDescription().str() + "\n";
  text += "\n";
  text += gdr::tools::kExitCodesHelp;
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  mlir::gdr::registerGdrPasses();
  mlir::registerTransformsPasses();  // -canonicalize, -cse, ... to read lowered IR
  mlir::DialectRegistry registry;
  registry.insert<mlir::gdr::GdrDialect, mlir::arith::ArithmeticDialect, mlir::scf::SCFDialect,
                  mlir::vector::VectorDialect, mlir::memref::MemRefDialect,
                  mlir::StandardOpsDialect, mlir::LLVM::LLVMDialect>();

  // mlir-opt's own options (MlirOptMain.cpp in MLIR 14).
  static cl::opt<std::string> input_filename(cl::Positional, cl::desc("<input file>"), cl::init("-"));
  static cl::opt<std::string> output_filename("o", cl::desc("Output filename"),
                                              cl::value_desc("filename"), cl::init("-"));
  static cl::opt<bool> split_input_file(
      "split-input-file", cl::desc("Split the input file into pieces and process each chunk independently"),
      cl::init(false));
  static cl::opt<bool> verify_diagnostics(
      "verify-diagnostics", cl::desc("Check that emitted diagnostics match expected-* lines on the corresponding line"),
      cl::init(false));
  static cl::opt<bool> verify_passes("verify-each", cl::desc("Run the verifier after each transformation pass"),
                                     cl::init(true));
  static cl::opt<bool> allow_unregistered_dialects(
      "allow-unregistered-dialect", cl::desc("Allow operation with no registered dialects"), cl::init(false));

  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::PassPipelineCLParser pass_pipeline("", "Compiler passes to run");
  cl::SetVersionPrinter([](llvm::raw_ostream& os) { os << gdr::tools::version_text("gdr-opt"); });

  // With an error stream, a bad command line returns false instead of exit(1).
  if (!cl::ParseCommandLineOptions(argc, argv, help_overview(), &llvm::errs()))
    return gdr::tools::kExitUsage;

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(input_filename, &error);
  if (!input) {
    llvm::errs() << "gdr-opt: " << error << "\n";
    return gdr::tools::kExitFailed;
  }
  // A file is staged (checked first, renamed into place once whole): a
  // failed run leaves an existing -o file, the input itself included, as it
  // was. Anything else (-, /dev/null, a FIFO) is written once the run is done.
  gdr::support::StagedOutputs outputs;
  std::error_code ec;
  const auto kind = std::filesystem::status(output_filename.getValue(), ec).type();
  const bool staged = output_filename != "-" &&
                      (kind == std::filesystem::file_type::not_found || kind == std::filesystem::file_type::regular);
  if (staged) {
    if (gdr::Status s = outputs.add("-o " + output_filename, output_filename); !s) {
      llvm::errs() << "gdr-opt: " << s.message() << "\n";
      return gdr::tools::kExitUsage;
    }
    // InitLLVM's signal handlers came first (gdr's leave a program's own
    // alone): LLVM's delete the temporary on a signal that ends the process.
    llvm::sys::RemoveFileOnSignal(outputs.temporary(0));
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (mlir::failed(mlir::MlirOptMain(os, std::move(input), pass_pipeline, registry, split_input_file,
                                     verify_diagnostics, verify_passes, allow_unregistered_dialects)))
    return gdr::tools::kExitFailed;
  os.flush();
  if (!staged) {
    llvm::raw_fd_ostream out(output_filename, ec);
    if (!ec) out << text;
    if (ec || out.has_error()) {
      llvm::errs() << "gdr-opt: -o " << output_filename << ": " << (ec ? ec.message() : "cannot write") << "\n";
      out.clear_error();
      return gdr::tools::kExitFailed;
    }
    return gdr::tools::kExitOk;
  }
  gdr::Status s = outputs.write(0, {text});
  if (s) s = outputs.commit();
  llvm::sys::DontRemoveFileOnSignal(outputs.temporary(0));
  if (!s) {
    llvm::errs() << "gdr-opt: " << s.message() << "\n";
    return gdr::tools::kExitFailed;
  }
  return gdr::tools::kExitOk;
}
