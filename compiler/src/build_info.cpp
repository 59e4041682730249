#include "gdr/compiler/build_info.h"

#include <llvm/Config/llvm-config.h>

#include "gdr/compiler/codegen_sources_hash.h"

namespace gdr::compiler {

BuildInfo build_info() { return {LLVM_VERSION_STRING, GDR_HALIDE_VERSION, kCodegenSourcesHash}; }

}  // namespace gdr::compiler
