// How a tool reports what went wrong: "tool: message" as one line of
// stderr, whatever the message echoes (gdr::support::one_line).
#pragma once

#include <string>

namespace gdr::tools {

// Prints the line and returns `exit_code`, for `return error_line(...)`.
int error_line(const char* tool, int exit_code, const std::string& message);

}  // namespace gdr::tools
