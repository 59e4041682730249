// Fuzzes whole calls: shapes, forms, offsets, slot indices, null and
// aliased pointers, all from the fuzzer's bytes. Each tensor and index array
// is a heap block of its own, of exactly the size docs/op-contract.md gives
// it (computed here, not by the runtime): under AddressSanitizer, a call
// that validate() lets through and that reads or writes outside its
// arguments stops the fuzzer. A refused call must have written nothing.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gdr/runtime.h"
#include "gdr/tensors.h"
#include "implementations.h"

namespace {

struct Block {
  std::unique_ptr<float[]> data;
  int64_t size = 0;
  std::vector<float> copy() const { return {data.get(), data.get() + size}; }
};

Block block(FuzzedDataProvider& in, int64_t floats) {
  Block b{std::unique_ptr<float[]>(new float[floats]), floats};
  for (int64_t i = 0; i < floats; ++i) b.data[i] = in.ConsumeFloatingPointInRange<float>(-2.0f, 2.0f);
  return b;
}

// Offsets or slots as a caller passes them: int32 or int64, in a heap block
// of exactly `size` entries (none: still a pointer, to nothing).
struct IndexArray {
  std::unique_ptr<int32_t[]> i32;
  std::unique_ptr<int64_t[]> i64;
};

gdr::Indices indices(FuzzedDataProvider& in, int64_t low, int64_t high, IndexArray* a) {
  gdr::Indices view;
  view.size = in.ConsumeIntegralInRange<int64_t>(0, 5);
  if (in.ConsumeBool()) {
    a->i32.reset(new int32_t[view.size]);
    for (int64_t i = 0; i < view.size; ++i) a->i32[i] = in.ConsumeIntegralInRange<int32_t>(low, high);
    view.type = gdr::Indices::Type::Int32;
    view.data = a->i32.get();
  } else {
    a->i64.reset(new int64_t[view.size]);
    for (int64_t i = 0; i < view.size; ++i) a->i64[i] = in.ConsumeIntegralInRange<int64_t>(low, high);
    view.type = gdr::Indices::Type::Int64;
    view.data = a->i64.get();
  }
  return view;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (!gdr::tools::install_all_routes()) __builtin_trap();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t n) {
  FuzzedDataProvider in(bytes, n);
  gdr::Tensors t;
  t.B = in.ConsumeIntegralInRange<int64_t>(-1, 3);
  t.H = in.ConsumeIntegralInRange<int64_t>(-1, 4);
  t.T = in.ConsumeIntegralInRange<int64_t>(-1, 7);
  t.K = in.ConsumeIntegralInRange<int64_t>(-1, 9);
  t.V = in.ConsumeIntegralInRange<int64_t>(-1, 9);
  t.key_heads = in.ConsumeIntegralInRange<int64_t>(-1, 5);
  t.query_heads = in.ConsumeIntegralInRange<int64_t>(-1, 9);
  t.layout = in.ConsumeBool() ? gdr::Layout::TokenMajor : gdr::Layout::HeadMajor;
  t.decay_kind = in.ConsumeBool() ? gdr::DecayKind::Scalar : gdr::DecayKind::Channel;
  t.in_place = in.ConsumeBool();
  IndexArray cu, first, last;
  if (in.ConsumeBool()) t.cu_seqlens = indices(in, -1, 8, &cu);
  if (in.ConsumeBool()) {
    t.initial_state_indices = indices(in, -2, 4, &first);
    t.initial_state_slots = in.ConsumeIntegralInRange<int64_t>(-1, 4);
  }
  if (in.ConsumeBool()) {
    t.final_state_indices = indices(in, -2, 4, &last);
    t.final_state_slots = in.ConsumeIntegralInRange<int64_t>(-1, 4);
  }
  gdr::Options options;
  options.threads = in.ConsumeIntegralInRange<int>(1, 2);
  // The routes of this build (without the compiler: the reference kernel
  // and the hand-written baselines).
  options.route = in.PickValueInArray({gdr::Route::Auto, gdr::Route::Reference, gdr::Route::BaselineTwoPass,
                                       gdr::Route::BaselineChunked});

  // The contract's sizes. A negative size has no tensor to describe: such a
  // call, with null tensors, must be refused.
  const int64_t H = t.H, Hk = t.key_heads > 0 ? t.key_heads : H, Hq = t.query_heads > 0 ? t.query_heads : H;
  const int64_t tokens = t.B * t.T, state = H * t.K * t.V;
  const int64_t sequences = t.cu_seqlens.given() ? t.cu_seqlens.size - 1 : t.B;
  const int64_t initial_rows = t.initial_state_indices.given() ? t.initial_state_slots : sequences;
  const int64_t final_rows = t.final_state_indices.given() ? t.final_state_slots : sequences;
  if (std::min({t.B, H, t.T, t.K, t.V, t.key_heads, t.query_heads, initial_rows, final_rows}) < 0) {
    if (gdr::run(t, options)) __builtin_trap();
    return 0;
  }
  // Aliases a caller might pass by mistake, or on purpose (in place): the
  // second tensor of the pair points at the first's block, which is made
  // large enough for both (a caller's buffer too small for its tensor is
  // the caller's error, which no check can see).
  enum { kQuery, kKey, kValue, kDecay, kBeta, kInitial, kOut, kFinal, kTensors };
  int64_t sizes[kTensors] = {tokens * Hq * t.K, tokens * Hk * t.K, tokens * H * t.V,
                             tokens * H * (t.decay_kind == gdr::DecayKind::Scalar ? 1 : t.K), tokens * H,
                             initial_rows * state, tokens * std::max(Hq, H) * t.V, final_rows * state};
  const std::pair<int, int> aliases[] = {{-1, -1}, {kInitial, kFinal}, {kValue, kOut}, {kOut, kFinal}, {kInitial, kOut}};
  const auto [owner, alias] = aliases[in.ConsumeIntegralInRange<int>(0, 4)];
  if (owner >= 0) sizes[owner] = std::max(sizes[owner], sizes[alias]);
  Block blocks[kTensors];
  for (int i = 0; i < kTensors; ++i) blocks[i] = block(in, sizes[i]);
  float* at[kTensors];
  for (int i = 0; i < kTensors; ++i) at[i] = blocks[i].data.get();
  if (owner >= 0) at[alias] = at[owner];
  t.query = at[kQuery];
  t.key = at[kKey];
  t.value = at[kValue];
  t.decay = at[kDecay];
  t.beta = at[kBeta];
  t.initial_state = in.ConsumeBool() ? nullptr : at[kInitial];
  t.out = at[kOut];
  t.final_state = at[kFinal];
  std::vector<std::vector<float>> before;
  for (const Block& b : blocks) before.push_back(b.copy());

  if (!gdr::run(t, options)) {
    for (size_t i = 0; i < before.size(); ++i)
      if (!std::equal(before[i].begin(), before[i].end(), blocks[i].data.get())) __builtin_trap();
  }
  return 0;
}
