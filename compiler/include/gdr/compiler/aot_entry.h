// The small object gdr-compile links beside a kernel's code, for the
// target's architecture: `<name>_cpu_features` (the features the kernel
// needs, checked by gdr::load_kernel) and, for a chunked kernel, the entry
// point `int32_t <name>(const gdr_kernel_args*)` that runs the Halide
// pipeline through the runtime's gdr_halide_chunked_entry, and the
// `<name>_info` table (kernel_abi.h), which the recurrent route's code
// carries itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gdr/compiler/target.h"
#include "gdr/status.h"

namespace gdr::compiler {

struct ChunkedEntry {
  std::string halide_function;  // the pipeline, `<name>_halide`
  int64_t chunk = 0;            // its chunk size
  std::vector<int64_t> info;    // GDR_KERNEL_INFO_FIELDS values, by gdr_kernel_info_field
};

// The object's bytes for `target`; `chunked` null for a recurrent kernel.
Status aot_entry_object(const Target& target, const std::string& name, const ChunkedEntry* chunked,
                        std::vector<char>* object);

}  // namespace gdr::compiler
