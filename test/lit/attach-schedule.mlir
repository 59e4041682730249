// gdr-attach-schedule writes the default schedule for the kernel's target
// (else the pass's vector-bits; 256 bits is x86 with 16 vector registers:
// pairs of 2 vectors, K = 64 unrolled by 2) and leaves given schedules alone.
// RUN: gdr-opt %s -gdr-attach-schedule | FileCheck %s
// RUN: gdr-opt %s -gdr-attach-schedule=vector-bits=256 | FileCheck %s --check-prefix=AVX2

// CHECK-LABEL: gdr.kernel @no_target
// CHECK-SAME: schedule <vector_width = 16, v_tile = 32, unroll = 1, prefetch = 2>
// AVX2-LABEL: gdr.kernel @no_target
// AVX2-SAME: schedule <vector_width = 8, v_tile = 16, unroll = 1, prefetch = 2>{{$}}
gdr.kernel @no_target problem <k = 128, v = 128, element_type = f32, route = recurrent>

// AVX2-LABEL: gdr.kernel @k64
// AVX2-SAME: schedule <vector_width = 8, v_tile = 16, unroll = 2, prefetch = 2>{{$}}
gdr.kernel @k64 problem <k = 64, v = 64, element_type = f32, route = recurrent>

// 16-float vectors: pairs on 4 vectors on Intel's cores, on 2 on AMD's.
// CHECK-LABEL: gdr.kernel @intel_avx512
// CHECK-SAME: schedule <vector_width = 16, v_tile = 64, unroll = 1, prefetch = 2>
gdr.kernel @intel_avx512 problem <k = 128, v = 128, element_type = f32, route = recurrent> target <cpu = "sapphirerapids", vector_bits = 512>
// CHECK-LABEL: gdr.kernel @amd_avx512
// CHECK-SAME: schedule <vector_width = 16, v_tile = 32, unroll = 1, prefetch = 2>
gdr.kernel @amd_avx512 problem <k = 128, v = 128, element_type = f32, route = recurrent> target <cpu = "znver4", vector_bits = 512>

// 128 bits: SSE's 16 registers for an x86 CPU name (one token a sweep, as
// gdr-compile chooses for the x86 triple), NEON's 32 for an ARM one or
// "generic" (pairs), unless the target says how many.
// Readouts fit the schedule as gdr-compile fits them: on 16 registers one
// token a sweep; a tile whose accumulators fit half the registers.
// CHECK-LABEL: gdr.kernel @readouts_avx512
// CHECK-SAME: schedule <vector_width = 16, v_tile = 16, unroll = 1, prefetch = 2>
gdr.kernel @readouts_avx512 problem <k = 128, v = 128, element_type = f32, readouts = 8, route = recurrent> target <cpu = "sapphirerapids", vector_bits = 512>
// CHECK-LABEL: gdr.kernel @readouts_avx2
// CHECK-SAME: schedule <vector_width = 8, v_tile = 16, unroll = 1, prefetch = 2, sweep_tokens = 1>
gdr.kernel @readouts_avx2 problem <k = 64, v = 64, element_type = f32, readouts = 2, route = recurrent> target <cpu = "znver3", vector_bits = 256>

// CHECK-LABEL: gdr.kernel @sse_target
// CHECK-SAME: schedule <vector_width = 4, v_tile = 16, unroll = 1, prefetch = 2, sweep_tokens = 1> target <cpu = "x86-64", vector_bits = 128>
gdr.kernel @sse_target problem <k = 128, v = 128, element_type = f32, route = recurrent> target <cpu = "x86-64", vector_bits = 128>
// CHECK-LABEL: gdr.kernel @neon_target
// CHECK-SAME: schedule <vector_width = 4, v_tile = 16, unroll = 1, prefetch = 2> target <cpu = "cortex-a76", vector_bits = 128>
gdr.kernel @neon_target problem <k = 128, v = 128, element_type = f32, route = recurrent> target <cpu = "cortex-a76", vector_bits = 128>
// CHECK-LABEL: gdr.kernel @generic_x86
// CHECK-SAME: sweep_tokens = 1> target <cpu = "generic", vector_bits = 128, vector_registers = 16>
gdr.kernel @generic_x86 problem <k = 128, v = 128, element_type = f32, route = recurrent> target <cpu = "generic", vector_bits = 128, vector_registers = 16>

// The packed tile (K x v_tile floats) stays within 32 KiB: a larger K gets
// a narrower tile.
// CHECK-LABEL: gdr.kernel @large_k
// CHECK-SAME: schedule <vector_width = 16, v_tile = 16, unroll = 1, prefetch = 2>
gdr.kernel @large_k problem <k = 512, v = 128, element_type = f32, route = recurrent>

// CHECK-LABEL: gdr.kernel @given
// CHECK-SAME: schedule <vector_width = 8, v_tile = 16, unroll = 2>{{$}}
gdr.kernel @given problem <k = 64, v = 64, element_type = f32, route = recurrent> schedule <vector_width = 8, v_tile = 16, unroll = 2>
