#include "gdr/compiler/plan.h"

#include "gdr/compiler/target.h"

namespace gdr::compiler {

namespace {

// Auto takes the chunked route where one gdr-tune run measured both routes
// on the same bucket and chunked was faster.
bool chunked_wins(const TuningRecord* recurrent, const TuningRecord* chunked) {
  return recurrent && chunked && recurrent->form == chunked->form &&
         recurrent->T_min == chunked->T_min &&
         recurrent->T_max == chunked->T_max && chunked->median_ns < recurrent->median_ns;
}

}  // namespace

std::string Plan::str() const {
  return std::string(route_name(variant.route)) + " " + variant.schedule_str() +
         (tuned ? " (tuned)" : " (default)");
}

Plan plan(const TuningDb& db, Route route, const KernelSpec& spec, int64_t T, int threads,
          const CallForm& form) {
  const TuningRecord* recurrent =
      route == Route::Chunked ? nullptr : db.find(Route::Recurrent, spec, T, threads, form);
  const TuningRecord* chunked =
      route == Route::Recurrent ? nullptr : db.find(Route::Chunked, spec, T, threads, form);
  // Without records for both routes, recurrent: with the default schedules
  // side by side in one gdr-bench run it is faster at every T measured.
  // K = V = 128, H = 32 (dev VM, earlier sessions, 1 thread): T = 64 3.9 ms
  // against chunked 5.6, T = 512 25.9 against 40.2. K = V = 256, H = 16
  // (2-core Sapphire Rapids VM, 2026-12-02, since the kernel sweeps tokens
  // in pairs; 1 / 2 threads): T = 128 9.37 against 13.37 ms (1 thread),
  // T = 512 39.4 against 50.9 / 22.6 against 26.4, T = 2048 172 against 215
  // / 89 against 107. (Before the pairs chunked was 5-6% faster there from
  // T = 512, and the issue that asked for a model saw chunked at 77-85% of
  // peak against recurrent's 66-74% on an AMD Zen 4.)
  const bool use_chunked = route == Route::Chunked || (route == Route::Auto && chunked_wins(recurrent, chunked));
  const TuningRecord* tuned = use_chunked ? chunked : recurrent;
  Plan p;
  p.tuned = tuned != nullptr;
  p.variant = p.tuned ? tuned->variant
                      : default_variant(use_chunked ? Route::Chunked : Route::Recurrent, spec, T,
                                        host_target());
  return p;
}

int64_t planned_T(int64_t T, int64_t sequences) {
  return sequences > 0 ? T / sequences + (T % sequences != 0) : T;
}

int64_t planned_T(const Tensors& t) {
  return planned_T(t.T, t.cu_seqlens.given() ? t.cu_seqlens.size - 1 : 0);
}

Plan plan(Route route, const Tensors& t, int requested_threads) {
  const int threads = threads_for_call(t, requested_threads, /*kernel_max_threads=*/0);
  return plan(process_tuning_db(), route, kernel_spec(t), planned_T(t), threads, call_form_of(t));
}

}  // namespace gdr::compiler
