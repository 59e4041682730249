// Loads a generated kernel from a shared object (gdr-compile --shared 1)
// with no compiler in the program: the entry point and its `<symbol>_info`
// (kernel_abi.h), read from the file, then dlopen.
#pragma once

#include <string>

#include "gdr/runtime.h"
#include "gdr/status.h"

namespace gdr {

// Fills `*kernel` from the kernel `symbol` (its name, e.g.
// gdr_recurrent_f32_k128_v128__w16_vt64_u1_p2) of the file `path` (a bare
// file name is in the current folder, not looked up like a system library).
// The library stays loaded for the life of the process. Read from the file
// before dlopen runs any of it (its initialisers): a file that is no shared
// object, was built for another architecture (its ELF machine), lacks the
// entry point or a whole `<symbol>_info` table (not a kernel of gdr's), was
// built for another kernel ABI or for CPU features this CPU lacks
// (`<symbol>_cpu_features`, which gdr-compile writes into every library; a
// library without it is checked for its vector width only) gives an error
// naming the file (and what is wrong) and leaves `*kernel` untouched; so
// does a file changed on disk between that reading and dlopen, and a path
// from which another file's library is still loaded (dlopen would give that
// one back: load a rebuilt kernel from a new path). Either
// route's library loads: a chunked one carries its Halide runtime. A shared
// object runs native code: load only files you trust (the kernel cache,
// which checks its entries, is for JIT builds).
Status load_kernel(const std::string& path, const std::string& symbol, Kernel* kernel);

}  // namespace gdr
