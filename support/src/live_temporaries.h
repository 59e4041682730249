// What a signal that ends the process leaves behind: the temporaries of
// gdr's staged outputs and scratch files, deleted by the signal's handler,
// and the sections (creating a temporary, committing renames) a signal must
// not cut: held back until they end. Internal to gdr_support.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <string>

namespace gdr::support {

// The temporaries of the process's live outputs and scratch files, for a
// signal that ends the process (Ctrl-C, kill) to delete: a handler may only
// unlink (async-signal-safe), so the paths sit in fixed slots, each live
// only once its path is whole. More files than slots at once lose only this.
class LiveTemporaries {
 public:
  static LiveTemporaries& instance();

  // Installs the handler on SIGINT, SIGTERM, SIGHUP and SIGQUIT where the
  // program left their default (a handler of its own is its business).
  // Called by the tools' staged outputs only: code linked into someone
  // else's program (the JIT's scratch files) notes its files but leaves
  // that program's signals alone.
  void install_handlers();

  // The slot now holding `path`, or -1 if none was free.
  int add(const std::string& path);
  void remove(int slot);

  // A child process writing one of the temporaries (ld.lld): the handler
  // ends it (SIGTERM, then SIGKILL after a second) and waits for it before
  // deleting the temporaries, so that it cannot write one after.
  int add_child(pid_t pid);
  void remove_child(int slot);

 private:
  friend class HoldEndingSignals;
  LiveTemporaries();
  static constexpr int kSlots = 64, kPathBytes = 4096;
  enum : int { kFree, kFilling, kLive };
  struct Slot {
    std::atomic<int> state{kFree};
    char path[kPathBytes];
  };
  static void on_signal(int sig);
  static void after_fork_in_child();
  // While a thread holds the signals back (HoldEndingSignals), one that
  // reaches another thread, whose mask lets it in, is deferred: the holder
  // ends the process when it lets go. False when the process is ending.
  bool enter_held();
  void leave_held();

  Slot slots_[kSlots];
  static constexpr int kChildSlots = 8;
  std::atomic<pid_t> children_[kChildSlots] = {};  // 0: free
  std::atomic<int> held_{0};      // threads holding
  std::atomic<int> deferred_{0};  // a signal to end the process with when they let go
  std::atomic<int> closing_{0};   // a handler has run: the process is ending
};

// Holds the ending signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) back while it
// lives, on this thread and, deferred, on the others: between creating a
// temporary and noting it for the handler, and while a commit renames (a
// signal then would leave a temporary, or old and new outputs mixed, or a
// backup). Nests: only a thread's outermost hold counts. Once a handler is
// ending the process, a new hold creates nothing: it waits to be ended.
class HoldEndingSignals {
 public:
  HoldEndingSignals();
  ~HoldEndingSignals();
  HoldEndingSignals(const HoldEndingSignals&) = delete;
  HoldEndingSignals& operator=(const HoldEndingSignals&) = delete;
  // The thread's mask before the hold (for a program it starts).
  const sigset_t& saved_mask() const { return saved_; }

 private:
  sigset_t saved_;
};

}  // namespace gdr::support
