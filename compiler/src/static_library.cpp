#include "gdr/compiler/static_library.h"

#include <llvm/ADT/Triple.h>
#include <llvm/Object/Archive.h>
#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <memory>

namespace gdr::compiler {

Status write_static_library(const std::vector<ArchiveInput>& inputs, const std::string& archive_path) {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> buffers;  // keep archives' bytes alive
  std::vector<std::unique_ptr<llvm::object::Archive>> archives;
  std::vector<llvm::NewArchiveMember> members;
  for (const ArchiveInput& in : inputs) {
    if (!in.member_name.empty()) {
      llvm::Expected<llvm::NewArchiveMember> m = llvm::NewArchiveMember::getFile(in.path, /*Deterministic=*/true);
      if (!m) return Status::error("cannot read " + in.path + ": " + llvm::toString(m.takeError()));
      m->MemberName = in.member_name;  // a string literal's or in.member_name's storage: both outlive members
      members.push_back(std::move(*m));
      continue;
    }
    auto buffer = llvm::MemoryBuffer::getFile(in.path);
    if (!buffer) return Status::error("cannot read " + in.path + ": " + buffer.getError().message());
    auto archive = llvm::object::Archive::create((*buffer)->getMemBufferRef());
    if (!archive) return Status::error(in.path + " is not an archive: " + llvm::toString(archive.takeError()));
    llvm::Error error = llvm::Error::success();
    for (const llvm::object::Archive::Child& child : (*archive)->children(error)) {
      llvm::Expected<llvm::NewArchiveMember> m = llvm::NewArchiveMember::getOldMember(child, /*Deterministic=*/true);
      if (!m) return Status::error("cannot read a member of " + in.path + ": " + llvm::toString(m.takeError()));
      members.push_back(std::move(*m));
    }
    if (error) return Status::error("cannot read " + in.path + ": " + llvm::toString(std::move(error)));
    buffers.push_back(std::move(*buffer));
    archives.push_back(std::move(*archive));
  }
  if (llvm::Error e = llvm::writeArchive(archive_path, members, /*WriteSymtab=*/true,
                                         llvm::object::Archive::K_GNU, /*Deterministic=*/true, /*Thin=*/false))
    return Status::error("cannot write " + archive_path + ": " + llvm::toString(std::move(e)));
  return Status::success();
}

Status object_architecture(const std::string& path, std::string* arch) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) return Status::error("cannot read " + path + ": " + buffer.getError().message());
  auto object_arch = [](llvm::MemoryBufferRef ref, std::string* out) {
    auto object = llvm::object::ObjectFile::createObjectFile(ref);
    if (!object) {
      llvm::consumeError(object.takeError());
      return false;
    }
    *out = llvm::Triple::getArchTypeName((*object)->getArch()).str();
    return true;
  };
  if (object_arch((*buffer)->getMemBufferRef(), arch)) return Status::success();
  auto archive = llvm::object::Archive::create((*buffer)->getMemBufferRef());
  if (!archive) {
    llvm::consumeError(archive.takeError());
    return Status::error(path + " is neither an object nor an archive");
  }
  llvm::Error error = llvm::Error::success();
  for (const llvm::object::Archive::Child& child : (*archive)->children(error)) {
    auto ref = child.getMemoryBufferRef();
    if (!ref) {
      llvm::consumeError(ref.takeError());
      continue;
    }
    if (object_arch(*ref, arch)) {
      llvm::consumeError(std::move(error));
      return Status::success();
    }
  }
  llvm::consumeError(std::move(error));
  return Status::error(path + " holds no object");
}

}  // namespace gdr::compiler
