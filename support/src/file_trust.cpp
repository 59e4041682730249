#include "gdr/support/file_trust.h"

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "gdr/support/regular_file.h"

namespace gdr::support {
namespace {

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Why `info`'s group or others may write it, "" if they may not.
std::string writable_by_others(const struct stat& info) {
  if (!(info.st_mode & (S_IWGRP | S_IWOTH))) return "";
  return std::string("is writable by ") + ((info.st_mode & S_IWOTH) ? "others" : "its group") + " (mode " +
         octal_mode(info.st_mode) + ")";
}

std::string owner_problem(const struct stat& info) {
  if (info.st_uid == ::geteuid()) return "";
  return "is owned by uid " + std::to_string(info.st_uid) + ", not by this user (uid " +
         std::to_string(::geteuid()) + ")";
}

}  // namespace

std::string why_folder_untrusted(const std::string& dir) {
  struct stat info;
  if (::stat(dir.c_str(), &info) != 0) return std::string("cannot be checked: ") + std::strerror(errno);
  if (!S_ISDIR(info.st_mode)) return "is " + file_kind(info.st_mode) + ", not a folder";
  if (std::string why = owner_problem(info); !why.empty()) return why;
  return writable_by_others(info);
}

std::string why_file_untrusted(const struct stat& info) {
  if (std::string why = owner_problem(info); !why.empty()) return why;
  // Writing a file takes no right on its folder: a file others may write
  // could be rewritten, checksum and all, in a folder they cannot.
  return writable_by_others(info);
}

Status create_private_folders(const std::string& dir) {
  namespace fs = std::filesystem;
  std::string at;
  for (const fs::path& part : fs::path(dir)) {
    const std::string parent = at.empty() ? "." : at;
    at = (fs::path(at) / part).string();
    if (part == "/" || part.empty()) continue;
    struct stat info;
    if (::stat(at.c_str(), &info) == 0) continue;  // what it is, the caller's trust check says
    if (errno != ENOENT) return Status::error("cannot check " + at + ": " + std::strerror(errno));
    // Only inside this user's own folders or a sticky shared one (/tmp):
    // root (sudo -E) would leave in a user's home folders that user could
    // neither use nor delete.
    if (::stat(parent.c_str(), &info) != 0) return Status::error("cannot check " + parent + ": " + std::strerror(errno));
    if (std::string why = owner_problem(info); !why.empty() && !(info.st_mode & S_ISVTX))
      return Status::error("will not create " + at + " in " + parent + ", which " + why);
    if (::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST)
      return Status::error("cannot create " + at + ": " + std::strerror(errno));
  }
  return Status::success();
}

}  // namespace gdr::support
