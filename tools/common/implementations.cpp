#include "implementations.h"

#include "gdr/baselines.h"
#ifdef GDR_HAVE_COMPILER
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/chunked.h"
#endif

namespace gdr::tools {

void install_all_routes() {
  baselines::install_routes();
#ifdef GDR_HAVE_COMPILER
  compiler::install_routes();
  compiler::install_chunked_routes();
#endif
}

}  // namespace gdr::tools
