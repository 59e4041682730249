// The largest head sizes kernels are generated for, shared by both routes.
#pragma once

#include <cstdint>

namespace mlir::gdr {

// K and V of any route: K·V floats per head and every index into the
// tensors stay far from int64 overflow.
constexpr int64_t kMaxHeadSize = int64_t{1} << 20;

// K of the recurrent route: its emitter unrolls K / vector_width operations
// at each of about seven call sites. Compiling K = 1024 takes 1.7 s at
// vector_width 16; K = 4096 takes 10 s at 16 and 64 s at 4.
constexpr int64_t kMaxRecurrentK = 1024;
// ... and K / vector_width of it, which narrow vectors multiply: K = 4096
// at width 16 (256 vectors a row) took 10 s, at width 4 (1024) 64 s; K =
// 1024 at width 1 wrote 1.4 million lines of MLIR. 256 admits every K up to
// kMaxRecurrentK at the narrowest default width (SSE and NEON's 4). It does
// not bound the time: on 32 registers of 4 floats (aarch64) K = 1024 is a
// minute or more (a review: its LLVM IR alone 18.5 s; with 8 readouts and
// unroll 16, 261 s), the one-group blocks (decode) multiplying the code.
constexpr int64_t kMaxRecurrentRowVectors = 256;

}  // namespace mlir::gdr

namespace mlir::gdr {

// Query heads per state head (grouped readout): ExecuTorch's models use 1
// to 4; each readout costs the recurrent route one accumulator per vector
// of the tile.
constexpr int64_t kMaxReadouts = 8;

// Vector registers the recurrent sweep's accumulators may take: (1 +
// readouts) per vector of the tile (AVX-512 and NEON have 32).
constexpr int64_t kMaxSweepAccumulators = 32;

}  // namespace mlir::gdr
