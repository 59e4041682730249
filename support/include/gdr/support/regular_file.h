// Reading only regular files, only as much as they hold. A FIFO would block
// a reader forever and a device (/dev/zero) never ends, so the cache, the
// tuning database and the tools' inputs open files through this.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "gdr/status.h"

namespace gdr::support {

class RegularFile {
 public:
  enum class Links { Follow, Refuse };

  // Opens `path` read-only without blocking (O_NONBLOCK, so a FIFO cannot
  // stall the open) and refuses anything that is not a regular file, and a
  // symbolic link with Links::Refuse. The message says what the file is.
  static Status open(const std::string& path, RegularFile* file, Links links = Links::Follow);

  RegularFile() = default;
  RegularFile(RegularFile&& other) noexcept;
  RegularFile& operator=(RegularFile&& other) noexcept;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile();

  const struct stat& info() const { return info_; }
  uint64_t size() const { return static_cast<uint64_t>(info_.st_size); }

  // Reads the next `n` bytes; an error if the file ends first (it shrank
  // after open) or the read fails.
  Status read_exactly(void* data, size_t n);
  // The rest of the file, refused when the file is larger than `max_bytes`.
  Status read_all(uint64_t max_bytes, std::string* bytes);

 private:
  int fd_ = -1;
  struct stat info_ = {};
};

// What kind of file `mode` describes ("a folder", "a FIFO", ...).
std::string file_kind(mode_t mode);

}  // namespace gdr::support
