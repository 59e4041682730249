#include "gdr/compiler/halide_target.h"

#include <Halide.h>
#include <llvm/ADT/Triple.h>

#include <utility>
#include <vector>

namespace gdr::compiler {

Status halide_target_string(const Target& target, std::string* halide_target) {
  const llvm::Triple triple(llvm::Triple::normalize(target.triple));
  std::string os;
  if (triple.isOSLinux()) os = "linux";
  else if (triple.isOSDarwin()) os = "osx";
  else if (triple.isOSWindows()) os = "windows";
  else return Status::error("no Halide target for the OS of " + target.triple);
  // Halide's feature for each LLVM feature set the CPU must have.
  std::vector<std::pair<const char*, const char*>> features;
  std::string text;
  if (triple.getArch() == llvm::Triple::x86_64) {
    text = "x86-64-" + os;
    features = {{"sse41", "+sse4.1"},
                {"avx", "+avx"},
                {"avx2", "+avx2"},
                {"fma", "+fma"},
                {"f16c", "+f16c"},
                {"avx512", "+avx512f,+avx512cd"},
                {"avx512_skylake", "+avx512f,+avx512cd,+avx512vl,+avx512bw,+avx512dq"}};
  } else if (triple.getArch() == llvm::Triple::aarch64) {
    text = "arm-64-" + os;
    features = {{"arm_dot_prod", "+dotprod"}, {"arm_fp16", "+fullfp16"}};
  } else {
    return Status::error("no Halide target for the architecture of " + target.triple +
                         " (x86-64 and aarch64 are mapped)");
  }
  for (const auto& [halide, llvm_features] : features)
    if (target_has_features(target, llvm_features)) text += std::string("-") + halide;
  if (!Halide::Target::validate_target_string(text))
    return Status::error("Halide does not take the target " + text);
  *halide_target = Halide::Target(text).to_string();  // Halide's order of features
  return Status::success();
}

}  // namespace gdr::compiler
