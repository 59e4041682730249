// One kernel variant, the key every cache and tool names kernels by: the
// route, K, V and that route's schedule. The in-process caches, the disk
// cache's key description, the tuning database, plan(), gdr-tune's
// candidates and gdr-compile's flags all use it.
#pragma once

#include <cstdint>
#include <string>

#include "gdr/compiler/kernel_spec.h"
#include "gdr/compiler/target.h"
#include "gdr/runtime.h"
#include "gdr/schedules/schedule.h"

namespace gdr::compiler {

// Who schedules a chunked pipeline: the hand schedule (knobs in
// schedules::Schedule) or Halide's Adams2019 autoscheduler.
enum class Scheduler { Hand, Adams2019 };

struct Variant {
  Route route = Route::Recurrent;        // Recurrent or Chunked
  int64_t K = 128, V = 128;
  DecayKind decay = DecayKind::Channel;  // the form (KernelSpec)
  int64_t readouts = 1;
  RecurrentSchedule recurrent;           // read when route is Recurrent
  schedules::Schedule chunked;           // read when route is Chunked
  Scheduler scheduler = Scheduler::Hand; // read when route is Chunked

  KernelSpec spec() const { return {K, V, decay, readouts}; }
  // The kernel's symbol, which encodes the whole variant:
  // gdr_recurrent_f32_k128_v128__w16_vt64_u1_p2,
  // gdr_chunked_f32_k128_v128__c16_w16 (+ "_adams2019"); scalar decay adds
  // "_sd" and R > 1 readouts "_r<R>" after the sizes (gdr_recurrent_f32_k128_v128_sd_r2__...).
  std::string name() const;
  // The route's schedule as reports and the tuning database write it:
  // "w16-vt64-u1-p2" (width, v_tile, unroll, prefetch) or "c16-w16"
  // ("adams2019" for that scheduler).
  std::string schedule_str() const;
  // "recurrent K=128 V=128 w16-vt64-u1-p2", "chunked K=128 V=128 c16-w16",
  // with " decay=scalar" and " readouts=R" when not the defaults: what
  // parse_variant reads.
  std::string str() const;

  // Only the fields the route reads take part, so two variants that name
  // the same kernel are equal.
  bool operator==(const Variant& o) const;
  bool operator!=(const Variant& o) const { return !(*this == o); }
  bool operator<(const Variant& o) const;
};

Variant recurrent_variant(const KernelSpec& spec, const RecurrentSchedule& schedule);
Variant chunked_variant(const KernelSpec& spec, const schedules::Schedule& schedule,
                        Scheduler scheduler = Scheduler::Hand);

// Parses schedule_str()'s form for `route` (Recurrent or Chunked) into
// v->recurrent or v->chunked, leaving the other fields. Recurrent: the
// numbers positive (prefetch >= 0; "-p<n>" may be left out: no prefetch),
// v_tile a multiple of the width (the dialect's verifier checks the rest).
// Chunked: Schedule::check(). False with a one-line *error on failure.
bool parse_variant_schedule(Route route, const std::string& text, Variant* v, std::string* error);

// Parses one word of str()'s form suffix, "decay=scalar|channel" or
// "readouts=<n>", into v. False with a one-line *error.
bool parse_form_word(const std::string& word, Variant* v, std::string* error);

// Parses str()'s form. False with a one-line *error naming the bad part.
bool parse_variant(const std::string& text, Variant* v, std::string* error);

// What the kernel's object depends on, as the disk cache's key
// description: for the recurrent route the gdr module on `target` and that
// target; for the chunked route the kernel, its schedule, the Halide version
// and the host's Halide target (chunked kernels are cached for the host
// only). Empty for Adams2019, which Halide's own JIT compiles each time.
std::string cache_description(const Variant& v, const Target& target);

// The Halide part of a chunked kernel's or Halide runtime's description: the
// Halide version and `halide_target` (the environment variables Halide
// reads are in every key: DiskCache::key_text).
std::string halide_description(const std::string& halide_target);

// Calls of at most this many tokens are decode: the untuned recurrent
// kernel's tile is the widest the registers hold, and gdr-tune's decode
// records never cover longer calls (a decode tile ties at T = 2 and loses
// from T = 4: variant.cpp, docs/tuning.md).
constexpr int64_t kDecodeTokens = 1;

// The untuned variant of `route` (Recurrent or Chunked) for a call of T
// tokens on `target`: the one place that chooses defaults. Recurrent: the
// dialect's default (what gdr-attach-schedule writes), with the wide decode
// tile for T <= 1 (kDecodeTokens) and the tile clamped to the whole vectors
// of V. Chunked: schedules::default_schedule() for the target's vectors.
Variant default_variant(Route route, const KernelSpec& spec, int64_t T, const Target& target);

// The dialect's default alone (prefill's, fitted to `readouts`), for a
// kernel whose T is not known (gdr-compile).
RecurrentSchedule dialect_default_recurrent(int64_t K, const Target& target, int64_t readouts = 1);

}  // namespace gdr::compiler
