// Streaming final states and outputs (Options::final_state_stores,
// Options::out_stores, kernel_abi.h): the generated kernels' non-temporal
// paths give the cached path's bits in every form, and fall back to cached
// stores where rows do not start cache lines (a misaligned non-temporal
// store would fault).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/variant.h"
#include "implementations.h"
#include "route_tester.h"

namespace gdr::test {
namespace {

class StateStoresTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_TRUE(tools::install_all_routes()); }
};

// Where the final pool and out start: `state` and `out` floats past a
// 64-byte boundary.
struct Offsets {
  int64_t state, out;
};

// Runs `p` with `stores` for both final states and outputs at `offsets`;
// returns (out, final pool).
std::pair<std::vector<float>, std::vector<float>> run_with(Problem p, StateStores stores, Offsets offsets,
                                                          int threads, const std::string& what,
                                                          const Runner& runner = route_runner()) {
  Tensors t = p.tensors();
  ShiftedCopy pool(p.form.in_place ? p.initial_state : p.final_state, offsets.state);
  ShiftedCopy out(p.out, offsets.out);
  if (p.form.in_place) t.initial_state = pool.data;
  t.final_state = pool.data;
  t.out = out.data;
  Options o;
  o.route = Route::Recurrent;
  o.threads = threads;
  o.final_state_stores = o.out_stores = stores;
  EXPECT_TRUE(runner(t, o)) << what;
  return {out.values(), pool.values()};
}

TEST_F(StateStoresTest, StreamingGivesTheCachedBitsInEveryForm) {
  struct Case {
    std::string name;
    int64_t B, H, K, V;
    ProblemForm form;
  };
  ProblemForm grouped;
  grouped.key_heads = 1;
  grouped.decay = DecayKind::Scalar;
  grouped.layout = Layout::TokenMajor;
  ProblemForm readouts;
  readouts.query_heads = 4;
  ProblemForm varlen;  // slots, a zero start, in place
  varlen.seqlens = {3, 0, 1, 70};
  varlen.initial_state_indices = {2, -1, 0, 4};
  varlen.final_state_indices = {2, 3, 0, 4};
  varlen.initial_state_slots = varlen.final_state_slots = 5;
  varlen.in_place = true;
  const Case cases[] = {
      {"channel", 2, 3, 32, 64, {}},
      {"V=48: tail tiles of 2 and 1 vectors", 1, 3, 24, 48, {}},
      {"V=40: masked tail, rows not 64-byte aligned", 1, 2, 16, 40, {}},
      {"GVA, scalar decay, token-major", 1, 4, 32, 64, grouped},
      {"grouped readout", 1, 2, 32, 64, readouts},
      {"varlen, slots, in place", 1, 2, 32, 64, varlen},
  };
  for (const Case& c : cases)
    // 129: a one-token last block after one of 128 tokens (two of 64
    // token-major), which it reads from scratch; 256: whole blocks only.
    for (int64_t T : {0, 1, 2, 5, 70, 129, 256})
      for (int threads : {1, 2}) {
        const std::string what = c.name + " T=" + std::to_string(T) + " threads=" + std::to_string(threads);
        ProblemOptions o;
        o.form = c.form;
        o.seed = uint64_t(T) + 7;
        Problem p = make_problem(c.B, c.H, T, c.K, c.V, o);
        const auto cached = run_with(p, StateStores::Cached, {0, 0}, threads, what);
        // 1 and 4 floats: rows do not start lines (cached stores); 16: they
        // do; one tensor streamed, the other not.
        for (Offsets at : {Offsets{0, 0}, {1, 1}, {4, 4}, {16, 16}, {1, 0}, {0, 4}}) {
          const std::string where = " offsets " + std::to_string(at.state) + ", " + std::to_string(at.out);
          const auto streamed = run_with(p, StateStores::Streaming, at, threads, what);
          EXPECT_EQ(streamed.first, cached.first) << what << where;
          EXPECT_EQ(streamed.second, cached.second) << what << where;
        }
      }
}

// Rows of V = 112 floats start lines. Tiles of 24 floats are not whole
// lines (nothing streams); the others stream, with tail tiles of 32 and 16
// floats; a head split over 2 threads at 8-float columns starts its second
// part inside a line (that task is cached). All in one call.
TEST_F(StateStoresTest, TilesOfPartLinesAreCachedTheRestStreamed) {
  const int64_t K = 32, V = 112;
  // Tiles of 48 floats also at w8, which a 256-bit host runs (it skips w16).
  for (const char* text : {"w8-vt24-u1-p2", "w8-vt64-u2-p0", "w16-vt48-u1-p1", "w8-vt48-u1-p1", "w4-vt32-u1-p2"}) {
    compiler::Variant variant;
    std::string error;
    ASSERT_TRUE(compiler::parse_variant_schedule(Route::Recurrent, text, &variant, &error)) << error;
    // The verifier refuses vectors wider than the host's (w16 on AVX2).
    if (variant.recurrent.vector_width * 32 > compiler::host_target().vector_bits) continue;
    Kernel kernel;
    ASSERT_TRUE(compiler::compile_recurrent(compiler::KernelSpec{K, V}, variant.recurrent, &kernel)) << text;
    const Runner runner = [&](const Tensors& t, const Options& o) { return execute(kernel, t, o); };
    for (int64_t H : {1, 3})
      for (int64_t T : {0, 1, 3})
        for (int threads : {1, 2}) {
          const std::string what = std::string(text) + " H=" + std::to_string(H) + " T=" + std::to_string(T) +
                                   " threads=" + std::to_string(threads);
          Problem p = make_problem(1, H, T, K, V, {});
          const auto cached = run_with(p, StateStores::Cached, {0, 0}, threads, what, runner);
          const auto streamed = run_with(p, StateStores::Streaming, {0, 0}, threads, what, runner);
          EXPECT_EQ(streamed.first, cached.first) << what;
          EXPECT_EQ(streamed.second, cached.second) << what;
        }
  }
}

// The cached bits are the route's, which the form tests hold to float64;
// one streamed call is checked against float64 directly too.
TEST_F(StateStoresTest, StreamingIsWithinTheContract) {
  ProblemOptions o;
  o.form.key_heads = 2;
  Problem p = make_problem(2, 4, 9, 32, 64, o);
  Options options;
  options.route = Route::Recurrent;
  options.final_state_stores = options.out_stores = StateStores::Streaming;
  expect_within_contract(p, options, "streaming");
}

}  // namespace
}  // namespace gdr::test
