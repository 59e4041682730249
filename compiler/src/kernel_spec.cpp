#include "gdr/compiler/kernel_spec.h"

#include <cstdio>

namespace gdr::compiler {

std::string recurrent_kernel_name(const KernelSpec& spec, const RecurrentSchedule& s) {
  return "gdr_recurrent_f32_k" + std::to_string(spec.K) + "_v" + std::to_string(spec.V) + "__w" +
         std::to_string(s.vector_width) + "_vt" + std::to_string(s.v_tile) + "_u" +
         std::to_string(s.unroll);
}

std::string recurrent_schedule_str(const RecurrentSchedule& s) {
  return "w" + std::to_string(s.vector_width) + "-vt" + std::to_string(s.v_tile) + "-u" +
         std::to_string(s.unroll);
}

bool parse_recurrent_schedule(const std::string& text, RecurrentSchedule* schedule,
                              std::string* error) {
  long long w = 0, vt = 0, u = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "w%lld-vt%lld-u%lld%n", &w, &vt, &u, &used) != 3 ||
      used != static_cast<int>(text.size()) || w <= 0 || vt <= 0 || u <= 0 || vt % w != 0) {
    *error = "recurrent schedule '" + text +
             "' is not of the form w<width>-vt<v_tile, a multiple of width>-u<unroll>, e.g. "
             "w16-vt64-u1";
    return false;
  }
  *schedule = RecurrentSchedule{w, vt, u};
  return true;
}

}  // namespace gdr::compiler
