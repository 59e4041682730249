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
      kernel.setScheduleAttr(defaultSchedule(kernel.getProblem(), bits, vectorRegisters(bits)));
    });
  }
};

}  // namespace

std::unique_ptr<Pass> createAttachSchedulePass() { return std::make_unique<AttachSchedulePass>(); }

}  // namespace mlir::gdr
