#include "error_line.h"

#include <cstdio>

#include "gdr/support/one_line.h"

namespace gdr::tools {

int error_line(const char* tool, int exit_code, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", tool, support::one_line(message).c_str());
  return exit_code;
}

}  // namespace gdr::tools
