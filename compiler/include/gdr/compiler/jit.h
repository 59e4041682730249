// The process-wide JIT (ORC LLJIT) that owns every generated kernel's code.
#pragma once

#include <string>
#include <vector>

#include "gdr/status.h"

namespace gdr::compiler {

// Links `object` into the JIT and returns the address of `symbol` in it.
// Thread-safe; the code stays loaded until the process exits.
Status jit_load_object(const std::vector<char>& object, const std::string& symbol, void** address);

}  // namespace gdr::compiler
