#include "call_tasks.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

namespace gdr {
namespace {

// A zero state of at least `floats` floats, shared by every call and never
// freed: a sequence starting from zeros reads it as its initial state, so
// kernels need no branch for it. Grows only; old buffers stay valid for
// calls still reading them.
const float* zero_state(int64_t floats) {
  static std::mutex mutex;
  static auto* buffers = new std::vector<std::unique_ptr<float[]>>;  // never destroyed, as said
  static int64_t size = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (floats > size) {
    buffers->push_back(std::make_unique<float[]>(floats));  // value-initialised: zeros
    size = floats;
  }
  return buffers->back().get();
}

bool starts_from_zeros(const Tensors& t, int64_t sequences) {
  if (!t.initial_state) return true;
  if (!t.initial_state_indices.given()) return false;
  for (int64_t i = 0; i < sequences; ++i)
    if (t.initial_state_indices[i] < 0) return true;
  return false;
}

// p + offset, but null stays null (a tensor with no elements may be null,
// and an offset from null is undefined even when nothing is read).
template <typename F>
F* at(F* p, int64_t offset) {
  return p ? p + offset : nullptr;
}

}  // namespace

CallTasks::CallTasks(const Tensors& t) : t_(t), shape_(call_shape(t)) {
  if (starts_from_zeros(t, shape_.sequences)) zeros_ = zero_state(t.K * t.V);
}

int64_t CallTasks::offset(Rows rows, int64_t batch, int64_t head, int64_t token) const {
  if (t_.layout == Layout::TokenMajor) return ((batch * t_.T + token) * rows.heads + head) * rows.width;
  return ((batch * rows.heads + head) * t_.T + token) * rows.width;
}

int64_t CallTasks::token_stride(Rows rows) const {
  return t_.layout == Layout::TokenMajor ? rows.heads * rows.width : rows.width;
}

int64_t CallTasks::head_stride(Rows rows) const {
  return t_.layout == Layout::TokenMajor ? rows.width : t_.T * rows.width;
}

gdr_kernel_args CallTasks::args(int64_t task) const {
  const int64_t sequence = task / t_.H, h = task % t_.H;
  const bool varlen = t_.cu_seqlens.given();
  const int64_t batch = varlen ? 0 : sequence;
  const int64_t first = varlen ? t_.cu_seqlens[sequence] : 0;
  const int64_t T = varlen ? t_.cu_seqlens[sequence + 1] - first : t_.T;

  const Rows query{shape_.query_heads, t_.K}, key{shape_.key_heads, t_.K}, value{t_.H, t_.V},
      decay{t_.H, t_.decay_kind == DecayKind::Scalar ? 1 : t_.K}, beta{t_.H, 1},
      out{shape_.out_heads, t_.V};
  // Grouped readout: state head h is read by query heads h·R .. h·R + R - 1
  // and writes those out heads; otherwise by query head h / (H / query_heads).
  const int64_t query_head =
      shape_.readouts > 1 ? h * shape_.readouts : h / (t_.H / shape_.query_heads);
  const int64_t out_head = shape_.readouts > 1 ? h * shape_.readouts : h;
  const int64_t key_head = h / (t_.H / shape_.key_heads);

  const int64_t state = t_.K * t_.V;
  const int64_t initial_slot = t_.initial_state_indices.given() ? t_.initial_state_indices[sequence] : sequence;
  const int64_t final_slot = t_.final_state_indices.given() ? t_.final_state_indices[sequence] : sequence;
  const float* initial = t_.initial_state && initial_slot >= 0
                             ? t_.initial_state + (initial_slot * t_.H + h) * state
                             : zeros_;

  gdr_kernel_args a{};
  a.query = at(t_.query, offset(query, batch, query_head, first));
  a.key = at(t_.key, offset(key, batch, key_head, first));
  a.value = at(t_.value, offset(value, batch, h, first));
  a.decay = at(t_.decay, offset(decay, batch, h, first));
  a.beta = at(t_.beta, offset(beta, batch, h, first));
  a.initial_state = initial;
  a.out = at(t_.out, offset(out, batch, out_head, first));
  a.final_state = at(t_.final_state, (final_slot * t_.H + h) * state);
  a.T = T;
  a.K = t_.K;
  a.V = t_.V;
  a.decay_kind = t_.decay_kind == DecayKind::Scalar ? GDR_DECAY_SCALAR : GDR_DECAY_CHANNEL;
  a.readouts = shape_.readouts;
  a.query_token_stride = token_stride(query);
  a.key_token_stride = token_stride(key);
  a.value_token_stride = token_stride(value);
  a.decay_token_stride = token_stride(decay);
  a.beta_token_stride = token_stride(beta);
  a.out_token_stride = token_stride(out);
  a.query_readout_stride = head_stride(query);
  a.out_readout_stride = head_stride(out);
  a.v_begin = 0;
  a.v_end = t_.V;
  return a;
}

}  // namespace gdr
