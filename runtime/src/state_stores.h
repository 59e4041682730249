// Whether a call streams its final states and outputs (Options::final_state_stores,
// Options::out_stores).
#pragma once

#include <cstdint>

#include "gdr/runtime.h"

namespace gdr {

// Whether a task streams its final state: `requested`, with Automatic
// resolved for a call that reads and writes `state_bytes` of states on
// `threads` threads, for a task whose final state is written `over_initial`
// (where its initial state was just read: in place).
bool stream_final_state(StateStores requested, int64_t state_bytes, int threads, bool over_initial);

// Whether a call that moves `call_bytes` (states read and written, inputs,
// outputs) on `threads` threads streams its outputs: `requested`, with
// Automatic resolved.
bool stream_outputs(StateStores requested, int64_t call_bytes, int threads);

}  // namespace gdr
