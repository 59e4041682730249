#include "check_kernel.h"

#include <cstdio>
#include <string>

#include "gdr/reference/reference.h"

namespace {

gdr::Tensors tensors_of(gdr::test::Problem& p) {
  gdr::Tensors t;
  t.query = p.query.data();
  t.key = p.key.data();
  t.value = p.value.data();
  t.decay = p.decay.data();
  t.beta = p.beta.data();
  t.initial_state = p.initial_state.data();
  t.out = p.out.data();
  t.final_state = p.final_state.data();
  t.B = p.B;
  t.H = p.H;
  t.T = p.T;
  t.K = p.K;
  t.V = p.V;
  return t;
}

}  // namespace

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
            measure_accuracy(p, [&](const gdr::Tensors&) { return gdr::execute(kernel, tensors_of(p), o); }, &a);
        ++cases;
        if (!st || !a.within_contract()) {
          ++failures;
          std::printf("  FAILED %s B=%lld H=%lld T=%lld decay %d parts %d: %s error %.3g (float32 %.3g)\n",
                      kernel.name.c_str(), (long long)s.B, (long long)s.H, (long long)s.T,
                      static_cast<int>(d), parts, st ? "ok" : st.message().c_str(), a.error,
                      a.yardstick_error);
        }
      }
  const std::string vectors = vector_bits > 0 ? ", " + std::to_string(vector_bits) + "-bit vectors" : "";
  std::printf("%s: K=%lld V=%lld%s: %d of %d cases within the contract\n", kernel.name.c_str(),
              (long long)kernel.K, (long long)kernel.V, vectors.c_str(), cases - failures, cases);
  return failures;
}

