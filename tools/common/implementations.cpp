#include "implementations.h"

#include <stdlib.h>  // setenv

#include <cstdlib>

#include "gdr/baselines.h"
#ifdef GDR_HAVE_COMPILER
#include "gdr/compiler/settings.h"
#include "gdr/jit.h"
#endif

namespace gdr::tools {

Status take_verbosity_from_environment() {
#ifdef GDR_HAVE_COMPILER
  // Halide's Adams2019 autoscheduler prints its search on stderr at its log
  // level 0, five lines a compile: below verbosity 2 the tools lower that
  // level (read once, at its first log) unless the user set it. Set while
  // the tool runs one thread (setenv races with getenv on others).
  int verbosity = 1;
  if (Status s = compiler::verbosity_from_environment(&verbosity); !s) return s;
  const char* level = std::getenv("HL_DEBUG_AUTOSCHEDULE");  // empty is unset, to Halide too
  if (verbosity < 2 && (!level || !*level)) ::setenv("HL_DEBUG_AUTOSCHEDULE", "-1", /*overwrite=*/1);
#endif
  return Status::success();
}

Status install_all_routes() {
  baselines::install_routes();
  if (Status s = take_verbosity_from_environment(); !s) return s;
#ifdef GDR_HAVE_COMPILER
  return jit::install();
#else
  return Status::success();
#endif
}

std::string explain_route(Route route, const Tensors& t, int threads) {
#ifdef GDR_HAVE_COMPILER
  if (route == Route::Auto || route == Route::Recurrent || route == Route::Chunked) {
    Options options;
    options.route = route;
    options.threads = threads;
    jit::Plan p;
    if (Status s = jit::plan(t, options, &p); !s) return s.message();
    return p.str();
  }
#else
  (void)t, (void)threads;
  if (route == Route::Auto) return route_name(Route::Reference);  // what run() falls back to
#endif
  return route_name(route);
}

}  // namespace gdr::tools
