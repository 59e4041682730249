// The op's whole interface (docs/op-contract.md, "The whole interface") on
// every route against the float64 reference: scalar decay, grouped values,
// grouped readout, token-major layout, variable-length batches with empty
// and one-token sequences, state slots, in place, and all of them in one
// call; in place equal to functional bit for bit; a sequence split across
// calls through slots equal to one call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gdr/kernel_abi.h"
#include "implementations.h"
#include "route_tester.h"

namespace gdr::test {
namespace {

struct Form {
  const char* name;
  int64_t B, H, T;
  ProblemForm form;
};

ProblemForm scalar() {
  ProblemForm f;
  f.decay = DecayKind::Scalar;
  return f;
}
ProblemForm grouped_values() {
  ProblemForm f;
  f.key_heads = 2;  // H = 4: two value heads per key head
  return f;
}
ProblemForm grouped_readout(int64_t readouts = 2) {
  ProblemForm f;
  f.query_heads = 4 * readouts;  // H = 4
  return f;
}
// ExecuTorch's form with three readouts, scalar decay and token-major rows.
ProblemForm grouped_readout3_scalar_bthd() {
  ProblemForm f = grouped_readout(3);
  f.decay = DecayKind::Scalar;
  f.layout = Layout::TokenMajor;
  return f;
}
ProblemForm shared_query() {
  ProblemForm f;
  f.query_heads = 2;  // H = 4: one query head for two state heads
  return f;
}
ProblemForm token_major() {
  ProblemForm f;
  f.layout = Layout::TokenMajor;
  return f;
}
ProblemForm varlen() {
  ProblemForm f;
  f.seqlens = {5, 0, 1, 40, 17, 1};  // empty and one-token sequences among long ones
  return f;
}
ProblemForm slots() {
  ProblemForm f;
  f.initial_state_indices = {2, -1, 0};  // B = 3 sequences; -1: from zeros
  f.final_state_indices = {1, 3, 0};
  f.initial_state_slots = 3;
  f.final_state_slots = 4;  // row 2 is written by nobody and must survive
  f.int32_indices = true;
  return f;
}
ProblemForm in_place() {
  ProblemForm f = slots();
  f.final_state_indices = {2, 1, 0};  // sequence 0 reads and writes slot 2; 1 writes slot 1
  f.final_state_slots = 3;
  f.in_place = true;
  return f;
}
// Qwen3-Next's form and a serving engine's batch in one call.
ProblemForm everything() {
  ProblemForm f;
  f.key_heads = 2;
  f.query_heads = 2;
  f.decay = DecayKind::Scalar;
  f.layout = Layout::TokenMajor;
  f.seqlens = {33, 0, 1, 70};
  f.initial_state_indices = {4, -1, 1, 0};
  f.final_state_indices = {4, 2, 1, 3};
  f.initial_state_slots = f.final_state_slots = 5;
  f.in_place = true;
  return f;
}
// Decode (one-token tasks hand their next task's first sums on: kernel ABI
// 5) in Qwen3-Next's form, from slots in place.
ProblemForm decode_everything() {
  ProblemForm f = in_place();
  f.key_heads = 2;
  f.query_heads = 2;
  f.decay = DecayKind::Scalar;
  f.layout = Layout::TokenMajor;
  return f;
}
// One-token sequences around one that ends on a one-token block.
ProblemForm varlen_decode() {
  ProblemForm f;
  f.seqlens = {1, 1, 129, 1, 0, 1};
  return f;
}
// Sequences of 2 to 4 tokens (blocks run as one group) among others, one
// ending on a block of 4 (132) and one on a block of 3 (131).
ProblemForm varlen_short() {
  ProblemForm f;
  f.seqlens = {4, 3, 4, 132, 2, 0, 3, 131, 1};
  return f;
}
ProblemForm readout_everything(int64_t readouts = 2) {
  ProblemForm f = everything();
  f.key_heads = 4;
  f.query_heads = 4 * readouts;
  return f;
}

const Form kForms[] = {
    {"scalar_decay", 2, 3, 37, scalar()},
    {"grouped_values", 1, 4, 37, grouped_values()},
    // T = 37 crosses the chunked route's chunk boundaries (16, 32, 64).
    {"grouped_readout", 1, 4, 37, grouped_readout()},
    {"grouped_readout_T1", 2, 4, 1, grouped_readout()},
    {"grouped_readout_T0", 2, 4, 0, grouped_readout()},
    {"grouped_readout3_scalar_bthd", 2, 4, 70, grouped_readout3_scalar_bthd()},
    {"grouped_readout3_scalar_bthd_T1", 2, 4, 1, grouped_readout3_scalar_bthd()},
    {"decode_everything", 3, 4, 1, decode_everything()},
    {"decode_everything_T4", 3, 4, 4, decode_everything()},
    {"varlen_decode", 1, 3, 0, varlen_decode()},
    {"varlen_short", 1, 3, 0, varlen_short()},
    // Three or four tokens with 2 to 4 readouts: one-group blocks on one
    // vector, or (4 readouts, T = 4) tile by tile.
    {"grouped_readout_T3", 2, 4, 3, grouped_readout()},
    {"grouped_readout3_scalar_bthd_T4", 2, 4, 4, grouped_readout3_scalar_bthd()},
    {"grouped_readout4_T3", 1, 4, 3, grouped_readout(4)},
    {"grouped_readout4_T4", 1, 4, 4, grouped_readout(4)},
    {"grouped_readout4", 1, 4, 33, grouped_readout(4)},
    {"shared_query", 1, 4, 21, shared_query()},
    {"token_major", 2, 3, 37, token_major()},
    {"varlen", 1, 3, 0, varlen()},
    {"slots", 3, 2, 19, slots()},
    {"in_place", 3, 2, 19, in_place()},
    {"everything", 1, 4, 0, everything()},
    {"readout_everything", 1, 4, 0, readout_everything()},
    {"readout4_everything", 1, 4, 0, readout_everything(4)},
};


class FormTest : public ::testing::TestWithParam<Route> {
 protected:
  static void SetUpTestSuite() { ASSERT_TRUE(tools::install_all_routes()); }
};

TEST_P(FormTest, MatchesFloat64) {
  const Route route = GetParam();
  for (const Form& form : kForms) {
    for (int threads : {1, 2}) {
      // K, V with ragged tiles; V = 40 splits over two threads on the
      // recurrent route (the chunked route splits only whole 16- or
      // 32-column tiles: ColumnPartsGiveTheSameBitsInEveryForm).
      ProblemOptions o;
      o.form = form.form;
      o.seed = 3 + threads;
      Problem p = make_problem(form.B, form.H, form.T, 24, 40, o);
      Options options;
      options.route = route;
      options.threads = threads;
      expect_within_contract(p, options, std::string(form.name) + " threads=" + std::to_string(threads));
    }
  }
}

// A head's columns split into parts (V = 64: whole tiles of both routes at
// every vector width) give the bits of one part, in every form.
TEST_P(FormTest, ColumnPartsGiveTheSameBitsInEveryForm) {
  // Kernels that never split a head's columns would compare one run with
  // itself (column_align 0: execute() runs one part whatever is asked).
  if (GetParam() == Route::ChunkedAutoschedule) GTEST_SKIP() << "Adams2019's kernels never split a head's columns";
  if (GetParam() == Route::BaselineTwoPass || GetParam() == Route::BaselineChunked)
    GTEST_SKIP() << "the baselines never split a head's columns (serial, as the op they copy)";
  for (const Form& form : kForms) {
    ProblemOptions o;
    o.form = form.form;
    o.seed = 11;
    const Problem drawn = make_problem(form.B, form.H, form.T, 24, 64, o);
    Problem whole = drawn;
    Options options;
    options.route = GetParam();
    options.threads = 2;
    options.column_parts = 1;
    ASSERT_TRUE(run(whole.tensors(), options)) << form.name;
    for (int64_t parts : {2, 3}) {
      const std::string what = std::string(form.name) + " parts=" + std::to_string(parts);
      Problem split = drawn;
      options.column_parts = parts;
      ASSERT_TRUE(run(split.tensors(), options)) << what;
      EXPECT_EQ(0, std::memcmp(split.out.data(), whole.out.data(), whole.out.size() * 4)) << what;
      EXPECT_EQ(0, std::memcmp(split.final_pool().data(), whole.final_pool().data(), whole.final_pool().size() * 4))
          << what;
    }
    Problem fresh = drawn;
    expect_within_contract(fresh, options, std::string(form.name) + " parts=3, within the contract");
  }
}

// Each of p's tensors one float past a cache line, as a view into a larger
// tensor may be (every 64-byte row load then spans two lines).
Runner one_float_past_lines(Problem& p) { return on_copies<ShiftedCopy>(p, int64_t{1}); }

// Runs `form` (K x V) on `route`, 2 threads, with its tensors where
// `placed` puts them, within the contract.
void expect_placed_within_contract(Route route, const Form& form, int64_t K, int64_t V, const std::string& what,
                                   const std::function<Runner(Problem&)>& placed) {
  ProblemOptions o;
  o.form = form.form;
  Problem p = make_problem(form.B, form.H, form.T, K, V, o);
  Options options;
  options.route = route;
  options.threads = 2;
  expect_within_contract(p, options, form.name + what, placed(p));
}

// Every route reads and writes tensors wherever they start (Problem's
// tensors start cache lines; K and V are multiples of 16 here, so that only
// the shift misaligns rows).
TEST_P(FormTest, TensorsOneFloatPastALine) {
  const Form forms[] = {{"flagship", 2, 3, 37, ProblemForm{}}, {"everything", 1, 4, 0, everything()}};
  for (const Form& form : forms) expect_placed_within_contract(GetParam(), form, 32, 48, "", one_float_past_lines);
}

// Every route stays inside its tensors: each one ends right before an
// inaccessible page, then starts right after one (a read or write past the
// edge kills the test), over ragged tiles (K = 24, V = 40: a masked last
// vector; V split over two threads), decode and prefill, every form.
TEST_P(FormTest, TensorsAgainstGuardPages) {
  const Form forms[] = {{"flagship", 2, 3, 37, ProblemForm{}},
                        {"everything", 1, 4, 0, everything()},
                        {"decode_everything", 3, 4, 1, decode_everything()},
                        {"grouped_readout3_scalar_bthd", 2, 4, 70, grouped_readout3_scalar_bthd()},
                        {"varlen_short", 1, 3, 0, varlen_short()}};
  for (const Form& form : forms) {
    expect_placed_within_contract(GetParam(), form, 24, 40, " guard after",
                                  [](Problem& p) { return on_copies<GuardedCopy>(p, GuardedCopy::Side::After); });
    expect_placed_within_contract(GetParam(), form, 24, 40, " guard before",
                                  [](Problem& p) { return on_copies<GuardedCopy>(p, GuardedCopy::Side::Before); });
  }
}

// In place gives the functional call's result bit for bit.
TEST_P(FormTest, InPlaceEqualsFunctional) {
  for (const ProblemForm& form : {everything(), readout_everything(3)}) {
    ProblemOptions o;
    o.form = form;
    Problem in_place = make_problem(1, 4, 0, 24, 40, o);
    o.form.in_place = false;
    Problem functional = make_problem(1, 4, 0, 24, 40, o);
    ASSERT_EQ(in_place.initial_state, functional.initial_state);
    Options options;
    options.route = GetParam();
    options.threads = 2;
    ASSERT_TRUE(run(in_place.tensors(), options));
    ASSERT_TRUE(run(functional.tensors(), options));
    EXPECT_EQ(0, std::memcmp(in_place.out.data(), functional.out.data(), in_place.out.size() * 4));
    for (int64_t seq = 0; seq < 4; ++seq) {
      const int64_t row = o.form.final_state_indices[seq], floats = 4 * 24 * 40;
      EXPECT_EQ(0, std::memcmp(in_place.initial_state.data() + row * floats,
                               functional.final_state.data() + row * floats, floats * 4))
          << "slot " << row;
    }
  }
}

// A sequence split across two calls, its state kept in a pool slot updated
// in place, equals one call over the whole sequence.
TEST_P(FormTest, SplittingThroughSlotsEqualsOneCall) {
  ProblemOptions o;
  o.form.layout = Layout::TokenMajor;
  o.form.decay = DecayKind::Scalar;
  const int64_t H = 2, K = 24, V = 40, T = 100;
  Problem whole = make_problem(1, H, T, K, V, o);
  const Reference ref = reference_f64(whole);
  Options options;
  options.route = GetParam();
  ASSERT_TRUE(run(whole.tensors(), options));

  for (int64_t cut : {int64_t{29}, int64_t{GDR_TOKEN_BLOCK}}) {
    const std::string what = "cut at " + std::to_string(cut);
    // The pool: slot 1 holds the sequence's state between the calls.
    std::vector<float> pool(3 * H * K * V, 0.f);
    std::copy(whole.initial_state.begin(), whole.initial_state.end(), pool.begin() + H * K * V);
    const int64_t slot[] = {1};
    LineAlignedFloats out(T * H * V);
    for (auto [t0, t1] : {std::pair<int64_t, int64_t>{0, cut}, {cut, T}}) {
      Tensors t = whole.tensors();
      t.T = t1 - t0;
      // Token-major: the part's tokens are contiguous rows of every tensor.
      t.query += t0 * H * K, t.key += t0 * H * K, t.value += t0 * H * V;
      t.decay += t0 * H, t.beta += t0 * H;
      t.out = out.data() + t0 * H * V;
      t.initial_state = t.final_state = pool.data();
      t.initial_state_indices = t.final_state_indices = Indices{slot, Indices::Type::Int64, 1};
      t.initial_state_slots = t.final_state_slots = 3;
      t.in_place = true;
      ASSERT_TRUE(run(t, options)) << run(t, options).message();
    }
    // Token by token, a split changes no operation; the recurrent kernel
    // writes S itself only at the end of each block of GDR_TOKEN_BLOCK
    // tokens (and where its deferred decay leaves its range), so a split
    // there changes none either; chunked routes cut their chunks
    // elsewhere, so they match the reference only.
    const Route route = GetParam();
    if (route == Route::Reference || route == Route::BaselineTwoPass ||
        (route == Route::Recurrent && cut % GDR_TOKEN_BLOCK == 0))
      EXPECT_EQ(out, whole.out) << what << ": the two calls' outputs differ from one call's";
    Problem split = whole;
    split.out = out;
    split.final_state.assign(pool.begin() + H * K * V, pool.begin() + 2 * H * K * V);
    EXPECT_LE(relative_error(split, ref), kErrorBar) << what;
    EXPECT_EQ(std::vector<float>(pool.begin(), pool.begin() + H * K * V),
              std::vector<float>(H * K * V, 0.f))
        << what << ": slot 0 was written";
    EXPECT_EQ(std::vector<float>(pool.begin() + 2 * H * K * V, pool.end()), std::vector<float>(H * K * V, 0.f))
        << what << ": slot 2 was written";
  }
}

INSTANTIATE_TEST_SUITE_P(Routes, FormTest,
                         ::testing::Values(Route::Reference, Route::BaselineTwoPass,
                                           Route::BaselineChunked, Route::Auto, Route::Recurrent,
                                           Route::Chunked, Route::ChunkedAutoschedule),
                         [](const auto& info) {
                           std::string n = route_name(info.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace gdr::test
