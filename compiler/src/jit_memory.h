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

#include <cstddef>

#include "gdr/status.h"

namespace gdr::compiler {

// A SectionMemoryManager's mapper that carves blocks out of one reserved
// region of 1 GiB (less where the address space is limited), never moved or
// returned to the system; allocations past it fail (ENOMEM) instead of
// mapping elsewhere. jit_region_holds (gdr/compiler/jit.h) tells whether an
// address lies in it.
llvm::SectionMemoryManager::MemoryMapper& jit_memory();

// Reserves the region (once) and checks that an object of `object_bytes`
// fits in what is left of it. Asked before every object the JIT loads:
// LLVM 14's RuntimeDyld ends the process when it cannot allocate a section
// ("LLVM ERROR: Unable to allocate section memory!") instead of failing.
Status jit_region_room(size_t object_bytes);

}  // namespace gdr::compiler
