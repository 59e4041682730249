// What a kernel library says of itself before it is loaded: its ELF
// machine, and the string a symbol of its dynamic symbol table points at
// (`<name>_cpu_features`), read from the file without running any of it (a
// library for another CPU would run its initialisers and finalisers).
#pragma once

#include <cstdint>
#include <string>

#include "gdr/status.h"

namespace gdr {

struct LibraryFacts {
  uint16_t machine = 0;       // e_machine: 62 x86-64, 183 aarch64
  bool has_string = false;    // the symbol was found
  std::string string;         // its NUL-terminated text
};

// Reads `path` (a 64-bit little-endian ELF file); an error naming the file
// when it cannot be read or is no such file.
Status read_library_facts(const std::string& path, const std::string& string_symbol, LibraryFacts* facts);

// "x86-64", "aarch64", ... for an e_machine value.
std::string elf_machine_name(uint16_t machine);

// The e_machine of the code this runtime was built for.
uint16_t this_elf_machine();

}  // namespace gdr
