// The tasks of one validated call: one per (sequence, state head), each
// with its pointers and token strides resolved from the layout, the head
// groups, the sequence offsets and the state slots. The per-token work of a
// kernel is the same whatever the call looked like.
#pragma once

#include <cstdint>

#include "gdr/kernel_abi.h"
#include "gdr/tensors.h"

namespace gdr {

class CallTasks {
 public:
  explicit CallTasks(const Tensors& t);  // t must be valid

  int64_t count() const { return shape_.sequences * t_.H; }
  // Task `task`'s arguments over every column, without scratch.
  gdr_kernel_args args(int64_t task) const;

 private:
  // Where rows of a tensor with `heads` heads of `width` floats start.
  struct Rows {
    int64_t heads, width;
  };
  int64_t offset(Rows rows, int64_t batch, int64_t head, int64_t token) const;
  int64_t token_stride(Rows rows) const;
  int64_t head_stride(Rows rows) const;

  const Tensors& t_;
  CallShape shape_;
  const float* zeros_ = nullptr;  // a K x V zero state, when some sequence starts from zeros
};

}  // namespace gdr
