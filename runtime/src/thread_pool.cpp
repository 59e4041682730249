#include "gdr/thread_pool.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace gdr {

ThreadPool::ThreadPool(int workers) : scratch_(std::max(1, workers)) {
  for (int w = 1; w < size(); ++w) threads_.emplace_back([this, w] { worker_loop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

ThreadPool& ThreadPool::shared() {
  static ThreadPool pool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  return pool;
}

void ThreadPool::run_tasks(int worker) {
  for (;;) {
    int64_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= job_size_) return;
    (*job_)(i, worker, scratch_[worker].data.get());
  }
}

void ThreadPool::worker_loop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (worker >= job_workers_) continue;
    }
    run_tasks(worker);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--active_ == 0) done_.notify_one();
    }
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
    job_size_ = n;
    job_workers_ = workers;
    active_ = workers - 1;
    next_.store(0, std::memory_order_relaxed);
    ++generation_;
  }
  wake_.notify_all();
  run_tasks(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return active_ == 0; });
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
