// The one header gdr-compile writes for a kernel of either route: plain C
// (and C++), declaring the entry point and its facts, and for C++ an inline
// helper that builds the runtime's gdr::Kernel from them. It includes only
// gdr's installed runtime headers, never Halide's or the compiler's.
#pragma once

#include <string>

#include "gdr/kernel_info.h"

namespace gdr::compiler {

struct KernelHeader {
  std::string name;     // the entry point: int32_t name(const gdr_kernel_args*)
  std::string variant;  // Variant::str(), e.g. "chunked K=128 V=128 c16-w16"
  std::string target;   // what it was built for, e.g. "aarch64-linux-gnu cortex-a76"
  std::string cpu_features;  // required_cpu_features()
  KernelInfo info;      // read from the object's own <name>_info
  bool chunked = false;  // a chunked kernel: its failures' messages come from the Halide bridge
};

// The header's text. Its include guard is named after the kernel.
std::string kernel_header(const KernelHeader& h);

}  // namespace gdr::compiler
