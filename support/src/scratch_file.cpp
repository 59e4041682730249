#include "gdr/support/scratch_file.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "live_temporaries.h"

namespace gdr::support {

ScratchFile::ScratchFile(const std::string& near, const std::string& suffix) {
  std::string pattern = near + ".XXXXXX" + suffix;
  const HoldEndingSignals hold;  // noted for the handler before a signal can end the process
  const int fd = ::mkstemps(pattern.data(), static_cast<int>(suffix.size()));
  if (fd < 0) {
    status_ = Status::error("cannot create a scratch file " + pattern + ": " + std::strerror(errno));
    return;
  }
  ::close(fd);
  path_ = pattern;
  live_slot_ = LiveTemporaries::instance().add(path_);
}

ScratchFile::~ScratchFile() {
  if (path_.empty()) return;
  std::remove(path_.c_str());
  LiveTemporaries::instance().remove(live_slot_);
}

}  // namespace gdr::support
