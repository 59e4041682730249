#include "gdr/compiler/cpu_features.h"

#include <llvm/ADT/Triple.h>

#include <utility>
#include <vector>

namespace gdr::compiler {

std::string required_cpu_features(const Target& target) {
  const llvm::Triple triple(llvm::Triple::normalize(target.triple));
  // The loader's name and LLVM's feature for each.
  std::vector<std::pair<const char*, const char*>> names;
  if (triple.isX86())
    names = {{"sse4.1", "+sse4.1"},     {"sse4.2", "+sse4.2"},     {"avx", "+avx"},
             {"avx2", "+avx2"},         {"fma", "+fma"},           {"f16c", "+f16c"},
             {"avx512f", "+avx512f"},   {"avx512cd", "+avx512cd"}, {"avx512vl", "+avx512vl"},
             {"avx512bw", "+avx512bw"}, {"avx512dq", "+avx512dq"}};
  else if (triple.getArch() == llvm::Triple::aarch64)
    names = {{"asimd", "+neon"}, {"dotprod", "+dotprod"}, {"fp16", "+fullfp16"}};
  std::string text;
  for (const auto& [name, feature] : names)
    if (target_has_features(target, feature)) text += std::string(text.empty() ? "" : ",") + name;
  return text;
}

}  // namespace gdr::compiler
