#include "gdr/compiler/aot_object.h"

#include <fstream>

#include "gdr/compiler/shared_object.h"
#include "gdr/support/scratch_file.h"

namespace gdr::compiler {

Status link_aot_object(const Target& target, const std::string& name,
                       const std::vector<std::string>& code_objects, const EntryPoint* entry,
                       const std::string& object_path) {
  std::vector<char> bytes;
  if (Status s = aot_entry_object(target, name, entry, &bytes); !s) return s;
  support::ScratchFile entry_file(object_path, ".entry.o");
  if (!entry_file.status()) return entry_file.status();
  {
    std::ofstream out(entry_file.path(), std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return Status::error("cannot write " + entry_file.path());
  }
  std::vector<std::string> inputs = code_objects;
  inputs.push_back(entry_file.path());
  if (Status s = link_relocatable(inputs, object_path); !s) return s;
  // Only the entry point and its tables stay global: a recurrent kernel
  // under another name still defined its variant's (two kernels of one
  // variant under two names could not be linked into one program).
  return keep_only_global(object_path, {name, name + "_info", name + "_cpu_features"});
}

}  // namespace gdr::compiler
