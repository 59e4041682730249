// The references agree with each other, and the runtime's own behaviour
// (sequence splitting, column splitting) holds for the float32 route.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "route_tester.h"

namespace gdr::test {
namespace {

Options reference_route() {
  Options o;
  o.route = Route::Reference;
  return o;
}

// Generated tensors start cache lines, as PyTorch's do, so that gdr-bench
// and gdr-tune time what a PyTorch caller gets (line_aligned.h). Large
// enough that a plain malloc would hand them out 16 bytes past a page.
TEST(Reference, ProblemTensorsStartCacheLines) {
  Problem p = make_problem(1, 8, 512, 128, 128);
  for (const LineAlignedFloats* x :
       {&p.query, &p.key, &p.value, &p.decay, &p.beta, &p.initial_state, &p.out, &p.final_state})
    EXPECT_EQ(reinterpret_cast<uintptr_t>(x->data()) % 64, 0u);
}

TEST(Reference, Float32AgreesWithFloat64) {
  for (int64_t T : {0, 1, 2, 31, 32, 33, 130, 256})
    for (auto [K, V] : {std::pair<int64_t, int64_t>{16, 16}, {8, 24}, {33, 17}}) {
      Problem p = make_problem(1, 2, T, K, V, {DecayRegime::Uniform, BetaRegime::Uniform, true, 7});
      Status s = run(p.tensors(), reference_route());
      ASSERT_TRUE(s) << s.message();
      EXPECT_LE(relative_error(p, reference_f64(p)), 1e-5) << describe(p);
    }
}

TEST(Reference, HandWorkedSingleToken) {
  // K = V = 1: S' = d*S + k*beta*(v - d*S*k), out = S'*q.
  Problem p = make_problem(1, 1, 1, 1, 1);
  p.initial_state = {2.f};
  p.decay = {0.5f};
  p.key = {1.f};
  p.value = {3.f};
  p.beta = {0.5f};
  p.query = {4.f};
  const Reference ref = reference_f64(p);
  // S' = 1 + 0.5 * (3 - 1) = 2, out = 8.
  EXPECT_DOUBLE_EQ(ref.final_state[0], 2.0);
  EXPECT_DOUBLE_EQ(ref.out[0], 8.0);
  ASSERT_TRUE(run(p.tensors(), reference_route()));
  EXPECT_FLOAT_EQ(p.final_state[0], 2.f);
  EXPECT_FLOAT_EQ(p.out[0], 8.f);
}

TEST(Reference, EmptySequenceCopiesState) {
  Problem p = make_problem(2, 2, 0, 8, 5);
  ASSERT_TRUE(run(p.tensors(), reference_route()));
  EXPECT_EQ(p.final_state, p.initial_state);
}

TEST(Reference, InitialStateIsNeverWritten) {
  Problem p = make_problem(1, 2, 9, 8, 8);
  const LineAlignedFloats before = p.initial_state;
  ASSERT_TRUE(run(p.tensors(), reference_route()));
  EXPECT_EQ(p.initial_state, before);
}

TEST(Reference, NaNInputPropagatesWithoutCrash) {
  Problem p = make_problem(1, 2, 4, 8, 8);
  p.value[2 * 8 + 3] = std::nanf("");  // head 0, token 2, column 3
  ASSERT_TRUE(run(p.tensors(), reference_route()));
  EXPECT_TRUE(std::isnan(p.out[2 * 8 + 3]));
  EXPECT_FALSE(std::isnan(p.out[1 * 8 + 3])) << "token 1 precedes the NaN";
  EXPECT_FALSE(std::isnan(p.out[4 * 8 + 8 + 3])) << "head 1 is unaffected";
}

TEST(Reference, ColumnSplitsGiveIdenticalResults) {
  Problem whole = make_problem(1, 1, 20, 16, 40);
  ASSERT_TRUE(run(whole.tensors(), reference_route()));
  for (int parts : {2, 3, 40}) {
    Problem split = make_problem(1, 1, 20, 16, 40);
    Options o = reference_route();
    o.column_parts = parts;
    o.threads = 2;
    ASSERT_TRUE(run(split.tensors(), o));
    EXPECT_EQ(split.out, whole.out) << parts;
    EXPECT_EQ(split.final_state, whole.final_state) << parts;
  }
}

}  // namespace
}  // namespace gdr::test
