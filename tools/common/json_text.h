// Text the tools write into their JSON files.
#pragma once

#include <string>

namespace gdr::tools {

// `s` as a JSON string, quoted: quotes, backslashes and control characters
// escaped (paths and messages may hold any of them).
std::string json_string(const std::string& s);

}  // namespace gdr::tools
