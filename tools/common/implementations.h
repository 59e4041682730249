// Installs every route this build has into gdr::run: the baselines always,
// the generated routes when the compiler is built. The tools call it once.
#pragma once

#include <string>

#include "gdr/runtime.h"

namespace gdr::tools {

void install_all_routes();

// What `route` runs for a call of t's sizes with `threads` (as
// Options::threads): for the generated routes the schedule plan() picks
// ("recurrent w16-vt64-u4 (tuned)"), else the route's name.
std::string explain_route(Route route, const Tensors& t, int threads);

}  // namespace gdr::tools
