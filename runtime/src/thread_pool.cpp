#include "gdr/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gdr {
namespace {

// How long an idle thread polls before it sleeps on its condition variable.
// A futex wake-up costs tens of microseconds in these VMs, as much as a whole
// decode call; OpenMP runtimes poll for far longer (libgomp ~ms, Intel's
// 200 ms). Dev VM (2-core Xeon), B=1 H=32 K=V=128 T=1, 2 threads,
// interleaved with the baseline (which runs ~0.28 ms between our calls):
// no polling 0.101 ms, 1 ms of polling 0.072-0.079 ms; a window shorter
// than the gap between calls would miss it every time.
constexpr auto kPoll = std::chrono::microseconds(1000);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls `ready` until it holds or kPoll has passed; true if it holds.
template <typename Ready>
bool poll_until(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kPoll;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() > deadline) return ready();
  }
}

}  // namespace

namespace {

// CPUs a cgroup quota allows (cgroup v2 cpu.max, else v1 cfs quota/period,
// as containers see their own cgroup at /sys/fs/cgroup), 0 if none is set.
int cgroup_cpu_limit() {
  long long quota = 0, period = 0;
  if (FILE* f = std::fopen("/sys/fs/cgroup/cpu.max", "r")) {
    if (std::fscanf(f, "%lld %lld", &quota, &period) != 2) quota = 0;  // "max 100000": none
    std::fclose(f);
  } else if (FILE* q = std::fopen("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "r")) {
    if (std::fscanf(q, "%lld", &quota) != 1) quota = 0;
    std::fclose(q);
    if (FILE* p = std::fopen("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "r")) {
      if (std::fscanf(p, "%lld", &period) != 1) period = 0;
      std::fclose(p);
    }
  }
  if (quota <= 0 || period <= 0) return 0;
  return static_cast<int>(std::max<long long>(1, (quota + period - 1) / period));
}

}  // namespace

int ThreadPool::usable_cpus() {
  static const int cpus = [] {
    int n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) n = std::max(1, CPU_COUNT(&set));
    if (const int limit = cgroup_cpu_limit(); limit > 0) n = std::min(n, limit);
    return n;
  }();
  return cpus;
}

ThreadPool::ThreadPool(int workers) : poll_(std::max(1, workers) <= usable_cpus()) {
  for (int w = 0; w < std::max(1, workers); ++w) workers_.push_back(std::make_unique<Worker>());
  for (int w = 1; w < size(); ++w) threads_.emplace_back([this, w] { worker_loop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true, std::memory_order_release);
  }
  for (auto& w : workers_) w->wake.notify_all();
  for (auto& t : threads_) t.join();
}

ThreadPool& ThreadPool::shared() {
  // Never destroyed: a call made while the process exits (a global's
  // destructor, a detached thread) would otherwise run on a destroyed pool
  // (a review: SIGSEGV, "free(): invalid pointer"). Its workers end with
  // the process.
  static ThreadPool* pool = new ThreadPool(usable_cpus());
  return *pool;
}

void ThreadPool::run_tasks(int worker) {
  // Own block first, then help the others from where they are.
  for (int i = 0; i < job_workers_; ++i) {
    Worker& owner = *workers_[(worker + i) % job_workers_];
    for (;;) {
      const int64_t task = owner.next.fetch_add(1, std::memory_order_relaxed);
      if (task >= owner.end) break;
      (*job_)(task, worker, workers_[worker]->scratch.get());
      if (unfinished_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_all();
      }
    }
  }
}

void ThreadPool::worker_loop(int worker) {
  Worker& self = *workers_[worker];
  uint64_t seen = 0;
  for (;;) {
    auto posted = [&] {
      return stopping_.load(std::memory_order_acquire) ||
             self.posted.load(std::memory_order_acquire) != seen;
    };
    if (!poll_ || !poll_until(posted)) {
      std::unique_lock<std::mutex> lock(mutex_);
      self.wake.wait(lock, posted);
    }
    if (stopping_.load(std::memory_order_acquire)) return;
    {
      // A helper the OS runs late may find its job done (the others took its
      // block) and the task object gone: it joins only an open, unfinished
      // job, the one it was handed.
      std::lock_guard<std::mutex> lock(mutex_);
      seen = self.posted.load(std::memory_order_relaxed);
      if (!job_open_ || seen != job_id_ || unfinished_.load(std::memory_order_acquire) == 0)
        continue;
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
  // One call at a time has the pool (even on one worker: two callers would
  // share worker 0's scratch). A caller that finds it busy runs its own
  // tasks on its own thread rather than wait: two program threads calling
  // at once then use two cores.
  std::unique_lock<std::mutex> call(call_mutex_, std::try_to_lock);
  if (!call.owns_lock()) {
    thread_local Worker own;
    if (!reserve(own, scratch_floats)) return false;
    for (int64_t i = 0; i < n; ++i) task(i, 0, own.scratch.get());
    return true;
  }
  for (int w = 0; w < workers; ++w)
    if (!reserve(*workers_[w], scratch_floats)) return false;
  if (workers == 1) {
    for (int64_t i = 0; i < n; ++i) task(i, 0, workers_[0]->scratch.get());
    return true;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &task;
    job_workers_ = workers;
    job_open_ = true;
    ++job_id_;
    // Worker w owns tasks [n·w/W, n·(w+1)/W): the same heads land on the
    // same thread call after call, so their state stays in that core's cache.
    for (int w = 0; w < workers; ++w) {
      workers_[w]->next.store(n * w / workers, std::memory_order_relaxed);
      workers_[w]->end = n * (w + 1) / workers;
    }
    unfinished_.store(n, std::memory_order_relaxed);
    for (int w = 1; w < workers; ++w) workers_[w]->posted.store(job_id_, std::memory_order_release);
  }
  for (int w = 1; w < workers; ++w) workers_[w]->wake.notify_one();
  run_tasks(0);
  // Done when every task is: a helper that never got the CPU is not waited
  // for. One that joined may still be between tasks (even preempted there)
  // and reads this job's cursors, so the job stays alive until it leaves.
  auto finished = [&] { return unfinished_.load(std::memory_order_acquire) == 0; };
  if (poll_) poll_until(finished);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, finished);
  job_open_ = false;
  done_.wait(lock, [&] { return joined_ == 0; });
  job_ = nullptr;
  return true;
}

bool ThreadPool::same_block(int64_t n, int workers, int64_t a, int64_t b) {
  if (n <= 0) return false;  // no tasks, no blocks
  const int64_t w = std::clamp<int64_t>(workers, 1, std::max<int64_t>(n, 1));
  // Block v is [n·v/w, n·(v+1)/w): task i is in block (w·(i+1) - 1) / n.
  auto block = [&](int64_t i) { return (w * (i + 1) - 1) / n; };
  return block(a) == block(b);
}

bool ThreadPool::reserve(Worker& w, int64_t floats) {
  if (w.scratch_floats >= floats) return true;
  if (static_cast<uint64_t>(floats) > SIZE_MAX / sizeof(float) - 64) return false;
  const size_t bytes = (static_cast<size_t>(floats) * sizeof(float) + 63) / 64 * 64;
  w.scratch = {static_cast<float*>(std::aligned_alloc(64, bytes)), std::free};
  w.scratch_floats = w.scratch ? floats : 0;
  // Zeroed: no kernel may find a tag there it did not leave (kernel_abi.h).
  if (w.scratch) std::memset(w.scratch.get(), 0, bytes);
  return w.scratch != nullptr;
}

}  // namespace gdr
