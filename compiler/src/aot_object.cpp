#include "gdr/compiler/aot_object.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "gdr/compiler/shared_object.h"

namespace gdr::compiler {

ScratchFile::ScratchFile(const std::string& near, const std::string& suffix) {
  std::string pattern = near + ".XXXXXX" + suffix;
  const int fd = mkstemps(pattern.data(), static_cast<int>(suffix.size()));
  if (fd < 0) {
    status_ = Status::error("cannot create a scratch file " + pattern + ": " + std::strerror(errno));
    return;
  }
  ::close(fd);
  path_ = pattern;
}

ScratchFile::~ScratchFile() {
  if (!path_.empty()) std::remove(path_.c_str());
}

Status link_aot_object(const Target& target, const std::string& name,
                       const std::vector<std::string>& code_objects, const EntryPoint* entry,
                       const std::string& object_path) {
  std::vector<char> bytes;
  if (Status s = aot_entry_object(target, name, entry, &bytes); !s) return s;
  ScratchFile entry_file(object_path, ".entry.o");
  if (!entry_file.status()) return entry_file.status();
  {
    std::ofstream out(entry_file.path(), std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return Status::error("cannot write " + entry_file.path());
  }
  std::vector<std::string> inputs = code_objects;
  inputs.push_back(entry_file.path());
  return link_relocatable(inputs, object_path);
}

}  // namespace gdr::compiler
