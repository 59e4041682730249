#include "gdr/compiler/object_kernel_info.h"

#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstdint>
#include <cstring>

namespace gdr::compiler {

Status object_info_table(const std::vector<char>& object, const std::string& name, std::vector<int64_t>* out) {
  const std::string symbol = name + "_info";
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(object.data(), object.size()), name));
  if (!file) return Status::error("cannot read the object of " + name + ": " + llvm::toString(file.takeError()));
  for (const llvm::object::SymbolRef& s : (*file)->symbols()) {
    auto sym_name = s.getName();
    if (!sym_name || *sym_name != symbol) {
      if (!sym_name) llvm::consumeError(sym_name.takeError());
      continue;
    }
    auto section = s.getSection();
    auto address = s.getAddress();
    if (!section || !address || *section == (*file)->section_end()) {
      if (!section) llvm::consumeError(section.takeError());
      if (!address) llvm::consumeError(address.takeError());
      return Status::error(symbol + " has no data in the object");
    }
    auto contents = (*section)->getContents();
    if (!contents) return Status::error(symbol + ": " + llvm::toString(contents.takeError()));
    // The table is constant data without relocations; its offset in the
    // section is its address less the section's (0 in a relocatable object).
    const uint64_t offset = *address - (*section)->getAddress();
    int64_t table[GDR_KERNEL_INFO_FIELDS];
    if (offset + sizeof table > contents->size())
      return Status::error(symbol + " is shorter than the kernel ABI's info table");
    std::memcpy(table, contents->data() + offset, sizeof table);
    out->assign(table, table + GDR_KERNEL_INFO_FIELDS);
    return Status::success();
  }
  return Status::error("the object of " + name + " has no " + symbol);
}

Status object_kernel_info(const std::vector<char>& object, const std::string& name, KernelInfo* info) {
  std::vector<int64_t> table;
  if (Status s = object_info_table(object, name, &table); !s) return s;
  return read_kernel_info(name, table.data(), info);
}

}  // namespace gdr::compiler
