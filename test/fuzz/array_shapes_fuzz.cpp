// Fuzzes reading a call off its arrays' shapes (gdr-run's .npy files, the
// Python package's arrays): any shapes must be refused with a message or
// give a call whose sizes fit (validate_sizes) and whose out and final
// state shapes hold exactly the elements the runtime will write.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "gdr/array_shapes.h"
#include "gdr/tensors.h"

namespace {

// A size: mostly small, sometimes huge (products that overflow).
int64_t size(FuzzedDataProvider& in) {
  return in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(0, 5)
                          : in.PickValueInArray<int64_t>({8, 16, int64_t{1} << 20, int64_t{1} << 29, int64_t{1} << 30,
                                                          int64_t{1} << 31, int64_t{1} << 40, INT64_MAX});
}

int64_t elements(const gdr::Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Changes a few shapes: a dimension to another size, one more or one fewer.
void perturb(FuzzedDataProvider& in, std::vector<gdr::Shape*> shapes) {
  for (int changes = in.ConsumeIntegralInRange<int>(0, 2); changes > 0; --changes) {
    gdr::Shape& s = *shapes[in.ConsumeIntegralInRange<size_t>(0, shapes.size() - 1)];
    switch (in.ConsumeIntegralInRange<int>(0, 2)) {
      case 0: if (!s.empty()) s[in.ConsumeIntegralInRange<size_t>(0, s.size() - 1)] = size(in); break;
      case 1: s.push_back(size(in)); break;
      default: if (!s.empty()) s.pop_back();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t n) {
  FuzzedDataProvider in(bytes, n);
  // Shapes that agree (sizes from the fuzzer), some then changed.
  const int64_t B = size(in), H = size(in), T = size(in), K = size(in), V = size(in);
  const int64_t Hk = in.ConsumeBool() ? H : size(in), Hq = in.ConsumeBool() ? H : size(in);
  const int64_t N = in.ConsumeIntegralInRange<int64_t>(0, 5), slots = size(in);
  gdr::ArrayShapes a;
  a.layout = in.ConsumeBool() ? gdr::Layout::TokenMajor : gdr::Layout::HeadMajor;
  auto rows = [&](int64_t heads, int64_t width) {
    gdr::Shape s = a.layout == gdr::Layout::TokenMajor ? gdr::Shape{B, T, heads} : gdr::Shape{B, heads, T};
    if (width) s.push_back(width);
    return s;
  };
  a.query = rows(Hq, K);
  a.key = rows(Hk, K);
  a.value = rows(H, V);
  a.decay = rows(H, in.ConsumeBool() ? K : 0);
  a.beta = rows(H, 0);
  gdr::Shape initial{in.ConsumeBool() ? B : slots, H, K, V}, out = rows(std::max(Hq, H), V),
      final_state{in.ConsumeBool() ? B : slots, H, K, V}, cu{N + 1}, first{N}, last{N};
  perturb(in, {&a.query, &a.key, &a.value, &a.decay, &a.beta, &initial, &out, &final_state, &cu, &first, &last});
  if (in.ConsumeBool()) a.initial_state = initial;
  if (in.ConsumeBool()) a.out = out;
  if (in.ConsumeBool()) a.final_state = final_state;
  if (in.ConsumeBool()) a.cu_seqlens = cu;
  if (in.ConsumeBool()) a.initial_state_indices = first;
  if (in.ConsumeBool()) a.final_state_indices = last;
  a.in_place = in.ConsumeBool();
  a.final_is_initial = a.in_place && in.ConsumeBool();
  gdr::ShapedCall call;
  if (!gdr::shape_call(a, [](const std::string& field) { return field; }, &call)) return 0;
  // The index arrays as a caller then gives them (only their sizes are read).
  const int64_t somewhere = 0;
  if (a.cu_seqlens) call.tensors.cu_seqlens.data = &somewhere;
  if (a.initial_state_indices) call.tensors.initial_state_indices.data = &somewhere;
  if (a.final_state_indices) call.tensors.final_state_indices.data = &somewhere;
  if (!gdr::validate_sizes(call.tensors)) __builtin_trap();
  const gdr::TensorSizes sizes = gdr::tensor_sizes(call.tensors);
  if (elements(call.out) != sizes.out || elements(call.final_state) != sizes.final_state) __builtin_trap();
  return 0;
}
