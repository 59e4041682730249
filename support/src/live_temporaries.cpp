#include "live_temporaries.h"

#include <cerrno>
#include <cstring>
#include <mutex>

#include <unistd.h>

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

}  // namespace

LiveTemporaries& LiveTemporaries::instance() {
  static LiveTemporaries live;
  return live;
}

int LiveTemporaries::add(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  install_handlers_once();
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

void LiveTemporaries::enter_held() {
  held_.fetch_add(1);
  // A handler on another thread is ending the process: create nothing more
  // (it may have deleted the temporaries already), and wait to be ended.
  if (closing_.load()) {
    leave_held();
    for (;;) ::pause();
  }
}

void LiveTemporaries::leave_held() {
  held_.fetch_sub(1);
  if (const int sig = deferred_.exchange(0)) on_signal(sig);  // pending here until the mask is restored
}

// On signals that end a process by default: only where the program left
// the default (a handler of its own is its business).
void LiveTemporaries::install_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kEndingSignals) {
      struct sigaction now;
      if (::sigaction(sig, nullptr, &now) != 0 || now.sa_handler != SIG_DFL) continue;
      struct sigaction ours {};
      ours.sa_handler = &on_signal;
      ours.sa_mask = ending_signals();  // one handler at a time
      ours.sa_flags = SA_RESETHAND;  // the default again: sent again below, it ends the process
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
  for (Slot& slot : live.slots_)
    if (slot.state.load() == kLive) ::unlink(slot.path);
  errno = saved;
  // To the process, not this thread: a holder calling this holds the signal
  // back itself, and any thread that lets it in ends the process at once.
  ::kill(::getpid(), sig);
}

HoldEndingSignals::HoldEndingSignals() {
  const sigset_t set = ending_signals();
  ::pthread_sigmask(SIG_BLOCK, &set, &saved_);
  LiveTemporaries::instance().enter_held();
}

HoldEndingSignals::~HoldEndingSignals() {
  LiveTemporaries::instance().leave_held();
  ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

}  // namespace gdr::support
