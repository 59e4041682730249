// gdr-compile's target flags resolved to one Target, for both routes:
// --target (host, a named level, a CPU name or an LLVM triple), with
// --triple, --cpu and --features as LLVM takes them.
#pragma once

#include <string>

#include "gdr/compiler/target.h"
#include "gdr/status.h"

namespace gdr::compiler {

struct TargetFlags {
  std::string target;  // --target: "" or "host", x86-64-v2|v3|v4, aarch64, a CPU name, a triple
  std::string triple, cpu, features;  // --triple, --cpu, --features
};

// The named targets --target takes besides host, CPU names and triples.
// x86-64-vN are LLVM's x86-64 levels (x86_64-pc-linux-gnu); aarch64 is
// generic ARMv8-A with NEON (aarch64-linux-gnu).
inline constexpr const char* kNamedTargets[] = {"x86-64-v2", "x86-64-v3", "x86-64-v4", "aarch64"};

// The Target `flags` name: --target NAME alone, or with --features (and,
// for a triple, --cpu); --triple/--cpu/--features as target_for takes them.
// A CPU name (haswell, cortex-a76, neoverse-n1) picks its architecture's
// triple. An error message starts with the flag at fault: --target and
// --triple together, a --cpu besides a --target that names one, an
// unknown target, triple or CPU.
Status resolve_target(const TargetFlags& flags, Target* target);

}  // namespace gdr::compiler
