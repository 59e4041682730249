// Token-major calls on the recurrent route: the same bits as the head-major
// call, across the kernel's blocks of GDR_TOKEN_BLOCK and 2 · GDR_TOKEN_BLOCK
// tokens, with varlen sequences ending in different blocks, slots, in
// place and column parts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "implementations.h"
#include "route_tester.h"

namespace gdr::test {
namespace {

class TokenMajorTest : public ::testing::TestWithParam<Route> {
 protected:
  static void SetUpTestSuite() { ASSERT_TRUE(tools::install_all_routes()); }
};

// K = 24 and 32: rows of part and of whole cache lines; T on both sides of
// the token blocks' and chunks' edges (the recurrent kernel's blocks are 128
// tokens head-major, 64 token-major: T = 200 and 300 have two and three, or
// four and five; 128 is whole blocks either way, 129 ends on one token; 66
// to 68 and 130 to 132 end on the few tokens a kernel runs as one group).
TEST_P(TokenMajorTest, TokenMajorEqualsHeadMajorBitForBit) {
  const int64_t V = 40;
  for (int64_t K : {24, 32})
  for (int64_t H : {1, 3})  // H = 1 on 2 threads splits the head's columns
    for (int64_t T : {1, 63, 64, 65, 66, 67, 68, 128, 129, 130, 131, 132, 200, 300})
      for (int threads : {1, 2}) {
        const std::string what = "K=" + std::to_string(K) + " H=" + std::to_string(H) + " T=" +
                                 std::to_string(T) + " threads=" + std::to_string(threads);
        ProblemOptions o;
        o.seed = uint64_t(T + H + K);
        Problem head_major = make_problem(2, H, T, K, V, o);
        Problem token_major = token_major_copy(head_major);
        Options options;
        options.route = GetParam();
        options.threads = threads;
        ASSERT_TRUE(run(head_major.tensors(), options)) << what;
        ASSERT_TRUE(run(token_major.tensors(), options)) << what;
        EXPECT_EQ(swap_heads_and_tokens(token_major.out, 2, H, T, V, /*back=*/true), head_major.out) << what;
        EXPECT_EQ(token_major.final_state, head_major.final_state) << what;
      }
}

// Sequences ending inside the kernel's first block, on a block's last token,
// one past it, and several blocks on, with slots, zero starts and in place.
TEST_P(TokenMajorTest, VarlenSlotsAndInPlaceAcrossBlocksMatchFloat64) {
  for (bool in_place : {false, true})
    for (int threads : {1, 2}) {
      ProblemOptions o;
      o.form.layout = Layout::TokenMajor;
      o.form.key_heads = 1;
      o.form.decay = DecayKind::Scalar;
      o.form.seqlens = {130, 0, 64, 1, 65, 200};
      o.form.initial_state_indices = {5, -1, 1, 0, 2, 3};
      o.form.final_state_indices = {5, 4, 1, 0, 2, 3};
      o.form.initial_state_slots = o.form.final_state_slots = 6;
      o.form.in_place = in_place;
      o.seed = 9 + threads;
      Problem p = make_problem(1, 2, 0, 24, 40, o);
      Options options;
      options.route = GetParam();
      options.threads = threads;
      expect_within_contract(p, options, std::string(in_place ? "in place" : "functional") +
                                             " threads=" + std::to_string(threads));
    }
}

INSTANTIATE_TEST_SUITE_P(Routes, TokenMajorTest, ::testing::Values(Route::Recurrent, Route::Auto),
                         [](const auto& info) { return std::string(route_name(info.param)); });

}  // namespace
}  // namespace gdr::test
