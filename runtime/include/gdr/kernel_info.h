// What a generated kernel says of itself: the `<name>_info` table it exports
// (kernel_abi.h). The one reading of that table, for every way a kernel
// arrives: the JIT, gdr::load_kernel's shared objects and gdr-compile's
// header, so that K, V, the column alignment, the scratch, the vector
// width, the decay kind and the readouts are never derived again beside the kernel.
#pragma once

#include <cstdint>
#include <string>

#include "gdr/kernel_abi.h"
#include "gdr/runtime.h"
#include "gdr/status.h"

namespace gdr {

struct KernelInfo {
  int64_t K = 0, V = 0;
  int64_t column_align = 0;    // column ranges may start at its multiples
  int64_t scratch_floats = 0;  // per worker, whatever T is
  int64_t vector_bits = 0;     // widest vectors the kernel uses
  DecayKind decay_kind = DecayKind::Channel;  // the decay it reads
  int64_t readouts = 1;        // query heads it reads each state head with
  bool token_steps = false;    // Kernel::token_steps
};

// Reads `table` (GDR_KERNEL_INFO_FIELDS values) of the kernel `name`. An
// error naming the kernel when it was built for another kernel ABI version
// or describes an impossible kernel; *info is then untouched.
Status read_kernel_info(const std::string& name, const int64_t* table, KernelInfo* info);

// The gdr::Kernel that runs the entry point `fn` of kernel `name` as `info`
// describes it.
Kernel kernel_from_info(const std::string& name, gdr_kernel_fn fn, const KernelInfo& info);

}  // namespace gdr
