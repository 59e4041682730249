// dlopen of the kernel library the loader checked, not of another file put
// at its path since: dlopen runs a library's initialisers, so the file it
// opens must be the one whose bytes were read and judged.
#pragma once

#include <sys/stat.h>

#include <string>

namespace gdr {

// Why a library is refused when dlopen gives back one loaded before from
// the same path string (it does, whatever file is there now).
extern const char kStaleLibrary[];

// dlopen(path) if `path` still names the file `checked` describes (fstat as
// it was read) unchanged: the same device and inode, size and modification
// time; and if what dlopen gives back is not a library this function
// loaded before from another file (kStaleLibrary). Else, or if dlopen
// fails, null and `*why`. (A replacement in the moment between this check
// and dlopen's own open is not seen.)
void* dlopen_checked_file(const struct stat& checked, const std::string& path, std::string* why);

}  // namespace gdr
