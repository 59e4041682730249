// The small object gdr-compile links beside a kernel's code, for the
// target's architecture: `<name>_cpu_features` (the features the kernel
// needs, checked by gdr::load_kernel) and, for a chunked kernel, the entry
// point `int32_t <name>(const gdr_kernel_args*)` that runs the Halide
// pipeline through the runtime's gdr_halide_chunked_entry, and the
// `<name>_info` table (kernel_abi.h), which the recurrent route's code
// carries itself (or, for a recurrent kernel given another name, an entry
// point and table of that name).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gdr/compiler/target.h"
#include "gdr/status.h"

namespace llvm {
class Function;
class Module;
class Value;
}  // namespace llvm

namespace gdr::compiler {

// An entry point `int32_t <name>(const gdr_kernel_args*)` the object defines,
// with its `<name>_info` table.
struct EntryPoint {
  enum class Kind {
    Halide,  // runs the Halide pipeline `callee` (chunk size `chunk`) through gdr_halide_chunked_entry
    Alias,   // calls the kernel entry point `callee`: the kernel under another name
  };
  Kind kind = Kind::Halide;
  std::string callee;
  int64_t chunk = 0;
  std::vector<int64_t> info;  // GDR_KERNEL_INFO_FIELDS values, by gdr_kernel_info_field
};

// Defines `int32_t name(const gdr_kernel_args* a) { return bridge(a,
// pipeline, chunk); }` in `module`: a chunked kernel's C entry point, with
// `bridge` (gdr_halide_chunked_entry) and `pipeline` (an i8*) as symbols
// (AOT) or constant addresses (JIT: compiler/src/chunked_jit_entry.h).
llvm::Function* define_halide_entry(llvm::Module& module, const std::string& name, llvm::Value* bridge,
                                    llvm::Value* pipeline, int64_t chunk);

// The object's bytes for `target`; `entry` null when the code has its own
// entry point and table under `name` (the recurrent route's).
Status aot_entry_object(const Target& target, const std::string& name, const EntryPoint* entry,
                        std::vector<char>* object);

}  // namespace gdr::compiler
