#include "gdr/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <vector>

namespace gdr {
namespace {

TEST(ThreadPool, RunsEveryTaskExactlyOnce) {
  ThreadPool pool(3);
  for (int64_t n : {0, 1, 2, 7, 1000}) {
    std::vector<std::atomic<int>> hits(n);
    pool.parallel_for(n, 0, [&](int64_t i, int) { hits[i]++; });
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "task " << i << " of " << n;
  }
}

TEST(ThreadPool, RespectsMaxWorkers) {
  ThreadPool pool(4);
  std::mutex m;
  std::set<int> workers;
  pool.parallel_for(200, 2, [&](int64_t, int w) {
    std::lock_guard<std::mutex> lock(m);
    workers.insert(w);
  });
  EXPECT_LE(workers.size(), 2u);
  for (int w : workers) EXPECT_LT(w, 2);
}

TEST(ThreadPool, ScratchIsPerWorkerAlignedAndGrows) {
  ThreadPool pool(2);
  float* small = pool.scratch(0, 10);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  float* large = pool.scratch(0, 1 << 20);
  ASSERT_NE(large, nullptr);
  large[(1 << 20) - 1] = 1.f;  // the whole range is usable
  EXPECT_NE(pool.scratch(1, 10), large);
}

TEST(ThreadPool, ManyConsecutiveJobs) {
  ThreadPool pool(2);
  std::atomic<int64_t> sum{0};
  for (int job = 0; job < 500; ++job) pool.parallel_for(3, 0, [&](int64_t i, int) { sum += i; });
  EXPECT_EQ(sum.load(), 500 * 3);
}

}  // namespace
}  // namespace gdr

namespace gdr {
namespace {

TEST(ThreadPool, ConcurrentCallersDoNotShareScratch) {
  ThreadPool pool(2);
  std::atomic<int> bad{0};
  auto caller = [&](float tag) {
    for (int job = 0; job < 200; ++job)
      pool.parallel_for(1, 1, [&](int64_t, int w) {
        float* s = pool.scratch(w, 64);
        for (int i = 0; i < 64; ++i) s[i] = tag;
        for (int i = 0; i < 64; ++i) bad += s[i] != tag;
      });
  };
  std::thread a(caller, 1.f), b(caller, 2.f);
  a.join();
  b.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace gdr
