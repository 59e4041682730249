#include "gdr/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>

namespace gdr {
namespace {

// How long an idle thread polls before it sleeps on the condition variable.
// A futex wake-up costs tens of microseconds in these VMs, as much as a whole
// decode call; OpenMP runtimes poll for far longer (libgomp ~ms, Intel's
// 200 ms). Measured on the dev VM (2-core Xeon, B=1 H=32 K=V=128 T=1):
// see docs/architecture.md "Thread pool".
constexpr auto kSpin = std::chrono::microseconds(1000);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls `ready` until it holds or kSpin has passed; true if it holds.
template <typename Ready>
bool spin_until(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() > deadline) return ready();
  }
}

}  // namespace

ThreadPool::ThreadPool(int workers) : scratch_(std::max(1, workers)), cursors_(std::max(1, workers)) {
  for (int w = 1; w < size(); ++w) threads_.emplace_back([this, w] { worker_loop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true, std::memory_order_release);
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

ThreadPool& ThreadPool::shared() {
  static ThreadPool pool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  return pool;
}

void ThreadPool::run_tasks(int worker) {
  // Own block first, then help the others from where they are.
  for (int i = 0; i < job_workers_; ++i) {
    Cursor& c = cursors_[(worker + i) % job_workers_];
    for (;;) {
      const int64_t task = c.next.fetch_add(1, std::memory_order_relaxed);
      if (task >= c.end) break;
      (*job_)(task, worker, scratch_[worker].data.get());
      if (unfinished_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_all();
      }
    }
  }
}

void ThreadPool::worker_loop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    auto posted = [&] {
      return stopping_.load(std::memory_order_acquire) ||
             generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spin_until(posted)) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, posted);
    }
    if (stopping_.load(std::memory_order_acquire)) return;
    {
      // A helper the OS ran late may find the job finished (the others took
      // its block) and, by then, its task gone: it joins only an open job.
      std::lock_guard<std::mutex> lock(mutex_);
      seen = generation_.load(std::memory_order_relaxed);
      if (!job_open_ || worker >= job_workers_) continue;
      ++joined_;
    }
    run_tasks(worker);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--joined_ == 0) done_.notify_all();
  }
}

bool ThreadPool::parallel_for(int64_t n, int max_workers, int64_t scratch_floats,
                              const Task& task) {
  if (n <= 0) return true;
  int workers = max_workers <= 0 ? size() : std::min(max_workers, size());
  workers = static_cast<int>(std::min<int64_t>(workers, n));
  // Serialised even on one worker: two callers would share worker 0's scratch.
  std::lock_guard<std::mutex> call(call_mutex_);
  for (int w = 0; w < workers; ++w)
    if (!reserve(scratch_[w], scratch_floats)) return false;
  if (workers == 1) {
    for (int64_t i = 0; i < n; ++i) task(i, 0, scratch_[0].data.get());
    return true;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &task;
    job_workers_ = workers;
    job_open_ = true;
    // Worker w owns tasks [n·w/W, n·(w+1)/W): the same heads land on the
    // same thread call after call, so their state stays in that core's cache.
    for (int w = 0; w < workers; ++w) {
      cursors_[w].next.store(n * w / workers, std::memory_order_relaxed);
      cursors_[w].end = n * (w + 1) / workers;
    }
    unfinished_.store(n, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  run_tasks(0);
  // Done when every task is; helpers that never got the CPU are not waited
  // for. Those that joined are only finishing a failed fetch_add.
  auto finished = [&] { return unfinished_.load(std::memory_order_acquire) == 0; };
  spin_until(finished);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, finished);
  job_open_ = false;
  done_.wait(lock, [&] { return joined_ == 0; });
  job_ = nullptr;
  return true;
}

bool ThreadPool::reserve(Scratch& s, int64_t floats) {
  if (s.floats >= floats) return true;
  if (static_cast<uint64_t>(floats) > SIZE_MAX / sizeof(float) - 64) return false;
  const size_t bytes = (static_cast<size_t>(floats) * sizeof(float) + 63) / 64 * 64;
  s.data = {static_cast<float*>(std::aligned_alloc(64, bytes)), std::free};
  s.floats = s.data ? floats : 0;
  return s.data != nullptr;
}

}  // namespace gdr
