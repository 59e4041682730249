#include "state_stores.h"

#include <unistd.h>

#include "name_table.h"

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

const char* state_stores_name(StateStores stores) { return name_in(kNames, stores); }

bool parse_state_stores(const std::string& name, StateStores* stores) { return parse_in(kNames, name, stores); }

bool stream_final_state(StateStores requested, int64_t state_bytes, int threads, bool over_initial) {
  if (requested != StateStores::Automatic) return requested == StateStores::Streaming;
  // Over the initial state the lines are in cache, just read: a cached
  // store needs no read of them, and a non-temporal one must first push
  // them out. Measured on the dev VM, B = 16, H = 32, K = V = 128, T = 1, in
  // place (gdr-bench --impl recurrent+cached,recurrent+streaming --in-place 1):
  // 5.23 against 8.21 ms on 1 thread, 5.02 against 6.93 on 2.
  if (over_initial) return false;
  // Beyond the L2 caches of the call's cores the states are gone from
  // cache before the next call: streaming saves each line's read before its
  // write. Measured on the dev VM (Xeon, 2 MiB L2 per core, 105 MiB shared
  // L3), gdr-bench --impl recurrent+cached,recurrent+streaming --T 0,1
  // --threads 1,2 --H 16,32 over K = V = 64, 128, 256 and B = 1, 16, T = 1,
  // streaming / cached: 0.60-0.70x for every call over 8 MiB read and
  // written, on 1 and 2 threads; at 8 MiB 0.59-0.66x (K = 256) and 0.78x /
  // 0.98x (K = 64, 1 / 2 threads); at 4 MiB 0.99x / 1.16x; at 2 MiB and
  // less 1.22-2.04x. So: stream above the threads' L2 (2 MiB a core here).
  return state_bytes > threads * l2_bytes();
}

bool stream_outputs(StateStores requested, int64_t call_bytes, int threads) {
  if (requested != StateStores::Automatic) return requested == StateStores::Streaming;
  // A call whose data (states read and written, inputs, outputs) outgrows
  // the L2 caches of its cores has pushed its first outputs out of them by
  // the time it returns: streaming costs their reader nothing then, and
  // saves each line's read before its write, which a token-major out (rows
  // H * V floats apart, a 4 KiB page each) takes as a demand miss. Measured
  // on the dev VM (Sapphire Rapids, 2 MiB L2 a core), gdr-bench --impl
  // recurrent+out-cached,recurrent+out-streaming --T 1,8,32,128,512
  // --threads 1,2 --interleave-cases 1 over K = V = 64 and 128, H = 32,
  // layout bhtd and bthd, streaming / cached: token-major 0.84-0.98x at
  // T >= 32, 0.98-1.03x at T <= 8; head-major 0.96-1.05x (0.97x / 0.98x at
  // K = 128, T = 512, the rest within the noise).
  return call_bytes > threads * l2_bytes();
}

}  // namespace gdr
