#include "gdr/compiler/jit.h"

#include <mutex>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

#include "gdr/compiler/target.h"

namespace gdr::compiler {

namespace {

std::mutex& jit_mutex() {
  static std::mutex m;
  return m;
}

// Created on first use and never destroyed: kernels handed out as plain
// function pointers must stay valid until exit.
llvm::orc::LLJIT* jit(std::string* error) {
  static llvm::orc::LLJIT* instance = [error]() -> llvm::orc::LLJIT* {
    initialize_native_target();
    auto created = llvm::orc::LLJITBuilder().create();
    if (!created) {
      *error = llvm::toString(created.takeError());
      return nullptr;
    }
    return created->release();
  }();
  return instance;
}

}  // namespace

Status jit_load_object(const std::vector<char>& object, const std::string& symbol,
                       void** address) {
  std::lock_guard<std::mutex> lock(jit_mutex());
  std::string error;
  llvm::orc::LLJIT* j = jit(&error);
  if (!j) return Status::error("cannot create the JIT: " + error);
  // One JITDylib per object: compiling the same kernel twice (outside the
  // cache) must not collide on its symbol. Generated code may call libc
  // (memcpy, memset), so each resolves against the process.
  static int64_t objects = 0;
  auto dylib = j->createJITDylib("gdr_object_" + std::to_string(objects++));
  if (!dylib) return Status::error("JIT cannot create a dylib: " + llvm::toString(dylib.takeError()));
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      j->getDataLayout().getGlobalPrefix());
  if (!process) return Status::error("JIT cannot see the process: " + llvm::toString(process.takeError()));
  dylib->addGenerator(std::move(*process));
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(object.data(), object.size()), symbol);
  if (llvm::Error e = j->addObjectFile(*dylib, std::move(buffer)))
    return Status::error("JIT cannot load " + symbol + ": " + llvm::toString(std::move(e)));
  auto found = j->lookup(*dylib, symbol);
  if (!found) return Status::error("JIT cannot find " + symbol + ": " + llvm::toString(found.takeError()));
  *address = reinterpret_cast<void*>(found->getAddress());
  return Status::ok();
}

}  // namespace gdr::compiler
