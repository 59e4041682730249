// An on-disk cache of compiled kernel objects, so that a second process
// loads the object instead of compiling it again.
//
// One file per entry, named by the SHA-256 of its key text: a header (magic,
// format version, the key text, payload size, SHA-256 of the payload) and
// the payload. Entries are written to a temporary file with a
// random name in the same folder and renamed into place, so concurrent
// writers of one entry and readers never see a partial file; temporary files
// of dead writers are swept (older than an hour, first use of a folder per
// process). A corrupt, truncated or mismatched entry is reported on stderr
// (one line naming the file), deleted (unless another process has already
// replaced it) and treated as a miss: it is never handed out.
//
// Trust (docs/architecture.md): entries are machine code this process will
// run, so the folder is used only when it is owned by the effective user and
// not writable by group or others, and an entry only when it is a regular
// file (not a symbolic link) owned by the effective user. Anything else is
// reported on one line and not used; the kernel is compiled in memory. The
// checksum catches damage, not an attacker, who can recompute it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gdr/status.h"

namespace gdr::compiler {

// Bump when the entry layout or what a key means changes.
constexpr uint32_t kDiskCacheFormatVersion = 2;  // 2: SHA-256 checksums and names

// GDR_CACHE_DIR (a relative one made absolute now), else
// $XDG_CACHE_HOME/gdr (if absolute, as the XDG spec says), else
// $HOME/.cache/gdr; "" (the
// cache is off) when GDR_CACHE_DIR is "off" or none of them is set.
std::string disk_cache_dir_from_environment();

// What this process's caches did, for tests and measurements.
struct DiskCacheStats {
  int64_t hits = 0;      // intact entries loaded
  int64_t misses = 0;    // no entry (or the cache is off)
  int64_t rejected = 0;  // corrupt, mismatched or untrusted entries not used
  int64_t stores = 0;    // entries written
};
DiskCacheStats disk_cache_stats();

class DiskCache {
 public:
  // The cache in disk_cache_dir_from_environment(), read at each call so
  // that a test can point it elsewhere.
  static DiskCache from_environment();
  // The cache every compile uses: the folder gdr::jit::install set
  // (settings.h), else from_environment().
  static DiskCache current();
  // `dir` "" disables the cache: load always misses, store does nothing.
  explicit DiskCache(std::string dir);

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  // `description` names everything the caller's code depends on (route,
  // kernel variant, target); the key adds what every entry depends on: the
  // format version, the LLVM version, a hash of gdr's code-generating
  // sources, so an edited pass or schedule never reuses an old object, and
  // the Halide environment variables that change code (HL_LLVM_ARGS, which
  // sets LLVM's global options for every route, HL_PERMIT_FAILED_UNROLL).
  std::string key_text(const std::string& description) const;
  std::string entry_path(const std::string& description) const;

  // True, with *payload filled, if an intact entry exists. A corrupt or
  // mismatched one is reported, deleted, and counts as rejected.
  bool load(const std::string& description, std::vector<char>* payload) const;

  // Writes the entry atomically. If the folder cannot be written, says so
  // once per process on stderr and carries on: the caller has its object.
  void store(const std::string& description, const std::vector<char>& payload) const;

  // What every cached compile does: an intact entry goes to `use`; if `use`
  // refuses it, the entry is rejected. On a miss or a rejection, `build`
  // makes the payload, `use` must accept it, and only then is it stored.
  using Build = std::function<Status(std::vector<char>* payload)>;
  using Use = std::function<Status(const std::vector<char>& payload)>;
  // A refused entry is reported and deleted once a fresh build has been
  // accepted; when the fresh build is refused too, the refusal is the
  // process's, not the entry's: the entry stays, unreported, and the
  // build's error is returned. `name`, if
  // given, is what the verbosity-2 note says was compiled or loaded.
  Status load_or_build(const std::string& description, const Build& build, const Use& use,
                       const std::string& name = "") const;

  // Which file a load read (device and inode), so that only that file is
  // deleted when it is bad, never a new entry renamed over it since.
  struct FileId {
    uint64_t device = 0;
    uint64_t inode = 0;
  };

 private:
  // The folder passes the ownership rule; if not, says so once.
  bool trusted() const;
  bool load(const std::string& description, std::vector<char>* payload, FileId* id) const;

  std::string dir_;
};

}  // namespace gdr::compiler
