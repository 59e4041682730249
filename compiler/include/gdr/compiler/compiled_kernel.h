// What a compile gives: a runtime kernel, or why there is none.
#pragma once

#include "gdr/runtime.h"

namespace gdr::compiler {

struct CompiledKernel {
  Status status = Status::success();
  Kernel kernel;  // valid when status is ok
};

}  // namespace gdr::compiler
