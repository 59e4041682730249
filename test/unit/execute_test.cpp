// How gdr::execute spreads a call over the pool.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

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

int32_t fail_with_code_5(const gdr_kernel_args*) { return 5; }
const char* no_message() { return nullptr; }

// A kernel's failure is a Status with its code, also when its message hook
// has nothing to say (null), on any thread.
TEST(Execute, AFailingKernelWithoutAMessageIsAStatus) {
  test::Problem p = test::make_problem(1, 4, 3, 16, 16, {});
  Kernel k;
  k.name = "fails";
  k.fn = fail_with_code_5;
  k.error_message = no_message;
  Options o;
  o.threads = 2;
  const Status s = execute(k, p.tensors(), o);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "kernel fails failed with code 5");
}

// Options from an integer cast (a C caller, a binding) and null entry
// points are errors naming them, and the outputs stay unwritten (a review:
// an unknown route ran as "unknown", bad stores silently as Cached, a
// negative column_parts passed the JIT's plan(), a null fn crashed after
// validation).
TEST(Execute, BadOptionsAndANullEntryPointAreErrorsNamingThem) {
  test::Problem p = test::make_problem(1, 2, 3, 16, 16, {});
  Kernel k = any_shape_kernel("ok", fail_with_code_5, 0, 0);
  struct Bad {
    Options options;
    std::string message;
  };
  std::vector<Bad> cases(4);
  cases[0].options.route = static_cast<Route>(42);
  cases[0].message = "route: 42 is none of Route's values";
  cases[1].options.final_state_stores = static_cast<StateStores>(9);
  cases[1].message = "final_state_stores: 9 is none of StateStores' values";
  cases[2].options.out_stores = static_cast<StateStores>(-3);
  cases[2].message = "out_stores: -3 is none of StateStores' values";
  cases[3].options.column_parts = -1;
  cases[3].message = "column_parts must be >= 0 (0: the runtime chooses), got -1";
  for (const Bad& b : cases) {
    EXPECT_EQ(validate_options(b.options).message(), b.message);
    EXPECT_EQ(execute(k, p.tensors(), b.options).message(), b.message);
    EXPECT_EQ(run(p.tensors(), b.options).message(), b.message);
  }
  Kernel null_fn;
  null_fn.name = "null";
  EXPECT_EQ(execute(null_fn, p.tensors(), {}).message(), "kernel null: its entry point (fn) is a null pointer");
  EXPECT_EQ(execute(any_shape_kernel("x", nullptr, 0, 0), p.tensors(), {}).message(),
            "kernel x: its entry point (fn) is a null pointer");
  for (float x : p.out) EXPECT_TRUE(std::isnan(x));
  EXPECT_TRUE(validate_options({}));
}

int64_t g_slots[2];  // the call's final_state_indices, which its first task changes
std::vector<const float*> g_finals;
int32_t change_the_slots(const gdr_kernel_args* a) {
  g_finals.push_back(a->final_state);
  g_slots[1] = int64_t{1} << 40;  // as another thread of the caller might, mid-call
  return 0;
}

// The indices a call runs with are the ones validate() checked: a caller's
// array changed during the call (another thread, or here the first task)
// cannot send a later task outside the pool.
TEST(Execute, TasksUseTheIndicesThatWereValidated) {
  test::Problem p = test::make_problem(2, 1, 1, 16, 16, {});
  Tensors t = p.tensors();
  g_slots[0] = 1;
  g_slots[1] = 0;
  t.final_state_indices = {g_slots, Indices::Type::Int64, 2};
  t.final_state_slots = 2;
  g_finals.clear();
  Kernel k;
  k.name = "change_the_slots";
  k.fn = change_the_slots;
  Options o;
  o.threads = 1;
  ASSERT_TRUE(execute(k, t, o));
  ASSERT_EQ(g_finals.size(), 2u);
  EXPECT_EQ(g_finals[0], t.final_state + 16 * 16);  // sequence 0 to slot 1
  EXPECT_EQ(g_finals[1], t.final_state);            // sequence 1 to slot 0, as validated
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

// What each task was asked: (initial state, final-state stores, the next
// task's initial state at its first column), by task start (initial state
// + v_begin, then T).
struct StoresAsked {
  const float* initial;
  int64_t stores;
  const float* next;
  int64_t out_stores;
};
std::map<std::pair<const float*, int64_t>, StoresAsked> g_asked;

int32_t record_stores(const gdr_kernel_args* a) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const float* next = a->next_task ? a->next_task->initial_state + a->next_task->v_begin : nullptr;
  const float* start = a->initial_state + a->v_begin;
  g_asked[{start, a->T}] = {start, a->final_state_stores, next, a->out_stores};
  return 0;
}

Kernel stores_recorder() {
  Kernel k;
  k.name = "record_stores";
  k.fn = record_stores;
  k.column_align = 16;
  return k;
}

// Runs `p` on one thread through the recorder (g_asked: what this call
// asked).
Status record_one_thread(test::Problem& p, StateStores stores = StateStores::Automatic,
                         const Kernel& recorder = stores_recorder()) {
  g_asked.clear();
  Options o;
  o.threads = 1;
  o.final_state_stores = stores;
  return execute(recorder, p.tensors(), o);
}

TEST(Execute, StreamingTasksAreToldTheStateTheirWorkerReadsNext) {
  // 3 heads of 2 column parts: tasks (head, part) in order; a worker runs
  // its block's (0-2 and 3-5 on 2 threads), so each but its block's last is
  // told the next one's first column.
  test::Problem p = test::make_problem(1, 3, 1, 32, 64, {});
  for (int threads : {1, 2}) {
    g_asked.clear();
    Options o;
    o.threads = threads;
    o.column_parts = 2;
    o.final_state_stores = StateStores::Streaming;
    ASSERT_TRUE(execute(stores_recorder(), p.tensors(), o));
    ASSERT_EQ(g_asked.size(), 6u);
    std::vector<const float*> starts;
    for (int64_t h = 0; h < 3; ++h)
      for (int64_t column : {0, 32}) starts.push_back(p.initial_state.data() + h * 32 * 64 + column);
    for (size_t i = 0; i < starts.size(); ++i) {
      const StoresAsked& asked = g_asked.at({starts[i], 1});
      EXPECT_EQ(asked.stores, GDR_STATE_STORES_STREAMING) << i;
      const bool last_of_block = i + 1 == starts.size() || (threads == 2 && i == 2);
      EXPECT_EQ(asked.next, last_of_block ? nullptr : starts[i + 1]) << i << " threads=" << threads;
    }
  }
}

TEST(Execute, CachedAndSmallAutomaticCallsDoNotStream) {
  test::Problem p = test::make_problem(1, 3, 1, 32, 64, {});
  for (StateStores stores : {StateStores::Cached, StateStores::Automatic}) {
    ASSERT_TRUE(record_one_thread(p, stores));
    ASSERT_EQ(g_asked.size(), 3u);
    for (int64_t h = 0; h < 3; ++h) {
      const StoresAsked& asked = g_asked.at({p.initial_state.data() + h * 32 * 64, 1});
      EXPECT_EQ(asked.stores, GDR_STATE_STORES_CACHED) << state_stores_name(stores);
      // Told the next task whatever the stores (its first rows to prefetch).
      EXPECT_EQ(asked.next, h < 2 ? asked.initial + 32 * 64 : nullptr) << state_stores_name(stores);
    }
  }
}

TEST(Execute, TasksAreNotToldAnEmptyNextTask) {
  // Varlen, 2 heads: tasks (sequence, head) in order; sequence 1 is empty,
  // and a next task without tokens has no rows to prefetch (kernel_abi.h).
  test::ProblemOptions po;
  po.form.seqlens = {3, 0, 2};
  test::Problem p = test::make_problem(1, 2, 0, 32, 64, po);
  ASSERT_TRUE(record_one_thread(p));
  ASSERT_EQ(g_asked.size(), 6u);
  auto state = [&](int64_t sequence, int64_t head) {
    return p.initial_state.data() + (sequence * 2 + head) * 32 * 64;
  };
  EXPECT_EQ(g_asked.at({state(0, 0), 3}).next, state(0, 1));
  EXPECT_EQ(g_asked.at({state(0, 1), 3}).next, nullptr);
  EXPECT_EQ(g_asked.at({state(1, 0), 0}).next, nullptr);
  EXPECT_EQ(g_asked.at({state(1, 1), 0}).next, state(2, 0));
  EXPECT_EQ(g_asked.at({state(2, 1), 2}).next, nullptr);
}

// A sequence with no tokens whose final state is its initial one (in place)
// has nothing to do: no task runs it (the kernels copied the state onto
// itself). Varlen in place, sequence 1 empty, and T = 0 in place.
TEST(Execute, EmptySequencesInPlaceRunNoTask) {
  test::ProblemOptions po;
  po.form.seqlens = {3, 0, 2};
  po.form.in_place = true;
  test::Problem p = test::make_problem(1, 2, 0, 32, 64, po);
  ASSERT_TRUE(record_one_thread(p));
  auto state = [&](int64_t sequence, int64_t head) {
    return p.initial_state.data() + (sequence * 2 + head) * 32 * 64;
  };
  EXPECT_EQ(g_asked.size(), 4u);
  EXPECT_EQ(g_asked.count({state(1, 0), 0}) + g_asked.count({state(1, 1), 0}), 0u);
  for (const bool in_place : {true, false}) {
    test::ProblemOptions decode;
    decode.form.in_place = in_place;
    test::Problem copy = test::make_problem(2, 2, 0, 32, 64, decode);
    ASSERT_TRUE(record_one_thread(copy));
    EXPECT_EQ(g_asked.size(), in_place ? 0u : 4u);  // functional: each head's state is copied
  }
}

TEST(Execute, BigAutomaticCallsStreamExceptOverTheirInitialStates) {
  // 128 heads of 128 x 128: 16 MiB of states read and written, beyond any
  // one core's L2; in place each task writes over the state it just read.
  for (bool in_place : {false, true}) {
    test::ProblemOptions po;
    po.form.in_place = in_place;
    test::Problem p = test::make_problem(1, 128, 1, 128, 128, po);
    ASSERT_TRUE(record_one_thread(p));
    ASSERT_EQ(g_asked.size(), 128u);
    for (const auto& [start, asked] : g_asked)
      EXPECT_EQ(asked.stores, in_place ? GDR_STATE_STORES_CACHED : GDR_STATE_STORES_STREAMING) << in_place;
  }
}

TEST(Execute, OutputsStreamWhenAskedOrWhenTheCallOutgrowsTheL2OfItsCores) {
  // 8 KiB of outputs and 64 KiB of states; then 32 MiB of outputs (4 heads
  // x 16384 tokens x 128 floats); then 16 KiB of outputs after 32 MiB of
  // states (64 heads x 256 x 256 floats, read and written): the last two
  // beyond any one core's L2.
  struct Case {
    int64_t H, T, K, V;
    bool beyond_l2;
  };
  for (const Case c : {Case{4, 4, 16, 128, false}, Case{4, 16384, 16, 128, true}, Case{64, 1, 256, 256, true}})
    for (StateStores stores : {StateStores::Automatic, StateStores::Cached, StateStores::Streaming}) {
      test::Problem p = test::make_problem(1, c.H, c.T, c.K, c.V, {});
      g_asked.clear();
      Options o;
      o.threads = 1;
      o.out_stores = stores;
      ASSERT_TRUE(execute(stores_recorder(), p.tensors(), o));
      ASSERT_EQ(g_asked.size(), static_cast<size_t>(c.H));
      const bool streams = stores == StateStores::Streaming || (stores == StateStores::Automatic && c.beyond_l2);
      for (const auto& [start, asked] : g_asked)
        EXPECT_EQ(asked.out_stores, streams ? GDR_STATE_STORES_STREAMING : GDR_STATE_STORES_CACHED)
            << state_stores_name(stores) << " H=" << c.H << " T=" << c.T << " K=" << c.K;
    }
}

TEST(Execute, TokenMajorTasksRunAllTheirTokens) {
  // Token-major on a token-stepping kernel, as head-major: one call of the
  // kernel per head over all 130 tokens (runtime.cpp says why).
  test::ProblemOptions po;
  po.form.layout = Layout::TokenMajor;
  test::Problem p = test::make_problem(1, 2, 130, 32, 64, po);
  Kernel k = stores_recorder();
  k.token_steps = true;
  ASSERT_TRUE(record_one_thread(p, StateStores::Streaming, k));
  ASSERT_EQ(g_asked.size(), 2u);
  const float* head1 = p.initial_state.data() + 32 * 64;
  const StoresAsked& first = g_asked.at({p.initial_state.data(), 130});
  EXPECT_EQ(first.stores, GDR_STATE_STORES_STREAMING);
  EXPECT_EQ(first.next, head1);
  const StoresAsked& second = g_asked.at({head1, 130});
  EXPECT_EQ(second.stores, GDR_STATE_STORES_STREAMING);
  EXPECT_EQ(second.next, nullptr);
}

TEST(Execute, StateStoresHaveNames) {
  for (StateStores s : {StateStores::Automatic, StateStores::Cached, StateStores::Streaming}) {
    StateStores parsed{};
    ASSERT_TRUE(parse_state_stores(state_stores_name(s), &parsed));
    EXPECT_EQ(parsed, s);
  }
  StateStores untouched = StateStores::Cached;
  EXPECT_FALSE(parse_state_stores("nontemporal", &untouched));
  EXPECT_EQ(untouched, StateStores::Cached);
}

}  // namespace
}  // namespace gdr
