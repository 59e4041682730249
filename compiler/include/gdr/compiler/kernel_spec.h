// What to generate: the problem (KernelSpec) and how (RecurrentSchedule).
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "gdr/status.h"
#include "gdr/tensors.h"

namespace gdr::compiler {

// The facts a kernel is specialised for; everything else of a call (T,
// layout, head groups, offsets, slots) is run time.
struct KernelSpec {
  int64_t K = 128, V = 128;  // state of one head is K x V float32
  DecayKind decay = DecayKind::Channel;
  int64_t readouts = 1;      // query heads per state head (grouped readout)
  bool operator==(const KernelSpec& o) const {
    return K == o.K && V == o.V && decay == o.decay && readouts == o.readouts;
  }
};

// The spec a call needs (t's sizes must be valid).
inline KernelSpec kernel_spec(const Tensors& t) {
  return {t.K, t.V, t.decay_kind, call_shape(t).readouts};
}

// Query heads per state head the generated kernels read out at most (the
// dialect's kMaxReadouts, Limits.h; variant.cpp checks they agree).
constexpr int64_t kMaxGeneratedReadouts = 8;

// Whether the generated routes take a call of t's (valid) sizes: at most
// kMaxGeneratedReadouts query heads per state head. Checked before
// compiling, so that the error names the argument, not an attribute.
Status generated_kernels_take(const Tensors& t);

// Knobs of the recurrent route (the fields of #gdr.schedule); a Variant
// (variant.h) names one kernel. The defaults are gdr-attach-schedule's for
// K = 128 on a 512-bit target.
struct RecurrentSchedule {
  int64_t vector_width = 16;  // float lanes per vector: 4, 8 or 16
  int64_t v_tile = 64;        // columns per sweep, a multiple of vector_width
  int64_t unroll = 1;         // K rows per iteration of the sweep loop
  int64_t prefetch = 2;       // tokens ahead whose rows are prefetched (0: none)
  int64_t sweep_tokens = 2;   // tokens one sweep of the tile updates: 1 or 2
  auto fields() const { return std::make_tuple(vector_width, v_tile, unroll, prefetch, sweep_tokens); }
  bool operator==(const RecurrentSchedule& o) const { return fields() == o.fields(); }
  bool operator<(const RecurrentSchedule& o) const { return fields() < o.fields(); }
};

}  // namespace gdr::compiler
