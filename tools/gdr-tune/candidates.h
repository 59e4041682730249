// What gdr-tune searches: the candidates of each route (knob values) and the
// baselines they are compared with, each runnable on a call's tensors.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gdr/compiler/kernel_spec.h"
#include "gdr/compiler/variant.h"
#include "gdr/runtime.h"
#include "gdr/schedules/schedule.h"

namespace gdr::tune {

struct Candidate {
  Route route = Route::Recurrent;  // Recurrent, Chunked, or a baseline route
  std::string schedule;            // the schedule's text form; empty for a baseline
  compiler::Variant variant;       // what runs, unless a baseline (variant_candidate)
  // Runs one call; compiles the variant on first use (cached per process).
  std::function<Status(const Tensors&, const Options&)> run;

  bool baseline() const { return route != Route::Recurrent && route != Route::Chunked; }
  std::string name() const;  // "recurrent w16-vt64-u1", "baseline-two-pass"
};

// The variant's kernel (recurrent or chunked) for each call's K and V.
Candidate variant_candidate(const compiler::Variant& variant);
Candidate baseline_candidate(Route route);  // BaselineTwoPass or BaselineChunked

// How complex a candidate's schedule is, compared lexicographically
// (smaller is simpler), for keeping the simpler of candidates that tie
// within the noise: the route's default schedule (`default_schedule`, as
// schedule_str() writes it) is simplest, as it is what runs untuned; then,
// recurrent, less unrolling, fewer prefetched tokens, a narrower tile and
// vector (less code, fewer registers); chunked, a smaller chunk and a
// narrower vector.
std::vector<int64_t> complexity(const Candidate& c, const std::string& default_schedule);

// Vector widths (floats) of this host: 4 up to its widest vector.
std::vector<int> host_widths();

// The recurrent route's coarse round: every width x v_tile of 1, 2, 4, 8
// vectors at unroll 1, the default prefetch and `sweep_tokens` (those of
// the case's untuned kernel), leaving out tiles of more than one vector wider than V (no whole
// tile would fit: the columns would run in the kernel's smaller tail tiles,
// as a narrower candidate does).
std::vector<compiler::RecurrentSchedule> recurrent_coarse(const std::vector<int>& widths, int64_t V,
                                                          int64_t sweep_tokens);

// Its fine round on each of `tiles` (a tile is a width, a v_tile and its
// tokens per sweep; their unroll and prefetch are ignored): unroll 1, 2, 4
// (at most K) at the default prefetch, then prefetch 0 and 4 tokens at
// unroll 1, then the other number of tokens per sweep (1 or 2).
std::vector<compiler::RecurrentSchedule> recurrent_fine(
    const std::vector<compiler::RecurrentSchedule>& tiles, int64_t K);

// The chunked route: chunk 16, 32, 64 x every width. (128 is left out: it
// was 2.2x slower than 16 at every width, docs/chunked-prefill.md.)
std::vector<schedules::Schedule> chunked_space(const std::vector<int>& widths);

}  // namespace gdr::tune
