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
    // The program starts with this thread's mask before the hold: the
    // handler's SIGTERM (and a Ctrl-C) must reach it.
    posix_spawnattr_t attributes;
    ::posix_spawnattr_init(&attributes);
    ::posix_spawnattr_setsigmask(&attributes, &hold.saved_mask());
    ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
    run.spawn_error = ::posix_spawnp(&pid, pointers[0], nullptr, &attributes, pointers.data(), environ);
    ::posix_spawnattr_destroy(&attributes);
    if (run.spawn_error != 0) return run;
    slot = LiveTemporaries::instance().add_child(pid);
  }
  // Waited for without collecting it, so that its pid, still noted for the
  // handler, cannot be another process's until it is no longer noted.
  siginfo_t info;
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0)
    if (errno != EINTR) {
      run.wait_error = errno;
      break;
    }
  {
    const HoldEndingSignals hold;
    LiveTemporaries::instance().remove_child(slot);
  }
  while (run.wait_error == 0 && ::waitpid(pid, &run.status, 0) < 0)
    if (errno != EINTR) run.wait_error = errno;
  return run;
}

}  // namespace gdr::support
