// How gdr::execute spreads a call over the pool.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "gdr/runtime.h"
#include "gdr/reference/reference.h"

namespace gdr {
namespace {

std::mutex g_mutex;
std::set<std::thread::id> g_threads;

// A kernel that records which thread ran it, slowly enough (0.2 ms) for a
// helper to take the other task.
int32_t record_thread(const gdr_kernel_args*) {
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  std::lock_guard<std::mutex> lock(g_mutex);
  g_threads.insert(std::this_thread::get_id());
  return 0;
}

std::set<std::thread::id> threads_used(int64_t H, int64_t T, int threads) {
  g_threads.clear();
  test::Problem p = test::make_problem(1, H, T, 128, 128, {});
  Kernel k;
  k.name = "record_thread";
  k.fn = record_thread;
  k.column_align = 16;  // splittable: one head could become two tasks
  Options o;
  o.threads = threads;
  EXPECT_TRUE(execute(k, p.tensors(), o));
  return g_threads;
}

TEST(Execute, TinyCallsLeftToTheRuntimeRunOnTheCaller) {
  // One head of decode, below two heads' worth per thread: over 20 calls
  // (a polling helper would take the second column part of some) only the
  // caller runs it.
  for (int call = 0; call < 20; ++call)
    ASSERT_EQ(threads_used(1, 1, 0), std::set<std::thread::id>{std::this_thread::get_id()}) << call;
}

TEST(Execute, AnExplicitThreadCountIsHonoured) {
  if (ThreadPool::shared().size() < 2) GTEST_SKIP() << "one hardware thread";
  // Two tasks on two workers; the caller may take both (a helper the OS
  // runs late is not waited for), so retry until the helper has taken part.
  bool helper_ran = false;
  for (int attempt = 0; attempt < 1000 && !helper_ran; ++attempt)
    helper_ran = threads_used(2, 1, 2).size() == 2;
  EXPECT_TRUE(helper_ran);
}

}  // namespace
}  // namespace gdr
