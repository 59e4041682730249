#include "gdr/compiler/shared_object.h"

#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "gdr/support/run_program.h"

namespace gdr::compiler {

namespace {

// A path the linker cannot take for an option.
std::string file_argument(const std::string& path) {
  return !path.empty() && path[0] == '-' ? "./" + path : path;
}

// Runs the first of `programs` on PATH with `arguments`; `what` says what
// it makes, for the messages, `package` where the program comes from.
Status run_tool(std::initializer_list<const char*> programs, const std::vector<std::string>& arguments,
                const std::string& what, const char* package) {
  std::string tried;
  for (const char* program : programs) {
    std::vector<std::string> words = {program};
    words.insert(words.end(), arguments.begin(), arguments.end());
    const support::ProgramRun run = support::run_program(words);
    if (run.spawn_error == ENOENT || run.spawn_error == EACCES) {
      tried += std::string(tried.empty() ? "" : ", ") + program;
      continue;
    }
    if (run.spawn_error != 0)
      return Status::error(std::string("cannot run ") + program + ": " + std::strerror(run.spawn_error));
    if (run.wait_error != 0) return Status::error(std::string("lost ") + program + ": " + std::strerror(run.wait_error));
    const int status = run.status;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::success();
    if (WIFSIGNALED(status))
      return Status::error(std::string(program) + " was killed by signal " + std::to_string(WTERMSIG(status)));
    return Status::error(std::string(program) + " could not make " + what + " (its message is above)");
  }
  return Status::error("none of " + tried + " is on PATH (Debian package " + package + ")");
}

Status run_lld(const std::vector<std::string>& arguments, const std::string& what) {
  return run_tool({"ld.lld-14", "ld.lld"}, arguments, what, "lld-14");
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

Status keep_only_global(const std::string& object, const std::vector<std::string>& symbols) {
  std::vector<std::string> args;
  for (const std::string& s : symbols) args.push_back("--keep-global-symbol=" + s);
  args.push_back(file_argument(object));
  return run_tool({"llvm-objcopy-14", "llvm-objcopy"}, args, object, "llvm-14");
}

}  // namespace gdr::compiler
