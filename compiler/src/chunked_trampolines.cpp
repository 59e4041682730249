#include "chunked_trampolines.h"

#include <array>
#include <mutex>
#include <string>
#include <utility>

namespace gdr::compiler {
namespace {

constexpr int kSlots = kTrampolines;
struct Slot {
  HalideChunkedFn fn = nullptr;
  int64_t chunk = 0;
};
std::array<Slot, kSlots> g_slots;

template <int N>
int32_t slot_entry(const gdr_kernel_args* a) {
  return run_halide_chunked(a, g_slots[N].fn, g_slots[N].chunk);
}
template <int... N>
constexpr std::array<gdr_kernel_fn, kSlots> make_entries(std::integer_sequence<int, N...>) {
  return {&slot_entry<N>...};
}
constexpr std::array<gdr_kernel_fn, kSlots> kEntries =
    make_entries(std::make_integer_sequence<int, kSlots>());

}  // namespace

Status bind_trampoline(HalideChunkedFn fn, int64_t chunk, gdr_kernel_fn* entry) {
  static std::mutex mutex;
  static int used = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (used == kSlots)
    return Status::error("too many chunked kernels in one process (" + std::to_string(kSlots) + ")");
  g_slots[used] = Slot{fn, chunk};
  *entry = kEntries[used++];
  return Status::ok();
}

}  // namespace gdr::compiler
