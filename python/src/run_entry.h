// The entry points gdr._gdr shares with gdr._gdr_torch: gdr::run as
// gdr._gdr's copy of the runtime has it (the JIT's routes installed there,
// its thread pool and caches), and the check of a call's sizes against
// what its route takes, each handed over in a PyCapsule so that the torch
// kernels link no second JIT. Both modules are built together.
#pragma once

#include "gdr/runtime.h"

namespace gdr::python {

using RunEntry = Status (*)(const Tensors& t, const Options& options);
constexpr const char kRunEntryCapsule[] = "gdr._gdr.run_entry";

// gdr::jit::takes: the sizes, and what the generated routes take (at most
// 8 query heads per state head), reading no data and planning nothing: a
// call that fails it is the caller's error (ValueError), fake and meta
// tensors included; a run that fails after passing it and validate() is
// gdr's.
using CheckEntry = Status (*)(const Tensors& t, const Options& options);
constexpr const char kCheckEntryCapsule[] = "gdr._gdr.check_entry";

}  // namespace gdr::python
