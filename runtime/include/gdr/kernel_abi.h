/* The C ABI between the runtime and every kernel (generated or hand-written).
 *
 * A kernel computes the gated delta rule (see docs/op-contract.md) for one
 * task: one state head of one sequence over a range of value columns.
 * Columns of the state evolve independently, so the runtime can give one
 * head to several threads by splitting [0, V) into disjoint column ranges.
 * The runtime resolves layout, head groups, sequence offsets and state
 * slots into the task's pointers and token strides, so a kernel sees one
 * sequence of one head whatever the call looked like, and pays nothing per
 * token for any of them.
 *
 * The runtime validates every argument before calling a kernel; a kernel
 * trusts its arguments and returns 0 on success. Plain C so that generated
 * objects, AOT users and the runtime agree without any compiler header. */
#ifndef GDR_KERNEL_ABI_H
#define GDR_KERNEL_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GDR_KERNEL_ABI_VERSION 6

/* How decay is given: K factors per token (channelwise) or one per token. */
enum gdr_decay_kind { GDR_DECAY_CHANNEL = 0, GDR_DECAY_SCALAR = 1 };

/* How the final state (or out) is written: through the cache (for data read
 * again soon), or streaming (non-temporal stores, which do not read each
 * line before writing it, for data that does not stay in cache until its
 * next use). A request: a kernel may always cache (hand-written ones do; a
 * generated recurrent one streams only rows that start a 64-byte line, in
 * tiles of whole lines, and fences before it returns). */
enum gdr_state_stores { GDR_STATE_STORES_CACHED = 0, GDR_STATE_STORES_STREAMING = 1 };

/* Row t (token t of the task's sequence) of a tensor starts at
 * base + t * <tensor>_token_stride floats; rows are dense (stride 1 inside). */
typedef struct gdr_kernel_args {
  const float* query;         /* readouts x T rows of K; readout r at + r * query_readout_stride */
  const float* key;           /* T rows of K */
  const float* value;         /* T rows of V */
  const float* decay;         /* T rows of K (channel) or T floats (scalar) */
  const float* beta;          /* T floats */
  const float* initial_state; /* K x V, rows V apart; read only (may equal final_state) */
  float* out;                 /* readouts x T rows of V; readout r at + r * out_readout_stride */
  float* final_state;         /* K x V, rows V apart */
  int64_t T, K, V;            /* K and V must equal the kernel's own */
  int64_t decay_kind;         /* gdr_decay_kind; must equal the kernel's own */
  int64_t readouts;           /* queries reading this state head; must equal the kernel's own */
  int64_t query_token_stride, key_token_stride, value_token_stride;
  int64_t decay_token_stride, beta_token_stride, out_token_stride;
  int64_t query_readout_stride, out_readout_stride;
  int64_t v_begin, v_end;     /* columns to process: [v_begin, v_end) */
  float* scratch;             /* per-worker scratch, scratch_floats long */
  int64_t scratch_floats;
  int64_t final_state_stores; /* gdr_state_stores */
  /* The task the same worker runs next (T > 0), or null. A kernel may
   * prefetch its first rows while it runs its own last tokens, and (with
   * streaming stores) its initial state while it writes this final state,
   * so that the memory bus reads ahead while the kernel computes and
   * writes. It must be a task of the same kernel (its K, V, decay kind,
   * readouts and scratch): a kernel reads it as its own, unchecked. */
  const struct gdr_kernel_args* next_task;
  /* Non-zero: this task's name among every task of the process (the
   * runtime numbers them from 1; 0: none). A generated kernel whose task
   * ends on a one-token block (decode) sums next_task's first tile, if
   * next_task is one token with a whole tile (likewise 2 to 4 tokens run
   * as one group), in the sweep that writes its own last whole tile, and
   * leaves those sums in its scratch under next_task's tag; a task whose
   * tag it finds there skips that read-only sweep of its state. A caller
   * giving tags must never give one twice while the scratch lives (sums
   * left for a task another worker ran, or in an earlier call, are then
   * never taken), and its scratch must not start with them (the runtime
   * zeroes new scratch). */
  int64_t first_sums_tag;
  int64_t out_stores;         /* gdr_state_stores, for out (ABI 6) */
} gdr_kernel_args;

/* Returns 0 on success, non-zero if the kernel cannot run these arguments
 * (1: K, V, decay kind or readouts differ from its own; 2: scratch short;
 * a chunked kernel refuses other K, V, decay kind or readouts through its
 * Halide buffer constraints instead: Halide's negative error code, when
 * it has tokens to run; at T = 0 it copies the K x V state the arguments
 * say, as the runtime, which checks them first, never asks otherwise). */
typedef int32_t (*gdr_kernel_fn)(const gdr_kernel_args* args);

/* A recurrent kernel writes the state itself (not with its decay deferred)
 * at the end of every block of this many tokens of its task, so that a
 * sequence split across calls at multiples of it gives the bits of one
 * call (GDR_INFO_TOKEN_STEPS). */
#define GDR_TOKEN_BLOCK 64

/* A generated kernel with entry point `<name>` also exports `<name>_info`,
 * GDR_KERNEL_INFO_FIELDS int64_t values indexed by gdr_kernel_info_field, so
 * that a program can load it from a shared object and run it with no
 * compiler at hand (gdr::load_kernel). */
enum gdr_kernel_info_field {
  GDR_INFO_ABI_VERSION,    /* GDR_KERNEL_ABI_VERSION it was built for */
  GDR_INFO_K,              /* the K and V it was built for */
  GDR_INFO_V,
  GDR_INFO_COLUMN_ALIGN,   /* column ranges may start at its multiples */
  GDR_INFO_SCRATCH_FLOATS, /* scratch per worker, whatever T is */
  GDR_INFO_VECTOR_BITS,    /* widest vectors it uses: 128, 256 or 512 */
  GDR_INFO_DECAY_KIND,     /* gdr_decay_kind it reads */
  GDR_INFO_READOUTS,       /* queries per state head it reads out */
  GDR_INFO_TOKEN_STEPS,    /* 1: a sequence run as consecutive calls of
                              multiples of GDR_TOKEN_BLOCK tokens (each
                              from the state the last wrote) gives the
                              bits of one call (Kernel::token_steps) */
  GDR_KERNEL_INFO_FIELDS
};

#ifdef __cplusplus
}
#endif

#endif /* GDR_KERNEL_ABI_H */
