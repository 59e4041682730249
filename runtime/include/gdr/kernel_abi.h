/* The C ABI between the runtime and every kernel (generated or hand-written).
 *
 * A kernel computes the channelwise gated delta rule (see docs/op-contract.md)
 * for a range of flattened heads bh = b * H + h and a range of value columns.
 * Columns of the state evolve independently, so the runtime can give one head
 * to several threads by splitting [0, V) into disjoint column ranges.
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

#define GDR_KERNEL_ABI_VERSION 1

typedef struct gdr_kernel_args {
  const float* query;         /* [B, H, T, K] */
  const float* key;           /* [B, H, T, K] */
  const float* value;         /* [B, H, T, V] */
  const float* decay;         /* [B, H, T, K] */
  const float* beta;          /* [B, H, T]    */
  const float* initial_state; /* [B, H, K, V], read only */
  float* out;                 /* [B, H, T, V] */
  float* final_state;         /* [B, H, K, V] */
  int64_t T, K, V;            /* K and V must equal the kernel's own */
  int64_t bh_begin, bh_end;   /* heads to process: [bh_begin, bh_end)  */
  int64_t v_begin, v_end;     /* columns to process: [v_begin, v_end)  */
  float* scratch;             /* per-worker scratch, scratch_floats long */
  int64_t scratch_floats;
} gdr_kernel_args;

/* Returns 0 on success, non-zero if the kernel cannot run these arguments. */
typedef int32_t (*gdr_kernel_fn)(const gdr_kernel_args* args);

/* A generated recurrent kernel with entry point `<name>` also exports
 * `<name>_info`, GDR_KERNEL_INFO_FIELDS int64_t values indexed by
 * gdr_kernel_info_field, so that a program can load it from a shared object
 * and run it with no compiler at hand (gdr::load_kernel). */
enum gdr_kernel_info_field {
  GDR_INFO_ABI_VERSION,    /* GDR_KERNEL_ABI_VERSION it was built for */
  GDR_INFO_K,              /* the K and V it was built for */
  GDR_INFO_V,
  GDR_INFO_COLUMN_ALIGN,   /* column ranges may start at its multiples */
  GDR_INFO_SCRATCH_FLOATS, /* scratch per worker, whatever T is */
  GDR_INFO_VECTOR_BITS,    /* widest vectors it uses: 128, 256 or 512 */
  GDR_KERNEL_INFO_FIELDS
};

#ifdef __cplusplus
}
#endif

#endif /* GDR_KERNEL_ABI_H */
