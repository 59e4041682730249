// Runs every kernel gdr-compile wrote for this machine (kernels.h, generated
// by the project) through gdr::execute over several shapes, decays and
// column splits, and checks each result against the float64 reference
// computed here (the contract's bars, gdr/reference/reference.h). Prints one
// line per kernel and "foreign kernels: ok" when every case is within the
// contract; exits 1 otherwise.
#include <cstdio>
#include <string>

#include "gdr/kernel_info.h"
#include "gdr/reference/reference.h"
#include "gdr/runtime.h"
#include "kernels.h"

namespace {

struct Entry {
  const char* name;
  gdr_kernel_fn fn;
  const int64_t* info;
};

#define GDR_FOREIGN_KERNEL(name) Entry{#name, &name, name##_info},
const Entry kKernels[] = {GDR_FOREIGN_KERNELS};

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

// Runs `kernel` on every case; the number of cases outside the contract.
int check(const gdr::Kernel& kernel, int64_t vector_bits) {
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
  std::printf("%s: K=%lld V=%lld, %lld-bit vectors: %d of %d cases within the contract\n",
              kernel.name.c_str(), (long long)kernel.K, (long long)kernel.V, (long long)vector_bits,
              cases - failures, cases);
  return failures;
}

}  // namespace

int main() {
  int failures = 0;
  for (const Entry& e : kKernels) {
    gdr::KernelInfo info;
    if (gdr::Status s = gdr::read_kernel_info(e.name, e.info, &info); !s) {
      std::printf("%s\n", s.message().c_str());
      ++failures;
      continue;
    }
    failures += check(gdr::kernel_from_info(e.name, e.fn, info), info.vector_bits);
  }
  std::printf(failures ? "foreign kernels: %d FAILED\n" : "foreign kernels: ok\n", failures);
  return failures ? 1 : 0;
}
