#include "gdr/compiler/jit.h"

#include <mutex>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/Support/MemoryBuffer.h>

#include "gdr/compiler/target.h"
#include "jit_memory.h"

namespace gdr::compiler {

namespace {

std::mutex& jit_mutex() {
  static std::mutex m;
  return m;
}

// Created on first use and never destroyed: kernels handed out as plain
// function pointers must stay valid until exit. If it cannot be, every
// caller is told why (kept in `why_not`).
llvm::orc::LLJIT* jit(std::string* error) {
  static auto& why_not = *new std::string;  // never destroyed, as the JIT
  static llvm::orc::LLJIT* instance = []() -> llvm::orc::LLJIT* {
    initialize_native_target();
    // Every object's sections in one region (jit_memory.h).
    auto in_one_region = [](llvm::orc::ExecutionSession& session, const llvm::Triple&)
        -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
      return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
          session, [] { return std::make_unique<llvm::SectionMemoryManager>(&jit_memory()); });
    };
    auto created = llvm::orc::LLJITBuilder().setObjectLinkingLayerCreator(in_one_region).create();
    if (!created) {
      why_not = llvm::toString(created.takeError());
      return nullptr;
    }
    return created->release();
  }();
  if (!instance) *error = why_not;
  return instance;
}

// Lets `dylib` resolve symbols the process defines (libc, libm, pthreads).
Status add_process_symbols(llvm::orc::LLJIT& j, llvm::orc::JITDylib& dylib) {
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      j.getDataLayout().getGlobalPrefix());
  if (!process) return Status::error("JIT cannot see the process: " + llvm::toString(process.takeError()));
  dylib.addGenerator(std::move(*process));
  return Status::success();
}

// Objects given to jit_load_object so far (guarded by jit_mutex), each in a
// JITDylib of its own.
int64_t objects_given = 0;
std::string object_dylib_name(int64_t i) { return "gdr_object_" + std::to_string(i); }

}  // namespace

Status jit_add_library(const std::string& library, const std::vector<char>& object,
                       const std::string& probe_symbol, void** probe_address) {
  std::lock_guard<std::mutex> lock(jit_mutex());
  std::string error;
  llvm::orc::LLJIT* j = jit(&error);
  if (!j) return Status::error("cannot create the JIT: " + error);
  llvm::orc::ExecutionSession& session = j->getExecutionSession();
  if (session.getJITDylibByName(library)) return Status::success();
  auto dylib = j->createJITDylib(library);
  if (!dylib) return Status::error("JIT cannot create a dylib: " + llvm::toString(dylib.takeError()));
  Status status = add_process_symbols(*j, *dylib);
  if (status) status = jit_region_room(object.size());
  if (status) {
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(object.data(), object.size()), library);
    llvm::Error e = j->addObjectFile(*dylib, std::move(buffer));
    // The lookup links the object now, so a bad one fails here, not at the
    // first kernel that calls into it.
    if (!e) {
      auto symbol = j->lookup(*dylib, probe_symbol);
      if (symbol && probe_address) *probe_address = reinterpret_cast<void*>(symbol->getAddress());
      e = symbol.takeError();
    }
    if (e) status = Status::error("JIT cannot load " + library + ": " + llvm::toString(std::move(e)));
  }
  // A failed library is removed so that a later call can try again.
  if (!status) llvm::consumeError(session.removeJITDylib(*dylib));
  return status;
}

Status jit_load_object(const std::vector<char>& object, const std::vector<std::string>& symbols,
                       std::vector<void*>* addresses, const std::string& link_with, const AcceptLoaded& accept) {
  const std::string& symbol = symbols.at(0);
  std::lock_guard<std::mutex> lock(jit_mutex());
  std::string error;
  llvm::orc::LLJIT* j = jit(&error);
  if (!j) return Status::error("cannot create the JIT: " + error);
  llvm::orc::JITDylib* library = nullptr;
  if (!link_with.empty()) {
    library = j->getExecutionSession().getJITDylibByName(link_with);
    if (!library) return Status::error("JIT has no library " + link_with + " to link " + symbol);
  }
  // One JITDylib per object: compiling the same kernel twice (outside the
  // cache) must not collide on its symbol.
  auto dylib = j->createJITDylib(object_dylib_name(objects_given++));
  if (!dylib) return Status::error("JIT cannot create a dylib: " + llvm::toString(dylib.takeError()));
  // The library comes first and brings the process with it; without one,
  // generated code may still call libc (memcpy, memset).
  Status status = Status::success();
  if (library) {
    dylib->addToLinkOrder(*library);
  } else {
    status = add_process_symbols(*j, *dylib);
  }
  if (status) status = jit_region_room(object.size());
  if (status) {
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(object.data(), object.size()), symbol);
    if (llvm::Error e = j->addObjectFile(*dylib, std::move(buffer))) {
      status = Status::error("JIT cannot load " + symbol + ": " + llvm::toString(std::move(e)));
    } else {
      addresses->clear();
      for (const std::string& name : symbols) {
        auto found = j->lookup(*dylib, name);
        if (!found) {
          status = Status::error("JIT cannot find " + name + ": " + llvm::toString(found.takeError()));
          break;
        }
        addresses->push_back(reinterpret_cast<void*>(found->getAddress()));
      }
      if (status && accept) status = accept(*addresses);
    }
  }
  // A refused object is unloaded: nothing can call into it, and a process
  // that rebuilds refused cache entries does not pile them up.
  if (!status) llvm::consumeError(j->getExecutionSession().removeJITDylib(*dylib));
  return status;
}

Status jit_load_object(const std::vector<char>& object, const std::string& symbol, void** address,
                       const std::string& link_with) {
  std::vector<void*> addresses;
  Status s = jit_load_object(object, std::vector<std::string>{symbol}, &addresses, link_with);
  if (s) *address = addresses[0];
  return s;
}

int64_t jit_loaded_objects() {
  std::lock_guard<std::mutex> lock(jit_mutex());
  std::string error;
  llvm::orc::LLJIT* j = jit(&error);
  if (!j) return 0;
  int64_t count = 0;
  for (int64_t i = 0; i < objects_given; ++i)
    count += j->getExecutionSession().getJITDylibByName(object_dylib_name(i)) != nullptr;
  return count;
}

}  // namespace gdr::compiler
