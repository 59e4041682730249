// A scratch file of the compiler's own (an object between Halide or LLVM
// and the linker): created beside a path, removed when it goes away, and by
// a signal that ends the process (as staged outputs' temporaries are).
#pragma once

#include <string>

#include "gdr/status.h"

namespace gdr::support {

class ScratchFile {
 public:
  // Creates `near` + ".XXXXXX" + `suffix` (mkstemps), empty, mode 0600.
  ScratchFile(const std::string& near, const std::string& suffix);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const Status& status() const { return status_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int live_slot_ = -1;  // where a signal's handler finds it
  Status status_ = Status::success();
};

}  // namespace gdr::support
