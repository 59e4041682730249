#include "jit_memory.h"

#include "gdr/compiler/jit.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <mutex>
#include <string>
#include <system_error>

namespace gdr::compiler {
namespace {

// The region's size: as much as a process compiles in a long tuning run
// (kernels take 0.1 to 1 MiB), halved down to kLeastRegionBytes where the
// address space is limited (ulimit -v, RLIMIT_AS: largest_region).
constexpr size_t kJitRegionBytes = size_t{1} << 30;
constexpr size_t kLeastRegionBytes = size_t{32} << 20;

class RegionMapper final : public llvm::SectionMemoryManager::MemoryMapper {
 public:
  llvm::sys::MemoryBlock allocateMappedMemory(llvm::SectionMemoryManager::AllocationPurpose, size_t bytes,
                                              const llvm::sys::MemoryBlock* const, unsigned flags,
                                              std::error_code& ec) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ec = std::error_code();
    if (!reserve(ec)) return {};
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t rounded = (bytes + page - 1) / page * page;
    if (rounded > region_bytes_ - used_) {
      ec = std::make_error_code(std::errc::not_enough_memory);
      return {};
    }
    llvm::sys::MemoryBlock block(region_ + used_, rounded);
    if ((ec = llvm::sys::Memory::protectMappedMemory(block, flags))) return {};
    used_ += rounded;
    return block;
  }

  bool holds(const void* address) {
    std::lock_guard<std::mutex> lock(mutex_);
    const char* p = static_cast<const char*>(address);
    return region_ && p >= region_ && p < region_ + region_bytes_;
  }

  size_t bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return region_bytes_;
  }

  Status room_for(size_t object_bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::error_code ec;
    if (!reserve(ec))
      return Status::error("cannot reserve address space for the JIT's code (" +
                           std::to_string(kLeastRegionBytes >> 20) + " MiB to " +
                           std::to_string(kJitRegionBytes >> 20) + " MiB; is the address space limited, ulimit -v?): " +
                           ec.message());
    // Sections are at most the object's bytes, each rounded up to pages
    // (gdr's kernels have no large zero-filled sections, which an object
    // does not hold).
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (object_bytes > region_bytes_ / 2 || 2 * object_bytes + 64 * page > region_bytes_ - used_)
      return Status::error("the JIT's code region is full (" + std::to_string(used_ >> 20) + " of " +
                           std::to_string(region_bytes_ >> 20) +
                           " MiB used by the kernels this process loaded): load fewer kernels in one process");
    return Status::success();
  }

  std::error_code protectMappedMemory(const llvm::sys::MemoryBlock& block, unsigned flags) override {
    return llvm::sys::Memory::protectMappedMemory(block, flags);
  }

  // The pages go back to the system; their addresses stay reserved.
  std::error_code releaseMappedMemory(llvm::sys::MemoryBlock& block) override {
    if (!block.base()) return {};
    if (mmap(block.base(), block.allocatedSize(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
             -1, 0) == MAP_FAILED)
      return std::error_code(errno, std::generic_category());
    block = llvm::sys::MemoryBlock();
    return {};
  }

 private:
  // Under an address-space limit, at most a quarter of what is left of it,
  // so that the heap and threads' stacks (glibc takes 64 MiB a thread's
  // arena) still get theirs.
  static size_t largest_region() {
    rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kJitRegionBytes;
    std::ifstream statm("/proc/self/statm");
    size_t pages = 0;
    if (!(statm >> pages)) return kJitRegionBytes;
    const size_t used = pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t left = limit.rlim_cur > used ? static_cast<size_t>(limit.rlim_cur) - used : 0;
    size_t bytes = kJitRegionBytes;
    while (bytes > kLeastRegionBytes && bytes > left / 4) bytes /= 2;
    return bytes;
  }

  bool reserve(std::error_code& ec) {
    if (region_) return true;
    for (size_t bytes = largest_region(); bytes >= kLeastRegionBytes; bytes /= 2) {
      void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p != MAP_FAILED) {
        region_ = static_cast<char*>(p);
        region_bytes_ = bytes;
        return true;
      }
      ec = std::error_code(errno, std::generic_category());
    }
    return false;
  }

  std::mutex mutex_;
  char* region_ = nullptr;
  size_t region_bytes_ = 0;
  size_t used_ = 0;
};

RegionMapper& region_mapper() {
  static RegionMapper* mapper = new RegionMapper;  // never destroyed, like the JIT
  return *mapper;
}

}  // namespace

llvm::SectionMemoryManager::MemoryMapper& jit_memory() { return region_mapper(); }

bool jit_region_holds(const void* address) { return region_mapper().holds(address); }

Status jit_region_room(size_t object_bytes) { return region_mapper().room_for(object_bytes); }

size_t jit_region_bytes() { return region_mapper().bytes(); }

}  // namespace gdr::compiler
