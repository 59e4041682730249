// Where the JIT puts the code and data of the objects it loads: one region
// of address space reserved up front, so that every 32-bit PC-relative
// reference between sections (x86-64's small code model: a kernel's
// constants) reaches. Sections mapped wherever the system puts them could
// land more than 2 GiB apart once a process had mapped a few GiB (a
// gdr-bench run over many shapes), and RuntimeDyld truncates such a
// relocation without a word: the kernel then read its constants from an
// unmapped address and crashed.
#pragma once

#include <llvm/ExecutionEngine/SectionMemoryManager.h>

namespace gdr::compiler {

// A SectionMemoryManager's mapper that carves blocks out of one reserved
// region (kJitRegionBytes, never moved or returned to the system).
llvm::SectionMemoryManager::MemoryMapper& jit_memory();

// The region's size; allocations past it fail (ENOMEM) instead of mapping
// elsewhere.
constexpr size_t kJitRegionBytes = size_t{1} << 30;

// Whether `address` lies in the region (false before its first block).
bool jit_memory_holds(const void* address);

}  // namespace gdr::compiler
