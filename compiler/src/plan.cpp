#include "gdr/compiler/plan.h"

#include "gdr/compiler/target.h"

namespace gdr::compiler {

namespace {

// Auto takes the chunked route where one gdr-tune run measured both routes
// on the same bucket and chunked was faster.
bool chunked_wins(const TuningRecord* recurrent, const TuningRecord* chunked) {
  return recurrent && chunked && recurrent->T_min == chunked->T_min &&
         recurrent->T_max == chunked->T_max && chunked->median_ns < recurrent->median_ns;
}

// Without records for either route, what was measured here by hand, the
// default schedules side by side in one gdr-bench run (dev VM, Xeon
// AVX-512, 1 thread):
// - K = V = 128, H = 32: recurrent is faster at every T (T = 64: 3.9 ms
//   against chunked 5.6; T = 512: 25.9 against 40.2; T = 2048 in an
//   earlier session: 60.3 against 81.4);
// - K = V = 256, H = 16: chunked from T = 64 (T = 32: 4.72 against 4.80 ms,
//   a tie; T = 64: 9.2 against 9.8; T = 128: 18.3 against 18.9; T = 512:
//   65.3 against 71.1), and the issue that asked for it saw chunked at
//   77-85% of peak against recurrent's 66-74% at T = 512 on 2 threads (AMD
//   Zen 4); recurrent below (T = 1: 1.05 against 3.59 ms; T = 8: 3.0
//   against 3.8).
bool chunked_by_default(const KernelSpec& spec, int64_t T) {
  constexpr int64_t kChunkedFromKV = 256, kChunkedFromT = 64;
  return spec.K >= kChunkedFromKV && spec.V >= kChunkedFromKV && T >= kChunkedFromT;
}

}  // namespace

std::string Plan::str() const {
  return std::string(route_name(variant.route)) + " " + variant.schedule_str() +
         (tuned ? " (tuned)" : " (default)");
}

Plan plan(const TuningDb& db, Route route, const KernelSpec& spec, int64_t T, int threads) {
  const TuningRecord* recurrent =
      route == Route::Chunked ? nullptr : db.find(Route::Recurrent, spec, T, threads);
  const TuningRecord* chunked =
      route == Route::Recurrent ? nullptr : db.find(Route::Chunked, spec, T, threads);
  const bool measured = recurrent || chunked;
  const bool use_chunked =
      route == Route::Chunked ||
      (route == Route::Auto && (measured ? chunked_wins(recurrent, chunked) : chunked_by_default(spec, T)));
  const TuningRecord* tuned = use_chunked ? chunked : recurrent;
  Plan p;
  p.tuned = tuned != nullptr;
  p.variant = p.tuned ? tuned->variant
                      : default_variant(use_chunked ? Route::Chunked : Route::Recurrent, spec, T,
                                        host_target());
  return p;
}

Plan plan(Route route, const Tensors& t, int requested_threads) {
  const int threads = threads_for_call(t, requested_threads, /*kernel_max_threads=*/0);
  return plan(process_tuning_db(), route, kernel_spec(t), t.T, threads);
}

}  // namespace gdr::compiler
