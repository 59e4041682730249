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
// default schedules side by side in one interleaved gdr-bench run:
// - K = V = 128, H = 32: recurrent is faster at every T (dev VM, Xeon
//   AVX-512, 1 thread: T = 64: 3.9 ms against chunked 5.6; T = 512: 25.9
//   against 40.2; T = 2048 in an earlier session: 60.3 against 81.4);
// - K = V = 256, H = 16, since the recurrent sweep defers its decay
//   (2-core Sapphire Rapids VM, 2026-12-02, 1 / 2 threads, three runs):
//   recurrent faster to T = 128 (T = 64: 9.05 against 9.50 / 5.43 against
//   5.78 ms; T = 128: 15.15 against 16.81 / 8.24 against 8.79, a tie in
//   one run of three), a tie at T = 256 (31.57 against 31.17 / 16.56
//   against 16.47), chunked faster at T = 512 (69.3 against 65.3 / 38.0
//   against 36.3); the issue that asked for it saw chunked at 77-85% of
//   peak against recurrent's 66-74% at T = 512 on 2 threads (AMD Zen 4).
bool chunked_by_default(const KernelSpec& spec, int64_t T) {
  constexpr int64_t kChunkedFromKV = 256, kChunkedFromT = 256;
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
