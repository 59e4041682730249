#include "gdr/compiler/shared_object.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <vector>

extern char** environ;

namespace gdr::compiler {

Status link_shared_object(const std::string& object_path, const std::string& so_path) {
  std::string tried;
  for (const char* linker : {"ld.lld-14", "ld.lld"}) {
    std::vector<std::string> words = {linker, "-shared", "-o", so_path, object_path};
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, linker, nullptr, nullptr, argv.data(), environ);
    if (spawned == ENOENT) {
      tried += std::string(tried.empty() ? "" : ", ") + linker;
      continue;
    }
    if (spawned != 0)
      return Status::error(std::string("cannot run ") + linker + ": " + std::strerror(spawned));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) return Status::error(std::string("lost ") + linker + ": " + std::strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::ok();
    return Status::error(std::string(linker) + " could not link " + so_path + " from " + object_path +
                         " (its message is above)");
  }
  return Status::error("no linker for shared objects: none of " + tried +
                       " is on PATH (Debian package lld-14)");
}

}  // namespace gdr::compiler
