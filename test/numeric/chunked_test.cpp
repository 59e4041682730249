// The Halide chunked prefill against the float64 recurrence: every chunk
// size x vector width, ragged chunks, decay and beta edge cases, odd and
// unequal K and V, column splits and sequences split across calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "chunked_route.h"
#include "gdr/halide_chunked_abi.h"

namespace gdr::test {
namespace {

using compiler::ChunkedSpec;
using schedules::Schedule;

const DecayRegime kAllDecays[] = {DecayRegime::Uniform, DecayRegime::NearOne, DecayRegime::Zeros,
                                  DecayRegime::One, DecayRegime::Strong};

// ---- every schedule ------------------------------------------------------

class ChunkedSchedule : public ::testing::TestWithParam<Schedule> {};

// T around the chunk boundaries and long enough for many chunks; K != V.
TEST_P(ChunkedSchedule, MatchesFloat64AcrossChunkBoundaries) {
  const Schedule s = GetParam();
  const int64_t C = s.chunk;
  const Options o = use_chunked(ChunkedSpec{24, 40, s});
  for (int64_t T : {int64_t{1}, int64_t{2}, C - 1, C, C + 1, 3 * C + 5, int64_t{1000}})
    for (DecayRegime decay : kAllDecays) {
      Problem p = make_problem(1, 2, T, 24, 40, {decay, BetaRegime::Uniform, true, uint64_t(T)});
      const Accuracy a = measure(p, o);
      EXPECT_LE(a.error, 1e-4) << s.str() << " T=" << T << " " << regime_name(decay);
      EXPECT_LE(a.error, 8 * a.yardstick_error + 1e-6)
          << s.str() << " T=" << T << " " << regime_name(decay) << " yardstick "
          << a.yardstick_error;
      if (T == 1000)
        std::printf("[accuracy] %-8s T=%-5lld %-9s error %.2e  float32 recurrence %.2e\n",
                    s.str().c_str(), (long long)T, regime_name(decay), a.error,
                    a.yardstick_error);
    }
}

std::vector<Schedule> all_schedules() {
  std::vector<Schedule> out;
  for (int c : schedules::kChunkSizes)
    for (int w : schedules::kVectorWidths) out.push_back(Schedule{c, w});
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllKnobs, ChunkedSchedule, ::testing::ValuesIn(all_schedules()),
                         [](const auto& info) {
                           return "c" + std::to_string(info.param.chunk) + "_w" +
                                  std::to_string(info.param.vector_width);
                         });

// The production head size over a long prompt, every chunk size and decay
// regime; prints the accuracy table (error vs the float32 recurrence's).
TEST(ChunkedAccuracy, ProductionShapeEveryChunkSize) {
  for (int c : schedules::kChunkSizes) {
    const Options o = use_chunked(ChunkedSpec{128, 128, Schedule{c, 16}});
    for (DecayRegime decay : kAllDecays) {
      Problem p = make_problem(1, 1, 2048, 128, 128, {decay, BetaRegime::Uniform, true, 21});
      const Accuracy a = measure(p, o);
      EXPECT_LE(a.error, 1e-4) << "c" << c << " " << regime_name(decay);
      EXPECT_LE(a.error, 8 * a.yardstick_error + 1e-6) << "c" << c << " " << regime_name(decay);
      std::printf("[accuracy] K=V=128 T=2048 c%-3d %-9s error %.2e  float32 recurrence %.2e\n", c,
                  regime_name(decay), a.error, a.yardstick_error);
    }
  }
}

// Grouped readout at every chunk size (from 32 the pairs across sub-blocks
// have their own product): R = 2 and 3 queries per state head over T around
// the chunk boundaries, token-major and scalar decay too, on two threads
// (V = 40 is not split into column parts, which take whole 16- or 32-column
// tiles: forms_test's ColumnPartsGiveTheSameBitsInEveryForm splits V = 64).
TEST(ChunkedGroupedReadout, MatchesFloat64AtEveryChunkSize) {
  for (int c : schedules::kChunkSizes)
    for (int64_t R : {2, 3}) {
      const Options o = use_chunked(ChunkedSpec{24, 40, Schedule{c, 16}}, 2);
      for (int64_t T : {int64_t{1}, int64_t{c + 1}, int64_t{3 * c + 5}}) {
        ProblemOptions po;
        po.seed = uint64_t(T + R);
        po.form.query_heads = 2 * R;  // H = 2
        if (R == 3) {
          po.form.layout = Layout::TokenMajor;
          po.form.decay = DecayKind::Scalar;
        }
        Problem p = make_problem(2, 2, T, 24, 40, po);
        expect_within_contract(p, o, "c" + std::to_string(c) + " R=" + std::to_string(R) + " T=" +
                                         std::to_string(T));
      }
    }
}

// A Halide error inside a chunked kernel (a buffer constraint the runtime's
// validate() never lets through: rows of 16 channels for a K = 24 kernel,
// past execute()'s K check) is the kernel's nonzero code with a message, and
// through execute() a Status: never the Halide runtime's default abort. For
// the cached kernels (the process JIT's Halide runtime) and Adams2019's
// (Halide's own JIT runtime).
TEST(ChunkedErrors, HalideErrorsAreStatusesNotAborts) {
  const std::string expected = "beyond the max (15) in dimension 0";
  for (compiler::Scheduler scheduler : {compiler::Scheduler::Hand, compiler::Scheduler::Adams2019}) {
    ChunkedSpec spec{24, 40};
    spec.scheduler = scheduler;
    const compiler::CompiledKernel& c = compiler::compile_chunked(spec);
    ASSERT_TRUE(c.status) << c.status.message();
    Problem p = make_problem(1, 1, 10, 16, 40);
    gdr_kernel_args a = single_head_args(p.tensors());
    EXPECT_NE(c.kernel.fn(&a), 0);
    EXPECT_NE(std::string(halide_chunked_error()).find(expected), std::string::npos) << halide_chunked_error();
    Kernel any_k = c.kernel;
    any_k.K = 0;
    const Status s = execute(any_k, p.tensors(), Options{});
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("failed with code"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(expected), std::string::npos) << s.message();
  }
  // Another kernel fact, the readouts: two queries for a kernel of one is
  // refused by the readout extent of the query and out buffers: a code and a
  // message.
  const compiler::CompiledKernel& one = compiler::compile_chunked(ChunkedSpec{24, 40});
  ASSERT_TRUE(one.status) << one.status.message();
  ProblemOptions two_readouts;
  two_readouts.form.query_heads = 2;
  Problem p = make_problem(1, 1, 10, 24, 40, two_readouts);
  gdr_kernel_args a = single_head_args(p.tensors());
  a.readouts = 2;
  a.query_readout_stride = 10 * 24;
  a.out_readout_stride = 10 * 40;
  EXPECT_NE(one.kernel.fn(&a), 0);
  EXPECT_NE(std::string(halide_chunked_error()).find(".extent.2 (2) == 1 (1)"), std::string::npos)
      << halide_chunked_error();
  // Halide's buffers span at most 2^31 - 1 elements a dimension: readouts
  // that span more (head-major, R·T·K) are code 3, never a wrapped stride,
  // and refused before anything is written, by every task of the call: an
  // empty sequence's task too (it copies its state otherwise), so that no
  // task writes before another fails (found by an audit: 8 readouts
  // 306783488 apart).
  ChunkedSpec readouts2{24, 40};
  readouts2.readouts = 2;
  const compiler::CompiledKernel& two = compiler::compile_chunked(readouts2);
  ASSERT_TRUE(two.status) << two.status.message();
  for (const int64_t T : {int64_t{10}, int64_t{0}}) {
    gdr_kernel_args big = a;
    big.T = T;
    big.query_readout_stride = int64_t{1} << 30;  // 2 readouts: 2^31 elements
    std::vector<float> final_state(24 * 40, -7.f);
    big.final_state = final_state.data();
    EXPECT_EQ(two.kernel.fn(&big), 3) << "T = " << T;
    EXPECT_NE(std::string(halide_chunked_error()).find("query's readouts span 2147483648 elements (2, 1073741824 apart)"),
              std::string::npos) << halide_chunked_error();
    EXPECT_EQ(std::count(final_state.begin(), final_state.end(), -7.f), 24 * 40) << "T = " << T << ": written";
  }
  a.query_readout_stride = 10 * 24;
  EXPECT_EQ(two.kernel.fn(&a), 0);
}

// ---- edge cases at the default schedule ----------------------------------

struct EdgeCase {
  int64_t K, V, T;
  DecayRegime decay;
  BetaRegime beta;
};

class ChunkedEdgeCase : public ::testing::TestWithParam<EdgeCase> {};

TEST_P(ChunkedEdgeCase, MatchesFloat64) {
  const EdgeCase c = GetParam();
  const Options o = use_chunked(ChunkedSpec{c.K, c.V});
  Problem p = make_problem(2, 2, c.T, c.K, c.V, {c.decay, c.beta, true, 7});
  expect_within_contract(p, o);
}

std::vector<EdgeCase> edge_cases() {
  std::vector<EdgeCase> out;
  for (DecayRegime d : kAllDecays)
    for (BetaRegime b : {BetaRegime::Uniform, BetaRegime::Zero, BetaRegime::One}) {
      out.push_back({9, 13, 150, d, b});     // odd K and V, smaller than a vector
      out.push_back({128, 128, 300, d, b});  // the production head size
    }
  out.push_back({33, 7, 77, DecayRegime::Zeros, BetaRegime::Uniform});
  out.push_back({5, 70, 64, DecayRegime::Strong, BetaRegime::One});
  // Over 128 KiB of state, a ragged last column tile: the state product
  // reads the state through column strips on 16-register targets.
  out.push_back({128, 264, 100, DecayRegime::Uniform, BetaRegime::Uniform});
  return out;
}

INSTANTIATE_TEST_SUITE_P(DecayBetaShapes, ChunkedEdgeCase, ::testing::ValuesIn(edge_cases()));

// ---- the runtime's splits ------------------------------------------------

TEST(ChunkedSplits, SequenceSplitAcrossCallsMatchesOneCall) {
  const Options o = use_chunked(ChunkedSpec{32, 48, Schedule{32, 8}});
  for (DecayRegime d : {DecayRegime::NearOne, DecayRegime::Zeros}) {
    Problem p = make_problem(1, 3, 200, 32, 48, {d, BetaRegime::Uniform, true, 3});
    EXPECT_LE(split_sequence_error(p, {1, 31, 32, 97, 150}, o), 1e-4) << regime_name(d);
  }
}

TEST(ChunkedSplits, ColumnPartsGiveTheSameResult) {
  // V = 128 at c64-w16 splits into two 64-column parts; K = V = 256 at the
  // default schedule also reads the state through column strips on
  // 16-register targets (chunked_schedule.cpp).
  for (const ChunkedSpec& spec : {ChunkedSpec{128, 128, Schedule{64, 16}}, ChunkedSpec{256, 256}}) {
    Options o = use_chunked(spec, 2);
    Problem whole = make_problem(1, 1, 100, spec.K, spec.V, {DecayRegime::Zeros, BetaRegime::Uniform, true, 5});
    Problem split = whole;
    o.column_parts = 1;
    ASSERT_TRUE(run(whole.tensors(), o));
    o.column_parts = 2;
    ASSERT_TRUE(run(split.tensors(), o));
    EXPECT_EQ(whole.out, split.out) << spec.K;
    EXPECT_EQ(whole.final_state, split.final_state) << spec.K;
    expect_within_contract(split, o);
  }
}

// A NaN in one value column: the columns it does not reach keep their bits
// whatever the column parts (the recurrence reruns only the columns whose
// outputs are not finite; found by a review: it reran a part's every column).
TEST(ChunkedSplits, ColumnPartsGiveTheSameResultBesideANaN) {
  Options o = use_chunked(ChunkedSpec{128, 128, Schedule{64, 16}}, 2);
  Problem whole = make_problem(1, 1, 200, 128, 128, {DecayRegime::Uniform, BetaRegime::Uniform, true, 6});
  whole.value[70 * 128 + 5] = NAN;  // token 70 (chunk 1), column 5 (the first part)
  Problem split = whole;
  o.column_parts = 1;
  ASSERT_TRUE(run(whole.tensors(), o));
  o.column_parts = 2;
  ASSERT_TRUE(run(split.tensors(), o));
  for (int64_t t = 0; t < 200; ++t)
    for (int64_t c = 0; c < 128; ++c) {
      const float a = whole.out[t * 128 + c], b = split.out[t * 128 + c];
      if (c == 5 && t >= 70) {
        EXPECT_TRUE(std::isnan(a) && std::isnan(b)) << "token " << t;
      } else {
        ASSERT_EQ(a, b) << "token " << t << " column " << c;
      }
    }
}

TEST(ChunkedSplits, EmptySequenceCopiesTheState) {
  const Options o = use_chunked(ChunkedSpec{16, 16, Schedule{16, 4}});
  Problem p = make_problem(1, 2, 0, 16, 16);
  ASSERT_TRUE(run(p.tensors(), o));
  EXPECT_EQ(p.final_state, p.initial_state);
}

// ---- NaN in, NaN out; never NaN from legal inputs -------------------------

// Column `column` of p's out is NaN from token `first` on; every other
// output is the float64 reference's (`want`).
void expect_nan_only_from(const Problem& p, const std::vector<double>& want, int64_t column, int64_t first) {
  for (int64_t s = 0; s < p.T; ++s)
    for (int64_t c = 0; c < p.V; ++c) {
      const float got = p.out[s * p.V + c];
      if (c == column && s >= first) {
        EXPECT_TRUE(std::isnan(got)) << "token " << s;
      } else {
        EXPECT_NEAR(got, want[s * p.V + c], 1e-4 * (1 + std::abs(want[s * p.V + c])))
            << "token " << s << " column " << c;
      }
    }
}

// A NaN at token t reaches every later output of its column and no other,
// as in the recurrence: not the earlier tokens of t's own chunk either
// (whose products would multiply it by the exact zeros above their
// diagonals; such a chunk runs the recurrence), which equal the float64
// reference's (found by an audit: they were NaN).
TEST(ChunkedSpecialValues, NanInValuePropagatesToLaterOutputs) {
  const Options o = use_chunked(ChunkedSpec{16, 16, Schedule{16, 4}});
  Problem p = make_problem(1, 1, 40, 16, 16, {DecayRegime::NearOne, BetaRegime::One, true, 2});
  const Problem clean = p;
  p.value[20 * 16 + 3] = NAN;  // token 20 (chunk 1, tokens 16 to 31), column 3
  ASSERT_TRUE(run(p.tensors(), o));
  expect_nan_only_from(p, reference_f64(clean).out, 3, 20);
}

// A NaN already in the initial state (a pool slot poisoned earlier): its
// column is NaN at every token, the others are the float64 reference's,
// and the chunks are not rerun for it (the column is NaN either way).
TEST(ChunkedSpecialValues, NanInTheInitialStateStaysInItsColumn) {
  const Options o = use_chunked(ChunkedSpec{16, 16, Schedule{16, 4}});
  Problem p = make_problem(1, 1, 40, 16, 16, {DecayRegime::NearOne, BetaRegime::One, true, 3});
  const std::vector<double> want = reference_f64(p).out;
  p.initial_state[2 * 16 + 7] = NAN;  // row 2, column 7
  ASSERT_TRUE(run(p.tensors(), o));
  expect_nan_only_from(p, want, 7, 0);
}

TEST(ChunkedSpecialValues, AllZeroDecayIsAResetEveryToken) {
  const Options o = use_chunked(ChunkedSpec{16, 16, Schedule{32, 8}});
  Problem p = make_problem(1, 1, 70, 16, 16, {DecayRegime::Uniform, BetaRegime::Uniform, true, 4});
  std::fill(p.decay.begin(), p.decay.end(), 0.f);
  expect_within_contract(p, o);
}

// ---- the Adams2019 build of the same algorithm ---------------------------

TEST(ChunkedAutoschedule, MatchesFloat64) {
  Options o;
  o.route = Route::ChunkedAutoschedule;
  compiler::install_chunked_routes();
  for (DecayRegime d : {DecayRegime::Uniform, DecayRegime::Zeros, DecayRegime::Strong}) {
    Problem p = make_problem(1, 2, 150, 128, 128, {d, BetaRegime::Uniform, true, 8});
    expect_within_contract(p, o, regime_name(d));
  }
}

// One head on two threads: the runtime would split its columns if the
// kernel let it. Adams2019 picks its own tiling, so its kernels do not; the
// hand schedule's forced parts must still match float64.
TEST(ChunkedAutoschedule, OneHeadOnTwoThreads) {
  compiler::install_chunked_routes();
  ChunkedSpec adams{128, 128};
  adams.scheduler = compiler::Scheduler::Adams2019;
  const compiler::CompiledKernel c = compiler::compile_chunked(adams);
  ASSERT_TRUE(c.status) << c.status.message();
  EXPECT_EQ(c.kernel.column_align, 0);
  Options o;
  o.route = Route::ChunkedAutoschedule;
  o.threads = 2;
  Problem p = make_problem(1, 1, 150, 128, 128, {DecayRegime::Uniform, BetaRegime::Uniform, true, 9});
  expect_within_contract(p, o, "adams2019, 2 threads");

  for (int parts : {2, 4}) {
    Options hand = use_chunked(ChunkedSpec{128, 128}, 2);
    hand.column_parts = parts;
    Problem q = make_problem(1, 1, 150, 128, 128, {DecayRegime::Uniform, BetaRegime::Uniform, true, 9});
    expect_within_contract(q, hand, std::to_string(parts) + " column parts");
  }
}

}  // namespace
}  // namespace gdr::test
