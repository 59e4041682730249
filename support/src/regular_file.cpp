#include "gdr/support/regular_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace gdr::support {

std::string file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

Status RegularFile::open(const std::string& path, RegularFile* file, Links links) {
  int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC;
  if (links == Links::Refuse) flags |= O_NOFOLLOW;
  RegularFile opened;
  opened.fd_ = ::open(path.c_str(), flags);
  if (opened.fd_ < 0) {
    if (errno == ELOOP && links == Links::Refuse)
      return Status::error("is a symbolic link, not a regular file");
    return Status::error(std::string("cannot open: ") + std::strerror(errno));
  }
  if (::fstat(opened.fd_, &opened.info_) != 0)
    return Status::error(std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(opened.info_.st_mode))
    return Status::error("is " + file_kind(opened.info_.st_mode) + ", not a regular file");
  // Regular files never block; reads then behave as without O_NONBLOCK.
  *file = std::move(opened);
  return Status::success();
}

RegularFile::RegularFile(RegularFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), info_(other.info_) {}

RegularFile& RegularFile::operator=(RegularFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    info_ = other.info_;
  }
  return *this;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status RegularFile::read_exactly(void* data, size_t n) {
  char* at = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t got = ::read(fd_, at, n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Status::error(std::string("read failed: ") + std::strerror(errno));
    if (got == 0) return Status::error("ended early (the file shrank while it was read)");
    at += got;
    n -= static_cast<size_t>(got);
  }
  return Status::success();
}

Status RegularFile::read_all(uint64_t max_bytes, std::string* bytes) {
  const off_t at = ::lseek(fd_, 0, SEEK_CUR);
  const uint64_t left = at >= 0 && static_cast<uint64_t>(at) < size() ? size() - at : 0;
  if (left > max_bytes)
    return Status::error("is " + std::to_string(left) + " bytes, more than the " +
                         std::to_string(max_bytes) + " a file of this kind may have");
  bytes->resize(left);
  return read_exactly(bytes->data(), left);
}

}  // namespace gdr::support
