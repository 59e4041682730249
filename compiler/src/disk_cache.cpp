#include "gdr/compiler/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <llvm/Config/llvm-config.h>

#include "gdr/compiler/atomic_file.h"
#include "gdr/compiler/codegen_sources_hash.h"
#include "gdr/compiler/diagnostics.h"
#include "gdr/compiler/settings.h"

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

// Reads a whole file and says which file it was.
bool read_file(const std::string& path, std::vector<char>* bytes, DiskCache::FileId* id) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0;
  if (ok) *id = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  bytes->clear();
  char buffer[1 << 16];
  while (ok) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    bytes->insert(bytes->end(), buffer, buffer + n);
  }
  ::close(fd);
  return ok;
}

// Reports a bad entry and deletes it, so the next compile rewrites it. Only
// the file that was read is deleted: if another process has renamed a new
// entry over it meanwhile, that one stays. (A rename between the stat and
// the remove can still lose a good entry: it is rebuilt, never misused.)
void discard(const std::string& path, const DiskCache::FileId& id, const std::string& why) {
  warn("gdr: kernel cache entry " + path + " " + why + "; deleted, compiling again");
  struct stat now;
  if (::stat(path.c_str(), &now) == 0 && static_cast<uint64_t>(now.st_dev) == id.device &&
      static_cast<uint64_t>(now.st_ino) == id.inode)
    std::remove(path.c_str());
  counters().rejected++;
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

DiskCache DiskCache::current() { return DiskCache(current_cache_dir()); }

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
  FileId id;
  return load(description, payload, &id);
}

bool DiskCache::load(const std::string& description, std::vector<char>* payload, FileId* id) const {
  if (!enabled()) {
    counters().misses++;
    return false;
  }
  sweep_stale_temporaries_once(dir_, ".gdrk");
  const std::string path = entry_path(description);
  std::vector<char> file;
  if (!read_file(path, &file, id)) {
    counters().misses++;
    return false;
  }
  auto discard_entry = [&](const std::string& why) { discard(path, *id, why); };
  Header h;
  if (file.size() < sizeof h) {
    discard_entry("is truncated (" + std::to_string(file.size()) + " bytes)");
    return false;
  }
  std::memcpy(&h, file.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    discard_entry("is not a gdr cache entry (bad magic)");
    return false;
  }
  if (h.format_version != kDiskCacheFormatVersion) {
    discard_entry("has format version " + std::to_string(h.format_version) + ", expected " +
                  std::to_string(kDiskCacheFormatVersion));
    return false;
  }
  // Sizes are checked against the file before they are used as offsets.
  const uint64_t body = file.size() - sizeof h;
  if (h.key_size > body || h.payload_size != body - h.key_size) {
    discard_entry("has the wrong size (truncated or overwritten)");
    return false;
  }
  const std::string key = key_text(description);
  if (std::string(file.data() + sizeof h, h.key_size) != key) {
    discard_entry("holds a different key");
    return false;
  }
  const char* data = file.data() + sizeof h + h.key_size;
  if (fnv1a64(data, h.payload_size) != h.payload_checksum) {
    discard_entry("fails its checksum (corrupt)");
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

  // One temporary file per writer, renamed over the entry
  // (write_file_atomically): a reader sees the old file or the whole new
  // one; a file torn by a crash fails the checks.
  const std::string path = entry_path(description);
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  std::string failure = ec.message();
  if (!ec) {
    sweep_stale_temporaries_once(dir_, ".gdrk");
    failure = write_file_atomically(
        path, {std::string_view(reinterpret_cast<const char*>(&h), sizeof h), key,
               std::string_view(payload.data(), payload.size())});
  }
  if (!failure.empty()) {
    static std::atomic<bool> reported{false};
    if (!reported.exchange(true))
      warn("gdr: cannot write the kernel cache in " + dir_ + " (" + failure + "); compiling without it");
    return;
  }
  counters().stores++;
}

Status DiskCache::load_or_build(const std::string& description, const Build& build,
                                const Use& use, const std::string& name) const {
  const auto start = std::chrono::steady_clock::now();
  auto note = [&](bool compiled) {
    if (name.empty()) return;
    note_kernel(name, compiled,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  };
  std::vector<char> payload;
  FileId id;
  if (load(description, &payload, &id)) {
    Status s = use(payload);
    if (s) {
      note(false);
      return s;
    }
    discard(entry_path(description), id, "was refused (" + s.message() + ")");
  }
  if (Status s = build(&payload); !s) return s;
  if (Status s = use(payload); !s) return s;
  store(description, payload);
  note(true);
  return Status::ok();
}

}  // namespace gdr::compiler
