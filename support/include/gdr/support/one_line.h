// Text for one line of a terminal: messages echo what they were given (a
// flag's value, a path, an environment variable), which may hold a newline
// (the error would then read as two) or a terminal's escape sequences.
#pragma once

#include <string>
#include <string_view>

namespace gdr::support {

// `text` with each control character (bytes 0-31 and 127) written as its C
// escape: \n, \r, \t, else \xHH. Other bytes (UTF-8 too) are kept.
std::string one_line(std::string_view text);

}  // namespace gdr::support
