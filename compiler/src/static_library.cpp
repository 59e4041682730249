#include "gdr/compiler/static_library.h"

#include <llvm/ADT/Triple.h>
#include <llvm/Object/Archive.h>
#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <functional>
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

namespace {

// Calls `each` with the object at `path`, or with each object member of the
// archive there, until it returns true; an error if `path` is neither or
// holds no object.
Status visit_objects(const std::string& path, const std::function<bool(const llvm::object::ObjectFile&)>& each) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) return Status::error("cannot read " + path + ": " + buffer.getError().message());
  // Whether `ref` is an object (then visited; *stop: each's answer).
  auto visit = [&](llvm::MemoryBufferRef ref, bool* stop) {
    auto object = llvm::object::ObjectFile::createObjectFile(ref);
    if (!object) {
      llvm::consumeError(object.takeError());
      return false;
    }
    *stop = each(**object);
    return true;
  };
  bool stop = false;
  if (visit((*buffer)->getMemBufferRef(), &stop)) return Status::success();
  auto archive = llvm::object::Archive::create((*buffer)->getMemBufferRef());
  if (!archive) {
    llvm::consumeError(archive.takeError());
    return Status::error(path + " is neither an object nor an archive");
  }
  bool any = false;
  llvm::Error error = llvm::Error::success();
  for (const llvm::object::Archive::Child& child : (*archive)->children(error)) {
    auto ref = child.getMemoryBufferRef();
    if (!ref) {
      llvm::consumeError(ref.takeError());
      continue;
    }
    any = visit(*ref, &stop) || any;
    if (stop) break;
  }
  llvm::consumeError(std::move(error));
  return any ? Status::success() : Status::error(path + " holds no object");
}

}  // namespace

Status object_architecture(const std::string& path, std::string* arch) {
  return visit_objects(path, [&](const llvm::object::ObjectFile& object) {
    *arch = llvm::Triple::getArchTypeName(object.getArch()).str();
    return true;
  });
}

Status defines_symbol(const std::string& path, const std::string& symbol, bool* defined) {
  *defined = false;
  return visit_objects(path, [&](const llvm::object::ObjectFile& object) {
    for (const llvm::object::SymbolRef& s : object.symbols()) {
      llvm::Expected<uint32_t> flags = s.getFlags();
      llvm::Expected<llvm::StringRef> name = s.getName();
      if (!flags || !name) {
        llvm::consumeError(flags.takeError());
        llvm::consumeError(name.takeError());
        continue;
      }
      if (!(*flags & llvm::object::SymbolRef::SF_Undefined) && *name == symbol) return *defined = true;
    }
    return false;
  });
}

}  // namespace gdr::compiler
