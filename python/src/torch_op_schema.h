// torch.ops.gdr's schemas, and how their messages name the arguments.
// Shared by the C++ kernels (torch_kernels.cpp) and, through gdr._gdr
// (module.cpp), the Python ones (gdr/torch_ops.py): one definition.
#pragma once

#include <string>

#include "gdr/array_shapes.h"
#include "gdr/tensors.h"

namespace gdr::python {

struct TorchOpSchema {
  const char* name;
  const char* signature;
};

// gated_delta_rule and its .out variant: ExecuTorch's
// llama::gated_delta_rule (positional arguments as there), with keyword
// arguments for token-major tensors and varlen batches. gated_delta_rule_pool:
// serving engines' form, the states in a pool indexed by slot (initial
// index -1: zeros) and updated in place.
constexpr TorchOpSchema kTorchOpSchemas[] = {
    {"gated_delta_rule",
     "(Tensor query, Tensor key, Tensor value, Tensor decay, Tensor beta, Tensor initial_state, *, "
     "str layout=\"bhtd\", Tensor? cu_seqlens=None) -> (Tensor, Tensor)"},
    {"gated_delta_rule.out",
     "(Tensor query, Tensor key, Tensor value, Tensor decay, Tensor beta, Tensor initial_state, *, "
     "str layout=\"bhtd\", Tensor? cu_seqlens=None, Tensor(a!) out, Tensor(b!) final_state_out) "
     "-> (Tensor(a!), Tensor(b!))"},
    {"gated_delta_rule_pool",
     "(Tensor query, Tensor key, Tensor value, Tensor decay, Tensor beta, Tensor(a!) state_pool, "
     "Tensor initial_state_indices, Tensor final_state_indices, *, str layout=\"bhtd\", "
     "Tensor? cu_seqlens=None) -> Tensor"},
};

// The schema's name for a field of gdr::Tensors in a message: final_state
// is final_state_out, and the pool op's state_pool is both states.
inline std::string torch_op_argument(const std::string& field, Layout layout, bool pool) {
  if (field == "layout") return std::string("layout='") + layout_name(layout) + "'";
  if (pool && (field == "initial_state" || field == "final_state")) return "state_pool";
  if (field == "final_state") return "final_state_out";
  return field;
}

// gdr::shape_call for a torch op's shapes, its messages in the schema's
// names. Slot indices make it the pool op: its state_pool is both states,
// updated in place.
inline Status shape_torch_op_call(ArrayShapes shapes, ShapedCall* call) {
  const bool pool = shapes.initial_state_indices.has_value();
  if (pool) {
    shapes.final_state = shapes.initial_state;
    shapes.in_place = shapes.final_is_initial = true;
  }
  return shape_call(
      shapes, [&](const std::string& field) { return torch_op_argument(field, shapes.layout, pool); }, call);
}

}  // namespace gdr::python
