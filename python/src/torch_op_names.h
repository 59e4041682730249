// How the torch op's messages name its arguments: the schema's names
// (final_state_out), head-major layout. Shared by the C++ kernels
// (torch_kernels.cpp) and the Python ones' shape check (module.cpp).
#pragma once

#include <string>

namespace gdr::python {

inline std::string torch_op_argument(const std::string& field) {
  if (field == "layout") return "layout 'bhtd'";
  if (field == "final_state") return "final_state_out";
  return field;
}

}  // namespace gdr::python
