// Waiting for a child process the test started, with a deadline: a child
// that hangs (the very thing a signal test checks) is killed and the test
// fails instead of hanging until ctest's timeout.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

#include <chrono>

namespace gdr::test {

// The child's waitpid status, or -1 if it had not ended after `seconds`
// (it is then killed with SIGKILL and collected).
inline int wait_for_child(pid_t child, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const pid_t ended = ::waitpid(child, &status, WNOHANG);
    if (ended == child) return status;
    if (ended < 0) return -1;
    const struct timespec tick = {0, 1000 * 1000};
    ::nanosleep(&tick, nullptr);
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, &status, 0);
  return -1;
}

}  // namespace gdr::test
