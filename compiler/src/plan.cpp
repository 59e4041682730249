#include "gdr/compiler/plan.h"

#include "gdr/compiler/target.h"

namespace gdr::compiler {

namespace {

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
  return std::string(route_name(variant.route)) + " " + variant.schedule_str() +
         (tuned ? " (tuned)" : " (default)");
}

Plan plan(const TuningDb& db, Route route, const KernelSpec& spec, int64_t T, int threads) {
  const TuningRecord* recurrent =
      route == Route::Chunked ? nullptr : db.find(Route::Recurrent, spec, T, threads);
  const TuningRecord* chunked =
      route == Route::Recurrent ? nullptr : db.find(Route::Chunked, spec, T, threads);
  const bool use_chunked =
      route == Route::Chunked || (route == Route::Auto && chunked_wins(recurrent, chunked));
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
