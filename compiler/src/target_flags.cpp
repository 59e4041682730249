#include "gdr/compiler/target_flags.h"

namespace gdr::compiler {

namespace {

// The triples CPU names and levels are built for.
constexpr const char kX86Triple[] = "x86_64-pc-linux-gnu";
constexpr const char kAArch64Triple[] = "aarch64-linux-gnu";

Status with_flag(const char* flag, Status s) {
  return s ? s : Status::error(std::string(flag) + ": " + s.message());
}

// target_for(triple, cpu, ...)'s error named by the flag the user gave: the
// CPU's if one was given, else the triple's (whose generic CPU it is).
Status cpu_or_triple(const char* triple_flag, const std::string& cpu, Status s) {
  return with_flag(cpu.empty() ? triple_flag : "--cpu", s);
}

// --features checked for `triple` (known to LLVM; "" is the host's).
Status check_features(const TargetFlags& f, const std::string& triple) {
  if (f.features.empty()) return Status::success();
  const std::string why = why_features_bad(triple.empty() ? host_target().triple : triple, f.features);
  return why.empty() ? Status::success() : Status::error("--features: " + why);
}

}  // namespace

Status resolve_target(const TargetFlags& f, Target* target) {
  if (f.target.empty() || (f.target == "host" && f.cpu.empty() && f.triple.empty())) {
    if (!f.triple.empty())
      for (const std::string& why : {why_triple_unknown(f.triple), why_triple_not_served(f.triple)})
        if (!why.empty()) return Status::error("--triple: " + why);
    if (Status s = check_features(f, f.triple); !s) return s;
    return cpu_or_triple("--triple", f.cpu, target_for(f.triple, f.cpu, f.features, target));
  }
  if (!f.triple.empty()) return Status::error("--triple: give --target or --triple, not both");
  if (f.target == "host") return Status::error("--cpu: --target host is this CPU; give a triple with --cpu");
  // A level or a CPU name names the CPU: --cpu besides it is a contradiction.
  std::string triple, cpu;
  if (f.target == "aarch64") {
    triple = kAArch64Triple;
    cpu = "generic";
  } else if (f.target.rfind("x86-64-v", 0) == 0 || why_cpu_unknown(kX86Triple, f.target).empty()) {
    triple = kX86Triple;
    cpu = f.target;
  } else if (why_cpu_unknown(kAArch64Triple, f.target).empty()) {
    triple = kAArch64Triple;
    cpu = f.target;
  }
  if (!cpu.empty()) {
    if (!f.cpu.empty())
      return Status::error("--cpu: --target " + f.target + " already names the CPU; drop --cpu or give a triple");
    if (std::string why = why_cpu_unknown(triple, cpu); !why.empty()) return Status::error("--target: " + why);
    if (Status s = check_features(f, triple); !s) return s;
    return with_flag("--target", target_for(triple, cpu, f.features, target));
  }
  // Else an LLVM triple (with --cpu and --features, its generic CPU without).
  if (f.target.find('-') == std::string::npos || !why_triple_unknown(f.target).empty()) {
    std::string names;
    for (const char* n : kNamedTargets) names += std::string(names.empty() ? "" : ", ") + n;
    return Status::error("--target: unknown target '" + f.target + "' (host, " + names +
                         ", an x86-64 or aarch64 CPU name such as haswell or cortex-a76, or an LLVM "
                         "triple such as aarch64-linux-gnu)");
  }
  if (std::string why = why_triple_not_served(f.target); !why.empty()) return Status::error("--target: " + why);
  if (Status s = check_features(f, f.target); !s) return s;
  return cpu_or_triple("--target", f.cpu, target_for(f.target, f.cpu, f.features, target));
}

}  // namespace gdr::compiler
