// The op's eight tensors and sizes, and the checks every call runs first.
#pragma once

#include <cstdint>

#include "gdr/status.h"

namespace gdr {

struct Tensors {
  const float* query = nullptr;          // [B, H, T, K]
  const float* key = nullptr;            // [B, H, T, K]
  const float* value = nullptr;          // [B, H, T, V]
  const float* decay = nullptr;          // [B, H, T, K]
  const float* beta = nullptr;           // [B, H, T]
  const float* initial_state = nullptr;  // [B, H, K, V], never written
  float* out = nullptr;                  // [B, H, T, V]
  float* final_state = nullptr;          // [B, H, K, V]
  int64_t B = 0, H = 0, T = 0, K = 0, V = 0;
};

// Element counts of each tensor; valid only after validate() succeeded.
struct TensorSizes {
  int64_t qk, value, beta, state;  // query/key/decay, value/out, beta, states
};
TensorSizes tensor_sizes(const Tensors& t);

// Checks sizes (positive, T >= 0, no overflow of the byte count), null
// pointers, float alignment, and overlaps: final_state and out may overlap
// neither each other nor any input. Names the argument in the message.
Status validate(const Tensors& t);

// The size checks of validate() alone, for what reads no tensor (planning or
// compiling a call ahead of time): the pointers may be null.
Status validate_sizes(const Tensors& t);

}  // namespace gdr
