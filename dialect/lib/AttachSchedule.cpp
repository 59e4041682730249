// gdr-attach-schedule: writes the default schedule where a kernel has none.
#include "PassDetail.h"
#include "gdr/Dialect/DefaultSchedule.h"

namespace mlir::gdr {
namespace {

struct AttachSchedulePass : GdrAttachScheduleBase<AttachSchedulePass> {
  void runOnOperation() override {
    getOperation().walk([&](KernelOp kernel) {
      if (kernel.getScheduleAttr()) return;
      const int64_t bits =
          kernel.getTargetAttr() ? kernel.getTargetAttr().getVectorBits() : int64_t(vectorBits);
      // The module names no architecture: only x86 has 256-bit vectors.
      const int64_t registers = vectorRegisters(bits, /*x86=*/bits == 256);
      kernel.setScheduleAttr(defaultSchedule(kernel.getProblem(), bits, registers));
    });
  }
};

}  // namespace

std::unique_ptr<Pass> createAttachSchedulePass() { return std::make_unique<AttachSchedulePass>(); }

}  // namespace mlir::gdr
