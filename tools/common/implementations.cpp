#include "implementations.h"

#include "gdr/baselines.h"

namespace gdr::tools {

void install_all_routes() { baselines::install_routes(); }

}  // namespace gdr::tools
