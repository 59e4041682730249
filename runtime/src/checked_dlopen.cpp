#include "checked_dlopen.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstring>

namespace gdr {

void* dlopen_checked_file(const struct stat& checked, const std::string& path, std::string* why) {
  struct stat named;
  if (stat(path.c_str(), &named) != 0) {
    *why = std::strerror(errno);
    return nullptr;
  }
  // A rename over the path (another inode) or a write into the file (`cp`
  // over it keeps the inode) since it was read.
  if (named.st_dev != checked.st_dev || named.st_ino != checked.st_ino || named.st_size != checked.st_size ||
      named.st_mtim.tv_sec != checked.st_mtim.tv_sec || named.st_mtim.tv_nsec != checked.st_mtim.tv_nsec) {
    *why = "it changed on disk while it was being checked (load it again)";
    return nullptr;
  }
  // RTLD_LOCAL: two libraries may hold kernels of the same name.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* error = dlerror();
    *why = error ? error : "unknown error";
  }
  return library;
}

}  // namespace gdr
