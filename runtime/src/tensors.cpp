#include "gdr/tensors.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "name_table.h"

namespace gdr {
namespace {

bool mul(int64_t a, int64_t b, int64_t* r) { return !__builtin_mul_overflow(a, b, r); }

// Element count of a tensor with the given dims, or -1 when the dims that
// are not 0 multiply past int64 as bytes (elements * 8: indices may be
// int64). A 0 does not hide the others: the runtime multiplies some of
// them before it meets the 0 (a state's H * K * V in a batch of no
// sequences).
int64_t elements(std::initializer_list<int64_t> dims) {
  int64_t n = 1;
  bool empty = false;
  for (int64_t d : dims) {
    if (d == 0) empty = true;
    else if (!mul(n, d, &n)) return -1;
  }
  int64_t bytes;
  if (!mul(n, 8, &bytes)) return -1;
  return empty ? 0 : n;
}

struct Span {
  const char* name;
  const void* data;
  int64_t bytes;
  uintptr_t begin() const { return reinterpret_cast<uintptr_t>(data); }
  uintptr_t end() const { return begin() + static_cast<uintptr_t>(bytes); }
  bool empty() const { return bytes == 0 || data == nullptr; }
};

bool overlap(const Span& a, const Span& b) {
  if (a.empty() || b.empty()) return false;
  return a.begin() < b.end() && b.begin() < a.end();
}

std::string dims(const Tensors& t) {
  return "B=" + std::to_string(t.B) + ", H=" + std::to_string(t.H) + ", T=" + std::to_string(t.T) +
         ", K=" + std::to_string(t.K) + ", V=" + std::to_string(t.V);
}

std::string str(int64_t v) { return std::to_string(v); }

// The index arguments, by name: each is checked alike.
std::array<std::pair<const char*, const Indices*>, 3> index_arguments(const Tensors& t) {
  return {{{"cu_seqlens", &t.cu_seqlens},
           {"initial_state_indices", &t.initial_state_indices},
           {"final_state_indices", &t.final_state_indices}}};
}

int64_t index_bytes(const Indices& i) {
  return i.size * (i.type == Indices::Type::Int32 ? 4 : 8);
}

// Slot indices: one per sequence, each in [lowest, slots).
Status check_indices(const char* name, const Indices& indices, int64_t sequences, int64_t lowest,
                     int64_t slots) {
  if (indices.size != sequences)
    return Status::error(std::string(name) + " has " + str(indices.size) + " entries, but there are " +
                         str(sequences) + " sequences");
  for (int64_t i = 0; i < sequences; ++i)
    if (indices[i] < lowest || indices[i] >= slots)
      return Status::error(std::string(name) + "[" + str(i) + "] = " + str(indices[i]) +
                           " is out of range [" + str(lowest) + ", " + str(slots) + ")");
  return Status::success();
}

int64_t slot(const Indices& indices, int64_t sequence) {
  return indices.given() ? indices[sequence] : sequence;
}

// (slot, sequence) for every sequence, sorted; slots below 0 (zeros) left out.
std::vector<std::pair<int64_t, int64_t>> by_slot(const Indices& indices, int64_t sequences) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  pairs.reserve(sequences);
  for (int64_t i = 0; i < sequences; ++i)
    if (slot(indices, i) >= 0) pairs.emplace_back(slot(indices, i), i);
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace

const std::pair<Layout, const char*> kLayoutNames[] = {{Layout::HeadMajor, "bhtd"}, {Layout::TokenMajor, "bthd"}};

const char* layout_name(Layout layout) { return name_in(kLayoutNames, layout); }
bool parse_layout(const std::string& name, Layout* layout) { return parse_in(kLayoutNames, name, layout); }
const char* decay_kind_name(DecayKind kind) { return kind == DecayKind::Scalar ? "scalar" : "channel"; }

CallShape call_shape(const Tensors& t) {
  CallShape s;
  s.sequences = t.cu_seqlens.given() ? t.cu_seqlens.size - 1 : t.B;
  s.key_heads = t.key_heads > 0 ? t.key_heads : t.H;
  s.query_heads = t.query_heads > 0 ? t.query_heads : t.H;
  s.out_heads = std::max(s.query_heads, t.H);
  s.readouts = s.query_heads > t.H ? s.query_heads / t.H : 1;
  s.initial_slots = t.initial_state_indices.given() ? t.initial_state_slots : s.sequences;
  s.final_slots = t.final_state_indices.given() ? t.final_state_slots : s.sequences;
  return s;
}

TensorSizes tensor_sizes(const Tensors& t) {
  const CallShape s = call_shape(t);
  const int64_t tokens = t.B * t.T, state = t.H * t.K * t.V;
  return {tokens * s.query_heads * t.K,
          tokens * s.key_heads * t.K,
          tokens * t.H * t.V,
          tokens * t.H * (t.decay_kind == DecayKind::Scalar ? 1 : t.K),
          tokens * t.H,
          tokens * s.out_heads * t.V,
          s.initial_slots * state,
          s.final_slots * state};
}

Status validate_sizes(const Tensors& t) {
  struct Dim {
    const char* name;
    int64_t value;
    int64_t min;
  };
  for (const Dim& d : {Dim{"B", t.B, 1}, Dim{"H", t.H, 1}, Dim{"T", t.T, 0}, Dim{"K", t.K, 1},
                       Dim{"V", t.V, 1}, Dim{"key_heads", t.key_heads, 0},
                       Dim{"query_heads", t.query_heads, 0},
                       Dim{"initial_state_slots", t.initial_state_slots, 0},
                       Dim{"final_state_slots", t.final_state_slots, 0}}) {
    if (d.value < d.min)
      return Status::error(std::string(d.name) + " must be " + (d.min ? "positive" : "non-negative") +
                           ", got " + str(d.value) + " (" + dims(t) + ")");
  }
  // Enums from an integer cast (a C caller, a binding): each value is one of
  // theirs, or a wrong one would be read as the other.
  if (t.layout != Layout::HeadMajor && t.layout != Layout::TokenMajor)
    return Status::error("layout: " + str(static_cast<int64_t>(t.layout)) + " is neither HeadMajor nor TokenMajor");
  if (t.decay_kind != DecayKind::Channel && t.decay_kind != DecayKind::Scalar)
    return Status::error("decay_kind: " + str(static_cast<int64_t>(t.decay_kind)) +
                         " is neither Channel nor Scalar");
  for (const auto& [name, indices] : index_arguments(t))
    if (indices->type != Indices::Type::Int32 && indices->type != Indices::Type::Int64)
      return Status::error(std::string(name) + ".type: " + str(static_cast<int64_t>(indices->type)) +
                           " is neither Int32 nor Int64");
  const CallShape s = call_shape(t);
  if (t.H % s.key_heads != 0)
    return Status::error("key_heads: H=" + str(t.H) + " is not a multiple of key_heads=" +
                         str(s.key_heads));
  if (t.H % s.query_heads != 0 && s.query_heads % t.H != 0)
    return Status::error("query_heads: neither H=" + str(t.H) + " nor query_heads=" +
                         str(s.query_heads) + " is a multiple of the other");
  if (t.cu_seqlens.given()) {
    if (t.B != 1)
      return Status::error("cu_seqlens: a variable-length batch needs B = 1, got B=" + str(t.B));
    if (t.cu_seqlens.size < 1)
      return Status::error("cu_seqlens: needs at least one offset (0), got none");
  }
  const int64_t most_heads = std::max({s.query_heads, s.key_heads, s.out_heads});
  if (elements({t.B, most_heads, t.T, std::max(t.K, t.V)}) < 0 ||
      elements({std::max(s.initial_slots, s.final_slots), t.H, t.K, t.V}) < 0)
    return Status::error("sizes overflow: the tensors' byte counts do not fit in 64 bits (" +
                         dims(t) + ")");
  return Status::success();
}

Status validate(const Tensors& t) {
  if (Status s = validate_sizes(t); !s) return s;
  const CallShape shape = call_shape(t);

  // Indices are read below: aligned first.
  for (const auto& [name, indices] : index_arguments(t))
    if (const int bytes = indices->type == Indices::Type::Int64 ? 8 : 4;
        reinterpret_cast<uintptr_t>(indices->data) % bytes)
      return Status::error(std::string(name) + " is not aligned to " + str(bytes) + " bytes (int" +
                           str(8 * bytes) + ")");

  if (t.cu_seqlens.given()) {
    const Indices& cu = t.cu_seqlens;
    if (cu[0] != 0) return Status::error("cu_seqlens[0] must be 0, got " + str(cu[0]));
    for (int64_t i = 1; i < cu.size; ++i)
      if (cu[i] < cu[i - 1])
        return Status::error("cu_seqlens must be non-decreasing: cu_seqlens[" + str(i) + "] = " +
                             str(cu[i]) + " < cu_seqlens[" + str(i - 1) + "] = " + str(cu[i - 1]));
    if (cu[cu.size - 1] != t.T)
      return Status::error("cu_seqlens: the last offset must be T=" + str(t.T) + ", got " +
                           str(cu[cu.size - 1]));
  }
  if (t.initial_state_indices.given()) {
    if (!t.initial_state)
      return Status::error("initial_state_indices given, but initial_state is a null pointer");
    if (Status s = check_indices("initial_state_indices", t.initial_state_indices, shape.sequences,
                                 -1, shape.initial_slots);
        !s)
      return s;
  }
  if (t.final_state_indices.given()) {
    if (Status s = check_indices("final_state_indices", t.final_state_indices, shape.sequences, 0,
                                 shape.final_slots);
        !s)
      return s;
    // Sorted (slot, sequence) pairs: O(N log N) whatever the pool's size.
    const std::vector<std::pair<int64_t, int64_t>> writes = by_slot(t.final_state_indices, shape.sequences);
    for (size_t i = 1; i < writes.size(); ++i)
      if (writes[i].first == writes[i - 1].first)
        return Status::error("final_state_indices: sequences " + str(writes[i - 1].second) + " and " +
                             str(writes[i].second) + " both write slot " + str(writes[i].first));
  }

  const TensorSizes n = tensor_sizes(t);
  const Span inputs[] = {{"query", t.query, n.query * 4},
                         {"key", t.key, n.key * 4},
                         {"value", t.value, n.value * 4},
                         {"decay", t.decay, n.decay * 4},
                         {"beta", t.beta, n.beta * 4},
                         {"cu_seqlens", t.cu_seqlens.data, index_bytes(t.cu_seqlens)},
                         {"initial_state_indices", t.initial_state_indices.data,
                          index_bytes(t.initial_state_indices)},
                         {"final_state_indices", t.final_state_indices.data,
                          index_bytes(t.final_state_indices)},
                         {"initial_state", t.initial_state, n.initial_state * 4}};
  const Span& initial = inputs[8];
  const Span out{"out", t.out, n.out * 4};
  const Span final_state{"final_state", t.final_state, n.final_state * 4};

  for (const Span* s : {&inputs[0], &inputs[1], &inputs[2], &inputs[3], &inputs[4], &out, &final_state})
    if (s->data == nullptr && s->bytes > 0)
      return Status::error(std::string(s->name) + " is a null pointer");
  for (const Span* s : {&inputs[0], &inputs[1], &inputs[2], &inputs[3], &inputs[4], &inputs[8], &out,
                        &final_state})
    if (s->begin() % alignof(float) != 0)
      return Status::error(std::string(s->name) + " is not aligned to 4 bytes (float32)");
  // In place: the same pool, read and written by the same sequence only.
  const bool same_pool = !initial.empty() && !final_state.empty() && t.initial_state == t.final_state &&
                         n.initial_state == n.final_state;
  if (same_pool && t.in_place) {
    // Each slot a sequence writes may be read by that sequence only. Named:
    // the indices that say where it writes, else those that say where the
    // other reads.
    const char* field = t.final_state_indices.given() ? "final_state_indices" : "initial_state_indices";
    const std::vector<std::pair<int64_t, int64_t>> reads = by_slot(t.initial_state_indices, shape.sequences);
    for (int64_t i = 0; i < shape.sequences; ++i) {
      const int64_t f = slot(t.final_state_indices, i);
      for (auto r = std::lower_bound(reads.begin(), reads.end(), std::make_pair(f, int64_t{-1}));
           r != reads.end() && r->first == f; ++r)
        if (r->second != i)
          return Status::error(std::string(field) + ": in place, sequence " + str(i) + " writes slot " + str(f) +
                               ", which sequence " + str(r->second) + " reads");
    }
  }
  for (const Span* written : {&final_state, &out}) {
    for (const Span& in : inputs) {
      if (&in == &initial && written == &final_state && same_pool && t.in_place) continue;
      if (overlap(*written, in))
        return Status::error(std::string(written->name) + " overlaps " + in.name +
                             (&in == &initial && written == &final_state
                                  ? (t.in_place ? ": in place, final_state must be initial_state itself, the same pool"
                                                : ": set in_place to update states in place")
                                  : ": outputs must not share memory with any input"));
    }
  }
  if (overlap(out, final_state)) return Status::error("out overlaps final_state");
  return Status::success();
}

}  // namespace gdr
