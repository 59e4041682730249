// The routes and the verbosity as the tools take them.
#pragma once

#include <string>

#include "gdr/runtime.h"
#include "gdr/status.h"

namespace gdr::tools {

// Reads GDR_VERBOSE (an error naming it if bad) and, below 2, keeps Halide's
// autoscheduler quiet. Call before starting threads (it may setenv).
Status take_verbosity_from_environment();

// Installs every route this build has into gdr::run: the baselines always,
// the generated routes (gdr::jit::install, options from the environment)
// when the compiler is built, after take_verbosity_from_environment(). The
// tools call it once, before starting threads; it fails only on a bad
// environment variable (GDR_VERBOSE), naming it.
Status install_all_routes();

// What `route` runs for a call of t's sizes with `threads` (as
// Options::threads): for the generated routes the schedule plan() picks
// ("recurrent w16-vt64-u4 (tuned)"), else the route's name.
std::string explain_route(Route route, const Tensors& t, int threads);

}  // namespace gdr::tools
