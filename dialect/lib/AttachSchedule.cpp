// gdr-attach-schedule: writes the default schedule where a kernel has none.
#include "PassDetail.h"
#include "gdr/Dialect/DefaultSchedule.h"

namespace mlir::gdr {
namespace {

struct AttachSchedulePass : GdrAttachScheduleBase<AttachSchedulePass> {
  void runOnOperation() override {
    if (vectorBits != 128 && vectorBits != 256 && vectorBits != 512) {
      getOperation().emitError() << "gdr-attach-schedule: vector-bits must be 128, 256 or 512, got "
                                 << int64_t(vectorBits);
      return signalPassFailure();
    }
    getOperation().walk([&](KernelOp kernel) {
      if (kernel.getScheduleAttr()) return;
      const TargetAttr target = kernel.getTargetAttr();
      const int64_t bits = target ? target.getVectorBits() : int64_t(vectorBits);
      const StringRef cpu = target ? target.getCpu() : StringRef();
      const int64_t registers = target ? target.getVectorRegisters() : vectorRegisters(bits, cpu);
      kernel.setScheduleAttr(defaultSchedule(kernel.getProblem(), bits, registers, cpu));
    });
  }
};

}  // namespace

std::unique_ptr<Pass> createAttachSchedulePass() { return std::make_unique<AttachSchedulePass>(); }

}  // namespace mlir::gdr
