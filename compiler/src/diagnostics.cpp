#include "gdr/compiler/diagnostics.h"

#include <cstdio>

#include "gdr/compiler/settings.h"
#include "gdr/support/one_line.h"

namespace gdr::compiler {

// One fprintf per line, so lines of concurrent threads do not interleave.
void warn(const std::string& line) {
  if (current_verbosity() >= 1) std::fprintf(stderr, "%s\n", support::one_line(line).c_str());
}

void note_kernel(const std::string& name, bool compiled, double milliseconds) {
  if (current_verbosity() < 2) return;
  std::fprintf(stderr, "gdr: %s %s in %.1f ms\n", name.c_str(),
               compiled ? "compiled" : "loaded from the kernel cache", milliseconds);
}

}  // namespace gdr::compiler
