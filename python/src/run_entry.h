// The one entry point gdr._gdr shares with gdr._gdr_torch: gdr::run as
// gdr._gdr's copy of the runtime has it (the JIT's routes installed there,
// its thread pool and caches), handed over in a PyCapsule so that the torch
// kernels link no second JIT. Both modules are built together.
#pragma once

#include "gdr/runtime.h"

namespace gdr::python {

using RunEntry = Status (*)(const Tensors& t, const Options& options);
constexpr const char kRunEntryCapsule[] = "gdr._gdr.run_entry";

}  // namespace gdr::python
