// Installs every route this build has into gdr::run: the baselines always,
// the generated routes when the compiler is built. The tools call it once.
#pragma once

namespace gdr::tools {

void install_all_routes();

}  // namespace gdr::tools
