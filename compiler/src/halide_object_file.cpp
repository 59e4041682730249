#include "halide_object_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "gdr/support/scratch_file.h"

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
  const support::ScratchFile scratch((scratch_folder() / "gdr-halide").string(), "");
  if (!scratch.status()) return scratch.status();
  write(scratch.path());
  std::ifstream in(scratch.path(), std::ios::binary);
  object->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad() || object->empty()) return Status::error("cannot read Halide's object " + scratch.path());
  return Status::success();
}

}  // namespace gdr::compiler
