// The generated recurrent kernel against the float64 reference, for every
// vector width, several V-tiles, unroll factors and prefetch distances, and shapes with ragged
// tails (V not a multiple of the tile or of the vector width).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/variant.h"
#include "route_tester.h"

namespace gdr::test {
namespace {

using compiler::KernelSpec;
using compiler::RecurrentSchedule;

// Runs one compiled variant through the runtime (validation, thread pool).
// Kernels come from the compiler's process-wide cache: each (K, V,
// schedule) is compiled once for the whole test binary.
Runner kernel_runner(const KernelSpec& spec, const RecurrentSchedule& schedule) {
  return [spec, schedule](const Tensors& t, const Options& options) {
    Kernel kernel;
    if (Status s = compiler::compiled_recurrent_kernel(spec, schedule, &kernel); !s) return s;
    return execute(kernel, t, options);
  };
}

std::string schedule_name(const RecurrentSchedule& s) {
  return "w" + std::to_string(s.vector_width) + "_vt" + std::to_string(s.v_tile) + "_u" +
         std::to_string(s.unroll) + "_p" + std::to_string(s.prefetch) + "_t" +
         std::to_string(s.sweep_tokens);
}

using Variant = std::tuple<RecurrentSchedule, int64_t /*K*/, int64_t /*V*/>;

class RecurrentKernelTest : public ::testing::TestWithParam<Variant> {
 protected:
  // The verifier refuses vectors wider than the host's (an AVX2 host runs
  // the w4 and w8 schedules only).
  void SetUp() override {
    const int bits = compiler::host_target().vector_bits;
    if (schedule().vector_width * 32 > bits)
      GTEST_SKIP() << "w" << schedule().vector_width << " needs wider vectors than the host's " << bits << " bits";
  }
  RecurrentSchedule schedule() const { return std::get<0>(GetParam()); }
  int64_t K() const { return std::get<1>(GetParam()); }
  int64_t V() const { return std::get<2>(GetParam()); }
  Runner runner() const { return kernel_runner({K(), V()}, schedule()); }
  Options one_thread() const {
    Options o;
    o.threads = 1;
    return o;
  }
};

TEST_P(RecurrentKernelTest, MatchesFloat64ForEverySequenceLength) {
  // 129: the last block has one token, read from the final state the block
  // before wrote; 1 to 4 and 129 to 132 end on a block run as one group.
  for (int64_t T : {0, 1, 2, 3, 4, 17, 64, 129, 130, 131, 132})
    for (DecayRegime decay : {DecayRegime::Uniform, DecayRegime::NearOne}) {
      Problem p = make_problem(1, 2, T, K(), V(), {decay, BetaRegime::Uniform, true, uint64_t(T + 7)});
      expect_within_contract(p, one_thread(), schedule_name(schedule()), runner());
    }
}

TEST_P(RecurrentKernelTest, EdgeDecaysAndBetasAreOrdinaryValues) {
  for (int64_t T : {4, 17})
    for (DecayRegime decay : {DecayRegime::Zeros, DecayRegime::One, DecayRegime::Strong})
      for (BetaRegime beta : {BetaRegime::Zero, BetaRegime::One, BetaRegime::Uniform}) {
        Problem p = make_problem(1, 1, T, K(), V(), {decay, beta, true, 3});
        expect_within_contract(p, one_thread(), schedule_name(schedule()) + " T=" + std::to_string(T), runner());
      }
}

TEST_P(RecurrentKernelTest, SplittingAHeadOverThreadsIsBitIdentical) {
  const int64_t max_parts = (V() + schedule().vector_width - 1) / schedule().vector_width;
  if (max_parts < 2) GTEST_SKIP() << "V = " << V() << " is one vector: nothing to split";
  // T = 1 and 4: a one-group block's tiles carry each other's sums.
  for (int64_t T : {1, 4, 17}) {
    const Problem base = make_problem(1, 1, T, K(), V(), {DecayRegime::NearOne, BetaRegime::Uniform, true, 5});
    Problem whole = base;
    ASSERT_TRUE(runner()(whole.tensors(), one_thread()));
    for (int parts : {2, 3, int(max_parts)}) {
      if (parts > max_parts) continue;  // the runtime would clamp it to max_parts
      Problem split = base;
      Options o;
      o.threads = 2;
      o.column_parts = parts;
      ASSERT_TRUE(runner()(split.tensors(), o));
      EXPECT_EQ(split.out, whole.out) << "T = " << T << ", " << parts << " parts";
      EXPECT_EQ(split.final_state, whole.final_state) << "T = " << T << ", " << parts << " parts";
    }
  }
}

// Wrappers around a kernel (g_wrapped) that change how its tasks meet.
gdr_kernel_fn g_wrapped = nullptr;
// No task has a tag: each sums its own first tile.
int32_t untagged(const gdr_kernel_args* a) {
  gdr_kernel_args b = *a;
  b.first_sums_tag = 0;
  return g_wrapped(&b);
}
// Tasks run on two scratch buffers in turn: a task's predecessor left its
// sums in the other buffer, and its own holds sums left for another task.
std::vector<float> g_scratch[2];
int64_t g_calls = 0;
int32_t alternating_scratch(const gdr_kernel_args* a) {
  gdr_kernel_args b = *a;
  std::vector<float>& scratch = g_scratch[g_calls++ % 2];
  scratch.resize(b.scratch_floats);
  b.scratch = scratch.data();
  return g_wrapped(&b);
}

// Each task on scratch that other work filled with NaN, the two floats of
// the tag holding the task's own tag as plain bits: not a tag the kernel
// left (those are inverted), so not taken.
int32_t floats_like_the_tag(const gdr_kernel_args* a) {
  gdr_kernel_args b = *a;
  std::vector<float>& scratch = g_scratch[0];
  scratch.assign(b.scratch_floats, std::nanf(""));
  std::memcpy(scratch.data() + b.scratch_floats - 2, &b.first_sums_tag, sizeof b.first_sums_tag);
  b.scratch = scratch.data();
  return g_wrapped(&b);
}

// The kernel, counting the tasks that left sums for their next one: the
// inverted tag ends the scratch (LowerRecurrent's tagAt).
int64_t g_handed = 0;
int32_t counting_hand_offs(const gdr_kernel_args* a) {
  const int32_t status = g_wrapped(a);
  int64_t mark = 0;
  std::memcpy(&mark, a->scratch + a->scratch_floats - 2, sizeof mark);
  if (a->next_task && mark == ~a->next_task->first_sums_tag) ++g_handed;
  return status;
}

// Kernel ABI 5: a one-token task's last sweep sums the first tile of the
// worker's next task and leaves the sums in scratch under that task's tag;
// so does a task ending on a block of 2 to 4 tokens run as one group for a
// next task of as many tokens (with pairs, on 32 registers: LowerRecurrent's
// oneGroupBlocks). Taking them gives the bits of summing (the same
// operations in the same order), and a task never takes sums left for
// another: calls of one to four tokens a sequence, several heads and
// sequences (of other lengths too, and empty ones; 129 tokens end on a
// one-token block, 130 on a pair, 132 on four), run untagged, through the
// runtime (sums handed on; heads split into column parts on two threads
// too), on alternating scratch buffers and on scratch whose floats read as
// the tag. On one thread every such task before one of its kind hands on
// when its tile is whole.
TEST_P(RecurrentKernelTest, HandingFirstSumsOnIsBitIdentical) {
  Kernel kernel;
  ASSERT_TRUE(compiler::compiled_recurrent_kernel({K(), V()}, schedule(), &kernel));
  g_wrapped = kernel.fn;
  const int64_t max_parts = (V() + schedule().vector_width - 1) / schedule().vector_width;
  const compiler::Target& host = compiler::host_target();
  const bool sixteen_registers = compiler::architecture_name(host.triple) == "x86_64" && host.vector_bits < 512;
  const bool group_blocks = schedule().sweep_tokens == 2 && !sixteen_registers;
  // The tile of a group of 3 or 4 tokens and one readout: 2 vectors if the
  // schedule's has 2 or more, else 1 (LowerRecurrent's groupVectors).
  const int64_t tile_vectors = schedule().v_tile / schedule().vector_width;
  const int64_t group_tile = (tile_vectors >= 2 ? 2 : 1) * schedule().vector_width;
  ProblemOptions decode{DecayRegime::NearOne, BetaRegime::Uniform, true, 13};
  ProblemOptions varlen = decode;
  varlen.form.seqlens = {1, 1, 3, 0, 1, 129, 1, 2, 1};
  ProblemOptions pairs = decode;
  pairs.form.seqlens = {2, 2, 1, 2, 130, 2};
  ProblemOptions groups = decode;
  groups.form.seqlens = {4, 4, 1, 3, 3, 132, 4};
  // Tasks run sequence by sequence, heads in turn (CallTasks). Decode: the
  // 6 tasks but the last. Varlen, T of the 18 tasks 1 1 1 1 3 3 0 0 1 1 129
  // 129 1 1 2 2 1 1: a 1 or 129 before a 1, 7 times; a 2 before a 2 once; a
  // 3 before a 3 once. Pairs, 2 2 2 2 1 1 2 2 130 130 2 2: a 1 before a 1;
  // a 2 or 130 before a 2, 6 times. Groups, 4 4 4 4 1 1 3 3 3 3 132 132 4 4:
  // a 1 before a 1; a 4 or 132 before a 4, 5 times; a 3 before a 3, 3 times.
  struct Case {
    int64_t H;
    ProblemOptions options;
    int64_t one_token_hand_offs, pair_hand_offs, three_or_four_hand_offs;
  };
  for (const auto& [H, options, one_token_hand_offs, pair_hand_offs, three_or_four_hand_offs] :
       {Case{3, decode, 5, 0, 0}, Case{2, varlen, 7, 1, 1}, Case{2, pairs, 1, 6, 0}, Case{2, groups, 1, 0, 8}}) {
    const Problem base = make_problem(options.form.seqlens.empty() ? 2 : 1, H, 1, K(), V(), options);
    auto run = [&](gdr_kernel_fn fn, int threads, int parts) {
      Problem p = base;
      Kernel k = kernel;
      k.fn = fn;
      Options o;
      o.threads = threads;
      o.column_parts = parts;
      EXPECT_TRUE(execute(k, p.tensors(), o));
      return p;
    };
    const Problem own = run(untagged, 1, 1);
    EXPECT_LE(relative_error(own, reference_f64(own)), kErrorBar);
    std::vector<std::pair<std::string, Problem>> runs;
    g_handed = 0;
    runs.emplace_back("handed on", run(counting_hand_offs, 1, 1));
    int64_t expected = 0;
    if (V() >= schedule().v_tile) expected += one_token_hand_offs + (group_blocks ? pair_hand_offs : 0);
    if (V() >= group_tile && group_blocks) expected += three_or_four_hand_offs;
    EXPECT_EQ(g_handed, expected) << describe(base);
    runs.emplace_back("alternating scratch", run(alternating_scratch, 1, 1));
    runs.emplace_back("floats like the tag", run(floats_like_the_tag, 1, 1));
    if (max_parts >= 3) runs.emplace_back("3 parts on 2 threads", run(kernel.fn, 2, 3));
    for (const auto& [name, p] : runs) {
      EXPECT_EQ(p.out, own.out) << name << ", " << describe(p);
      EXPECT_EQ(p.final_pool(), own.final_pool()) << name << ", " << describe(p);
    }
  }
}

TEST_P(RecurrentKernelTest, SplittingTheSequenceMatchesOneCall) {
  const Problem p = make_problem(1, 2, 20, K(), V(), {DecayRegime::NearOne, BetaRegime::Uniform, true, 11});
  EXPECT_LE(split_sequence_error(p, {1, 2, 9}, one_thread(), runner()), 1e-4);
}

// {vector_width, v_tile, unroll, prefetch[, sweep_tokens]}: every width,
// tiles of 1 to 8 vectors (3: groups of 3 and 4 tokens then run 2), odd
// unrolls, prefetch off, 1 token (T = 2 reaches the clamp at the last
// token), 2 and beyond most T tested; pairs (the default) and single-token
// sweeps (T = 130 crosses a block of 128). Tiles of 1 and 3 vectors at w8
// too, so that a 256-bit host (which skips w16) runs them.
const RecurrentSchedule kSchedules[] = {
    {4, 8, 1, 0},      {4, 16, 2, 2},    {8, 32, 1, 1},       {8, 64, 3, 0},
    {16, 16, 1, 2},    {16, 64, 2, 2},   {16, 128, 1, 64},    {8, 32, 2, 2, 1},
    {16, 48, 1, 1, 1}, {16, 48, 1, 1},   {8, 8, 1, 2},        {8, 24, 1, 1},
};

INSTANTIATE_TEST_SUITE_P(
    Variants, RecurrentKernelTest,
    ::testing::Combine(::testing::ValuesIn(kSchedules), ::testing::Values(16, 64, 128, 96),
                       ::testing::Values(16, 48, 128, 80)),
    [](const ::testing::TestParamInfo<Variant>& info) {
      return schedule_name(std::get<0>(info.param)) + "_k" + std::to_string(std::get<1>(info.param)) +
             "_v" + std::to_string(std::get<2>(info.param));
    });

// Kernels for a 256-bit x86 target (16 vector registers) sum each sweep's
// gated rows one broadcast at a time (LowerRecurrent's
// accumulateEachGated): built here for x86-64-v3 whatever the host's
// vectors, so that AVX-512 hosts run that code too: pairs and single
// tokens, one to three readouts, scalar decay, ragged K and V.
Status avx2_kernel(const KernelSpec& spec, const RecurrentSchedule& schedule, Kernel* kernel) {
  compiler::Target avx2;
  if (Status t = compiler::target_for(compiler::host_target().triple, "x86-64-v3", "", &avx2); !t) return t;
  return compiler::compile_recurrent(spec, schedule, kernel, avx2);
}

using Avx2Variant = std::tuple<RecurrentSchedule, int64_t /*readouts*/, DecayKind>;

class RecurrentKernelOn16Registers : public ::testing::TestWithParam<Avx2Variant> {
 protected:
  void SetUp() override {
    const compiler::Target& host = compiler::host_target();
    if (compiler::architecture_name(host.triple) != "x86_64" || !compiler::target_has_features(host, "+avx2,+fma"))
      GTEST_SKIP() << "the host runs no x86-64-v3 code";
  }
};

TEST_P(RecurrentKernelOn16Registers, MatchesFloat64) {
  const auto [schedule, readouts, decay] = GetParam();
  // V = 16: a head of one 2-vector tile, whose tile computes its block's
  // rows as it sweeps (LowerRecurrent's interleavesRows).
  for (auto [K, V] : {std::pair<int64_t, int64_t>{24, 40}, {13, 17}, {16, 16}}) {
    Kernel kernel;
    const Status s = avx2_kernel({K, V, decay, readouts}, schedule, &kernel);
    ASSERT_TRUE(s) << s.message();
    const Runner runner = [&kernel](const Tensors& t, const Options& o) { return execute(kernel, t, o); };
    // 129 to 131: a block of 128 tokens, then one to three tokens (on 16
    // registers, two or three are a block of one pair).
    for (int64_t T : {1, 2, 3, 5, 17, 129, 130, 131}) {
      ProblemOptions o;
      o.decay = DecayRegime::NearOne;
      o.seed = uint64_t(T + K);
      o.form.query_heads = 2 * readouts;
      o.form.decay = decay;
      Problem p = make_problem(1, 2, T, K, V, o);
      Options options;
      options.threads = 2;
      expect_within_contract(p, options,
                             schedule_name(schedule) + " R=" + std::to_string(readouts) + " K=" +
                                 std::to_string(K) + " V=" + std::to_string(V) + " T=" + std::to_string(T),
                             runner);
    }
  }
}

// AVX2's defaults (pairs of 2 vectors, unrolled by 2 at K <= 64; one token
// on 2 vectors for readouts) and a one-vector pair.
INSTANTIATE_TEST_SUITE_P(
    Avx2, RecurrentKernelOn16Registers,
    ::testing::Values(Avx2Variant{{8, 16, 1, 2, 2}, 1, DecayKind::Channel},
                      Avx2Variant{{8, 16, 2, 2, 2}, 1, DecayKind::Scalar},
                      Avx2Variant{{8, 8, 1, 0, 2}, 3, DecayKind::Channel},
                      Avx2Variant{{8, 16, 1, 2, 1}, 2, DecayKind::Scalar},
                      Avx2Variant{{8, 32, 3, 1, 1}, 1, DecayKind::Channel}),
    [](const ::testing::TestParamInfo<Avx2Variant>& info) {
      return schedule_name(std::get<0>(info.param)) + "_r" + std::to_string(std::get<1>(info.param)) +
             (std::get<2>(info.param) == DecayKind::Scalar ? "_scalar" : "_channel");
    });

// The installed route (default schedules, decode and longer), on shapes no
// variant above has: tiny, odd, K wider than the default tile allows.
struct Shape {
  int64_t B, H, T, K, V;
};

class RecurrentRouteShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(RecurrentRouteShapes, MatchesFloat64ThroughRun) {
  compiler::install_routes();
  const Shape sh = GetParam();
  Options o;
  o.route = Route::Recurrent;
  o.threads = 2;
  Problem p = make_problem(sh.B, sh.H, sh.T, sh.K, sh.V,
                           {DecayRegime::Uniform, BetaRegime::Uniform, true, 21});
  expect_within_contract(p, o);
}

INSTANTIATE_TEST_SUITE_P(Shapes, RecurrentRouteShapes,
                         ::testing::Values(Shape{2, 3, 33, 40, 72}, Shape{1, 1, 5, 1, 1},
                                           Shape{1, 2, 1, 3, 129}, Shape{1, 1, 2, 200, 33},
                                           Shape{3, 1, 9, 128, 128}));

TEST(RecurrentRoute, NaNInOneValueColumnStaysInThatColumn) {
  compiler::install_routes();
  Options o;
  o.route = Route::Recurrent;
  Problem p = make_problem(1, 1, 4, 32, 48);
  const int64_t bad_column = 37;
  p.value[1 * 48 + bad_column] = std::nanf("");
  ASSERT_TRUE(run(p.tensors(), o));
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t v = 0; v < 48; ++v) {
      const float x = p.out[t * 48 + v];
      EXPECT_EQ(std::isnan(x), t >= 1 && v == bad_column) << "t=" << t << " v=" << v;
    }
  for (int64_t k = 0; k < 32; ++k)
    for (int64_t v = 0; v < 48; ++v)
      EXPECT_EQ(std::isnan(p.final_state[k * 48 + v]), v == bad_column) << "k=" << k << " v=" << v;
}

TEST(RecurrentRoute, DefaultScheduleFillsTheWidestVectorOfTheHost) {
  const compiler::Target& host = compiler::host_target();
  const RecurrentSchedule s = compiler::dialect_default_recurrent(128, host);
  EXPECT_EQ(s.vector_width * 32, host.vector_bits);
  EXPECT_EQ(s.v_tile % s.vector_width, 0);
}

TEST(RecurrentRoute, InvalidScheduleIsRejectedNamingTheAttribute) {
  Kernel k;
  Status s = compiler::compile_recurrent({64, 64}, {16, 40, 1}, &k);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("v_tile"), std::string::npos) << s.message();
  s = compiler::compile_recurrent({64, 64}, {12, 48, 1}, &k);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("vector_width"), std::string::npos) << s.message();
  s = compiler::compile_recurrent({64, 64}, {16, 64, 1, 65}, &k);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("prefetch"), std::string::npos) << s.message();
  s = compiler::compile_recurrent({64, 64}, {16, 64, 1, 2, 3}, &k);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("sweep_tokens"), std::string::npos) << s.message();
}

// The emitter unrolls over K: past the bound the verifier refuses, in words.
TEST(RecurrentRoute, OverLargeKIsRejected) {
  Kernel k;
  Status s = compiler::compile_recurrent({1025, 16}, {16, 16, 1}, &k);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("'k' must be at most 1024"), std::string::npos) << s.message();
  s = compiler::compile_recurrent({16, (int64_t{1} << 20) + 1}, {16, 16, 1}, &k);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("must be at most 1048576"), std::string::npos) << s.message();

  compiler::install_routes();
  Options o;
  o.route = Route::Recurrent;
  Problem p = make_problem(1, 1, 1, 1025, 1);
  s = run(p.tensors(), o);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("'k' must be at most 1024"), std::string::npos) << s.message();
}

// The route validates before it compiles: a bad call gets the argument
// error, not the compiler's (which K = 1025 would give).
TEST(RecurrentRoute, ValidatesBeforeCompiling) {
  compiler::install_routes();
  Options o;
  o.route = Route::Recurrent;
  Problem p = make_problem(1, 1, 1, 1025, 1);
  Tensors t = p.tensors();
  t.final_state = const_cast<float*>(t.initial_state);
  Status s = run(t, o);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message().find("must be at most"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("final_state"), std::string::npos) << s.message();
}

// Compiling a variant again outside the cache gives a second, working copy.
TEST(RecurrentRoute, CompilingTheSameKernelTwiceWorks) {
  Kernel first, second;
  ASSERT_TRUE(compiler::compile_recurrent({32, 32}, {8, 16, 1}, &first));
  Status s = compiler::compile_recurrent({32, 32}, {8, 16, 1}, &second);
  ASSERT_TRUE(s) << s.message();
  EXPECT_NE(first.fn, second.fn);
  Problem a = make_problem(1, 2, 5, 32, 32), b = a;
  ASSERT_TRUE(execute(first, a.tensors(), {}));
  ASSERT_TRUE(execute(second, b.tensors(), {}));
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.final_state, b.final_state);
}

// AOT for another CPU: an AVX2 machine gets an ELF object with 8-lane code,
// and a schedule wider than its vectors is refused by the verifier.
TEST(RecurrentRoute, ObjectForAGivenTarget) {
  compiler::Target avx2{"x86_64-unknown-linux-gnu", "haswell", "+avx,+avx2,+fma,+sse4.2", 256};
  std::vector<char> object;
  Status s = compiler::compile_recurrent_object({64, 48}, {8, 32, 2}, avx2, &object);
  ASSERT_TRUE(s) << s.message();
  ASSERT_GT(object.size(), 1000u);
  EXPECT_EQ(std::string(object.data(), 4), "\x7f" "ELF");
  s = compiler::compile_recurrent_object({64, 48}, {16, 32, 1}, avx2, &object);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("'vector_width' = 16 needs 512-bit vectors"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace gdr::test
