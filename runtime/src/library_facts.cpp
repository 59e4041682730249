#include "library_facts.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
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
  // writer; O_NONBLOCK opens one at once), a device, or more bytes than a
  // kernel library has (what the file reads, not what stat says: a
  // /proc file says 0).
  auto refused = [&](const std::string& why) { return Status::error("cannot load kernel library " + path + ": " + why); };
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return refused(std::strerror(errno));
  std::vector<char> file;
  std::string why;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    why = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
  } else if (st.st_size > kMostLibraryBytes) {
    why = std::to_string(st.st_size) + " bytes, more than any kernel library (" + std::to_string(kMostLibraryBytes) + ")";
  } else {
    file.resize(static_cast<size_t>(st.st_size) + 1);  // one more: whether it reads more than it says
    size_t got = 0;
    for (;;) {
      if (got == file.size()) {
        if (got > static_cast<size_t>(kMostLibraryBytes)) break;
        file.resize(std::min<size_t>(2 * got, kMostLibraryBytes + 1));
      }
      const ssize_t n = read(fd, file.data() + got, file.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        why = std::strerror(errno);
        break;
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    file.resize(got);
    if (why.empty() && got > static_cast<size_t>(kMostLibraryBytes))
      why = "reads more bytes than any kernel library has (" + std::to_string(kMostLibraryBytes) + ")";
  }
  close(fd);
  if (!why.empty()) return refused(why);
  if (Status s = parse_library_facts(path, file, symbols, facts); !s) return s;
  facts->file = st;
  return Status::success();
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
  // The first dynamic symbol table (an ELF file has at most one), read no
  // further than the file holds whatever its header claims; a name is
  // looked at no further than the longest asked for. Linear in the file: a
  // header claiming 2^40 bytes had this run for minutes.
  size_t longest = 0;
  for (const std::string& s : symbols) longest = std::max(longest, s.size());
  const auto symtab = std::find_if(sections.begin(), sections.end(),
                                   [](const Elf64_Shdr& s) { return s.sh_type == SHT_DYNSYM; });
  if (symtab != sections.end() && symtab->sh_link < sections.size() && symtab->sh_offset <= file.size() &&
      sections[symtab->sh_link].sh_offset <= file.size()) {
    const Elf64_Shdr& strtab = sections[symtab->sh_link];
    const uint64_t symbols_bytes = std::min<uint64_t>(symtab->sh_size, file.size() - symtab->sh_offset);
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= symbols_bytes; at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      if (!read_at(file, symtab->sh_offset + at, &sym) || sym.st_shndx == SHN_UNDEF ||
          sym.st_shndx >= sections.size() || sym.st_name >= strtab.sh_size)
        continue;
      const uint64_t name_at = strtab.sh_offset + sym.st_name;
      if (name_at >= file.size()) continue;
      const char* name_start = file.data() + name_at;
      const size_t room = std::min<uint64_t>({strtab.sh_size - sym.st_name, file.size() - name_at, longest + 1});
      const char* name_end = static_cast<const char*>(std::memchr(name_start, '\0', room));
      if (!name_end) continue;  // longer than any asked for, or unterminated
      const std::string_view name(name_start, static_cast<size_t>(name_end - name_start));
      const auto asked = std::find(symbols.begin(), symbols.end(), name);
      if (asked == symbols.end()) continue;
      std::string& bytes = read.symbols[*asked];
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
  return Status::success();
}

}  // namespace gdr
