#include "library_facts.h"

#include <elf.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace gdr {

namespace {

constexpr int64_t kMostLibraryBytes = int64_t{1} << 30;

template <typename T>
bool read_at(const std::vector<char>& file, uint64_t offset, T* out) {
  if (offset > file.size() || file.size() - offset < sizeof(T)) return false;
  std::memcpy(out, file.data() + offset, sizeof(T));
  return true;
}

}  // namespace

std::string elf_machine_name(uint16_t machine) {
  switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "x86 (32-bit)";
    case EM_ARM: return "arm (32-bit)";
    case EM_RISCV: return "riscv";
    case EM_PPC64: return "powerpc64";
    default: return "ELF machine " + std::to_string(machine);
  }
}

uint16_t this_elf_machine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#else
  return EM_NONE;  // not checked
#endif
}

Status read_library_facts(const std::string& path, const std::vector<std::string>& symbols, LibraryFacts* facts) {
  // Kernel libraries are small (a kernel, perhaps a Halide runtime: under
  // 1 MiB): read it whole, but not a FIFO (the read would wait for a
  // writer), a device or a file too big to be one.
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return Status::error("cannot load kernel library " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::error("cannot load kernel library " + path + ": not a regular file");
  if (st.st_size > kMostLibraryBytes)
    return Status::error("cannot load kernel library " + path + ": " + std::to_string(st.st_size) +
                         " bytes, more than any kernel library (" + std::to_string(kMostLibraryBytes) + ")");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error("cannot load kernel library " + path + ": " + std::strerror(errno));
  const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_library_facts(path, file, symbols, facts);
}

Status parse_library_facts(const std::string& path, const std::vector<char>& file,
                           const std::vector<std::string>& symbols, LibraryFacts* facts) {
  Elf64_Ehdr eh;
  if (!read_at(file, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return Status::error("cannot load kernel library " + path + ": not an ELF file");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return Status::error("cannot load kernel library " + path + ": not a 64-bit little-endian ELF file");
  if (eh.e_type != ET_DYN)
    return Status::error("cannot load kernel library " + path + ": not a shared object (ELF type " +
                         std::to_string(eh.e_type) + ")");
  LibraryFacts read;
  read.machine = eh.e_machine;
  // .dynsym and the string table it links to; a symbol's address mapped to
  // a file offset through the section that holds it.
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (uint16_t i = 0; i < eh.e_shnum; ++i)
    if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
        !read_at(file, eh.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr), &sections[i]))
      return Status::error("cannot load kernel library " + path + ": damaged ELF section table");
  for (const Elf64_Shdr& symtab : sections) {
    if (symtab.sh_type != SHT_DYNSYM || symtab.sh_link >= sections.size() || symtab.sh_offset > file.size())
      continue;
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    // The symbols the file holds, whatever size the section claims (a
    // damaged one claiming 2^40 bytes had this loop run for minutes).
    const uint64_t symbols_bytes = std::min<uint64_t>(symtab.sh_size, file.size() - symtab.sh_offset);
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= symbols_bytes; at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      if (!read_at(file, symtab.sh_offset + at, &sym) || sym.st_shndx == SHN_UNDEF ||
          sym.st_shndx >= sections.size() || sym.st_name >= strtab.sh_size)
        continue;
      const uint64_t name_at = strtab.sh_offset + sym.st_name;
      if (name_at >= file.size()) continue;
      const std::string name(file.data() + name_at, strnlen(file.data() + name_at, file.size() - name_at));
      if (std::find(symbols.begin(), symbols.end(), name) == symbols.end()) continue;
      std::string& bytes = read.symbols[name];
      const Elf64_Shdr& holder = sections[sym.st_shndx];
      if (holder.sh_type == SHT_NOBITS || sym.st_value < holder.sh_addr) continue;
      const uint64_t in_section = sym.st_value - holder.sh_addr;
      if (in_section >= holder.sh_size) continue;
      const uint64_t offset = holder.sh_offset + in_section;
      const uint64_t to_end = holder.sh_size - in_section;
      const uint64_t size = sym.st_size > 0 ? std::min(sym.st_size, to_end) : to_end;
      if (offset >= file.size()) continue;
      bytes.assign(file.data() + offset, std::min<uint64_t>(size, file.size() - offset));
    }
  }
  *facts = read;
  return Status::ok();
}

}  // namespace gdr
