// Points Route::Chunked at one compiled variant, so that the shared route
// tester (route_tester.h) checks exactly that schedule. Kernels come from
// the compiler's per-process cache: each variant compiles once per binary.
#pragma once

#include <gtest/gtest.h>

#include "gdr/compiler/chunked.h"
#include "route_tester.h"

namespace gdr::test {

inline Options use_chunked(const compiler::ChunkedSpec& spec, int threads = 1) {
  set_route_runner(Route::Chunked, compiler::chunked_runner(spec));
  Options o;
  o.route = Route::Chunked;
  o.threads = threads;
  return o;
}

inline const char* regime_name(DecayRegime r) {
  switch (r) {
    case DecayRegime::Uniform: return "U(0,1)";
    case DecayRegime::NearOne: return "U(0.9,1)";
    case DecayRegime::Zeros: return "zeros";
    case DecayRegime::One: return "one";
    case DecayRegime::Strong: return "e^-5";
  }
  return "?";
}

}  // namespace gdr::test
