#include "check_kernel.h"

#include <cstdio>
#include <string>

#include "gdr/reference/reference.h"

int check_kernel(const gdr::Kernel& kernel, int64_t vector_bits) {
  using namespace gdr::test;
  struct Shape {
    int64_t B, H, T;
  };
  const Shape shapes[] = {{1, 1, 0}, {1, 2, 1}, {2, 3, 2}, {1, 2, 17}, {2, 1, 40}};
  int failures = 0, cases = 0;
  for (const Shape& s : shapes)
    for (DecayRegime d : {DecayRegime::Uniform, DecayRegime::Zeros, DecayRegime::One})
      for (int parts : {1, 3}) {
        Problem p = make_problem(s.B, s.H, s.T, kernel.K, kernel.V, {d, BetaRegime::Uniform, true, 7});
        gdr::Options o;
        o.threads = 2;
        o.column_parts = parts;
        Accuracy a;
        const gdr::Status st =
            measure_accuracy(p, [&](const gdr::Tensors&) { return gdr::execute(kernel, p.tensors(), o); }, &a);
        ++cases;
        if (!st || !a.within_contract()) {
          ++failures;
          std::printf("  FAILED %s B=%lld H=%lld T=%lld decay %d parts %d: %s error %.3g (float32 %.3g)\n",
                      kernel.name.c_str(), (long long)s.B, (long long)s.H, (long long)s.T,
                      static_cast<int>(d), parts, st ? "ok" : st.message().c_str(), a.error,
                      a.yardstick_error);
        }
      }
  // Token-major gives head-major's bits, across the token blocks' edges and
  // the last tokens a kernel runs as one group (2 to 4 on 32 registers).
  for (int64_t T : {66, 67, 68, 131}) {
    Problem head_major = make_problem(1, 2, T, kernel.K, kernel.V, {DecayRegime::Uniform, BetaRegime::Uniform, true, 9});
    Problem token_major = token_major_copy(head_major);
    gdr::Options o;
    o.threads = 2;
    const gdr::Status a = gdr::execute(kernel, head_major.tensors(), o), b = gdr::execute(kernel, token_major.tensors(), o);
    ++cases;
    const bool same = a && b && swap_heads_and_tokens(token_major.out, 1, 2, T, kernel.V, /*back=*/true) == head_major.out &&
                      token_major.final_state == head_major.final_state;
    if (!same) {
      ++failures;
      std::printf("  FAILED %s T=%lld: %s\n", kernel.name.c_str(), (long long)T,
                  !a ? a.message().c_str() : !b ? b.message().c_str() : "token-major does not give head-major's bits");
    }
  }
  const std::string vectors = vector_bits > 0 ? ", " + std::to_string(vector_bits) + "-bit vectors" : "";
  std::printf("%s: K=%lld V=%lld%s: %d of %d cases within the contract\n", kernel.name.c_str(),
              (long long)kernel.K, (long long)kernel.V, vectors.c_str(), cases - failures, cases);
  return failures;
}

