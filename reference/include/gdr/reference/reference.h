// The float64 evaluation of the recurrence (the accuracy yardstick) and the
// input generators and error measures every numeric test shares.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gdr/kernel_abi.h"
#include "gdr/reference/line_aligned.h"
#include "gdr/status.h"
#include "gdr/tensors.h"

namespace gdr::test {

// The call's form beyond B, H, T, K, V (tensors.h): head groups, layout,
// decay kind, a variable-length batch and state slots. The default is the
// original op.
struct ProblemForm {
  int64_t key_heads = 0, query_heads = 0;  // 0: H
  Layout layout = Layout::HeadMajor;
  DecayKind decay = DecayKind::Channel;
  std::vector<int64_t> seqlens;            // varlen (B = 1): the lengths; empty: none
  std::vector<int64_t> initial_state_indices, final_state_indices;  // empty: none
  int64_t initial_state_slots = 0, final_state_slots = 0;           // pool rows, with indices
  bool int32_indices = false;  // cu_seqlens and the indices as int32 instead of int64
  bool in_place = false;       // final_state is the initial_state pool
};

// Owned inputs and outputs for one problem.
struct Problem {
  int64_t B = 1, H = 1, T = 1, K = 16, V = 16;
  ProblemForm form;
  // Each starts a cache line, as PyTorch's tensors do (line_aligned.h).
  LineAlignedFloats query, key, value, decay, beta, initial_state, out, final_state;
  std::vector<int64_t> cu_seqlens, initial_indices, final_indices;  // as int64
  std::vector<int32_t> cu_seqlens32, initial_indices32, final_indices32;  // int32 copies
  Tensors tensors();  // views of the vectors above
  // Where the final states are: final_state, or initial_state in place.
  const LineAlignedFloats& final_pool() const { return form.in_place ? initial_state : final_state; }
};

enum class DecayRegime {
  Uniform,     // U(0, 1)
  NearOne,     // U(0.9, 1)
  Zeros,       // U(0, 1) with about one in eight exactly 0
  One,         // exactly 1
  Strong,      // e^-5 on every token
};
enum class BetaRegime { Uniform, Zero, One };

struct ProblemOptions {
  DecayRegime decay = DecayRegime::Uniform;
  BetaRegime beta = BetaRegime::Uniform;
  bool normalize = true;  // L2-normalise query and key per token
  uint64_t seed = 1;
  ProblemForm form;
};

// Draws inputs as the contract specifies; outputs are filled with a
// sentinel (NaN) so that an unwritten element is caught (state pool rows no
// sequence writes get a finite value, which must survive the call). With
// form.seqlens, B must be 1 and T is their sum (the T given is ignored).
Problem make_problem(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V,
                     const ProblemOptions& options = {});

// The same problem token-major: its inputs' [B, heads, T, width] rows moved
// to [B, T, heads, width] (p must be head-major, without varlen).
Problem token_major_copy(const Problem& p);
// [B, heads, T, width] -> [B, T, heads, width], or back with `back`.
LineAlignedFloats swap_heads_and_tokens(const LineAlignedFloats& x, int64_t B, int64_t heads,
                                        int64_t T, int64_t width, bool back = false);

// One task's arguments for a call of one head and one sequence (B = H = 1,
// head-major, channel decay, one readout): for tests that call a kernel's
// entry point directly. Every column, no scratch.
gdr_kernel_args single_head_args(const Tensors& t);

// float64 recurrence in the contract's loop order, over the whole form;
// returns out and the final state pool (as the call leaves it: rows no
// sequence writes keep their contents), each flattened. Computed from the
// inputs only: take it before an in-place run.
struct Reference {
  std::vector<double> out, final_state;
};
Reference reference_f64(const Problem& p);

// max |got - ref| / (1 + |ref|) over both outputs; NaN anywhere gives +inf.
double relative_error(const Problem& p, const Reference& ref);

std::string describe(const Problem& p);

// The contract's accuracy bars against float64: relative error at most
// kErrorBar, and at most kYardstickFactor times the float32 recurrence's on
// the same inputs, plus kYardstickFloor (that yardstick can be exact: T = 0,
// beta = 0, where any rounding would be "infinitely" worse).
constexpr double kErrorBar = 1e-4, kYardstickFactor = 8, kYardstickFloor = 1e-6;

struct Accuracy {
  double error = 0;            // the implementation
  double yardstick_error = 0;  // the float32 reference recurrence
  bool within_contract() const {
    return error <= kErrorBar && error <= kYardstickFactor * yardstick_error + kYardstickFloor;
  }
};

// Runs `run` on `p` (outputs written into p) and the float32 reference route
// on a copy, and measures both against reference_f64; returns run's status.
Status measure_accuracy(Problem& p, const std::function<Status(const Tensors&)>& run, Accuracy* a);

}  // namespace gdr::test
