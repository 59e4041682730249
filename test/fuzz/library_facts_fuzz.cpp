// Fuzzes the loader's reading of a kernel library's ELF header and dynamic
// symbol table, which runs on any file a program is given, before dlopen:
// it must refuse or read, within the file's bytes, in time linear in them
// (one symbol table, each name looked at no further than the longest asked
// for).
#include <cstdint>
#include <string>
#include <vector>

#include "library_facts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t n) {
  const std::vector<char> file(bytes, bytes + n);
  gdr::LibraryFacts facts;
  // The fake kernel library's symbols (the seed corpus), so that the
  // fuzzer reaches the code that copies a symbol's bytes.
  (void)gdr::parse_library_facts("fuzzed.so", file,
                                 {"gdr_fake_kernel", "gdr_fake_kernel_info", "gdr_fake_kernel_cpu_features"},
                                 &facts);
  return 0;
}
