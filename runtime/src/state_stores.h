// Whether a call streams its final states (Options::final_state_stores).
#pragma once

#include <cstdint>

#include "gdr/runtime.h"

namespace gdr {

// `requested`, with Automatic resolved for a call that reads and writes
// `state_bytes` of states on `threads` threads.
bool stream_final_states(StateStores requested, int64_t state_bytes, int threads);

}  // namespace gdr
