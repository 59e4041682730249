#include "implementations.h"

#include "gdr/baselines.h"
#ifdef GDR_HAVE_COMPILER
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/chunked.h"
#include "gdr/compiler/plan.h"
#endif

namespace gdr::tools {

void install_all_routes() {
  baselines::install_routes();
#ifdef GDR_HAVE_COMPILER
  compiler::install_routes();
  compiler::install_chunked_routes();
#endif
}

std::string explain_route(Route route, const Tensors& t, int threads) {
#ifdef GDR_HAVE_COMPILER
  if (route == Route::Auto || route == Route::Recurrent || route == Route::Chunked)
    return compiler::plan(route, t, threads).str();
#else
  (void)t, (void)threads;
  if (route == Route::Auto) return route_name(Route::Reference);  // what run() falls back to
#endif
  return route_name(route);
}

}  // namespace gdr::tools
