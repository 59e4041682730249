#include "candidates.h"

#include <algorithm>

#include "gdr/baselines.h"
#include "gdr/compiler/chunked.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/target.h"

namespace gdr::tune {

std::string Candidate::name() const {
  return baseline() ? route_name(route) : std::string(route_name(route)) + " " + schedule;
}

Candidate variant_candidate(const compiler::Variant& variant) {
  Candidate c;
  c.route = variant.route;
  c.schedule = variant.schedule_str();
  c.variant = variant;
  c.run = [variant](const Tensors& t, const Options& o) {
    compiler::Variant v = variant;
    v.K = t.K;
    v.V = t.V;
    if (v.route == Route::Chunked) {
      const compiler::CompiledKernel k =
          compiler::compile_chunked(compiler::chunked_spec(v));  // its form (decay) too
      return k.status ? execute(k.kernel, t, o) : k.status;
    }
    Kernel kernel;
    if (Status s = compiler::compiled_recurrent_kernel(v.spec(), v.recurrent, &kernel); !s) return s;
    return execute(kernel, t, o);
  };
  return c;
}

Candidate baseline_candidate(Route route) {
  Candidate c;
  c.route = route;
  // The baselines' own entry points, whatever routes the process installed.
  if (route == Route::BaselineTwoPass)
    c.run = [](const Tensors& t, const Options& o) { return execute(baselines::two_pass_kernel(), t, o); };
  else
    c.run = baselines::run_chunked;
  return c;
}

std::vector<int64_t> complexity(const Candidate& c, const std::string& default_schedule) {
  const int64_t not_default = c.schedule == default_schedule ? 0 : 1;
  if (c.route == Route::Recurrent && !c.schedule.empty() && c.variant.route == Route::Recurrent) {
    const compiler::RecurrentSchedule& s = c.variant.recurrent;
    return {not_default, s.unroll, s.prefetch, s.v_tile, s.vector_width, s.sweep_tokens};
  }
  if (c.route == Route::Chunked) return {not_default, c.variant.chunked.chunk, c.variant.chunked.vector_width};
  return {not_default};
}

std::vector<int> host_widths() {
  std::vector<int> widths;
  for (int w = 4; w * 32 <= compiler::host_target().vector_bits; w *= 2) widths.push_back(w);
  return widths;
}

std::vector<compiler::RecurrentSchedule> recurrent_coarse(const std::vector<int>& widths, int64_t V,
                                                          int64_t sweep_tokens) {
  std::vector<compiler::RecurrentSchedule> out;
  for (int w : widths) {
    const int64_t whole_vectors = V / w;
    for (int64_t vectors : {1, 2, 4, 8})
      if (vectors == 1 || vectors <= whole_vectors) {
        compiler::RecurrentSchedule s;
        s.vector_width = w;
        s.v_tile = vectors * w;
        s.unroll = 1;
        s.sweep_tokens = sweep_tokens;
        out.push_back(s);
      }
  }
  return out;
}

std::vector<compiler::RecurrentSchedule> recurrent_fine(
    const std::vector<compiler::RecurrentSchedule>& tiles, int64_t K) {
  std::vector<compiler::RecurrentSchedule> out;
  const int64_t default_prefetch = compiler::RecurrentSchedule{}.prefetch;
  for (const compiler::RecurrentSchedule& tile : tiles) {
    const int64_t t = tile.sweep_tokens;
    for (int64_t unroll : {1, 2, 4})
      if (unroll <= K) out.push_back({tile.vector_width, tile.v_tile, unroll, default_prefetch, t});
    for (int64_t prefetch : {0, 4}) out.push_back({tile.vector_width, tile.v_tile, 1, prefetch, t});
    out.push_back({tile.vector_width, tile.v_tile, 1, default_prefetch, 3 - t});
  }
  return out;
}

std::vector<schedules::Schedule> chunked_space(const std::vector<int>& widths) {
  std::vector<schedules::Schedule> out;
  for (int chunk : {16, 32, 64})
    for (int w : widths) out.push_back({chunk, w});
  return out;
}

}  // namespace gdr::tune
