#include "halide_pipeline.h"

#include "gdr/Dialect/Limits.h"
#include "gdr/schedules/chunked_schedule.h"

namespace gdr::compiler {

Status build_pipeline(const ChunkedSpec& spec, const Halide::Target& target,
                      schedules::ChunkedAlgorithm& alg) {
  if (std::string why = spec.schedule.check(); !why.empty()) return Status::error(why);
  using mlir::gdr::kMaxHeadSize;
  if (spec.K <= 0 || spec.V <= 0 || spec.K > kMaxHeadSize || spec.V > kMaxHeadSize)
    return Status::error("chunked kernel: K and V must be in [1, 2^20], got K=" +
                         std::to_string(spec.K) + ", V=" + std::to_string(spec.V));
  using mlir::gdr::kMaxReadouts;
  if (spec.readouts < 1 || spec.readouts > kMaxReadouts)
    return Status::error("chunked kernel: readouts must be in [1, " + std::to_string(kMaxReadouts) +
                         "], got " + std::to_string(spec.readouts));
  schedules::define_chunked_algorithm(alg, static_cast<int>(spec.K), static_cast<int>(spec.V),
                                      spec.schedule.chunk, spec.decay == DecayKind::Scalar,
                                      static_cast<int>(spec.readouts));
  if (spec.scheduler == Scheduler::Hand) {
    schedules::apply_hand_schedule(alg, spec.schedule, target);
    return Status::success();
  }
  std::string error = schedules::apply_autoschedule(alg, target, GDR_ADAMS2019_PLUGIN);
  return error.empty() ? Status::success() : Status::error(error);
}

Status parse_target(const std::string& name, Halide::Target* target) {
  if (name == "host") {
    *target = Halide::get_host_target();
    return Status::success();
  }
  if (!Halide::Target::validate_target_string(name))
    return Status::error("unknown Halide target '" + name + "'");
  *target = Halide::Target(name);
  return Status::success();
}

Halide::Target kernel_target() {
  return Halide::get_host_target().with_feature(Halide::Target::NoRuntime);
}

}  // namespace gdr::compiler
