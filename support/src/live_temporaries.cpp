#include "live_temporaries.h"

#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace gdr::support {
namespace {

// The signals whose default ends the process, which gdr cleans up after.
constexpr int kEndingSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

sigset_t ending_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kEndingSignals) sigaddset(&set, sig);
  return set;
}

// This thread's nesting of HoldEndingSignals.
thread_local int hold_depth = 0;

}  // namespace

LiveTemporaries::LiveTemporaries() { ::pthread_atfork(nullptr, nullptr, &after_fork_in_child); }

LiveTemporaries& LiveTemporaries::instance() {
  static auto* live = new LiveTemporaries;  // never destroyed: signals may come while the process exits
  return *live;
}

int LiveTemporaries::add(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!slots_[i].state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(slots_[i].path, path.c_str(), path.size() + 1);
    slots_[i].state.store(kLive);
    return i;
  }
  return -1;
}

void LiveTemporaries::remove(int slot) {
  if (slot >= 0) slots_[slot].state.store(kFree);
}

int LiveTemporaries::add_child(pid_t pid) {
  for (int i = 0; i < kChildSlots; ++i) {
    pid_t expected = 0;
    if (children_[i].compare_exchange_strong(expected, pid)) return i;
  }
  return -1;
}

void LiveTemporaries::remove_child(int slot) {
  if (slot >= 0) children_[slot].store(0);
}

bool LiveTemporaries::enter_held() {
  held_.fetch_add(1);
  if (!closing_.load()) return true;
  leave_held();  // a handler on another thread is ending the process
  return false;
}

void LiveTemporaries::leave_held() {
  held_.fetch_sub(1);
  if (const int sig = deferred_.exchange(0)) on_signal(sig);
}

void LiveTemporaries::install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kEndingSignals) {
      struct sigaction now;
      if (::sigaction(sig, nullptr, &now) != 0 || now.sa_handler != SIG_DFL) continue;
      struct sigaction ours {};
      ours.sa_handler = &on_signal;
      ours.sa_mask = ending_signals();  // one handler at a time
      // The handler stays while a signal is deferred (a second Ctrl-C is
      // deferred too) and puts the default back before it ends the process.
      // SA_RESTART: a thread a deferred signal interrupted goes on with its
      // system call instead of failing it (EINTR).
      ours.sa_flags = SA_RESTART;
      ::sigaction(sig, &ours, nullptr);
    }
  });
}

void LiveTemporaries::on_signal(int sig) {
  const int saved = errno;
  LiveTemporaries& live = instance();
  live.closing_.store(1);
  if (live.held_.load() > 0) {
    live.deferred_.store(sig);
    // Read again: a holder that let go in between may not have seen it.
    if (live.held_.load() > 0) {
      errno = saved;
      return;
    }
  }
  for (std::atomic<pid_t>& child : live.children_) {
    const pid_t pid = child.load();
    if (pid <= 0) continue;
    ::kill(pid, SIGTERM);
    const struct timespec tick = {0, 10 * 1000 * 1000};
    int status;
    int waited = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0 && waited++ < 100) ::nanosleep(&tick, nullptr);
    if (waited > 100) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
  }
  for (Slot& slot : live.slots_)
    if (slot.state.load() == kLive) ::unlink(slot.path);
  errno = saved;
  // The default again, and to the process, not this thread: a holder
  // calling this holds the signal back itself, and any thread that lets it
  // in ends the process at once.
  struct sigaction end {};
  end.sa_handler = SIG_DFL;
  ::sigaction(sig, &end, nullptr);
  ::kill(::getpid(), sig);
}

// A child of fork() owns none of its parent's temporaries, and of the
// holds only its one thread's.
void LiveTemporaries::after_fork_in_child() {
  LiveTemporaries& live = instance();
  for (Slot& slot : live.slots_) slot.state.store(kFree);
  for (std::atomic<pid_t>& child : live.children_) child.store(0);
  live.held_.store(hold_depth > 0 ? 1 : 0);
  live.deferred_.store(0);
  live.closing_.store(0);
}

HoldEndingSignals::HoldEndingSignals() {
  const sigset_t set = ending_signals();
  ::pthread_sigmask(SIG_BLOCK, &set, &saved_);
  if (hold_depth++ > 0 || LiveTemporaries::instance().enter_held()) return;
  // The process is ending: create nothing more (the handler may have
  // deleted the temporaries already) and wait, letting the signals in.
  sigset_t open = saved_;
  for (int sig : kEndingSignals) sigdelset(&open, sig);
  for (;;) ::sigsuspend(&open);
}

HoldEndingSignals::~HoldEndingSignals() {
  if (--hold_depth == 0) LiveTemporaries::instance().leave_held();
  ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

}  // namespace gdr::support
