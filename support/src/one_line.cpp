#include "gdr/support/one_line.h"

#include <cstdio>

namespace gdr::support {

std::string one_line(std::string_view text) {
  std::string line;
  line.reserve(text.size());
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte >= 32 && byte != 127) {
      line += ch;
    } else if (ch == '\n') {
      line += "\\n";
    } else if (ch == '\r') {
      line += "\\r";
    } else if (ch == '\t') {
      line += "\\t";
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      line += escaped;
    }
  }
  return line;
}

}  // namespace gdr::support
