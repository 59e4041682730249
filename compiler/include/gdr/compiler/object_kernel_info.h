// A kernel's facts read from its object file, without running it (the object
// may be for another CPU): the `<name>_info` table's bytes in the object,
// then the runtime's one reading of them (gdr/kernel_info.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gdr/kernel_info.h"
#include "gdr/status.h"

namespace gdr::compiler {

// Finds `<name>_info` in `object` (ELF, as this compiler emits) and reads it.
Status object_kernel_info(const std::vector<char>& object, const std::string& name, KernelInfo* info);

// The raw table (GDR_KERNEL_INFO_FIELDS values), for copying it whole under
// another name (every field, also those this reading does not know).
Status object_info_table(const std::vector<char>& object, const std::string& name, std::vector<int64_t>* table);

}  // namespace gdr::compiler
