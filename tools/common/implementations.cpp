#include "implementations.h"

#include <stdlib.h>

#include "gdr/baselines.h"
#ifdef GDR_HAVE_COMPILER
#include "gdr/compiler/settings.h"
#include "gdr/jit.h"
#endif

namespace gdr::tools {

Status install_all_routes() {
  baselines::install_routes();
#ifdef GDR_HAVE_COMPILER
  // Halide's Adams2019 autoscheduler (chunked-autoschedule) prints its
  // search on stderr at its log level 0, five lines a compile: below
  // verbosity 2 the tools lower that level (read once, at its first log)
  // unless the user set it. Set here, while the tool runs one thread
  // (setenv races with getenv on others).
  int verbosity = 1;
  if (Status s = compiler::verbosity_from_environment(&verbosity); !s) return s;
  if (verbosity < 2) ::setenv("HL_DEBUG_AUTOSCHEDULE", "-1", /*overwrite=*/0);
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
