#include "cpu_features.h"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

namespace gdr {

namespace {

// 1 has it, 0 lacks it, -1 unknown name.
int has_feature(const std::string& f) {
#if defined(__x86_64__)
  // __builtin_cpu_supports needs literal names (and checks that the OS saves
  // the wider registers) and returns any non-zero value for yes (GCC: the
  // feature's bit); clang 14 has no "f16c": CPUID.1:ECX bit 29, with AVX.
  if (f == "sse4.1") return __builtin_cpu_supports("sse4.1") != 0;
  if (f == "sse4.2") return __builtin_cpu_supports("sse4.2") != 0;
  if (f == "avx") return __builtin_cpu_supports("avx") != 0;
  if (f == "avx2") return __builtin_cpu_supports("avx2") != 0;
  if (f == "fma") return __builtin_cpu_supports("fma") != 0;
  if (f == "avx512f") return __builtin_cpu_supports("avx512f") != 0;
  if (f == "avx512cd") return __builtin_cpu_supports("avx512cd") != 0;
  if (f == "avx512vl") return __builtin_cpu_supports("avx512vl") != 0;
  if (f == "avx512bw") return __builtin_cpu_supports("avx512bw") != 0;
  if (f == "avx512dq") return __builtin_cpu_supports("avx512dq") != 0;
  if (f == "f16c") {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __builtin_cpu_supports("avx") != 0 && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
  }
  if (f == "asimd" || f == "dotprod" || f == "fp16") return 0;  // aarch64's
#elif defined(__aarch64__)
  const unsigned long hwcap = getauxval(AT_HWCAP);
  if (f == "asimd") return (hwcap & HWCAP_ASIMD) != 0;
  if (f == "dotprod") return (hwcap & HWCAP_ASIMDDP) != 0;
  if (f == "fp16") return (hwcap & HWCAP_FPHP) != 0 && (hwcap & HWCAP_ASIMDHP) != 0;
  for (const char* x86 : {"sse4.1", "sse4.2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512cd", "avx512vl",
                          "avx512bw", "avx512dq"})
    if (f == x86) return 0;
#endif
  return -1;
}

}  // namespace

std::string first_missing_cpu_feature(const std::string& features, bool* unknown) {
  *unknown = false;
  size_t begin = 0;
  while (begin < features.size()) {
    size_t end = features.find(',', begin);
    if (end == std::string::npos) end = features.size();
    const std::string f = features.substr(begin, end - begin);
    begin = end + 1;
    if (f.empty()) continue;
    const int has = has_feature(f);
    if (has == 1) continue;
    *unknown = has < 0;
    return f;
  }
  return "";
}

}  // namespace gdr
