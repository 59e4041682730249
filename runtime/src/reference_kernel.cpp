// The reference kernel: the float32 recurrence (float32_recurrence.h), the
// accuracy yardstick for generated kernels and the runtime's fallback route.
#include "float32_recurrence.h"
#include "gdr/runtime.h"

namespace gdr {

const Kernel& reference_kernel() {
  // Never destroyed: calls may come while the process exits.
  static const Kernel& kernel = *new Kernel(any_shape_kernel("reference", float32_recurrence, 1, 0));
  return kernel;
}

}  // namespace gdr
