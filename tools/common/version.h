// What every tool prints for --version.
#pragma once

#include <string>

namespace gdr::tools {

// "<tool> <gdr version>", then the LLVM and Halide versions and the hash of
// the code generator's sources that the kernel cache keys hold (or that this
// build has no code generator), one per line.
std::string version_text(const std::string& tool);

}  // namespace gdr::tools
