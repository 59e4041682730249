#include "jit_memory.h"

#include "gdr/compiler/jit.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <system_error>

namespace gdr::compiler {
namespace {

constexpr size_t kJitRegionBytes = size_t{1} << 30;

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
    if (rounded > kJitRegionBytes - used_) {
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
    return region_ && p >= region_ && p < region_ + kJitRegionBytes;
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
  bool reserve(std::error_code& ec) {
    if (region_) return true;
    void* p = mmap(nullptr, kJitRegionBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      ec = std::error_code(errno, std::generic_category());
      return false;
    }
    region_ = static_cast<char*>(p);
    return true;
  }

  std::mutex mutex_;
  char* region_ = nullptr;
  size_t used_ = 0;
};

RegionMapper& region_mapper() {
  static RegionMapper* mapper = new RegionMapper;  // never destroyed, like the JIT
  return *mapper;
}

}  // namespace

llvm::SectionMemoryManager::MemoryMapper& jit_memory() { return region_mapper(); }

bool jit_region_holds(const void* address) { return region_mapper().holds(address); }

}  // namespace gdr::compiler
