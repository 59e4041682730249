// Loads kernel libraries (gdr-compile --shared 1) with gdr::load_kernel and
// runs each through check_kernel: `load_kernels LIBRARY SYMBOL...`. Prints
// "loaded kernels: ok" when all load and are within the contract; a library
// the loader refuses prints its message and exits 3; a wrong result exits 1.
#include <cstdio>

#include "check_kernel.h"
#include "gdr/kernel_info.h"
#include "gdr/loader.h"

int main(int argc, char** argv) {
  int failures = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    gdr::Kernel kernel;
    if (gdr::Status s = gdr::load_kernel(argv[i], argv[i + 1], &kernel); !s) {
      std::printf("refused: %s\n", s.message().c_str());
      return 3;
    }
    failures += check_kernel(kernel, 0);
  }
  std::printf(failures ? "loaded kernels: %d FAILED\n" : "loaded kernels: ok\n", failures);
  return failures ? 1 : 0;
}
