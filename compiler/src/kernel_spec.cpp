#include "gdr/compiler/kernel_spec.h"

namespace gdr::compiler {

std::string recurrent_kernel_name(const KernelSpec& spec, const RecurrentSchedule& s) {
  return "gdr_recurrent_f32_k" + std::to_string(spec.K) + "_v" + std::to_string(spec.V) + "__w" +
         std::to_string(s.vector_width) + "_vt" + std::to_string(s.v_tile) + "_u" +
         std::to_string(s.unroll);
}

}  // namespace gdr::compiler
