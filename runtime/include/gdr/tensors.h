// The op's tensors, how they are laid out and grouped, and the checks every
// call runs first (docs/op-contract.md, "The whole interface").
#pragma once

#include <cstdint>
#include <string>

#include "gdr/status.h"

namespace gdr {

// Where the token and head dimensions of query, key, value, decay, beta and
// out sit. The states are always [slots, H, K, V].
enum class Layout {
  HeadMajor,   // [B, heads, T, D] (and beta, scalar decay [B, heads, T])
  TokenMajor,  // [B, T, heads, D] (and beta, scalar decay [B, T, heads]): fla, vLLM, ggml
};
const char* layout_name(Layout layout);  // "bhtd" or "bthd"
// The layout layout_name() names; false for any other text.
bool parse_layout(const std::string& name, Layout* layout);

enum class DecayKind {
  Channel,  // one factor per key channel: [.., K]
  Scalar,   // one factor per head and token, broadcast over K
};
const char* decay_kind_name(DecayKind kind);  // "channel" or "scalar"

// A read-only array of int32 or int64 (offsets or slot indices as numpy or
// torch hold them). Absent when data is null.
struct Indices {
  enum class Type { Int32, Int64 };
  const void* data = nullptr;
  Type type = Type::Int64;
  int64_t size = 0;
  bool given() const { return data != nullptr; }
  int64_t operator[](int64_t i) const {
    return type == Type::Int32 ? static_cast<const int32_t*>(data)[i]
                               : static_cast<const int64_t*>(data)[i];
  }
};

// One call. H is the number of state heads: value, decay, beta and the
// states have H heads. Left at their defaults, the new fields give the
// original op: [B, H, T, D] tensors, channelwise decay, B sequences of T
// tokens, states [B, H, K, V] read from initial_state and written to
// final_state.
struct Tensors {
  const float* query = nullptr;          // [B, query_heads, T, K]
  const float* key = nullptr;            // [B, key_heads, T, K]
  const float* value = nullptr;          // [B, H, T, V]
  const float* decay = nullptr;          // [B, H, T, K], or [B, H, T] if scalar
  const float* beta = nullptr;           // [B, H, T]
  const float* initial_state = nullptr;  // [sequences or initial_state_slots, H, K, V]; null: zeros
  float* out = nullptr;                  // [B, max(query_heads, H), T, V]
  float* final_state = nullptr;          // [sequences or final_state_slots, H, K, V]
  int64_t B = 0, H = 0, T = 0, K = 0, V = 0;

  // Key heads (0: H): H must be a multiple; state head h uses key head
  // h / (H / key_heads) (grouped values, Qwen3-Next's repeat_interleave order).
  int64_t key_heads = 0;
  // Query heads (0: H). A divisor of H: state head h is read with query head
  // h / (H / query_heads), out has H heads. A multiple of H (grouped readout,
  // ExecuTorch): query head j reads state head j / (query_heads / H), out has
  // query_heads heads.
  int64_t query_heads = 0;
  Layout layout = Layout::HeadMajor;
  DecayKind decay_kind = DecayKind::Channel;

  // Variable-length batch: B = 1 and N + 1 non-decreasing offsets from 0 to
  // T; sequence i is tokens [cu_seqlens[i], cu_seqlens[i + 1]).
  Indices cu_seqlens;
  // State slots: per sequence, the pool row its initial state is read from
  // (-1: zeros) and the row its final state is written to. Without them
  // sequence i reads and writes row i.
  Indices initial_state_indices, final_state_indices;
  int64_t initial_state_slots = 0, final_state_slots = 0;  // pool rows, with indices
  // Allows final_state to be initial_state (same pool): each sequence's
  // final state then replaces its initial one. No other overlap is allowed.
  bool in_place = false;
};

// What validate() derives from a call.
struct CallShape {
  int64_t sequences = 0;        // N: B, or cu_seqlens.size - 1
  int64_t key_heads = 0, query_heads = 0, out_heads = 0;
  int64_t readouts = 1;         // query heads reading one state head
  int64_t initial_slots = 0, final_slots = 0;  // rows of the state pools
};
// Valid only after validate_sizes() succeeded.
CallShape call_shape(const Tensors& t);

// Element counts of each tensor; valid only after validate_sizes() succeeded.
struct TensorSizes {
  int64_t query, key, value, decay, beta, out, initial_state, final_state;
};
TensorSizes tensor_sizes(const Tensors& t);

// Every rule of the contract, before anything is written: sizes (positive,
// T >= 0, no overflow), head groups, offsets, slot indices, null pointers,
// float alignment, and overlaps (outputs overlap neither each other nor any
// input, except in place). The message names the argument.
Status validate(const Tensors& t);

// The checks of validate() that read no tensor data and no index (planning
// or compiling a call ahead of time): tensor pointers may be absent. An
// index array (cu_seqlens, the slot indices) counts only with its data
// pointer set (it is not read): without one, its size and what it implies
// (B = 1, the pools' rows) are not checked.
Status validate_sizes(const Tensors& t);

}  // namespace gdr
