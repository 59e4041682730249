// Every validation rule rejects its bad input, names the argument, and
// leaves both outputs untouched, on every route.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <limits>

#include "gdr/baselines.h"
#include "implementations.h"
#include "gdr/runtime.h"
#include "gdr/reference/reference.h"

namespace gdr {
namespace {

// Offsets and slot indices for the cases below (B = 1, T = 5).
const int64_t kCuWhole[] = {0, 5}, kCuFrom1[] = {1, 5}, kCuDown[] = {0, 4, 3, 5},
              kCuShort[] = {0, 2, 4}, kCuTwo[] = {0, 2, 5}, kCuNone[] = {0};
const int64_t kSlot0[] = {0}, kSlot5[] = {5}, kSlotMinus1[] = {-1}, kSlots00[] = {0, 0},
              kSlots01[] = {0, 1}, kSlots10[] = {1, 0};

template <size_t N>
Indices indices(const int64_t (&values)[N]) {
  Indices i;
  i.data = values;
  i.size = N;
  return i;
}

struct Case {
  const char* name;
  std::function<void(Tensors&, test::Problem&)> corrupt;
  const char* must_mention;
};

const Case kCases[] = {
    {"B zero", [](Tensors& t, test::Problem&) { t.B = 0; }, "B must be positive"},
    {"H negative", [](Tensors& t, test::Problem&) { t.H = -2; }, "H must be positive"},
    {"T negative", [](Tensors& t, test::Problem&) { t.T = -1; }, "T must be non-negative"},
    {"K zero", [](Tensors& t, test::Problem&) { t.K = 0; }, "K must be positive"},
    {"V zero", [](Tensors& t, test::Problem&) { t.V = 0; }, "V must be positive"},
    {"overflow", [](Tensors& t, test::Problem&) { t.T = int64_t(1) << 40, t.K = int64_t(1) << 30; },
     "overflow"},
    // No sequences and no tokens: every tensor is empty, but a state's
    // H * K * V (which the runtime multiplies) would not fit.
    {"overflow behind a batch of no sequences",
     [](Tensors& t, test::Problem&) {
       t.T = 0;
       t.cu_seqlens = indices(kCuNone);
       t.K = t.V = int64_t(1) << 31;
     },
     "overflow"},
    {"null query", [](Tensors& t, test::Problem&) { t.query = nullptr; }, "query is a null pointer"},
    {"null key", [](Tensors& t, test::Problem&) { t.key = nullptr; }, "key is a null pointer"},
    {"null value", [](Tensors& t, test::Problem&) { t.value = nullptr; }, "value is a null pointer"},
    {"null decay", [](Tensors& t, test::Problem&) { t.decay = nullptr; }, "decay is a null pointer"},
    {"null beta", [](Tensors& t, test::Problem&) { t.beta = nullptr; }, "beta is a null pointer"},
    {"key_heads negative", [](Tensors& t, test::Problem&) { t.key_heads = -1; },
     "key_heads must be non-negative"},
    {"key_heads not dividing H", [](Tensors& t, test::Problem&) { t.key_heads = 3; },
     "key_heads: H=2 is not a multiple of key_heads=3"},
    {"query_heads not grouping H", [](Tensors& t, test::Problem&) { t.query_heads = 3; },
     "query_heads: neither H=2 nor query_heads=3"},
    {"slots negative", [](Tensors& t, test::Problem&) { t.final_state_slots = -1; },
     "final_state_slots must be non-negative"},
    // Enums cast from integers (a C caller, a binding) that are none of theirs.
    {"layout out of range", [](Tensors& t, test::Problem&) { t.layout = static_cast<Layout>(7); },
     "layout: 7 is neither HeadMajor nor TokenMajor"},
    {"decay_kind out of range", [](Tensors& t, test::Problem&) { t.decay_kind = static_cast<DecayKind>(-1); },
     "decay_kind: -1 is neither Channel nor Scalar"},
    {"index type out of range",
     [](Tensors& t, test::Problem&) { t.final_state_indices.type = static_cast<Indices::Type>(2); },
     "final_state_indices.type: 2 is neither Int32 nor Int64"},
    {"cu_seqlens with B > 1",
     [](Tensors& t, test::Problem&) {
       t.B = 2;
       t.cu_seqlens = indices(kCuWhole);
     },
     "cu_seqlens: a variable-length batch needs B = 1, got B=2"},
    {"cu_seqlens empty",
     [](Tensors& t, test::Problem&) {
       t.cu_seqlens = indices(kCuWhole);
       t.cu_seqlens.size = 0;
     },
     "cu_seqlens: needs at least one offset"},
    {"cu_seqlens not from 0", [](Tensors& t, test::Problem&) { t.cu_seqlens = indices(kCuFrom1); },
     "cu_seqlens[0] must be 0, got 1"},
    {"cu_seqlens decreasing", [](Tensors& t, test::Problem&) { t.cu_seqlens = indices(kCuDown); },
     "cu_seqlens must be non-decreasing: cu_seqlens[2] = 3 < cu_seqlens[1] = 4"},
    {"cu_seqlens not ending at T", [](Tensors& t, test::Problem&) { t.cu_seqlens = indices(kCuShort); },
     "cu_seqlens: the last offset must be T=5, got 4"},
    {"cu_seqlens misaligned int64",
     [](Tensors& t, test::Problem&) {
       t.cu_seqlens = indices(kCuWhole);
       t.cu_seqlens.data = reinterpret_cast<const char*>(t.cu_seqlens.data) + 4;
     },
     "cu_seqlens is not aligned to 8 bytes"},
    {"final indices misaligned int32",
     [](Tensors& t, test::Problem&) {
       t.final_state_indices = indices(kSlots01);
       t.final_state_indices.type = Indices::Type::Int32;  // slots 0 and 0 as int32, read from byte 2
       t.final_state_indices.data = reinterpret_cast<const char*>(t.final_state_indices.data) + 2;
       t.final_state_indices.size = 1;
       t.final_state_slots = 1;
     },
     "final_state_indices is not aligned to 4 bytes (int32)"},
    {"initial index out of range",
     [](Tensors& t, test::Problem&) {
       t.initial_state_indices = indices(kSlot5);
       t.initial_state_slots = 1;
     },
     "initial_state_indices[0] = 5 is out of range [-1, 1)"},
    {"initial indices of another count",
     [](Tensors& t, test::Problem&) {
       t.initial_state_indices = indices(kCuWhole);  // two entries, one sequence
       t.initial_state_slots = 8;
     },
     "initial_state_indices has 2 entries, but there are 1 sequences"},
    {"initial indices without initial_state",
     [](Tensors& t, test::Problem&) {
       t.initial_state = nullptr;
       t.initial_state_indices = indices(kSlot0);
       t.initial_state_slots = 1;
     },
     "initial_state_indices given, but initial_state is a null pointer"},
    {"final index -1",
     [](Tensors& t, test::Problem&) {
       t.final_state_indices = indices(kSlotMinus1);
       t.final_state_slots = 1;
     },
     "final_state_indices[0] = -1 is out of range [0, 1)"},
    {"two sequences writing one slot",
     [](Tensors& t, test::Problem&) {
       t.cu_seqlens = indices(kCuTwo);
       t.final_state_indices = indices(kSlots00);
       t.final_state_slots = 2;
     },
     "final_state_indices: sequences 0 and 1 both write slot 0"},
    {"in place over a slot another sequence reads",
     [](Tensors& t, test::Problem& p) {
       t.cu_seqlens = indices(kCuTwo);
       t.initial_state = t.final_state = p.final_state.data();
       t.initial_state_indices = indices(kSlots10);
       t.final_state_indices = indices(kSlots01);
       t.initial_state_slots = t.final_state_slots = 2;
       t.in_place = true;
     },
     "final_state_indices: in place, sequence 0 writes slot 0, which sequence 1 reads"},
    {"in place over a slot another sequence reads, the writes not indexed",
     [](Tensors& t, test::Problem& p) {
       t.cu_seqlens = indices(kCuTwo);
       t.initial_state = t.final_state = p.final_state.data();
       t.initial_state_indices = indices(kSlots10);
       t.initial_state_slots = t.final_state_slots = 2;
       t.in_place = true;
     },
     "initial_state_indices: in place, sequence 0 writes slot 0, which sequence 1 reads"},
    {"misaligned key",
     [](Tensors& t, test::Problem&) {
       t.key = reinterpret_cast<const float*>(reinterpret_cast<const char*>(t.key) + 1);
     },
     "key is not aligned"},
    {"final_state is initial_state",
     [](Tensors& t, test::Problem& p) { t.initial_state = p.final_state.data(); },
     "final_state overlaps initial_state: set in_place"},
    {"in place, but the pools only partly overlap",
     [](Tensors& t, test::Problem& p) {
       p.final_state.resize(p.final_state.size() * 2);
       t.final_state = p.final_state.data() + 1;
       t.initial_state = p.final_state.data();
       t.in_place = true;
     },
     "final_state overlaps initial_state: in place, final_state must be initial_state itself"},
    {"final_state partly overlaps initial_state",
     [](Tensors& t, test::Problem& p) {
       // initial_state ends one element inside final_state.
       p.final_state.resize(p.final_state.size() * 2);
       t.final_state = p.final_state.data() + p.initial_state.size() - 1;
       t.initial_state = p.final_state.data();
     },
     "final_state overlaps initial_state"},
    {"final_state overlaps value",
     [](Tensors& t, test::Problem& p) { t.value = p.final_state.data(); },
     "final_state overlaps value"},
    {"out overlaps query", [](Tensors& t, test::Problem& p) { t.query = p.out.data(); },
     "out overlaps query"},
    {"out overlaps beta", [](Tensors& t, test::Problem& p) { t.beta = p.out.data() + 3; },
     "out overlaps beta"},
    {"out overlaps final_state",
     [](Tensors& t, test::Problem& p) { t.out = p.final_state.data(); },
     "out overlaps final_state"},
};

class ValidateTest : public ::testing::TestWithParam<Route> {};

TEST_P(ValidateTest, RejectsAndWritesNothing) {
  tools::install_all_routes();
  for (const Case& c : kCases) {
    // V > K, so query (aliased onto out in one case) fits inside out.
    test::Problem p = test::make_problem(1, 2, 5, 6, 8);
    Tensors t = p.tensors();
    c.corrupt(t, p);
    // Mark what an output pointer now reaches, to see that nothing changed.
    const float mark = 12345.f;
    std::fill(p.out.begin(), p.out.end(), mark);
    std::fill(p.final_state.begin(), p.final_state.end(), mark);
    test::LineAlignedFloats out_before = p.out, state_before = p.final_state;
    Options options;
    options.route = GetParam();
    Status s = run(t, options);
    ASSERT_FALSE(s) << c.name;
    EXPECT_NE(s.message().find(c.must_mention), std::string::npos)
        << c.name << ": message was '" << s.message() << "'";
    EXPECT_EQ(0, std::memcmp(out_before.data(), p.out.data(), p.out.size() * sizeof(float)))
        << c.name;
    EXPECT_EQ(0, std::memcmp(state_before.data(), p.final_state.data(),
                             p.final_state.size() * sizeof(float)))
        << c.name;
  }
}

// A variable-length batch of no sequences (cu_seqlens = {0}) is valid and
// has nothing to do: the runtime once divided by its 0 heads choosing
// column parts (SIGFPE; found by test/fuzz/call_fuzz.cpp). Baselines may
// refuse the form.
TEST_P(ValidateTest, ABatchOfNoSequencesRuns) {
  tools::install_all_routes();
  const int64_t offsets[] = {0};
  Tensors t;
  t.B = 1, t.H = 2, t.T = 0, t.K = 4, t.V = 4;
  t.cu_seqlens.data = offsets;
  t.cu_seqlens.size = 1;
  for (int threads : {0, 1, 2}) {
    Options options;
    options.route = GetParam();
    options.threads = threads;
    const Status s = run(t, options);
    EXPECT_TRUE(s) << threads << " threads: " << s.message();
  }
}

INSTANTIATE_TEST_SUITE_P(Routes, ValidateTest,
                         ::testing::Values(Route::Reference, Route::BaselineTwoPass,
                                           Route::BaselineChunked
#ifdef GDR_HAVE_COMPILER
                                           ,
                                           Route::Auto, Route::Recurrent, Route::Chunked,
                                           Route::ChunkedAutoschedule
#endif
                                           ),
                         [](const auto& info) {
                           std::string n = route_name(info.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

#ifdef GDR_HAVE_COMPILER
// More query heads per state head than the generated kernels read out
// (kMaxReadouts): those routes refuse the call naming query_heads, before
// compiling, and write nothing; the reference still runs it.
TEST(Validate, GeneratedRoutesNameQueryHeadsBeyondTheirReadouts) {
  tools::install_all_routes();
  test::ProblemOptions nine;
  nine.form.query_heads = 9;
  for (Route route : {Route::Auto, Route::Recurrent, Route::Chunked, Route::ChunkedAutoschedule}) {
    test::Problem p = test::make_problem(1, 1, 3, 4, 4, nine);
    std::fill(p.out.begin(), p.out.end(), 7.f);
    const test::LineAlignedFloats before = p.out;
    Options options;
    options.route = route;
    const Status s = run(p.tensors(), options);
    ASSERT_FALSE(s) << route_name(route);
    EXPECT_EQ(s.message(), "query_heads: the generated routes read a state head out with at most 8 query heads, "
                           "got 9 (query_heads=9, H=1)") << route_name(route);
    EXPECT_EQ(0, std::memcmp(before.data(), p.out.data(), p.out.size() * sizeof(float))) << route_name(route);
  }
  test::Problem p = test::make_problem(1, 1, 3, 4, 4, nine);
  Options reference;
  reference.route = Route::Reference;
  EXPECT_TRUE(run(p.tensors(), reference));
}
#endif

// A null initial_state is a zero state (fla's initial_state=None).
TEST(Validate, NullInitialStateStartsFromZeros) {
  test::Problem p = test::make_problem(1, 2, 3, 4, 4);
  std::fill(p.initial_state.begin(), p.initial_state.end(), 0.f);
  const test::Reference ref = test::reference_f64(p);
  Tensors t = p.tensors();
  t.initial_state = nullptr;
  ASSERT_TRUE(execute(reference_kernel(), t, {}));
  EXPECT_LE(test::relative_error(p, ref), 1e-6);
}

TEST(Validate, EmptySequenceAllowsNullSequenceTensors) {
  test::Problem p = test::make_problem(1, 1, 0, 4, 4);
  Tensors t = p.tensors();
  t.query = t.key = t.value = t.decay = t.beta = nullptr;
  t.out = nullptr;
  EXPECT_TRUE(validate(t)) << validate(t).message();
}

TEST(Validate, KernelBuiltForOtherSizesIsRefused) {
  test::Problem p = test::make_problem(1, 1, 2, 8, 8);
  Kernel k = reference_kernel();
  k.K = 16;
  Status s = execute(k, p.tensors(), {});
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("built for K=16"), std::string::npos) << s.message();
}

TEST(Validate, UnavailableRouteIsRefusedByName) {
  test::Problem p = test::make_problem(1, 1, 2, 8, 8);
  Options o;
  o.route = Route::Chunked;
  set_route_runner(Route::Chunked, nullptr);
  Status s = run(p.tensors(), o);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("'chunked'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace gdr
