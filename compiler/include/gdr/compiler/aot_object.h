// A kernel's AOT object, either route: its code linked with the object
// aot_entry_object writes for it (ld.lld -r) into one relocatable object
// that exports `<name>`, `<name>_info` and `<name>_cpu_features`.
#pragma once

#include <string>
#include <vector>

#include "gdr/compiler/aot_entry.h"
#include "gdr/compiler/target.h"
#include "gdr/status.h"

namespace gdr::compiler {

// Writes `object_path` from the code objects (files) and the entry object
// for `target` (`entry` null for a recurrent kernel under its own name,
// whose code has its entry point and table). Scratch files go beside `object_path` and are
// removed.
Status link_aot_object(const Target& target, const std::string& name,
                       const std::vector<std::string>& code_objects, const EntryPoint* entry,
                       const std::string& object_path);

}  // namespace gdr::compiler
