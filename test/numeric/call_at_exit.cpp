// A call made while the process exits (a global's destructor; in a
// program, also a detached thread still decoding): the routes' process-wide
// objects (the thread pool, the kernel caches) must still be there. They
// are never destroyed; destroyed at exit, they crashed this program (a
// review: SIGSEGV on the recurrent route, in the pool on the reference
// route); the recurrent kernel is compiled (or loaded from the disk
// cache) at exit too. Exits 0 when both routes' results are within the contract.
#include <unistd.h>

#include <cstdio>

#include "gdr/jit.h"
#include "gdr/reference/reference.h"

namespace {

// Constructed before main, so destroyed after everything main first used.
struct CallsAtExit {
  ~CallsAtExit() {
    for (gdr::Route route : {gdr::Route::Reference, gdr::Route::Recurrent}) {
      gdr::test::Problem p = gdr::test::make_problem(1, 4, 19, 24, 40);  // compiled at exit
      gdr::Options o;
      o.route = route;
      o.threads = 2;
      gdr::test::Accuracy a;
      const gdr::Status s = gdr::test::measure_accuracy(p, [&](const gdr::Tensors& t) { return gdr::run(t, o); }, &a);
      if (!s || !a.within_contract()) {
        std::fprintf(stderr, "call_at_exit: %s at exit: %s, error %g\n", gdr::route_name(route),
                     s ? "ran" : s.message().c_str(), a.error);
        ::_exit(1);
      }
    }
  }
} calls_at_exit;

}  // namespace

int main() {
  if (gdr::Status s = gdr::jit::install(); !s) {
    std::fprintf(stderr, "call_at_exit: %s\n", s.message().c_str());
    return 1;
  }
  // The same calls once before exit: the pool, the caches and the kernel exist.
  gdr::test::Problem p = gdr::test::make_problem(1, 4, 19, 32, 48);
  for (gdr::Route route : {gdr::Route::Reference, gdr::Route::Recurrent}) {
    gdr::Options o;
    o.route = route;
    o.threads = 2;
    if (gdr::Status s = gdr::run(p.tensors(), o); !s) return 1;
  }
  return 0;
}
