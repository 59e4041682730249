#include "gdr/halide_chunked_abi.h"

#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "float32_recurrence.h"

// Defined by the Halide runtime object an AOT program links; absent (null)
// in the JIT process, whose Halide runtimes gdr's compiler configures.
extern "C" void halide_default_error(void* user_context, const char* message);
#pragma weak halide_set_error_handler
#pragma weak halide_default_error

namespace gdr {
namespace {

// The calling thread's last message from a Halide runtime (a chunked
// pipeline runs on the thread that calls it).
thread_local char t_error[1024];

void record_error(const char* message) { std::snprintf(t_error, sizeof t_error, "%s", message); }

// What an AOT program's Halide runtime reports through, installed on the
// first chunked call in place of the default handler (which aborts); a
// handler the program set itself stays.
void install_error_handler() {
  if (!&halide_set_error_handler || !&halide_default_error) return;
  halide_error_handler_t previous = halide_set_error_handler(&halide_chunked_error_handler);
  if (previous != &halide_default_error) halide_set_error_handler(previous);
}

// A float buffer of up to three dimensions, dense along the first; `host`
// points at the element at the mins, as Halide expects.
struct View {
  halide_dimension_t dim[3];
  halide_buffer_t buf{};  // every field zero (no device, no flags)
  View(const float* host, int dims, int32_t min0, int32_t extent0, int32_t extent1,
       int64_t stride1, int32_t extent2 = 1, int64_t stride2 = 0) {
    dim[0] = halide_dimension_t(min0, extent0, 1);
    dim[1] = halide_dimension_t(0, extent1, static_cast<int32_t>(stride1));
    dim[2] = halide_dimension_t(0, extent2, static_cast<int32_t>(stride2));
    buf.host = reinterpret_cast<uint8_t*>(const_cast<float*>(host));
    buf.type = halide_type_t(halide_type_float, 32);
    buf.dimensions = dims;
    buf.dim = dim;
  }
};

// Whether any of `rows` rows of `width` floats, `stride` apart, is NaN or
// infinite: its bits less the sign at least an all-ones exponent's. A max
// of integers, which vectorises.
bool any_non_finite(const float* at, int64_t rows, int64_t stride, int64_t width) {
  int32_t largest = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = at + r * stride;
    for (int64_t i = 0; i < width; ++i) {
      int32_t bits;
      std::memcpy(&bits, row + i, sizeof bits);
      largest = std::max(largest, bits & 0x7fffffff);
    }
  }
  return largest >= 0x7f800000;
}

// A NaN or infinity in the chunk's inputs meets the exact zeros of its
// products (the triangles of its matrices), and 0 x NaN = NaN reaches
// the chunk's earlier tokens too. Every such input shows in an output of
// its token (the recurrence's), so the columns whose outputs, still in
// cache, are not all finite run again as the recurrence, from the
// chunk's initial state, which the contract's propagation is. Column by
// column (both algorithms keep columns apart): the other columns keep
// their bits whatever the call's column parts. gdr-bench --impl chunked,
// K = V = 128, H = 32, T = 512, 1 thread, alternated with the check off
// (2026-12-06, Sapphire Rapids): this check 0.98-1.06x (median 1.016x,
// 6 runs); checking the inputs before the chunk instead 1.05-1.10x at
// K = 128 and 256 (they come from memory).
void rerun_columns_not_finite(const gdr_kernel_args& chunk) {
  const int64_t v0 = chunk.v_begin, v1 = chunk.v_end;
  auto outputs_finite = [&](int64_t c0, int64_t c1) {
    for (int64_t g = 0; g < chunk.readouts; ++g)
      if (any_non_finite(chunk.out + g * chunk.out_readout_stride + c0, chunk.T, chunk.out_token_stride, c1 - c0))
        return false;
    return true;
  };
  if (outputs_finite(v0, v1)) return;
  // A column whose state already held a NaN or infinity is all NaN or
  // infinite either way: it is left as it is, so that a poisoned state (a
  // pool slot after one bad token) does not send every later chunk to the
  // scalar recurrence.
  auto rerun = [&](int64_t c) {
    return !outputs_finite(c, c + 1) && !any_non_finite(chunk.initial_state + c, chunk.K, chunk.V, 1);
  };
  for (int64_t c = v0; c < v1; ++c) {
    if (!rerun(c)) continue;
    gdr_kernel_args columns = chunk;
    columns.v_begin = c;
    while (c + 1 < v1 && rerun(c + 1)) ++c;
    columns.v_end = c + 1;
    float32_recurrence(&columns);
  }
}

// Rows [0, rows) of `width` columns from `from` to `to` (rows V apart).
void copy_columns(const float* from, float* to, int64_t rows, int64_t V, int64_t v0, int64_t width) {
  for (int64_t r = 0; r < rows; ++r)
    std::memmove(to + r * V + v0, from + r * V + v0, width * sizeof(float));
}

// Prefetches `rows` rows of `row` floats, `stride` apart, from `base` (for
// writing if kWrite): every 2 KiB of contiguous rows, else each row's start.
template <int kWrite>
void touch(const float* base, int64_t rows, int64_t stride, int64_t row) {
  const char* p = reinterpret_cast<const char*>(base);
  if (stride == row) {
    for (int64_t b = 0; b < rows * row * 4; b += 2048) __builtin_prefetch(p + b, kWrite, 3);
  } else {
    for (int64_t t = 0; t < rows; ++t) __builtin_prefetch(p + t * stride * 4, kWrite, 3);
  }
}

}  // namespace

void halide_chunked_error_handler(void* /*user_context*/, const char* message) { record_error(message); }

const char* halide_chunked_error() { return t_error; }

int32_t run_halide_chunked(const gdr_kernel_args* a, HalideChunkedFn fn, int64_t chunk) {
  // pthread_once, not a function-local static: this bridge is linked into
  // chunked kernels' shared objects, which must need no C++ runtime (a
  // program with libstdc++ linked statically could not load one).
  static pthread_once_t handler_installed = PTHREAD_ONCE_INIT;
  pthread_once(&handler_installed, install_error_handler);
  t_error[0] = '\0';
  const int64_t T = a->T, K = a->K, V = a->V, v0 = a->v_begin, width = a->v_end - a->v_begin;
  const int64_t chunks = (T + chunk - 1) / chunk;
  const bool scalar_decay = a->decay_kind == GDR_DECAY_SCALAR;
  // In place, an odd number of chunks would have the first read and write
  // final_state: it reads a copy in scratch instead.
  const bool in_place = a->initial_state == a->final_state;
  const bool copy_first = in_place && chunks % 2 == 1;
  // More than one chunk carries the state through scratch. Halide would take
  // a null scratch for a bounds query (return 0, compute nothing), and a short
  // one would be overrun: refuse both, with the recurrent kernels' code 2.
  const int64_t needed = halide_chunked_scratch_floats(T, K, V);
  if ((chunks > 1 || copy_first) && (!a->scratch || a->scratch_floats < needed)) {
    char message[160];
    std::snprintf(message, sizeof message, "chunked kernel: needs scratch of %lld floats, got %lld",
                  static_cast<long long>(needed), static_cast<long long>(a->scratch ? a->scratch_floats : 0));
    record_error(message);
    return 2;
  }
  // Query and out: readout g of the state head at + g * <tensor>_readout_stride.
  // One readout's stride is never used (head-major it is T·K, which may
  // exceed int32): 0 then.
  const int32_t R = static_cast<int32_t>(a->readouts);
  const int64_t query_readout = R > 1 ? a->query_readout_stride : 0;
  const int64_t out_readout = R > 1 ? a->out_readout_stride : 0;
  // Halide refuses a buffer one of whose dimensions spans (extent x stride)
  // more than 2^31 - 1 elements. Checked before anything is written, with
  // a whole chunk's rows whatever this task's length: the strides are the
  // call's, so every task of a call refuses alike and none writes.
  const struct {
    const char* what;
    int64_t extent, stride;
  } spans[] = {{"query's readouts", R, query_readout},
               {"out's readouts", R, out_readout},
               {"query's tokens", chunk, a->query_token_stride},
               {"key's tokens", chunk, a->key_token_stride},
               {"value's tokens", chunk, a->value_token_stride},
               {"decay's tokens", chunk, a->decay_token_stride},
               {"beta's tokens", chunk, a->beta_token_stride},
               {"out's tokens", chunk, a->out_token_stride},
               {"the state's rows", K, V}};
  for (const auto& span : spans)
    if (span.extent > 1 && span.stride > INT32_MAX / span.extent) {
      char message[256];
      std::snprintf(message, sizeof message,
                    "chunked kernel: %s span %llu elements (%lld, %lld apart), more than Halide's 2^31 - 1 "
                    "(the recurrent route has no such limit)",
                    span.what,
                    static_cast<unsigned long long>(span.extent) * static_cast<unsigned long long>(span.stride),
                    static_cast<long long>(span.extent), static_cast<long long>(span.stride));
      record_error(message);
      return 3;
    }
  const float* s0 = a->initial_state;
  float* final_state = a->final_state;
  if (chunks == 0) {
    if (!in_place) copy_columns(s0, final_state, K, V, v0, width);
    return 0;
  }
  if (copy_first) {
    copy_columns(s0, a->scratch, K, V, v0, width);
    s0 = a->scratch;
  }
  // States alternate between final_state and scratch, ending in final_state.
  const float* state_in = s0;
  for (int64_t n = 0; n < chunks; ++n) {
    float* state_out = (chunks - 1 - n) % 2 == 0 ? final_state : a->scratch;
    const int64_t t0 = n * chunk, L = std::min(chunk, T - t0);
    const float* query = a->query + t0 * a->query_token_stride;
    const float* key = a->key + t0 * a->key_token_stride;
    const float* decay = a->decay + t0 * a->decay_token_stride;
    const float* value = a->value + t0 * a->value_token_stride;
    float* out = a->out + t0 * a->out_token_stride;
    View q(query, 3, 0, K, L, a->query_token_stride, R, query_readout),
        k(key, 2, 0, K, L, a->key_token_stride),
        d = scalar_decay ? View(decay, 1, 0, L, 1, 0) : View(decay, 2, 0, K, L, a->decay_token_stride),
        v(value, 2, 0, V, L, a->value_token_stride),
        beta(a->beta + t0 * a->beta_token_stride, 1, 0, L, 1, 0), s_in(state_in, 2, 0, V, K, V),
        o(out + v0, 3, v0, width, L, a->out_token_stride, R, out_readout),
        s_out(state_out + v0, 2, v0, width, K, V);
    if (scalar_decay) d.dim[0].stride = static_cast<int32_t>(a->decay_token_stride);
    beta.dim[0].stride = static_cast<int32_t>(a->beta_token_stride);
    // Touch the next chunk's inputs every half page before this chunk runs:
    // the few demand-like requests start the hardware streamers on those
    // pages, so the next call does not wait on DRAM for its first lines.
    // The same for the next chunk's output rows, for writing (their
    // read-for-ownership otherwise stalls `out`). Every line (64 B stride)
    // measured no faster, every page start slower, and 512 B for the
    // output slower. Ice Lake VM, H = 32, K = V = 128, T = 2048, c16-w16,
    // 1 thread: 89.2 ms without, 87.1 ms with the inputs, 85.1 ms with the
    // output too. Token-major rows are not contiguous: the first bytes of
    // each next row then.
    // Every readout's query and out rows (a readout stride apart).
    if (n + 1 < chunks) {
      const int64_t Ln = std::min(chunk, T - t0 - L);
      touch<0>(key + L * a->key_token_stride, Ln, a->key_token_stride, K);
      if (!scalar_decay) touch<0>(decay + L * a->decay_token_stride, Ln, a->decay_token_stride, K);
      touch<0>(value + L * a->value_token_stride, Ln, a->value_token_stride, V);
      for (int32_t g = 0; g < R; ++g) {
        touch<0>(query + g * query_readout + L * a->query_token_stride, Ln, a->query_token_stride, K);
        touch<1>(out + g * out_readout + L * a->out_token_stride + v0, Ln, a->out_token_stride, V);
      }
    }
    if (int err = fn(&q.buf, &k.buf, &v.buf, &d.buf, &beta.buf, &s_in.buf, &o.buf, &s_out.buf))
      return err;
    gdr_kernel_args chunk_args = *a;
    chunk_args.T = L;
    chunk_args.query = query, chunk_args.key = key, chunk_args.value = value, chunk_args.decay = decay;
    chunk_args.beta = a->beta + t0 * a->beta_token_stride;
    chunk_args.out = out;
    chunk_args.initial_state = state_in, chunk_args.final_state = state_out;
    rerun_columns_not_finite(chunk_args);
    state_in = state_out;
  }
  return 0;
}

}  // namespace gdr

extern "C" const char* gdr_halide_chunked_error() { return gdr::halide_chunked_error(); }

extern "C" int32_t gdr_halide_chunked_entry(const gdr_kernel_args* a, gdr::HalideChunkedFn fn,
                                            int64_t chunk) {
  return gdr::run_halide_chunked(a, fn, chunk);
}
