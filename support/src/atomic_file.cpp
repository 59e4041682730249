#include "gdr/support/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <utility>

namespace gdr::support {
namespace {

constexpr char kTemporaryInfix[] = ".tmp.";
constexpr auto kStaleTemporaryAge = std::chrono::hours(1);

}  // namespace

std::string temporary_name(const std::string& path) {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(random()));
  return path + kTemporaryInfix + suffix;
}

int create_temporary(const std::string& path, int mode, std::string* temp) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    *temp = temporary_name(path);
    const int fd = ::open(temp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                           static_cast<mode_t>(mode));
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;  // errno is EEXIST
}

std::string write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::strerror(errno);
    if (n == 0) return "short write, " + std::to_string(data.size()) + " bytes not written";
    data.remove_prefix(static_cast<size_t>(n));
  }
  return "";
}

std::string write_file_atomically(const std::string& path, const std::vector<std::string_view>& parts,
                                  int mode) {
  std::string temp;
  const int fd = create_temporary(path, mode, &temp);
  if (fd < 0) return std::strerror(errno);
  std::string failure;
  for (std::string_view part : parts)
    if (failure.empty()) failure = write_all(fd, part);
  if (::close(fd) != 0 && failure.empty()) failure = std::strerror(errno);
  if (failure.empty() && std::rename(temp.c_str(), path.c_str()) != 0) failure = std::strerror(errno);
  if (!failure.empty()) std::remove(temp.c_str());
  return failure;
}

bool is_lower_hex(std::string_view text) {
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_temporary_of(std::string_view name, std::string_view target) {
  constexpr size_t kInfix = sizeof kTemporaryInfix - 1, kDigits = 16;
  return name.size() == target.size() + kInfix + kDigits && name.substr(0, target.size()) == target &&
         name.substr(target.size(), kInfix) == kTemporaryInfix && is_lower_hex(name.substr(target.size() + kInfix));
}

void sweep_stale_temporaries_once(const std::string& dir, const std::string& kind,
                                  const std::function<bool(const std::string& name)>& is_temporary) {
  static std::mutex mutex;
  static auto* swept = new std::set<std::pair<std::string, std::string>>;  // never destroyed: used until exit
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!swept->insert({dir, kind}).second) return;
  }
  namespace fs = std::filesystem;
  const auto now = fs::file_time_type::clock::now();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!is_temporary(it->path().filename().string())) continue;
    std::error_code file_ec;
    const auto written = fs::last_write_time(it->path(), file_ec);
    if (!file_ec && now - written > kStaleTemporaryAge) fs::remove(it->path(), file_ec);
  }
}

}  // namespace gdr::support
