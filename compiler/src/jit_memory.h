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
// region of 1 GiB, never moved or returned to the system; allocations past
// it fail (ENOMEM) instead of mapping elsewhere. jit_region_holds
// (gdr/compiler/jit.h) tells whether an address lies in it.
llvm::SectionMemoryManager::MemoryMapper& jit_memory();

}  // namespace gdr::compiler
