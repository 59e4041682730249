// The output files of one command, written all or nothing. Each output is
// checked before any work is done (a path that names a folder, a missing
// folder, two outputs that are one file), written to its own temporary file
// next to it, and renamed into place only when every output is complete; a
// failure, or an uncommitted set going out of scope, leaves every file that
// existed before exactly as it was and no temporary behind; so does a signal
// that ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, where the program
// left their default action), whose handler deletes the live temporaries
// (held back, on whichever thread it reaches, while a temporary is created
// and while commit() renames: it ends the process after).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gdr/status.h"

namespace gdr::support {

// True when `a` and `b` name one file: the same device and inode when both
// exist (through symbolic links), else the same normalised absolute path.
bool same_file(const std::string& a, const std::string& b);

class StagedOutputs {
 public:
  StagedOutputs() = default;
  StagedOutputs(const StagedOutputs&) = delete;
  StagedOutputs& operator=(const StagedOutputs&) = delete;
  ~StagedOutputs();

  // Adds `path` (named `what` in errors, e.g. "--out o.npy") and creates its
  // temporary. Refuses an empty path, a path ending in '/', an existing
  // folder or other non-regular file, a folder that does not exist or
  // cannot be written, and a path that is the same file as an output added
  // before. Returns the output's index.
  Status add(const std::string& what, const std::string& path, size_t* index = nullptr);

  // The temporary file to write output `i` to (for writers that take a
  // path, such as Halide or a linker), or write it here.
  const std::string& temporary(size_t i) const { return outputs_[i].temporary; }
  Status write(size_t i, const std::vector<std::string_view>& parts);

  // Renames every temporary over its path. If a rename fails, the outputs
  // renamed before it are put back: the same file (a hard link taken before
  // the first rename), or, where the file system gives no more links, a
  // copy of its bytes and permissions (another inode).
  Status commit();

  // Removes the temporaries now, as going out of scope uncommitted does:
  // for a program about to end through std::exit, which destroys no local.
  void abandon();

 private:
  struct Output {
    std::string what, path, temporary;
    int live_slot;  // where a signal's handler finds the temporary (-1: nowhere)
    int mode;       // the permissions of the file it replaces (-1: none existed)
  };
  void remove_temporaries();
  void forget_temporaries();  // no longer the signal handler's to delete

  std::vector<Output> outputs_;
  bool committed_ = false;
};

}  // namespace gdr::support
