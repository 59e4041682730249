// Whole-file writes that readers and other writers never see half done: the
// kernel cache's entries, the tuning database, the tools' outputs.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gdr::support {

// Creates `<path>.tmp.<64 random bits>` exclusively (O_CREAT | O_EXCL |
// O_NOFOLLOW: a planted file or symlink of that name is never opened), mode
// `mode` less the umask, and returns its descriptor (-1 with errno set).
// Random rather than PID: PIDs repeat across containers, and a fixed name
// would let two writers, or a writer and an input of that name, collide.
int create_temporary(const std::string& path, int mode, std::string* temporary);

// A fresh name of that form (`<path>.tmp.<64 random bits>`), not created.
std::string temporary_name(const std::string& path);

// Writes all of `data` to `fd`: "" or why not. A write() that writes nothing
// sets no errno, so it is reported as a short write, not with a stale errno.
std::string write_all(int fd, std::string_view data);

// Writes the concatenation of `parts` to `path`: a temporary file
// (create_temporary) in the same folder, then renamed over `path`, so a
// reader sees the old file or the whole new one. No fsync: a file torn by a
// crash is for the reader to detect. "" on success, else why (the temporary
// removed). The folder must exist.
std::string write_file_atomically(const std::string& path, const std::vector<std::string_view>& parts,
                                  int mode = 0666);

// Whether `text` is lowercase hexadecimal digits only (the random parts of
// the names gdr gives its files).
bool is_lower_hex(std::string_view text);

// Whether the file name `name` is `<target>.tmp.<64 random bits>`, a name
// create_temporary gives a temporary for a file named `target`.
bool is_temporary_of(std::string_view name, std::string_view target);

// Deletes the files in `dir` older than an hour whose names `is_temporary`
// accepts: a writer takes seconds between creating and renaming, so an
// older temporary belongs to a process that died in between. The names
// must be gdr's own (is_temporary_of a file gdr writes there): a user's
// folder holds the user's files too. Once per (dir, kind) and process.
void sweep_stale_temporaries_once(const std::string& dir, const std::string& kind,
                                  const std::function<bool(const std::string& name)>& is_temporary);

}  // namespace gdr::support
