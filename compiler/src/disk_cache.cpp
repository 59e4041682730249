#include "gdr/compiler/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/SHA256.h>

#include "gdr/compiler/codegen_sources_hash.h"
#include "gdr/compiler/diagnostics.h"
#include "gdr/compiler/settings.h"
#include "gdr/support/atomic_file.h"
#include "gdr/support/file_trust.h"
#include "gdr/support/regular_file.h"

namespace gdr::compiler {

namespace {

constexpr char kMagic[8] = {'G', 'D', 'R', 'K', 'C', 'A', 'C', 'H'};
// No kernel object comes near this; a larger "entry" is not ours.
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 30;

// Fixed-size part of an entry, native byte order (a cache is per machine).
struct Header {
  char magic[8];
  uint32_t format_version;
  uint32_t key_size;
  uint64_t payload_size;
  uint8_t payload_sha256[32];
};
static_assert(sizeof(Header) == 56, "the entry layout is part of the format");

struct Counters {
  std::atomic<int64_t> hits{0}, misses{0}, rejected{0}, stores{0};
};
Counters& counters() {
  static Counters c;
  return c;
}

std::array<uint8_t, 32> sha256(const char* data, size_t size) {
  return llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(data), size));
}

// Says once per process and (folder, reason) that a folder is not used.
void report_untrusted_folder(const std::string& dir, const std::string& why) {
  static std::mutex mutex;
  static auto* said = new std::set<std::string>;  // never destroyed: used until exit
  std::lock_guard<std::mutex> lock(mutex);
  if (said->insert(dir + '\n' + why).second)
    warn("gdr: kernel cache folder " + dir + " " + why + "; not using it, compiling in memory");
}

// Reports a bad entry and deletes it, so the next compile rewrites it. Only
// the file that was read is deleted: if another process has renamed a new
// entry over it meanwhile, that one stays. (A rename between the stat and
// the remove can still lose a good entry: it is rebuilt, never misused.)
void discard(const std::string& path, const DiskCache::FileId& id, const std::string& why,
             const std::string& then = "compiling again") {
  std::string outcome = "deleted";
  struct stat now;
  if (::lstat(path.c_str(), &now) == 0 && static_cast<uint64_t>(now.st_dev) == id.device &&
      static_cast<uint64_t>(now.st_ino) == id.inode && std::remove(path.c_str()) != 0)
    outcome = std::string("cannot delete it (") + std::strerror(errno) + ")";
  warn("gdr: kernel cache entry " + path + " " + why + "; " + outcome + ", " + then);
  counters().rejected++;
}

// A temporary of an entry: `<32 hex digits>.gdrk.tmp.<suffix>` (earlier
// builds' suffixes were `<pid>.<count>`, this one's create_temporary's). The
// folder may be one the user named (GDR_CACHE_DIR), holding other files.
bool is_entry_temporary(const std::string& name) {
  constexpr std::string_view kTail = ".gdrk.tmp.";
  constexpr size_t kDigits = 32;
  if (name.size() <= kDigits + kTail.size() || name.compare(kDigits, kTail.size(), kTail) != 0) return false;
  return support::is_lower_hex(std::string_view(name).substr(0, kDigits));
}

}  // namespace

std::string disk_cache_dir_from_environment() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  const std::string explicit_dir = env("GDR_CACHE_DIR");
  if (explicit_dir == "off") return "";
  // Absolute when read (install() reads it once): it must not move with a
  // later chdir.
  if (!explicit_dir.empty()) {
    std::error_code error;
    const std::string absolute = std::filesystem::absolute(explicit_dir, error).string();
    return error ? explicit_dir : absolute;
  }
  // A relative XDG_CACHE_HOME is invalid (XDG Base Directory spec): ignored.
  if (env("XDG_CACHE_HOME").rfind('/', 0) == 0) return env("XDG_CACHE_HOME") + "/gdr";
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
  std::string key = "gdr kernel cache format " + std::to_string(kDiskCacheFormatVersion) + "\nllvm " +
                    LLVM_VERSION_STRING + "\ngdr code generator sources " + kCodegenSourcesHash + "\n";
  // What Halide reads from the environment that changes code: its LLVM
  // options reach LLVM's global ones, so the recurrent route's code too.
  for (const char* name : {"HL_LLVM_ARGS", "HL_PERMIT_FAILED_UNROLL"})
    if (const char* value = std::getenv(name)) key += std::string(name) + " " + value + "\n";
  return key + description;
}

std::string DiskCache::entry_path(const std::string& description) const {
  const std::string key = key_text(description);
  const std::array<uint8_t, 32> hash = sha256(key.data(), key.size());
  return dir_ + "/" + llvm::toHex(llvm::makeArrayRef(hash.data(), 16), /*LowerCase=*/true) + ".gdrk";
}

bool DiskCache::load(const std::string& description, std::vector<char>* payload) const {
  FileId id;
  return load(description, payload, &id);
}

bool DiskCache::trusted() const {
  if (std::string why = support::why_folder_untrusted(dir_); !why.empty()) {
    report_untrusted_folder(dir_, why);
    return false;
  }
  return true;
}

bool DiskCache::load(const std::string& description, std::vector<char>* payload, FileId* id) const {
  const std::string path = entry_path(description);
  struct stat seen;
  // No folder yet, or no entry, is a plain miss; a folder that exists is
  // used only when it is trusted.
  if (!enabled() || ::stat(dir_.c_str(), &seen) != 0 || !trusted()) {
    counters().misses++;
    return false;
  }
  support::sweep_stale_temporaries_once(dir_, ".gdrk", is_entry_temporary);
  if (::lstat(path.c_str(), &seen) != 0) {
    counters().misses++;
    return false;
  }
  *id = {static_cast<uint64_t>(seen.st_dev), static_cast<uint64_t>(seen.st_ino)};
  auto discard_entry = [&](const std::string& why) { discard(path, *id, why); };
  support::RegularFile file;
  if (Status s = support::RegularFile::open(path, &file, support::RegularFile::Links::Refuse); !s) {
    discard_entry(s.message() + ", not used");
    return false;
  }
  *id = {static_cast<uint64_t>(file.info().st_dev), static_cast<uint64_t>(file.info().st_ino)};
  if (std::string why = support::why_file_untrusted(file.info()); !why.empty()) {
    discard_entry(why + ", not used");
    return false;
  }
  Header h;
  if (file.size() < sizeof h) {
    discard_entry("is truncated (" + std::to_string(file.size()) + " bytes)");
    return false;
  }
  if (file.size() > kMaxEntryBytes) {
    discard_entry("is " + std::to_string(file.size()) + " bytes, larger than any kernel");
    return false;
  }
  std::string bytes;
  if (Status s = file.read_all(kMaxEntryBytes, &bytes); !s) {
    discard_entry(s.message());
    return false;
  }
  std::memcpy(&h, bytes.data(), sizeof h);
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
  const uint64_t body = bytes.size() - sizeof h;
  if (h.key_size > body || h.payload_size != body - h.key_size) {
    discard_entry("has the wrong size (truncated or overwritten)");
    return false;
  }
  const std::string key = key_text(description);
  if (bytes.compare(sizeof h, h.key_size, key) != 0) {
    discard_entry("holds a different key");
    return false;
  }
  const char* data = bytes.data() + sizeof h + h.key_size;
  if (std::memcmp(sha256(data, h.payload_size).data(), h.payload_sha256, sizeof h.payload_sha256) != 0) {
    discard_entry("fails its SHA-256 checksum (corrupt)");
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
  const std::array<uint8_t, 32> checksum = sha256(payload.data(), payload.size());
  std::memcpy(h.payload_sha256, checksum.data(), checksum.size());

  // One temporary file per writer, renamed over the entry
  // (write_file_atomically): a reader sees the old file or the whole new
  // one; a file torn by a crash fails the checks.
  const std::string path = entry_path(description);
  Status created = support::create_private_folders(dir_);
  std::string failure = created.message();
  if (created) {
    if (!trusted()) return;
    support::sweep_stale_temporaries_once(dir_, ".gdrk", is_entry_temporary);
    failure = support::write_file_atomically(
        path,
        {std::string_view(reinterpret_cast<const char*>(&h), sizeof h), key,
         std::string_view(payload.data(), payload.size())},
        0644);
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
  std::string refused;  // why the entry's payload was refused, if it was
  if (load(description, &payload, &id)) {
    Status s = use(payload);
    if (s) {
      note(false);
      return s;
    }
    refused = s.message();
  }
  // A refused entry is discarded only once a fresh build is used instead:
  // if that is refused too, the cause is this process (the JIT's region
  // full, say), and the entry stays for the processes sharing the folder.
  if (Status s = build(&payload); !s) return s;
  if (Status s = use(payload); !s) return s;
  if (!refused.empty()) discard(entry_path(description), id, "was refused (" + refused + ")", "compiled again");
  store(description, payload);
  note(true);
  return Status::success();
}

}  // namespace gdr::compiler
