// The process-wide JIT (ORC LLJIT) that owns every generated kernel's code.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gdr/status.h"

namespace gdr::compiler {

// Links `object` into the JIT as a library named `library` that objects
// loaded later can link against (e.g. the Halide runtime), and checks it by
// looking up `probe_symbol`, whose address goes to *probe_address if given.
// A second call with a loaded name does nothing (and gives no address).
// Thread-safe.
Status jit_add_library(const std::string& library, const std::vector<char>& object,
                       const std::string& probe_symbol, void** probe_address = nullptr);

// Whether a loaded object's `addresses` (of its symbols, in order) hold
// what its user needs; an error refuses the object.
using AcceptLoaded = std::function<Status(const std::vector<void*>& addresses)>;

// Links `object` into the JIT and returns the addresses of `symbols` in it
// (the first names the object in messages). Its undefined symbols resolve
// against the library `link_with` (if not empty) and then the process.
// Thread-safe; the code stays loaded until the process exits. An object that
// fails, lacks one of the symbols or that `accept` (if given) refuses is
// unloaded again.
Status jit_load_object(const std::vector<char>& object, const std::vector<std::string>& symbols,
                       std::vector<void*>* addresses, const std::string& link_with = "",
                       const AcceptLoaded& accept = nullptr);
// The same for one symbol.
Status jit_load_object(const std::vector<char>& object, const std::string& symbol, void** address,
                       const std::string& link_with = "");

// How many objects jit_load_object holds loaded, for tests.
int64_t jit_loaded_objects();

// Whether `address` lies in the one region of address space the JIT maps
// every object's sections in (so that their 32-bit PC-relative references
// to each other reach: compiler/src/jit_memory.h), for tests.
bool jit_region_holds(const void* address);
// The region's size: 0 until the first object is loaded, then 1 GiB, or
// less where the address space is limited (32 MiB at least), for tests.
size_t jit_region_bytes();

}  // namespace gdr::compiler
