// Installs every route this build has into gdr::run: the baselines always,
// the generated routes when the compiler is built. The tools call it once.
#pragma once

#include <cstdint>
#include <string>

#include "gdr/runtime.h"

namespace gdr::tools {

void install_all_routes();

// What `route` runs for a call of this shape with `threads`: for the
// generated routes the schedule plan() picks ("recurrent w16-vt64-u4
// (tuned)"), else the route's name.
std::string explain_route(Route route, int64_t K, int64_t V, int64_t T, int threads);

}  // namespace gdr::tools
