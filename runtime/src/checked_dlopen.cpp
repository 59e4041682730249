#include "checked_dlopen.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

namespace gdr {
namespace {

// The same file, unchanged: device and inode, size and modification time
// (a rename over a path gives another inode; `cp` over it keeps the inode).
bool unchanged(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
         a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace

const char kStaleLibrary[] =
    "another library loaded earlier from this path is still loaded, not the file there now (a library stays "
    "loaded for the life of the process: load the new one from another path)";

void* dlopen_checked_file(const struct stat& checked, const std::string& path, std::string* why) {
  struct stat named;
  if (stat(path.c_str(), &named) != 0) {
    *why = std::strerror(errno);
    return nullptr;
  }
  if (!unchanged(named, checked)) {
    *why = "it changed on disk while it was being checked (load it again)";
    return nullptr;
  }
  // RTLD_LOCAL: two libraries may hold kernels of the same name.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* error = dlerror();
    *why = error ? error : "unknown error";
    return nullptr;
  }
  // Each library loaded here, and the file it was loaded from.
  static std::mutex mutex;
  static auto* loaded = new std::map<void*, struct stat>;  // never destroyed: loads may come while exiting
  std::lock_guard<std::mutex> lock(mutex);
  const auto [at, first] = loaded->emplace(library, checked);
  if (!first && !unchanged(at->second, checked)) {
    dlclose(library);
    *why = kStaleLibrary;
    return nullptr;
  }
  return library;
}

}  // namespace gdr
