#!/usr/bin/env bash
# The IR gdr emits must not depend on the compiler that built gdr (GCC and
# clang evaluate function arguments in different orders, so the passes build
# each op in a statement of its own): runs the dialect's passes with two
# gdr-opt binaries (the clang and the GCC build) on a grid of recurrent
# kernels and compares their output byte for byte.
#   tools/scripts/compare-ir.sh GDR_OPT_A GDR_OPT_B
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 GDR_OPT_A GDR_OPT_B" >&2; exit 2; }
a=$1 b=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# K and V with and without scalar tails and ragged tiles, every vector width
# (128 bits on SSE's 16 registers and NEON's 32), one- and three-vector
# tiles, a remainder row or none, prefetch or none; then the default
# schedules with and without a target.
kernels=$dir/kernels.mlir
n=0
for kv in "5 12" "16 40" "20 24" "64 80" "128 128"; do
  read -r k v <<<"$kv"
  for wb in "4 128 x86-64" "4 128 cortex-a76" "8 256 x86-64" "16 512 x86-64"; do
    read -r w bits cpu <<<"$wb"
    for vectors in 1 3; do
      for unroll in 1 3; do
        for prefetch in 0 2; do
          n=$((n + 1))
          echo "gdr.kernel @k$n problem <k = $k, v = $v, element_type = f32, route = recurrent>" \
            "schedule <vector_width = $w, v_tile = $((w * vectors)), unroll = $unroll, prefetch = $prefetch>" \
            "target <cpu = \"$cpu\", vector_bits = $bits>"
        done
      done
    done
  done
done >"$kernels"
# The forms: two readouts, scalar decay, with a scalar tail (K = 5) and a
# remainder row (unroll 2); whole-line tiles, which stream the final state;
# one token per sweep, given; AVX2's default (pairs summed one broadcast at
# a time on 16 registers).
cat >>"$kernels" <<'EOF'
gdr.kernel @default_avx512 problem <k = 128, v = 128, element_type = f32, route = recurrent> target <cpu = "icelake-client", vector_bits = 512>
gdr.kernel @default_no_target problem <k = 96, v = 80, element_type = f32, route = recurrent>
gdr.kernel @readouts problem <k = 5, v = 12, element_type = f32, readouts = 2, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 2, prefetch = 0> target <cpu = "cortex-a76", vector_bits = 128>
gdr.kernel @scalar problem <k = 5, v = 12, element_type = f32, gate = scalar, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 2, prefetch = 2> target <cpu = "cortex-a76", vector_bits = 128>
gdr.kernel @streaming problem <k = 2, v = 32, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 16, unroll = 1, prefetch = 0> target <cpu = "cortex-a76", vector_bits = 128>
gdr.kernel @single_token problem <k = 5, v = 12, element_type = f32, readouts = 2, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 2, prefetch = 2, sweep_tokens = 1> target <cpu = "cortex-a76", vector_bits = 128>
gdr.kernel @default_avx2 problem <k = 128, v = 128, element_type = f32, route = recurrent> target <cpu = "znver3", vector_bits = 256>
EOF
n=$((n + 7))

status=0
for passes in "-gdr-attach-schedule -gdr-lower-recurrent" \
              "-gdr-attach-schedule -gdr-lower-recurrent -gdr-lower-to-llvm"; do
  # shellcheck disable=SC2086  # $passes is a list of flags
  "$a" "$kernels" $passes >"$dir/a.mlir"
  # shellcheck disable=SC2086
  "$b" "$kernels" $passes >"$dir/b.mlir"
  if ! cmp -s "$dir/a.mlir" "$dir/b.mlir"; then
    echo "compare-ir: $a and $b emit different IR after $passes:" >&2
    diff "$dir/a.mlir" "$dir/b.mlir" | head -20 >&2 || true
    status=1
  fi
done
[ $status -ne 0 ] || echo "compare-ir: $n kernels, the same IR from $a and $b"
exit $status
