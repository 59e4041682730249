// Whether gdr may trust what it finds on disk: code it executes (the kernel
// cache) and the records that choose it (the tuning database). As OpenSSH
// and git judge such files, ownership is the security boundary: a folder
// or file another user can write, or a file another user owns, is not
// used. The entries' checksums only catch damage; anyone who can write a
// file can recompute them.
#pragma once

#include <sys/stat.h>

#include <string>

#include "gdr/status.h"

namespace gdr::support {

// "" if `dir` is a folder owned by the effective user and writable by
// neither its group nor others, else why not ("is owned by uid 12345, not
// by this user (uid 0)", "is writable by others (mode 1777)", ...).
std::string why_folder_untrusted(const std::string& dir);

// "" if `info` (fstat of an open file) is owned by the effective user and
// writable by neither its group nor others, else why not ("is writable by
// others (mode 0666)", ...).
std::string why_file_untrusted(const struct stat& info);

// Creates `dir` and its missing parents with mode 0700, so that whatever the
// umask, the folders gdr creates pass why_folder_untrusted. Existing folders
// are left as they are; a missing one is created only in a folder of the
// effective user's or a sticky one such as /tmp, never in another user's.
Status create_private_folders(const std::string& dir);

}  // namespace gdr::support
