#include "gdr/compiler/plan.h"

#include <algorithm>
#include <utility>

#include "gdr/compiler/once_cache.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/target.h"

namespace gdr::compiler {

namespace {

// Decode (T <= kDecodeTokens) is bound by reading and writing the state
// once; it runs fastest with the widest tile the registers hold (fewer
// passes of the per-token setup), whereas longer sequences want the packed
// tile to stay in L1 (default schedule). Measured with gdr-bench, H = 32,
// K = V = 128, 1 thread: T = 1 takes 0.167 ms with 8 vectors per tile
// against 0.203 ms with the default 4; 2 threads (2026-11-30): 0.072 ms with
// 8 vectors, 0.084-0.088 with 4, 0.103 with 2. Where the wide tile stops
// paying (gdr-tune --H 32 --T 2,4,8,16 --threads 1 --widths 16, 2026-11-30,
// 8 against 4 vectors): T = 2 0.221 / 0.255 ms, T = 4 0.299-0.313 /
// 0.289-0.306, T = 8 0.484 / 0.390-0.425, T = 16 0.838 / 0.585-0.613.
constexpr int64_t kDecodeTokens = 2;

// The untuned recurrent schedule. default_recurrent_schedule asks the attach
// pass (about a tenth of a millisecond), so once per (K, V). The tile is
// clamped to the whole vectors of V (at least one): columns past V would
// only name a different kernel that computes the same.
RecurrentSchedule default_recurrent_for(int64_t K, int64_t V, int64_t T) {
  static auto* defaults = new OnceCache<std::pair<int64_t, int64_t>, RecurrentSchedule>;
  RecurrentSchedule s = defaults->get(
      {K, V}, [&] { return default_recurrent_schedule(KernelSpec{K, V}, host_target()); });
  const int64_t w = s.vector_width;
  if (T <= kDecodeTokens) s.v_tile = 8 * w;
  s.v_tile = std::max(w, std::min(s.v_tile, V / w * w));
  return s;
}

// Auto takes the chunked route only where one gdr-tune run measured both
// routes on the same bucket and chunked was faster; without that evidence
// the recurrent kernel, the fastest route for every T measured by hand (dev
// VM, Xeon AVX-512, H = 32, K = V = 128, 1 thread: 14.4 ms against the
// chunked route's 20.8 ms at T = 512, 60.3 against 81.4 ms at T = 2048).
bool chunked_wins(const TuningRecord* recurrent, const TuningRecord* chunked) {
  return recurrent && chunked && recurrent->T_min == chunked->T_min &&
         recurrent->T_max == chunked->T_max && chunked->median_ns < recurrent->median_ns;
}

}  // namespace

std::string Plan::str() const {
  return std::string(route_name(route)) + " " +
         (route == Route::Chunked ? chunked.str() : recurrent_schedule_str(recurrent)) +
         (tuned ? " (tuned)" : " (default)");
}

Plan plan(const TuningDb& db, Route route, int64_t K, int64_t V, int64_t T, int threads) {
  const TuningRecord* recurrent =
      route == Route::Chunked ? nullptr : db.find(Route::Recurrent, K, V, T, threads);
  const TuningRecord* chunked =
      route == Route::Recurrent ? nullptr : db.find(Route::Chunked, K, V, T, threads);
  Plan p;
  if (route == Route::Chunked || (route == Route::Auto && chunked_wins(recurrent, chunked))) {
    p.route = Route::Chunked;
    p.tuned = chunked != nullptr;
    p.chunked = p.tuned ? chunked->chunked : schedules::default_schedule();
  } else {
    p.route = Route::Recurrent;
    p.tuned = recurrent != nullptr;
    p.recurrent = p.tuned ? recurrent->recurrent : default_recurrent_for(K, V, T);
  }
  return p;
}

Plan plan(Route route, const Tensors& t, int requested_threads) {
  const int threads = threads_for_call(t, requested_threads, /*kernel_max_threads=*/0);
  return plan(process_tuning_db(), route, t.K, t.V, t.T, threads);
}

}  // namespace gdr::compiler
