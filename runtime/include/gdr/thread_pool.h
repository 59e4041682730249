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
  // returns false. Worker w first runs the w-th of `workers` equal
  // contiguous blocks of [0, n) (so a task index lands on the same thread
  // from call to call), then helps the others. Idle threads poll for a short
  // while before they sleep, so back-to-back calls do not pay a wake-up.
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
  std::atomic<bool> stopping_{false};
  // The current job: written under mutex_ before generation_ is bumped.
  struct alignas(64) Cursor {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };
  const Task* job_ = nullptr;
  int job_workers_ = 0;
  bool job_open_ = false;              // helpers may still join (mutex_)
  int joined_ = 0;                     // helpers inside run_tasks (mutex_)
  std::vector<Cursor> cursors_;        // one block of tasks per worker
  std::atomic<int64_t> unfinished_{0};  // tasks not yet done
  std::atomic<uint64_t> generation_{0};
};

}  // namespace gdr
