// A persistent pool of workers with per-worker scratch memory.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gdr {

class ThreadPool {
 public:
  // `workers` counts the calling thread: a pool of 1 starts no thread.
  explicit ThreadPool(int workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The process-wide pool: one worker per CPU this process may run on.
  static ThreadPool& shared();

  // CPUs this process may run on: its affinity mask (cpusets included),
  // capped by a cgroup CPU quota (a container limited to 2 CPUs on a big
  // host: the cgroup at /sys/fs/cgroup; not a systemd unit's CPUQuota= on
  // the host). Read once per process.
  static int usable_cpus();

  int size() const { return static_cast<int>(workers_.size()); }

  using Task = std::function<void(int64_t task, int worker, float* scratch)>;

  // Runs task(i, worker, scratch) for i in [0, n) on at most `max_workers`
  // workers (<= 0: all), the caller included; returns when all tasks are
  // done. Before any task runs, every worker that takes part gets at least
  // `scratch_floats` floats of scratch of its own (64-byte aligned, kept
  // between calls); if that memory cannot be had, no task runs and it
  // returns false. Worker w first runs the w-th of `workers` equal
  // contiguous blocks of [0, n) (so a task index lands on the same thread
  // from call to call), then helps the others. Only the workers that take
  // part are woken. While the pool has no more threads than usable CPUs,
  // idle threads poll for a short while before they sleep, so back-to-back
  // calls do not pay a wake-up. Calls from several threads at once: one has
  // the pool, each other one runs its tasks on its own calling thread (as
  // worker 0, with scratch of that thread's own). Tasks must not throw (the
  // runtime's tasks call C kernels): an exception would leave the job half
  // run. Nor may a task call parallel_for of the pool running it: the nested
  // call would share the outer task's scratch.
  bool parallel_for(int64_t n, int max_workers, int64_t scratch_floats, const Task& task);

  // Whether tasks a and b of parallel_for(n, workers, ...) start in one
  // worker's block (workers already no more than size()).
  static bool same_block(int64_t n, int workers, int64_t a, int64_t b);

 private:
  struct alignas(64) Worker {
    std::unique_ptr<float, void (*)(void*)> scratch{nullptr, nullptr};
    int64_t scratch_floats = 0;
    std::condition_variable wake;          // waited on with mutex_
    std::atomic<uint64_t> posted{0};       // last job handed to this worker
    std::atomic<int64_t> next{0};          // this worker's block of tasks:
    int64_t end = 0;                       // [next, end)
  };
  void worker_loop(int worker);
  void run_tasks(int worker);
  bool reserve(Worker& w, int64_t floats);

  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
  const bool poll_;        // false when threads outnumber usable CPUs
  std::mutex call_mutex_;  // one parallel_for at a time
  std::mutex mutex_;
  std::condition_variable done_;
  std::atomic<bool> stopping_{false};
  // The current job: written under mutex_ before the workers' `posted`.
  const Task* job_ = nullptr;
  int job_workers_ = 0;
  uint64_t job_id_ = 0;
  bool job_open_ = false;               // helpers may still join (mutex_)
  int joined_ = 0;                      // helpers inside run_tasks (mutex_)
  std::atomic<int64_t> unfinished_{0};  // tasks not yet done
};

}  // namespace gdr
