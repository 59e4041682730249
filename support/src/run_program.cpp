#include "gdr/support/run_program.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>

#include "live_temporaries.h"

extern char** environ;

namespace gdr::support {

ProgramRun run_program(const std::vector<std::string>& argv) {
  std::vector<std::string> words = argv;
  std::vector<char*> pointers;
  for (std::string& w : words) pointers.push_back(w.data());
  pointers.push_back(nullptr);
  ProgramRun run;
  pid_t pid = 0;
  int slot = -1;
  {
    const HoldEndingSignals hold;  // noted for the handler before a signal can end this process
    run.spawn_error = ::posix_spawnp(&pid, pointers[0], nullptr, nullptr, pointers.data(), environ);
    if (run.spawn_error != 0) return run;
    slot = LiveTemporaries::instance().add_child(pid);
  }
  while (::waitpid(pid, &run.status, 0) < 0)
    if (errno != EINTR) {
      run.wait_error = errno;
      break;
    }
  LiveTemporaries::instance().remove_child(slot);
  return run;
}

}  // namespace gdr::support
