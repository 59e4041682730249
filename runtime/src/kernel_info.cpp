#include "gdr/kernel_info.h"

namespace gdr {

Status read_kernel_info(const std::string& name, const int64_t* table, KernelInfo* info) {
  if (!table || !info)
    return Status::error("kernel '" + name + "': " + (table ? "info" : "its info table") + " is a null pointer");
  if (table[GDR_INFO_ABI_VERSION] != GDR_KERNEL_ABI_VERSION)
    return Status::error("kernel '" + name + "' was built for kernel ABI version " +
                         std::to_string(table[GDR_INFO_ABI_VERSION]) + ", this runtime speaks " +
                         std::to_string(GDR_KERNEL_ABI_VERSION));
  KernelInfo read;
  read.K = table[GDR_INFO_K];
  read.V = table[GDR_INFO_V];
  read.column_align = table[GDR_INFO_COLUMN_ALIGN];
  read.scratch_floats = table[GDR_INFO_SCRATCH_FLOATS];
  read.vector_bits = table[GDR_INFO_VECTOR_BITS];
  const int64_t decay = table[GDR_INFO_DECAY_KIND];
  read.decay_kind = decay == GDR_DECAY_SCALAR ? DecayKind::Scalar : DecayKind::Channel;
  read.readouts = table[GDR_INFO_READOUTS];
  const int64_t token_steps = table[GDR_INFO_TOKEN_STEPS];
  read.token_steps = token_steps == 1;
  if (read.K <= 0 || read.V <= 0 || read.column_align < 0 || read.scratch_floats < 0 ||
      read.vector_bits < 0 || (decay != GDR_DECAY_CHANNEL && decay != GDR_DECAY_SCALAR) ||
      read.readouts < 1 || (token_steps != 0 && token_steps != 1))
    return Status::error("kernel '" + name + "' has an impossible description (K=" +
                         std::to_string(read.K) + ", V=" + std::to_string(read.V) +
                         ", column_align=" + std::to_string(read.column_align) +
                         ", scratch_floats=" + std::to_string(read.scratch_floats) +
                         ", vector_bits=" + std::to_string(read.vector_bits) +
                         ", decay_kind=" + std::to_string(decay) +
                         ", readouts=" + std::to_string(read.readouts) +
                         ", token_steps=" + std::to_string(token_steps) + ")");
  *info = read;
  return Status::success();
}

Kernel kernel_from_info(const std::string& name, gdr_kernel_fn fn, const KernelInfo& info) {
  Kernel k;
  k.name = name;
  k.fn = fn;
  k.K = info.K;
  k.V = info.V;
  k.column_align = info.column_align;
  k.decay_kind = info.decay_kind;
  k.readouts = info.readouts;
  k.token_steps = info.token_steps;
  const int64_t scratch = info.scratch_floats;
  if (scratch > 0) k.scratch_floats = [scratch](int64_t, int64_t, int64_t) { return scratch; };
  return k;
}

}  // namespace gdr
