// The chunked prefill as a Halide pipeline for one target: the algorithm
// with its schedule applied, and the Halide targets gdr builds for. Shared by
// the JIT (chunked_jit.cpp) and AOT (chunked_aot.cpp) builds.
#pragma once

#include <Halide.h>

#include <string>

#include "gdr/compiler/chunked.h"
#include "gdr/schedules/chunked_algorithm.h"
#include "gdr/status.h"

namespace gdr::compiler {

// Builds the algorithm and applies the spec's schedule (hand or Adams2019).
Status build_pipeline(const ChunkedSpec& spec, const Halide::Target& target,
                      schedules::ChunkedAlgorithm& alg);

// "host" or a Halide target string ("x86-64-linux-avx2-fma").
Status parse_target(const std::string& name, Halide::Target* target);

// What cached JIT kernels are built for: the host, without a runtime inside.
Halide::Target kernel_target();

}  // namespace gdr::compiler
