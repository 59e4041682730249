#include "gdr/compiler/kernel_spec.h"

#include <cstdio>

namespace gdr::compiler {

std::string recurrent_kernel_name(const KernelSpec& spec, const RecurrentSchedule& s) {
  return "gdr_recurrent_f32_k" + std::to_string(spec.K) + "_v" + std::to_string(spec.V) + "__w" +
         std::to_string(s.vector_width) + "_vt" + std::to_string(s.v_tile) + "_u" +
         std::to_string(s.unroll) + "_p" + std::to_string(s.prefetch);
}

std::string recurrent_schedule_str(const RecurrentSchedule& s) {
  return "w" + std::to_string(s.vector_width) + "-vt" + std::to_string(s.v_tile) + "-u" +
         std::to_string(s.unroll) + "-p" + std::to_string(s.prefetch);
}

bool parse_recurrent_schedule(const std::string& text, RecurrentSchedule* schedule,
                              std::string* error) {
  long long w = 0, vt = 0, u = 0, p = 0;
  int used = 0, used_p = 0;
  const int n = std::sscanf(text.c_str(), "w%lld-vt%lld-u%lld%n-p%lld%n", &w, &vt, &u, &used, &p,
                            &used_p);
  if (n == 4) used = used_p;
  if (n < 3 || used != static_cast<int>(text.size()) || w <= 0 || vt <= 0 || u <= 0 || p < 0 ||
      vt % w != 0) {
    *error = "recurrent schedule '" + text +
             "' is not of the form w<width>-vt<v_tile, a multiple of width>-u<unroll>[-p<prefetch>], "
             "e.g. w16-vt64-u1-p2";
    return false;
  }
  *schedule = RecurrentSchedule{w, vt, u, p};
  return true;
}

}  // namespace gdr::compiler
