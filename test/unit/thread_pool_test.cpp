#include "gdr/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace gdr {
namespace {

TEST(ThreadPool, RunsEveryTaskExactlyOnce) {
  ThreadPool pool(3);
  for (int64_t n : {0, 1, 2, 7, 1000}) {
    std::vector<std::atomic<int>> hits(n);
    ASSERT_TRUE(pool.parallel_for(n, 0, 0, [&](int64_t i, int, float*) { hits[i]++; }));
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "task " << i << " of " << n;
  }
}

// Each task waits a while for more threads to join it: a pool ignoring the
// limit would run more than 2 at once (with instant tasks the caller alone
// could run them all, and the test passed whatever the limit).
TEST(ThreadPool, RespectsMaxWorkers) {
  ThreadPool pool(4);
  std::mutex m;
  std::set<int> workers;
  std::set<std::thread::id> threads;
  pool.parallel_for(8, 2, 0, [&](int64_t, int w, float*) {
    {
      std::lock_guard<std::mutex> lock(m);
      workers.insert(w);
      threads.insert(std::this_thread::get_id());
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    while (std::chrono::steady_clock::now() < until) {
      std::lock_guard<std::mutex> lock(m);
      if (threads.size() > 2) break;
    }
  });
  EXPECT_LE(threads.size(), 2u);
  EXPECT_LE(workers.size(), 2u);
  for (int w : workers) EXPECT_LT(w, 2);
}

TEST(ThreadPool, ScratchIsPerWorkerAlignedAndUsable) {
  ThreadPool pool(2);
  constexpr int64_t kFloats = 1 << 20;
  std::mutex m;
  std::set<float*> seen_by_worker[2];
  ASSERT_TRUE(pool.parallel_for(64, 2, kFloats, [&](int64_t, int w, float* s) {
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(s) % 64, 0u);
    s[0] = s[kFloats - 1] = 1.f;  // the whole range is usable
    std::lock_guard<std::mutex> lock(m);
    seen_by_worker[w].insert(s);
  }));
  // Either worker may run every task (the other steals them all when the
  // machine is loaded), so only the one that ran must keep its one buffer.
  EXPECT_LE(seen_by_worker[0].size(), 1u) << "a worker keeps its one buffer";
  EXPECT_LE(seen_by_worker[1].size(), 1u) << "a worker keeps its one buffer";
  EXPECT_GE(seen_by_worker[0].size() + seen_by_worker[1].size(), 1u);
  if (!seen_by_worker[0].empty() && !seen_by_worker[1].empty())
    EXPECT_NE(*seen_by_worker[0].begin(), *seen_by_worker[1].begin());
}

// New scratch is zeroed (a kernel must not find a tag it did not leave:
// kernel_abi.h), also in memory an earlier pool wrote and freed (the heap
// hands the same block out again).
TEST(ThreadPool, NewScratchIsZeroed) {
  constexpr int64_t kFloats = 4096;
  for (int pool_number = 0; pool_number < 3; ++pool_number) {
    ThreadPool pool(1);
    int64_t nonzero = 0;
    ASSERT_TRUE(pool.parallel_for(1, 1, kFloats, [&](int64_t, int, float* s) {
      for (int64_t i = 0; i < kFloats; ++i) nonzero += s[i] != 0.f;
      std::fill(s, s + kFloats, 7.f);
    }));
    EXPECT_EQ(nonzero, 0) << "pool " << pool_number;
  }
}

// same_block names the blocks parallel_for gives its workers: [n·w/W,
// n·(w+1)/W) for W = min(workers, n).
TEST(ThreadPool, SameBlockIsParallelForsBlocks) {
  for (int64_t n = 1; n <= 20; ++n)
    for (int workers = 1; workers <= 5; ++workers) {
      const int64_t W = std::min<int64_t>(workers, n);
      std::vector<int64_t> owner(n);
      for (int64_t w = 0; w < W; ++w)
        for (int64_t i = n * w / W; i < n * (w + 1) / W; ++i) owner[i] = w;
      for (int64_t i = 0; i + 1 < n; ++i)
        EXPECT_EQ(ThreadPool::same_block(n, workers, i, i + 1), owner[i] == owner[i + 1])
            << "n = " << n << ", workers = " << workers << ", task " << i;
    }
}

TEST(ThreadPool, ImpossibleScratchRunsNothing) {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  EXPECT_FALSE(pool.parallel_for(4, 2, INT64_MAX / 2, [&](int64_t, int, float*) { ran++; }));
  EXPECT_EQ(ran.load(), 0);
  // The pool still works afterwards.
  EXPECT_TRUE(pool.parallel_for(4, 2, 16, [&](int64_t, int, float*) { ran++; }));
  EXPECT_EQ(ran.load(), 4);
}

TEST(ThreadPool, ManyConsecutiveJobs) {
  ThreadPool pool(2);
  std::atomic<int64_t> sum{0};
  for (int job = 0; job < 500; ++job)
    pool.parallel_for(3, 0, 0, [&](int64_t i, int, float*) { sum += i; });
  EXPECT_EQ(sum.load(), 500 * 3);
}

TEST(ThreadPool, IdleWorkersStealFromABlockedOne) {
  // Worker 0 (the caller) owns tasks [0, 50) but stalls on the first task
  // it runs until the others have done everything else: only stealing
  // finishes. Which task that is depends on start order: a helper that
  // finishes its own block before the caller starts may already have
  // stolen task 0 (seen under ASan on 2 loaded cores).
  ThreadPool pool(2);
  std::atomic<int> done{0};
  std::vector<int> ran_by(100, -1);
  std::atomic<bool> worker0_started{false};
  ASSERT_TRUE(pool.parallel_for(100, 2, 0, [&](int64_t i, int w, float*) {
    // A deadline, so that broken stealing fails the test instead of hanging it.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    if (w == 0 && !worker0_started.exchange(true))
      while (done.load() < 99 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    ran_by[i] = w;
    ++done;
  }));
  EXPECT_EQ(done.load(), 100);
  int stolen = 0, by_worker0 = 0;
  for (int i = 0; i < 50; ++i) stolen += ran_by[i] == 1;
  for (int i = 0; i < 100; ++i) by_worker0 += ran_by[i] == 0;
  // Worker 0 ran only the task it stalled on (none if the helper took all).
  EXPECT_LE(by_worker0, 1);
  EXPECT_GE(stolen, 49);
}

TEST(ThreadPool, WakesWorkersThatWentToSleep) {
  // Idle for longer than the polling window, so the helper sleeps on the
  // condition variable; task 0 (the caller's) waits for task 1 to start,
  // which only the woken helper can do.
  ThreadPool pool(2);
  for (int job = 0; job < 3; ++job) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::atomic<int> task1_worker{-1};
    pool.parallel_for(2, 2, 0, [&](int64_t i, int w, float*) {
      if (i == 1) task1_worker = w;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (i == 0 && task1_worker.load() < 0 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::yield();
    });
    EXPECT_EQ(task1_worker.load(), 1) << "job " << job;
  }
}

TEST(ThreadPool, WakesOnlyTheWorkersThatTakePart) {
  // Jobs on 2 of 4 workers: workers 2 and 3 never run a task, and a later
  // job on all 4 still finds them ready.
  ThreadPool pool(4);
  std::mutex m;
  std::set<int> workers;
  for (int job = 0; job < 50; ++job)
    pool.parallel_for(64, 2, 0, [&](int64_t, int w, float*) {
      std::lock_guard<std::mutex> lock(m);
      workers.insert(w);
    });
  for (int w : workers) EXPECT_LT(w, 2);
  std::atomic<int> ran{0};
  EXPECT_TRUE(pool.parallel_for(1000, 4, 0, [&](int64_t, int, float*) { ++ran; }));
  EXPECT_EQ(ran.load(), 1000);
}

TEST(ThreadPool, SharedPoolHasOneWorkerPerUsableCpu) {
  EXPECT_EQ(ThreadPool::shared().size(), ThreadPool::usable_cpus());
  EXPECT_GE(ThreadPool::usable_cpus(), 1);
}

TEST(ThreadPool, ConcurrentCallersDoNotShareScratch) {
  ThreadPool pool(2);
  std::atomic<int> bad{0};
  auto caller = [&](float tag) {
    for (int job = 0; job < 200; ++job)
      pool.parallel_for(1, 1, 64, [&](int64_t, int, float* s) {
        for (int i = 0; i < 64; ++i) s[i] = tag;
        std::this_thread::yield();
        for (int i = 0; i < 64; ++i) bad += s[i] != tag;
      });
  };
  std::thread a(caller, 1.f), b(caller, 2.f);
  a.join();
  b.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(ThreadPool, ACallerThatFindsThePoolBusyRunsItsTasksOnItsOwnThread) {
  // Thread A holds the pool in a task that waits for this thread's call to
  // finish: the call must not wait for A (A gives up after 10 s).
  ThreadPool pool(2);
  std::atomic<bool> a_started{false}, b_done{false}, a_gave_up{false};
  std::thread a([&] {
    pool.parallel_for(1, 1, 0, [&](int64_t, int, float*) {
      a_started = true;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!b_done.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
      a_gave_up = !b_done.load();
    });
  });
  while (!a_started.load()) std::this_thread::yield();
  std::set<std::thread::id> ran_on;
  std::mutex ran_on_mutex;
  ASSERT_TRUE(pool.parallel_for(8, 2, 64, [&](int64_t i, int w, float* scratch) {
    scratch[63] = static_cast<float>(i);  // its own scratch, of the size asked for
    EXPECT_EQ(w, 0);
    std::lock_guard<std::mutex> lock(ran_on_mutex);
    ran_on.insert(std::this_thread::get_id());
  }));
  b_done = true;
  a.join();
  EXPECT_FALSE(a_gave_up.load());
  EXPECT_EQ(ran_on, std::set<std::thread::id>{std::this_thread::get_id()});
}

}  // namespace
}  // namespace gdr
