// What to generate: the problem (KernelSpec) and how (RecurrentSchedule).
#pragma once

#include <cstdint>
#include <string>

namespace gdr::compiler {

struct KernelSpec {
  int64_t K = 128, V = 128;  // state of one head is K x V float32; T is run time
};

// Knobs of the recurrent route (the fields of #gdr.schedule). The defaults
// are gdr-attach-schedule's for K = 128 on a 512-bit target.
struct RecurrentSchedule {
  int64_t vector_width = 16;  // float lanes per vector: 4, 8 or 16
  int64_t v_tile = 64;        // columns per sweep, a multiple of vector_width
  int64_t unroll = 1;         // K rows per iteration of the sweep loop
  int64_t prefetch = 2;       // tokens ahead whose rows are prefetched (0: none)
  bool operator==(const RecurrentSchedule& o) const {
    return vector_width == o.vector_width && v_tile == o.v_tile && unroll == o.unroll &&
           prefetch == o.prefetch;
  }
  bool operator<(const RecurrentSchedule& o) const {
    if (vector_width != o.vector_width) return vector_width < o.vector_width;
    if (v_tile != o.v_tile) return v_tile < o.v_tile;
    if (unroll != o.unroll) return unroll < o.unroll;
    return prefetch < o.prefetch;
  }
};

// The kernel's symbol encodes its whole variant, e.g.
// gdr_recurrent_f32_k128_v128__w16_vt64_u1_p2.
std::string recurrent_kernel_name(const KernelSpec& spec, const RecurrentSchedule& schedule);

// Text form of a recurrent schedule, "w16-vt64-u1-p2" (width, v_tile in
// columns, unroll, prefetch distance), as the chunked route's "c16-w16":
// reports and the tuning database use it.
std::string recurrent_schedule_str(const RecurrentSchedule& schedule);
// Parses that form ("-p<n>" may be left out: no prefetch); the numbers must be
// positive (prefetch >= 0) and v_tile a multiple of the width (the dialect's
// verifier checks the rest). False with *error on failure.
bool parse_recurrent_schedule(const std::string& text, RecurrentSchedule* schedule,
                              std::string* error);

}  // namespace gdr::compiler
