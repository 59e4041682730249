// Whole-file writes that readers and other writers never see half done: the
// kernel cache's entries and the tuning database.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gdr::compiler {

// Writes the concatenation of `parts` to `path`: a temporary file
// `<path>.tmp.<64 random bits>` in the same folder (created exclusively, mode
// 0644 less the umask), then renamed over `path`, so a reader sees the old
// file or the whole new one and concurrent writers never share a temporary
// name (random rather than PID: PIDs repeat across containers). No fsync: a
// file torn by a crash is for the reader to detect. "" on success, else why
// (the temporary removed). The folder must exist.
std::string write_file_atomically(const std::string& path, const std::vector<std::string_view>& parts);

// Deletes the temporary files of write_file_atomically for files whose name
// ends in `ending` (`*<ending>.tmp.*`) in `dir` that are older than an hour:
// a writer takes seconds between creating and renaming, so an older one
// belongs to a process that died in between. Once per (dir, ending) and
// process.
void sweep_stale_temporaries_once(const std::string& dir, const std::string& ending);

}  // namespace gdr::compiler
