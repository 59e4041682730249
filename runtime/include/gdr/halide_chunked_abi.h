// The bridge from the runtime's kernel ABI (gdr_kernel_args: heads, column
// range, scratch) to a Halide chunked pipeline, JIT or AOT. It needs only
// HalideRuntime.h, so an AOT user links it with the generated object and the
// one Halide runtime object, without the Halide compiler.
#pragma once

#include <HalideRuntime.h>

#include <cstdint>

#include "gdr/kernel_abi.h"

namespace gdr {

// The signature Halide gives the chunked pipeline (argument order of
// ChunkedAlgorithm::arguments(), then the outputs out and state_out).
using HalideChunkedFn = int (*)(halide_buffer_t* query, halide_buffer_t* key,
                                halide_buffer_t* value, halide_buffer_t* decay,
                                halide_buffer_t* beta, halide_buffer_t* state_in,
                                halide_buffer_t* out, halide_buffer_t* state_out);

// Runs `fn` (built for chunk size `chunk`) over the task `a` (one head of one
// sequence, columns [v_begin, v_end)), one call per chunk, carrying the
// state through final_state and one K x V scratch buffer so that the last
// chunk writes final_state. Returns 0, 2 if the call needs scratch (T spans
// several chunks, or in place over an odd number of chunks, one included)
// and it is missing or shorter than halide_chunked_scratch_floats, 3 if a
// buffer would span more than Halide's 2^31 - 1 elements in a dimension
// (readouts, a chunk of rows, K x V; refused before anything is written),
// or Halide's error code (each with its message in halide_chunked_error()),
// which is how another K, V, decay kind or number of readouts than the
// pipeline's is refused (its buffers' constraints) once there are tokens:
// at T = 0 no pipeline runs, and the K x V state the arguments say is copied.
int32_t run_halide_chunked(const gdr_kernel_args* a, HalideChunkedFn fn, int64_t chunk);

// Halide runtime errors (a buffer constraint violated: only arguments the
// runtime's validate() would refuse) must not abort the process. gdr installs
// this error handler in every Halide runtime its chunked kernels use: the
// JIT's, and an AOT program's on its first chunked call in place of Halide's
// default handler (a handler the program set itself stays). It records the
// message for the calling thread and returns, so the pipeline returns its
// nonzero error code.
void halide_chunked_error_handler(void* user_context, const char* message);

// The calling thread's message from its last chunked kernel call that
// failed, "" if it did not (reset by each call).
const char* halide_chunked_error();

// Scratch floats run_halide_chunked needs per worker.
inline int64_t halide_chunked_scratch_floats(int64_t /*T*/, int64_t K, int64_t V) { return K * V; }

}  // namespace gdr

// The same as a plain C function, for the entry point gdr-compile generates
// in a chunked kernel's object (`int32_t NAME(const gdr_kernel_args*)`,
// which calls it with the pipeline `NAME_halide` and its chunk size): what a
// chunked AOT user links, with no Halide header of its own.
extern "C" int32_t gdr_halide_chunked_entry(const gdr_kernel_args* a, gdr::HalideChunkedFn fn,
                                            int64_t chunk);

// halide_chunked_error() as a plain C function, which gdr::load_kernel looks
// up in a chunked shared library (whose bridge keeps its own messages).
extern "C" const char* gdr_halide_chunked_error();

// Defines `int32_t name(const gdr_kernel_args*)` for an AOT-compiled
// pipeline `halide_fn` with chunk size `chunk`.
#define GDR_DEFINE_HALIDE_CHUNKED_KERNEL(name, halide_fn, chunk)               \
  extern "C" int32_t name(const gdr_kernel_args* a) {                         \
    return gdr::run_halide_chunked(a, &halide_fn, chunk);           \
  }
