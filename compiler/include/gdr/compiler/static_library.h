// Static libraries (`ar` archives with a symbol table) of a kernel's objects
// and the runtime pieces it needs, written with LLVM's archive writer for any
// architecture, and the architecture of an object or archive.
#pragma once

#include <string>
#include <vector>

#include "gdr/status.h"

namespace gdr::compiler {

struct ArchiveInput {
  std::string path;
  std::string member_name;  // the object's name in the archive; "" copies an archive's members
};

// Writes `archive_path` (GNU format, deterministic: no dates or owners).
Status write_static_library(const std::vector<ArchiveInput>& inputs, const std::string& archive_path);

// The LLVM architecture name ("x86_64", "aarch64") of the object at `path`,
// or of the first object member of the archive there.
Status object_architecture(const std::string& path, std::string* arch);

// Whether the object at `path`, or an object member of the archive there,
// defines `symbol`.
Status defines_symbol(const std::string& path, const std::string& symbol, bool* defined);

}  // namespace gdr::compiler
