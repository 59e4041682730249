// Files of another user, for the tests of the ownership rule
// (support/file_trust.h). Only root can give a file away: elsewhere the
// tests that need it skip, saying why.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace gdr::test {

// A uid no account on a test machine has.
constexpr uid_t kOtherUid = 54321;

// Gives `path` (not a symbolic link's target) to kOtherUid; "" on success,
// else why not, for GTEST_SKIP.
inline std::string give_to_other_user(const std::string& path) {
  if (::lchown(path.c_str(), kOtherUid, static_cast<gid_t>(-1)) == 0) return "";
  return "cannot chown " + path + " to uid " + std::to_string(kOtherUid) + " (" +
         std::strerror(errno) + "): the ownership tests need root";
}

}  // namespace gdr::test
