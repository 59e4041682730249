#include "gdr/compiler/disk_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <llvm/Config/llvm-config.h>

#include "gdr/compiler/codegen_sources_hash.h"

namespace gdr::compiler {

namespace {

constexpr char kMagic[8] = {'G', 'D', 'R', 'K', 'C', 'A', 'C', 'H'};

// Fixed-size part of an entry, native byte order (a cache is per machine).
struct Header {
  char magic[8];
  uint32_t format_version;
  uint32_t key_size;
  uint64_t payload_size;
  uint64_t payload_checksum;
};
static_assert(sizeof(Header) == 32, "the entry layout is part of the format");

struct Counters {
  std::atomic<int64_t> hits{0}, misses{0}, rejected{0}, stores{0};
};
Counters& counters() {
  static Counters c;
  return c;
}

// Reports a bad entry and removes it, so the next compile rewrites it.
void discard(const std::string& path, const std::string& why) {
  std::fprintf(stderr, "gdr: kernel cache entry %s %s; deleted, compiling again\n", path.c_str(),
               why.c_str());
  std::remove(path.c_str());
  counters().rejected++;
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

uint64_t fnv1a64(const char* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string disk_cache_dir_from_environment() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  const std::string explicit_dir = env("GDR_CACHE_DIR");
  if (explicit_dir == "off") return "";
  if (!explicit_dir.empty()) return explicit_dir;
  if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/gdr";
  if (!env("HOME").empty()) return env("HOME") + "/.cache/gdr";
  return "";
}

DiskCacheStats disk_cache_stats() {
  return {counters().hits.load(), counters().misses.load(), counters().rejected.load(),
          counters().stores.load()};
}

DiskCache DiskCache::from_environment() { return DiskCache(disk_cache_dir_from_environment()); }

DiskCache::DiskCache(std::string dir) : dir_(std::move(dir)) {}

std::string DiskCache::key_text(const std::string& description) const {
  return "gdr kernel cache format " + std::to_string(kDiskCacheFormatVersion) + "\nllvm " +
         LLVM_VERSION_STRING + "\ngdr code generator sources " + kCodegenSourcesHash + "\n" +
         description;
}

std::string DiskCache::entry_path(const std::string& description) const {
  const std::string key = key_text(description);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.gdrk",
                static_cast<unsigned long long>(fnv1a64(key.data(), key.size())));
  return dir_ + "/" + name;
}

bool DiskCache::load(const std::string& description, std::vector<char>* payload) const {
  if (!enabled()) {
    counters().misses++;
    return false;
  }
  const std::string path = entry_path(description);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    counters().misses++;
    return false;
  }
  const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    counters().misses++;
    return false;
  }
  Header h;
  if (file.size() < sizeof h) {
    discard(path, "is truncated (" + std::to_string(file.size()) + " bytes)");
    return false;
  }
  std::memcpy(&h, file.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    discard(path, "is not a gdr cache entry (bad magic)");
    return false;
  }
  if (h.format_version != kDiskCacheFormatVersion) {
    discard(path, "has format version " + std::to_string(h.format_version) + ", expected " +
                      std::to_string(kDiskCacheFormatVersion));
    return false;
  }
  // Sizes are checked against the file before they are used as offsets.
  const uint64_t body = file.size() - sizeof h;
  if (h.key_size > body || h.payload_size != body - h.key_size) {
    discard(path, "has the wrong size (truncated or overwritten)");
    return false;
  }
  const std::string key = key_text(description);
  if (std::string(file.data() + sizeof h, h.key_size) != key) {
    discard(path, "holds a different key");
    return false;
  }
  const char* data = file.data() + sizeof h + h.key_size;
  if (fnv1a64(data, h.payload_size) != h.payload_checksum) {
    discard(path, "fails its checksum (corrupt)");
    return false;
  }
  payload->assign(data, data + h.payload_size);
  counters().hits++;
  return true;
}

void DiskCache::store(const std::string& description, const std::vector<char>& payload) const {
  if (!enabled()) return;
  const std::string key = key_text(description);
  Header h;
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.format_version = kDiskCacheFormatVersion;
  h.key_size = static_cast<uint32_t>(key.size());
  h.payload_size = payload.size();
  h.payload_checksum = fnv1a64(payload.data(), payload.size());

  // The temporary name is unique per process and call; rename() then
  // replaces the entry in one step, so a reader sees the old file or the
  // whole new one. No fsync: a torn file after a crash fails the checks.
  static std::atomic<int64_t> serial{0};
  const std::string path = entry_path(description);
  const std::string temp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  std::string failure;
  if (ec) {
    failure = ec.message();
  } else {
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
      failure = std::strerror(errno);
    } else {
      bool ok = write_all(fd, reinterpret_cast<const char*>(&h), sizeof h) &&
                write_all(fd, key.data(), key.size()) &&
                write_all(fd, payload.data(), payload.size());
      if (!ok) failure = std::strerror(errno);
      if (::close(fd) != 0 && ok) failure = std::strerror(errno);
      if (failure.empty() && std::rename(temp.c_str(), path.c_str()) != 0)
        failure = std::strerror(errno);
      if (!failure.empty()) std::remove(temp.c_str());
    }
  }
  if (!failure.empty()) {
    static std::atomic<bool> reported{false};
    if (!reported.exchange(true))
      std::fprintf(stderr, "gdr: cannot write the kernel cache in %s (%s); compiling without it\n",
                   dir_.c_str(), failure.c_str());
    return;
  }
  counters().stores++;
}

Status DiskCache::load_or_build(const std::string& description, const Build& build,
                                const Use& use) const {
  std::vector<char> payload;
  if (load(description, &payload)) {
    Status s = use(payload);
    if (s) return s;
    reject(description, "was refused (" + s.message() + ")");
  }
  if (Status s = build(&payload); !s) return s;
  if (Status s = use(payload); !s) return s;
  store(description, payload);
  return Status::ok();
}

void DiskCache::reject(const std::string& description, const std::string& why) const {
  if (enabled()) discard(entry_path(description), why);
}

}  // namespace gdr::compiler
