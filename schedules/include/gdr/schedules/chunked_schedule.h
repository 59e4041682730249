// How the chunked algorithm is computed: the hand schedule driven by the
// Schedule knobs, and the Adams2019 autoscheduler as a comparison point.
#pragma once

#include <Halide.h>

#include "gdr/schedules/chunked_algorithm.h"
#include "gdr/schedules/schedule.h"

namespace gdr::schedules {

// Columns of the value dimension one register tile covers; the runtime may
// split a head's columns only at multiples of it (0: no split).
int chunked_column_align(int V, const Schedule& schedule);

// Rows of a product's register tile on `target` (2 vectors wide): 8 where
// the vector registers are 32 (AVX-512, AArch64), 4 where they are 16
// (AVX2, SSE, 32-bit ARM, other targets), so that the accumulators take
// half of them.
int chunked_tile_rows(const Halide::Target& target);

// The hand schedule: one chunk per call, serial (the runtime parallelises
// over heads and column ranges); every matrix product as register-blocked
// tiles vectorised over columns with the reduction innermost, as many
// accumulators as half the vector registers of `target`.
void apply_hand_schedule(ChunkedAlgorithm& alg, const Schedule& schedule, const Halide::Target& target);

// Lets Halide's Adams2019 autoscheduler (plugin loaded from `plugin_path`)
// schedule the same algorithm for one thread. Returns an error message, or
// "" on success.
std::string apply_autoschedule(ChunkedAlgorithm& alg, const Halide::Target& target,
                               const std::string& plugin_path);

}  // namespace gdr::schedules
