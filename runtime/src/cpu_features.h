// Whether this CPU has the features a kernel needs: the list gdr-compile
// stores as `<name>_cpu_features` (compiler/src/cpu_features.cpp writes the
// same names).
#pragma once

#include <string>

namespace gdr {

// The first of the comma-separated `features` this CPU lacks, "" when it has
// them all. A name this runtime does not know counts as lacking (with
// *unknown set), as does any feature of another architecture.
std::string first_missing_cpu_feature(const std::string& features, bool* unknown);

}  // namespace gdr
