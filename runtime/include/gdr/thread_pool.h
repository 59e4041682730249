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

  // The process-wide pool, one worker per hardware thread.
  static ThreadPool& shared();

  int size() const { return static_cast<int>(scratch_.size()); }

  using Task = std::function<void(int64_t task, int worker, float* scratch)>;

  // Runs task(i, worker, scratch) for i in [0, n) on at most `max_workers`
  // workers (<= 0: all), the caller included; returns when all tasks are
  // done. Before any task runs, every worker that takes part gets at least
  // `scratch_floats` floats of scratch of its own (64-byte aligned, kept
  // between calls); if that memory cannot be had, no task runs and it
  // returns false. Tasks are handed out in order from a shared counter.
  // Calls from several threads at once are serialised.
  bool parallel_for(int64_t n, int max_workers, int64_t scratch_floats, const Task& task);

 private:
  struct Scratch {
    std::unique_ptr<float, void (*)(void*)> data{nullptr, nullptr};
    int64_t floats = 0;
  };
  void worker_loop(int worker);
  void run_tasks(int worker);
  bool reserve(Scratch& s, int64_t floats);

  std::vector<std::thread> threads_;
  std::vector<Scratch> scratch_;
  std::mutex call_mutex_;  // one parallel_for at a time
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  uint64_t generation_ = 0;
  bool stopping_ = false;
  // The current job, guarded by mutex_ except next_ (atomic via lock-free ops).
  const Task* job_ = nullptr;
  int64_t job_size_ = 0;
  int job_workers_ = 0;
  int active_ = 0;
  std::atomic<int64_t> next_{0};
};

}  // namespace gdr
