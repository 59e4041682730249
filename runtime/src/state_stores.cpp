#include "state_stores.h"

#include <unistd.h>

namespace gdr {
namespace {

const std::pair<StateStores, const char*> kNames[] = {
    {StateStores::Automatic, "auto"},
    {StateStores::Cached, "cached"},
    {StateStores::Streaming, "streaming"},
};

// One core's L2; 1 MiB where the C library cannot tell.
int64_t l2_bytes() {
  static const int64_t bytes = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? static_cast<int64_t>(l2) : int64_t{1} << 20;
  }();
  return bytes;
}

}  // namespace

const char* state_stores_name(StateStores stores) {
  for (const auto& [s, name] : kNames)
    if (s == stores) return name;
  return "unknown";
}

bool parse_state_stores(const std::string& name, StateStores* stores) {
  for (const auto& [s, n] : kNames)
    if (name == n) {
      *stores = s;
      return true;
    }
  return false;
}

bool stream_final_states(StateStores requested, int64_t state_bytes, int threads) {
  if (requested != StateStores::Automatic) return requested == StateStores::Streaming;
  // MEASURE: threshold.
  return state_bytes > threads * l2_bytes();
}

}  // namespace gdr
