// The float64 evaluation of the recurrence (the accuracy yardstick) and the
// input generators and error measures every numeric test shares.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gdr/status.h"
#include "gdr/tensors.h"

namespace gdr::test {

// Owned inputs and outputs for one problem.
struct Problem {
  int64_t B = 1, H = 1, T = 1, K = 16, V = 16;
  std::vector<float> query, key, value, decay, beta, initial_state, out, final_state;
  Tensors tensors();  // views of the vectors above
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
};

// Draws inputs as the contract specifies; outputs are filled with a
// sentinel (NaN) so that an unwritten element is caught.
Problem make_problem(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V,
                     const ProblemOptions& options = {});

// float64 recurrence in the contract's loop order; returns out then
// final_state, each flattened.
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
