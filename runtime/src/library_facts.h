// What a kernel library says of itself before it is loaded: its ELF
// machine, and the symbols of its dynamic symbol table it was asked for
// (the kernel's entry point, `<name>_info`, `<name>_cpu_features`) with
// their bytes, read from the file without running any of it: dlopen runs a
// library's initialisers, so a library that is not a kernel of gdr's, or is
// for another CPU, is refused before any of its code runs.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gdr/status.h"

namespace gdr {

struct LibraryFacts {
  struct stat file = {};  // the file as it was read (fstat): dlopen_checked_file loads it only
  uint16_t machine = 0;   // e_machine: 62 x86-64, 183 aarch64
  // Each symbol asked for that the library defines, with the file's bytes
  // its ELF size covers (to its section's end if it has no size; none if
  // its section has no bytes in the file).
  std::map<std::string, std::string> symbols;
};

// Reads `path` (a 64-bit little-endian ELF shared object); an error naming
// the file when it cannot be read or is no such file.
Status read_library_facts(const std::string& path, const std::vector<std::string>& symbols, LibraryFacts* facts);
// The same over the file's bytes (`path` for messages only).
Status parse_library_facts(const std::string& path, const std::vector<char>& file,
                           const std::vector<std::string>& symbols, LibraryFacts* facts);

// "x86-64", "aarch64", ... for an e_machine value.
std::string elf_machine_name(uint16_t machine);

// The e_machine of the code this runtime was built for.
uint16_t this_elf_machine();

}  // namespace gdr
