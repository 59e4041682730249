#include "halide_object_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace gdr::compiler {

// The folder for Halide's scratch files: $TMPDIR if it is a folder, else
// /tmp (a bad $TMPDIR must not stop a compile; if /tmp fails too, mkstemp
// says so).
namespace {

std::filesystem::path scratch_folder() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  return ec ? std::filesystem::path("/tmp") : dir;
}

}  // namespace

Status halide_object_bytes(const std::function<void(const std::string& path)>& write,
                           std::vector<char>* object) {
  std::string path = (scratch_folder() / "gdr-halide-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0)
    return Status::error("cannot create a temporary file " + path + ": " + std::strerror(errno));
  ::close(fd);
  struct Remove {
    const std::string& path;
    ~Remove() { std::remove(path.c_str()); }
  } remove_at_exit{path};
  write(path);
  std::ifstream in(path, std::ios::binary);
  object->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad() || object->empty()) return Status::error("cannot read Halide's object " + path);
  return Status::success();
}

}  // namespace gdr::compiler
