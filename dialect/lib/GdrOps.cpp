// gdr.kernel: checks that the schedule fits the problem and the target.
#include <mlir/IR/Builders.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/OpImplementation.h>

#include "gdr/Dialect/GdrDialect.h"
#include "gdr/Dialect/Limits.h"

using namespace mlir;
using namespace mlir::gdr;

LogicalResult mlir::gdr::verifyKernel(KernelOp op) {
  // A kernel is a module's symbol (no parent: a file's top level, verified
  // before it is put in a module); gdr-lower-recurrent takes only those of
  // the module it runs on.
  if (Operation* parent = op->getParentOp(); parent && !isa<ModuleOp>(parent))
    return op.emitOpError() << "must be in a module, not in '" << parent->getName() << "'";
  ScheduleAttr schedule = op.getScheduleAttr();
  TargetAttr target = op.getTargetAttr();
  if (!schedule) return success();
  if (target && schedule.getVectorWidth() * 32 > target.getVectorBits())
    return op.emitOpError() << "schedule 'vector_width' = " << schedule.getVectorWidth()
                            << " needs " << schedule.getVectorWidth() * 32
                            << "-bit vectors but target '" << target.getCpu() << "' has "
                            << target.getVectorBits();
  const int64_t accumulators =
      schedule.getVTile() / schedule.getVectorWidth() * (1 + op.getProblem().getReadouts());
  if (op.getProblem().getRoute() == "recurrent" && accumulators > kMaxSweepAccumulators)
    return op.emitOpError() << "schedule 'v_tile' = " << schedule.getVTile() << " needs "
                            << accumulators << " accumulators with readouts = "
                            << op.getProblem().getReadouts() << ", more than the "
                            << kMaxSweepAccumulators << " vector registers";
  const int64_t k = op.getProblem().getK(), width = schedule.getVectorWidth();
  if (op.getProblem().getRoute() == "recurrent" && (k + width - 1) / width > kMaxRecurrentRowVectors)
    return op.emitOpError() << "schedule 'vector_width' = " << width << " is too narrow for k = " << k
                            << ": the recurrent route unrolls k / vector_width = " << (k + width - 1) / width
                            << " vectors a row, at most " << kMaxRecurrentRowVectors << " (vector_width >= "
                            << (k + kMaxRecurrentRowVectors - 1) / kMaxRecurrentRowVectors << ")";
  if (schedule.getUnroll() > op.getProblem().getK())
    return op.emitOpError() << "schedule 'unroll' = " << schedule.getUnroll()
                            << " exceeds the problem's k = " << op.getProblem().getK();
  return success();
}

#define GET_OP_CLASSES
#include "gdr/Dialect/GdrOps.cpp.inc"
