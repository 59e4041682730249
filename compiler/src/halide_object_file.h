// Halide writes objects only to files; the JIT wants bytes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gdr/status.h"

namespace gdr::compiler {

// `write` fills a temporary file (a unique mkstemp name in $TMPDIR, else
// /tmp: a bad $TMPDIR must not stop a compile), which is read back into
// *object and removed (also when `write` throws).
Status halide_object_bytes(const std::function<void(const std::string& path)>& write,
                           std::vector<char>* object);

}  // namespace gdr::compiler
