// A call described by the shapes of its arrays (.npy files, NumPy arrays,
// torch tensors): the form is read off the shapes, the way gdr-run and the
// Python package take it. Query has Hq heads, key Hk, value H; decay of rank
// 4 is channelwise, of rank 3 scalar; the states are [N or pool rows, H, K, V];
// out gets max(Hq, H) heads in the layout.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gdr/status.h"
#include "gdr/tensors.h"

namespace gdr {

using Shape = std::vector<int64_t>;
std::string shape_string(const Shape& shape);  // "(1, 32, 7, 128)"

struct ArrayShapes {
  Shape query, key, value, decay, beta;
  std::optional<Shape> initial_state;  // absent: zeros
  std::optional<Shape> out;            // absent: the caller allocates it
  // Absent: the caller allocates it (zeros). With final_state_indices it is a
  // pool whose rows no sequence writes keep their contents.
  std::optional<Shape> final_state;
  // The integer arrays, by their shapes (they must be of rank 1).
  std::optional<Shape> cu_seqlens, initial_state_indices, final_state_indices;
  Layout layout = Layout::HeadMajor;
  bool in_place = false;
  bool final_is_initial = false;  // final_state is the initial_state array (in place)
};

// Names an argument in messages: given a field ("query", "initial_state",
// "layout", "in_place"), what the caller calls it ("--query q.npy",
// "layout='bthd'").
using ArgumentName = std::function<std::string(const std::string& field)>;

// What the shapes say.
struct ShapedCall {
  Tensors tensors;    // sizes and form; no pointers, indices with their sizes only
  Shape out;          // out's shape in the layout
  Shape final_state;  // the final pool's shape
};

// Reads the call off `shapes`; every shape must agree with the sizes taken
// from query (B, T, Hq, K) and value (H, V). Ends with validate_sizes().
// The message names the argument through `name`.
Status shape_call(const ArrayShapes& shapes, const ArgumentName& name, ShapedCall* call);

}  // namespace gdr
