// The default schedule of each route for a target: one place that decides.
#pragma once

#include <cstdint>

#include "gdr/Dialect/GdrDialect.h"

namespace mlir::gdr {

// The knobs of #gdr.schedule as plain numbers, for callers without an
// MLIRContext (gdr::compiler's default_variant).
struct RecurrentScheduleKnobs {
  int64_t vectorWidth, vTile, unroll, prefetch, sweepTokens;
};

// The vector registers of a target whose widest vectors have `vectorBits`
// bits: 16 on x86 below AVX-512 (SSE, AVX, AVX2), else 32 (AVX-512, NEON).
int64_t vectorRegisters(int64_t vectorBits, bool x86);
// The same from a kernel's target attribute: x86 if `cpu` is an x86 CPU
// name of LLVM's (or the vectors are 256 bits, x86's alone); "generic" and
// ARM's names read as 32 (NEON).
int64_t vectorRegisters(int64_t vectorBits, StringRef cpu);

// The default for a K x V state on a target whose widest vector register
// has `vectorBits` bits, of which it has `registers` (V does not change it),
// and whose LLVM CPU name is `cpu` ("" if none is named).
RecurrentScheduleKnobs defaultRecurrentSchedule(int64_t k, int64_t vectorBits, int64_t registers,
                                                StringRef cpu);

// The largest tile (a multiple of `width`, at least one vector) within
// `tile` whose accumulators, `perVector` per vector, fit `accumulators`.
int64_t tileWithinAccumulators(int64_t tile, int64_t width, int64_t perVector, int64_t accumulators);

// The default `s` fitted to `readouts` query heads per state head for
// prefill (blocks of many tokens): each readout takes one more accumulator
// per vector and token of a sweep.
RecurrentScheduleKnobs fitReadouts(RecurrentScheduleKnobs s, int64_t readouts, int64_t registers);

// The schedule gdr-attach-schedule writes for `problem` (its readouts
// included): the same knobs.
ScheduleAttr defaultSchedule(ProblemAttr problem, int64_t vectorBits, int64_t registers, StringRef cpu);

}  // namespace mlir::gdr
