#include "gdr/halide_chunked_abi.h"

#include <algorithm>
#include <cstring>

namespace gdr {
namespace {

// A dense float buffer of up to two dimensions; `host` points at the element
// at the mins, as Halide expects.
struct View {
  halide_dimension_t dim[2];
  halide_buffer_t buf{};  // every field zero (no device, no flags)
  View(const float* host, int dims, int32_t min0, int32_t extent0, int32_t extent1,
       int32_t stride1) {
    dim[0] = halide_dimension_t(min0, extent0, 1);
    dim[1] = halide_dimension_t(0, extent1, stride1);
    buf.host = reinterpret_cast<uint8_t*>(const_cast<float*>(host));
    buf.type = halide_type_t(halide_type_float, 32);
    buf.dimensions = dims;
    buf.dim = dim;
  }
};

}  // namespace

int32_t run_halide_chunked(const gdr_kernel_args* a, HalideChunkedFn fn, int64_t chunk) {
  const int64_t T = a->T, K = a->K, V = a->V, v0 = a->v_begin, width = a->v_end - a->v_begin;
  const int64_t chunks = (T + chunk - 1) / chunk;
  // More than one chunk carries the state through scratch. Halide would take
  // a null scratch for a bounds query (return 0, compute nothing), and a short
  // one would be overrun: refuse both, with the recurrent kernels' code 2.
  if (chunks > 1 && (!a->scratch || a->scratch_floats < halide_chunked_scratch_floats(T, K, V)))
    return 2;
  for (int64_t bh = a->bh_begin; bh < a->bh_end; ++bh) {
    const float* s0 = a->initial_state + bh * K * V;
    float* final_state = a->final_state + bh * K * V;
    if (chunks == 0) {
      for (int64_t r = 0; r < K; ++r)
        std::memcpy(final_state + r * V + v0, s0 + r * V + v0, width * sizeof(float));
      continue;
    }
    // States alternate between final_state and scratch, ending in final_state.
    const float* state_in = s0;
    for (int64_t n = 0; n < chunks; ++n) {
      float* state_out = (chunks - 1 - n) % 2 == 0 ? final_state : a->scratch;
      const int64_t t0 = n * chunk, L = std::min(chunk, T - t0);
      const int64_t tok = bh * T + t0;
      View q(a->query + tok * K, 2, 0, K, L, K), k(a->key + tok * K, 2, 0, K, L, K),
          d(a->decay + tok * K, 2, 0, K, L, K), v(a->value + tok * V, 2, 0, V, L, V),
          beta(a->beta + tok, 1, 0, L, 1, 0), s_in(state_in, 2, 0, V, K, V),
          out(a->out + tok * V + v0, 2, v0, width, L, V),
          s_out(state_out + v0, 2, v0, width, K, V);
      // Touch the next chunk's inputs every half page before this chunk runs:
      // the few demand-like requests start the hardware streamers on those
      // pages, so the next call does not wait on DRAM for its first lines.
      // The same for the next chunk's output rows, for writing (their
      // read-for-ownership otherwise stalls `out`). Every line (64 B stride)
      // measured no faster, every page start slower, and 512 B for the
      // output slower. Ice Lake VM, H = 32, K = V = 128, T = 2048, c16-w16,
      // 1 thread: 89.2 ms without, 87.1 ms with the inputs, 85.1 ms with the
      // output too.
      if (n + 1 < chunks) {
        const int64_t tn = tok + L, Ln = std::min(chunk, T - t0 - L);
        const char* next[4] = {reinterpret_cast<const char*>(a->query + tn * K),
                               reinterpret_cast<const char*>(a->key + tn * K),
                               reinterpret_cast<const char*>(a->decay + tn * K),
                               reinterpret_cast<const char*>(a->value + tn * V)};
        const int64_t bytes[4] = {Ln * K * 4, Ln * K * 4, Ln * K * 4, Ln * V * 4};
        for (int p = 0; p < 4; ++p)
          for (int64_t b = 0; b < bytes[p]; b += 2048) __builtin_prefetch(next[p] + b, 0, 3);
        const char* next_out = reinterpret_cast<const char*>(a->out + tn * V + v0);
        for (int64_t b = 0; b < Ln * V * 4; b += 2048) __builtin_prefetch(next_out + b, 1, 3);
      }
      if (int err = fn(&q.buf, &k.buf, &v.buf, &d.buf, &beta.buf, &s_in.buf, &out.buf, &s_out.buf))
        return err;
      state_in = state_out;
    }
  }
  return 0;
}

}  // namespace gdr

extern "C" int32_t gdr_halide_chunked_entry(const gdr_kernel_args* a, gdr::HalideChunkedFn fn,
                                            int64_t chunk) {
  return gdr::run_halide_chunked(a, fn, chunk);
}
