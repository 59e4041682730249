#include "version.h"

#ifdef GDR_HAVE_COMPILER
#include "gdr/compiler/build_info.h"
#endif

namespace gdr::tools {

std::string version_text(const std::string& tool) {
  std::string text = tool + " " + GDR_VERSION + "\n";
#ifdef GDR_HAVE_COMPILER
  const compiler::BuildInfo info = compiler::build_info();
  text += std::string("LLVM ") + info.llvm_version + ", Halide " + info.halide_version + "\n";
  text += std::string("code generator sources ") + info.codegen_sources_hash +
          " (SHA-256; part of every kernel cache key)\n";
#else
  text += "runtime only: built without the code generator (no LLVM, Halide or kernel cache)\n";
#endif
  return text;
}

}  // namespace gdr::tools
