#include "gdr/compiler/shared_object.h"

#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "gdr/support/run_program.h"

namespace gdr::compiler {

namespace {

// A path the linker cannot take for an option.
std::string file_argument(const std::string& path) {
  return !path.empty() && path[0] == '-' ? "./" + path : path;
}

// Runs ld.lld (ld.lld-14, else ld.lld, from PATH) with `arguments`;
// `what` says what it links, for the messages.
Status run_lld(const std::vector<std::string>& arguments, const std::string& what) {
  std::string tried;
  for (const char* linker : {"ld.lld-14", "ld.lld"}) {
    std::vector<std::string> words = {linker};
    words.insert(words.end(), arguments.begin(), arguments.end());
    const support::ProgramRun run = support::run_program(words);
    if (run.spawn_error == ENOENT || run.spawn_error == EACCES) {
      tried += std::string(tried.empty() ? "" : ", ") + linker;
      continue;
    }
    if (run.spawn_error != 0)
      return Status::error(std::string("cannot run ") + linker + ": " + std::strerror(run.spawn_error));
    if (run.wait_error != 0) return Status::error(std::string("lost ") + linker + ": " + std::strerror(run.wait_error));
    const int status = run.status;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::success();
    if (WIFSIGNALED(status))
      return Status::error(std::string(linker) + " was killed by signal " + std::to_string(WTERMSIG(status)));
    return Status::error(std::string(linker) + " could not link " + what + " (its message is above)");
  }
  return Status::error("no linker: none of " + tried + " is on PATH (Debian package lld-14)");
}

}  // namespace

Status link_shared_object(const std::string& object_path, const std::string& so_path,
                          const std::string& soname) {
  return link_shared_object(std::vector<std::string>{object_path}, so_path, soname);
}

Status link_shared_object(const std::vector<std::string>& inputs, const std::string& so_path,
                          const std::string& soname) {
  // -Bsymbolic: the library's references to its own symbols (a Halide
  // runtime inside it) bind to its own copy, whatever else the process has.
  std::vector<std::string> args = {"-shared", "-Bsymbolic", "-soname", soname, "-o", file_argument(so_path)};
  for (const std::string& in : inputs) args.push_back(file_argument(in));
  return run_lld(args, so_path);
}

Status link_relocatable(const std::vector<std::string>& inputs, const std::string& output) {
  std::vector<std::string> args = {"-r", "-o", file_argument(output)};
  for (const std::string& in : inputs) args.push_back(file_argument(in));
  return run_lld(args, output);
}

}  // namespace gdr::compiler
