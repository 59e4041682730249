// Text for one line of a terminal: messages echo what they were given (a
// flag's value, a path, an environment variable), which may hold a newline
// (the error would then read as two) or a terminal's escape sequences.
#pragma once

#include <string>
#include <string_view>

namespace gdr::support {

// `text` with each control character (bytes 0-31 and 127) written as its C
// escape: \n, \r, \t, else \xHH. Other bytes are kept, so that UTF-8
// paths stay readable (bytes 128-159 are also UTF-8's continuation bytes;
// a terminal reading them as 8-bit controls is not served).
std::string one_line(std::string_view text);

}  // namespace gdr::support
