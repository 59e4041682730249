// dlopen of the kernel library the loader checked, not of another file put
// at its path since: dlopen runs a library's initialisers, so the file it
// opens must be the one whose bytes were read and judged.
#pragma once

#include <sys/stat.h>

#include <string>

namespace gdr {

// dlopen(path) if `path` still names the file `checked` describes (fstat as
// it was read) unchanged: the same device and inode, size and modification
// time. Else, or if dlopen fails, null and `*why`. (A replacement in the
// moment between this check and dlopen's own open is not seen.)
void* dlopen_checked_file(const struct stat& checked, const std::string& path, std::string* why);

}  // namespace gdr
