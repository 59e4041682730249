// Links a kernel object into a shared object that gdr::load_kernel (the
// runtime, no compiler) can dlopen.
#pragma once

#include <string>
#include <vector>

#include "gdr/status.h"

namespace gdr::compiler {

// Runs LLVM's ld.lld (ld.lld-14, else ld.lld, from PATH: Debian's lld-14)
// as `ld.lld -shared -soname <soname> -o so_path object_path` (the soname is
// the installed file's name, which a staged so_path is not). The object must be position
// independent, as every object this compiler emits is. libc symbols the
// kernel uses (memcpy, memset) stay undefined and bind at dlopen.
Status link_shared_object(const std::string& object_path, const std::string& so_path,
                          const std::string& soname);
// The same from several objects and archives (a chunked kernel, its Halide
// runtime and the Halide ABI bridge).
Status link_shared_object(const std::vector<std::string>& inputs, const std::string& so_path,
                          const std::string& soname);

// `ld.lld -r`: one relocatable object from `inputs` (a kernel's code and the
// object aot_entry_object writes beside it), for any architecture lld has.
Status link_relocatable(const std::vector<std::string>& inputs, const std::string& output);

// Makes every symbol `object` defines local except `symbols` (llvm-objcopy
// --keep-global-symbol, in place; llvm-objcopy-14, else llvm-objcopy, from
// PATH: Debian's llvm-14).
Status keep_only_global(const std::string& object, const std::vector<std::string>& symbols);

}  // namespace gdr::compiler
