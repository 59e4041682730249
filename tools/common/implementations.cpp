#include "implementations.h"

#include "gdr/baselines.h"
#ifdef GDR_HAVE_COMPILER
#include "gdr/jit.h"
#endif

namespace gdr::tools {

Status install_all_routes() {
  baselines::install_routes();
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
