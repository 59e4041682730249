#include "gdr/support/staged_outputs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "gdr/support/atomic_file.h"
#include "gdr/support/regular_file.h"
#include "live_temporaries.h"

namespace gdr::support {
namespace {

namespace fs = std::filesystem;

std::string folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// Gives the existing file `path` a second name, `*backup`, for commit() to
// put back: a hard link, or a copy where the file system gives no more
// links (EMLINK, EPERM, EOPNOTSUPP; a symbolic link copied as a link). ""
// when no file exists at `path`. The name is as long as the temporary's,
// which add() has created: a longer one could exceed the folder's name
// limit after all the work is done.
Status back_up(const std::string& path, std::string* backup) {
  *backup = temporary_name(path);
  if (::link(path.c_str(), backup->c_str()) == 0) return Status::success();
  const int link_error = errno;
  if (link_error == ENOENT) {
    backup->clear();
    return Status::success();
  }
  auto refuse = [&](const std::string& why) {
    return Status::error("cannot keep a copy of " + path + " until every output is in place: " + why);
  };
  if (link_error != EMLINK && link_error != EPERM && link_error != EOPNOTSUPP) {
    backup->clear();
    return refuse(std::strerror(link_error));
  }
  std::error_code error;
  if (fs::is_symlink(fs::symlink_status(path, error)))
    fs::copy_symlink(path, *backup, error);
  else
    fs::copy_file(path, *backup, error);  // fails, creating nothing, if the name is taken
  if (!error) return Status::success();
  if (error != std::errc::file_exists) std::remove(backup->c_str());
  backup->clear();
  return refuse(error.message());
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  const bool a_exists = ::stat(a.c_str(), &sa) == 0, b_exists = ::stat(b.c_str(), &sb) == 0;
  if (a_exists && b_exists) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (a_exists != b_exists) return false;
  std::error_code ea, eb;
  const fs::path na = fs::weakly_canonical(fs::absolute(a, ea), ea);
  const fs::path nb = fs::weakly_canonical(fs::absolute(b, eb), eb);
  return ea || eb ? fs::absolute(a).lexically_normal() == fs::absolute(b).lexically_normal()
                  : na == nb;
}

StagedOutputs::~StagedOutputs() { abandon(); }

void StagedOutputs::abandon() {
  if (committed_) return;
  remove_temporaries();
  outputs_.clear();
}

void StagedOutputs::remove_temporaries() {
  for (const Output& o : outputs_) std::remove(o.temporary.c_str());
  forget_temporaries();
}

void StagedOutputs::forget_temporaries() {
  for (Output& o : outputs_) {
    LiveTemporaries::instance().remove(o.live_slot);
    o.live_slot = -1;
  }
}

Status StagedOutputs::add(const std::string& what, const std::string& path, size_t* index) {
  auto refuse = [&](const std::string& why) { return Status::error(what + ": " + why); };
  if (path.empty()) return refuse("the path is empty");
  if (path.back() == '/') return refuse("names a folder (ends in '/'), not a file");
  struct stat info;
  if (::lstat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISLNK(info.st_mode))
    return refuse("is " + file_kind(info.st_mode) + ", not a file gdr may replace");
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
    return refuse("is a folder, not a file gdr may replace");
  const std::string folder = folder_of(path);
  if (::stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return refuse("its folder " + folder + " does not exist");
  for (const Output& o : outputs_)
    if (same_file(o.path, path)) return refuse("is the same file as " + o.what);

  Output output{what, path, "", -1, -1};
  // A replaced file keeps its permissions, as editors and `sed -i` do: the
  // temporary from its creation (it may hold the same secrets; a mode set
  // after the open would let another user open it in between and read
  // through that descriptor later), and again at commit, for writers that
  // replace it with a file of their own (ld.lld).
  if (::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) output.mode = static_cast<int>(info.st_mode & 07777);
  LiveTemporaries::instance().install_handlers();  // before the first temporary exists
  const HoldEndingSignals hold;
  const int fd = create_temporary(path, output.mode < 0 ? 0666 : output.mode & 0777, &output.temporary);
  if (fd < 0) return refuse("cannot create a file in " + folder + ": " + std::strerror(errno));
  output.live_slot = LiveTemporaries::instance().add(output.temporary);
  if (output.mode >= 0) ::fchmod(fd, static_cast<mode_t>(output.mode));  // bits the umask took
  ::close(fd);
  if (index) *index = outputs_.size();
  outputs_.push_back(std::move(output));
  return Status::success();
}

Status StagedOutputs::write(size_t i, const std::vector<std::string_view>& parts) {
  const Output& o = outputs_[i];
  const int fd = ::open(o.temporary.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Status::error(o.what + ": cannot write " + o.temporary + ": " + std::strerror(errno));
  std::string failure;
  for (std::string_view part : parts)
    if (failure.empty()) failure = write_all(fd, part);
  if (::close(fd) != 0 && failure.empty()) failure = std::strerror(errno);
  if (!failure.empty()) return Status::error(o.what + ": write failed: " + failure);
  return Status::success();
}

Status StagedOutputs::commit() {
  const HoldEndingSignals hold;
  // Each existing file but the last keeps a second name until all renames
  // are done, so that a failed rename can put back the ones before it (the
  // last output's failed rename changes nothing). Taken before any rename:
  // one that cannot be taken fails the commit with nothing changed.
  std::vector<std::string> backups(outputs_.size());
  auto fail = [&](const std::string& why) {
    for (const std::string& b : backups)
      if (!b.empty()) std::remove(b.c_str());
    remove_temporaries();  // those not renamed; the renamed ones are gone
    committed_ = true;
    return Status::error(why);
  };
  for (size_t i = 0; i + 1 < outputs_.size(); ++i)
    if (Status s = back_up(outputs_[i].path, &backups[i]); !s) return fail(outputs_[i].what + ": " + s.message());
  for (const Output& o : outputs_) {
    if (o.mode < 0) continue;
    const int fd = ::open(o.temporary.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    const bool kept = fd >= 0 && ::fchmod(fd, static_cast<mode_t>(o.mode)) == 0;
    const std::string why = kept ? "" : std::strerror(errno);
    if (fd >= 0) ::close(fd);
    if (!kept) return fail(o.what + ": cannot give " + o.temporary + " the permissions of " + o.path + ": " + why);
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Output& o = outputs_[i];
    if (std::rename(o.temporary.c_str(), o.path.c_str()) != 0) {
      std::string why = o.what + ": cannot rename " + o.temporary + " into place: " + std::strerror(errno);
      for (size_t j = 0; j < i; ++j) {
        if (backups[j].empty()) {
          std::remove(outputs_[j].path.c_str());
        } else if (std::rename(backups[j].c_str(), outputs_[j].path.c_str()) != 0) {
          // The old file's one copy now: kept, and said where.
          why += "; the old " + outputs_[j].path + " could not be put back and is " + backups[j];
        }
        backups[j].clear();
      }
      return fail(why);
    }
  }
  for (const std::string& b : backups)
    if (!b.empty()) std::remove(b.c_str());
  forget_temporaries();  // renamed: they are the outputs now
  committed_ = true;
  return Status::success();
}

}  // namespace gdr::support
