// The code generator's messages to the user: one stderr line each, starting
// "gdr: ", as far as the process's verbosity (settings.h) lets them through.
#pragma once

#include <string>

namespace gdr::compiler {

// Verbosity >= 1: something was ignored, rebuilt or could not be used
// (control characters of what it echoes escaped: support::one_line).
void warn(const std::string& line);

// Verbosity >= 2: a kernel was compiled (`compiled`) or loaded from the
// kernel cache, and how long that took.
void note_kernel(const std::string& name, bool compiled, double milliseconds);

}  // namespace gdr::compiler
