// Op order at every place where gdr-lower-to-llvm builds more than one op
// in one C++ expression: GCC and clang evaluate function arguments in
// different orders, so such builders are sequenced into statements of their
// own (dialect/lib/*.cpp). Every line of the entry points here follows the
// previous one (CHECK-NEXT), so a builder left to the compiler's order fails
// this test under one of the two compilers; tools/scripts/test.sh runs the
// suite with both. The bodies (gdr-lower-recurrent, thousands of lines even
// for these kernels) are compared whole between the two builds by
// tools/scripts/compare-ir.sh, whose grid holds these kernels too.
//
// K = 5 is one vector of 4 lanes and one scalar, unroll 2 leaves a remainder
// row, and readouts = 2 gives the entry point its readout strides; its twin
// with gate = scalar has the other decay kind.
// RUN: gdr-opt %s -gdr-lower-recurrent -gdr-lower-to-llvm | FileCheck %s --check-prefix=ENTRY
// RUN: gdr-opt %s -gdr-lower-recurrent | FileCheck %s --check-prefix=BODY

gdr.kernel @order problem <k = 5, v = 12, element_type = f32, readouts = 2, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 2, prefetch = 0> target <cpu = "cortex-a76", vector_bits = 128>
gdr.kernel @order_scalar problem <k = 5, v = 12, element_type = f32, gate = scalar, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 2, prefetch = 0> target <cpu = "cortex-a76", vector_bits = 128>
// Rows and tiles of whole cache lines (16 floats) reach the places only a
// streamed final state has: the flag, the next tile's place and prefetches,
// and the entry point's alignment test.
gdr.kernel @order_streaming problem <k = 2, v = 32, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 16, unroll = 1, prefetch = 0> target <cpu = "cortex-a76", vector_bits = 128>

// The entry point: K, V, the decay kind and the readouts (each field's load
// before its constant, each comparison before the next field), the scratch,
// then the tensors in the order of the body's arguments (pointer twice,
// offset 0, size 2^62, stride 1), the scratch (its size the floats given),
// and T, the six token strides, the two readout strides, v_begin, v_end.
// ENTRY-LABEL: llvm.func @order(
// ENTRY-SAME: %[[ARGS:.*]]: !llvm.ptr<struct<(ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, ptr<f32>, i64, i64, ptr<i8>, i64, i64)>>) -> i32 attributes {{.*}} {
// ENTRY-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[PAGE:.*]] = llvm.alloca %[[ONE]] x i8 {alignment = 4096 : i64} : (i64) -> !llvm.ptr<i8>
// ENTRY-NEXT: %[[BYTE:.*]] = llvm.mlir.constant(0 : i8) : i8
// ENTRY-NEXT: llvm.store volatile %[[BYTE]], %[[PAGE]] : !llvm.ptr<i8>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(9 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 9] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_K:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[WANT_K:.*]] = llvm.mlir.constant(5 : i64) : i64
// ENTRY-NEXT: %[[K_OK:.*]] = llvm.icmp "eq" %[[GOT_K]], %[[WANT_K]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(10 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 10] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_V:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[WANT_V:.*]] = llvm.mlir.constant(12 : i64) : i64
// ENTRY-NEXT: %[[V_OK:.*]] = llvm.icmp "eq" %[[GOT_V]], %[[WANT_V]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(11 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 11] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_DECAY:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[WANT_DECAY:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[DECAY_OK:.*]] = llvm.icmp "eq" %[[GOT_DECAY]], %[[WANT_DECAY]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(12 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 12] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_READOUTS:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[WANT_READOUTS:.*]] = llvm.mlir.constant(2 : i64) : i64
// ENTRY-NEXT: %[[READOUTS_OK:.*]] = llvm.icmp "eq" %[[GOT_READOUTS]], %[[WANT_READOUTS]] : i64
// ENTRY-NEXT: %[[SIZES_OK:.*]] = llvm.and %[[K_OK]], %[[V_OK]] : i1
// ENTRY-NEXT: %[[FORM_OK:.*]] = llvm.and %[[DECAY_OK]], %[[READOUTS_OK]] : i1
// ENTRY-NEXT: %[[ALL_OK:.*]] = llvm.and %[[SIZES_OK]], %[[FORM_OK]] : i1
// ENTRY-NEXT: llvm.cond_br %[[ALL_OK]], ^[[GOOD:.*]], ^[[REJECT:.*]]{{$}}
// ENTRY-NEXT: ^[[GOOD]]:
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(24 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 24] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[SCRATCH_FLOATS:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[WANT_SCRATCH:.*]] = llvm.mlir.constant(4623 : i64) : i64
// ENTRY-NEXT: %[[SCRATCH_OK:.*]] = llvm.icmp "sge" %[[SCRATCH_FLOATS]], %[[WANT_SCRATCH]] : i64
// ENTRY-NEXT: llvm.cond_br %[[SCRATCH_OK]], ^[[CALL:.*]], ^[[NO_SCRATCH:.*]]{{$}}
// ENTRY-NEXT: ^[[REJECT]]:
// ENTRY-NEXT: %[[MISMATCH:.*]] = llvm.mlir.constant(1 : i32) : i32
// ENTRY-NEXT: llvm.return %[[MISMATCH]] : i32
// ENTRY-NEXT: ^[[NO_SCRATCH]]:
// ENTRY-NEXT: %[[SHORT:.*]] = llvm.mlir.constant(2 : i32) : i32
// ENTRY-NEXT: llvm.return %[[SHORT]] : i32
// ENTRY-NEXT: ^[[CALL]]:
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(0 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 0] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[QUERY:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[QUERY_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[QUERY_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[QUERY_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(1 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 1] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[KEY:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[KEY_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[KEY_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[KEY_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(2 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 2] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[VALUE:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[VALUE_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[VALUE_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[VALUE_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(3 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 3] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[DECAY:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[DECAY_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[DECAY_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[DECAY_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(4 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 4] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[BETA:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[BETA_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[BETA_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[BETA_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(5 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 5] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[S0:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[S0_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[S0_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[S0_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(6 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 6] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[OUT:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[OUT_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[OUT_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[OUT_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(7 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 7] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[S1:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[S1_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[S1_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[S1_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(23 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 23] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[SCRATCH:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[SCRATCH_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[SCRATCH_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(26 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 26] : {{.*}} -> !llvm.ptr<ptr<i8>>
// ENTRY-NEXT: %[[GIVEN_NEXT:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<i8>>
// ENTRY-NEXT: %[[NULL:.*]] = llvm.mlir.null : !llvm.ptr<i8>
// ENTRY-NEXT: %[[NONE:.*]] = llvm.icmp "eq" %[[GIVEN_NEXT]], %[[NULL]] : !llvm.ptr<i8>
// ENTRY-NEXT: %[[CAST:.*]] = llvm.bitcast %[[GIVEN_NEXT]] : !llvm.ptr<i8> to !llvm.ptr<struct<{{.*}}>>
// ENTRY-NEXT: %[[NEXT_ARGS:.*]] = llvm.select %[[NONE]], %[[ARGS]], %[[CAST]] : i1, !llvm.ptr<struct<{{.*}}>>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(5 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 5] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[NEXT_S0:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(21 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 21] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[NEXT_V_BEGIN:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[NEXT:.*]] = llvm.getelementptr %[[NEXT_S0]][%[[NEXT_V_BEGIN]]] : (!llvm.ptr<f32>, i64) -> !llvm.ptr<f32>
// ENTRY-NEXT: %[[NEXT_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[NEXT_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[NEXT_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(0 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 0] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[NEXT_QUERY:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[NEXT_QUERY_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[NEXT_QUERY_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[NEXT_QUERY_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(1 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 1] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[NEXT_KEY:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[NEXT_KEY_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[NEXT_KEY_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[NEXT_KEY_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(3 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 3] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[NEXT_DECAY:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[NEXT_DECAY_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[NEXT_DECAY_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[NEXT_DECAY_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(8 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 8] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[T:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(13 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 13] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[QUERY_TOKEN_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(14 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 14] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[KEY_TOKEN_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(15 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 15] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[VALUE_TOKEN_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(16 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 16] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[DECAY_TOKEN_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(17 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 17] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[BETA_TOKEN_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(18 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 18] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[OUT_TOKEN_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(19 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 19] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[QUERY_READOUT_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(20 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 20] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[OUT_READOUT_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(8 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 8] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[NEXT_T:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(13 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 13] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[NEXT_QUERY_TOKEN_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(14 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 14] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[NEXT_KEY_TOKEN_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(16 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 16] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[NEXT_DECAY_TOKEN_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(19 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 19] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[NEXT_QUERY_READOUT_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(21 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 21] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[V_BEGIN:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(22 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 22] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[V_END:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// Whether out streams: asked (field 28), its first column and both of its
// strides (token, field 18; readout, field 20: two readouts) whole lines.
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(28 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 28] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_OUT_STORES:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[STREAMING:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[OUT_ASKED:.*]] = llvm.icmp "eq" %[[GOT_OUT_STORES]], %[[STREAMING]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(6 : i32) : i32
// ENTRY-NEXT: llvm.getelementptr %[[ARGS]][%[[Z]], 6] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: llvm.load
// ENTRY-NEXT: llvm.ptrtoint
// ENTRY-NEXT: llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(21 : i32) : i32
// ENTRY-NEXT: llvm.getelementptr
// ENTRY-NEXT: llvm.load
// ENTRY-NEXT: llvm.mlir.constant(4 : i64) : i64
// ENTRY-NEXT: llvm.mul
// ENTRY-NEXT: llvm.add
// ENTRY-NEXT: llvm.mlir.constant(63 : i64) : i64
// ENTRY-NEXT: llvm.and
// ENTRY-NEXT: llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[OUT_ALIGNED:.*]] = llvm.icmp "eq"
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(18 : i32) : i32
// ENTRY-NEXT: llvm.getelementptr %[[ARGS]][%[[Z]], 18] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: llvm.load
// ENTRY-NEXT: llvm.mlir.constant(4 : i64) : i64
// ENTRY-NEXT: llvm.mul
// ENTRY-NEXT: llvm.mlir.constant(63 : i64) : i64
// ENTRY-NEXT: llvm.and
// ENTRY-NEXT: llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[TOKENS_ALIGNED:.*]] = llvm.icmp "eq"
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(20 : i32) : i32
// ENTRY-NEXT: llvm.getelementptr %[[ARGS]][%[[Z]], 20] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: llvm.load
// ENTRY-NEXT: llvm.mlir.constant(4 : i64) : i64
// ENTRY-NEXT: llvm.mul
// ENTRY-NEXT: llvm.mlir.constant(63 : i64) : i64
// ENTRY-NEXT: llvm.and
// ENTRY-NEXT: llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[READOUTS_ALIGNED:.*]] = llvm.icmp "eq"
// ENTRY-NEXT: %[[ROWS_ALIGNED:.*]] = llvm.and %[[TOKENS_ALIGNED]], %[[READOUTS_ALIGNED]] : i1
// ENTRY-NEXT: %[[OUT_STARTS:.*]] = llvm.and %[[OUT_ALIGNED]], %[[ROWS_ALIGNED]] : i1
// ENTRY-NEXT: %[[OUT_STREAM:.*]] = llvm.and %[[OUT_ASKED]], %[[OUT_STARTS]] : i1
// V = 12 floats: rows do not start cache lines, the final state's streaming
// flag is 0.
// ENTRY-NEXT: %[[NO_STREAMING:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[OUT_FLAG:.*]] = llvm.zext %[[OUT_STREAM]] : i1 to i64
// Then this task's tag, the next task's (0 without one) and its columns.
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(27 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 27] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[OWN_TAG:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(27 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 27] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[THEIR_TAG:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[NEXT_TAG:.*]] = llvm.select %[[NONE]], %[[Z]], %[[THEIR_TAG]] : i1, i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(21 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 21] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[NEXT_BEGIN:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(22 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[NEXT_ARGS]][%[[Z]], 22] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[NEXT_END:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[NEXT_COLUMNS:.*]] = llvm.sub %[[NEXT_END]], %[[NEXT_BEGIN]] : i64
// ENTRY-NEXT: llvm.call @order_body(%[[QUERY]], %[[QUERY]], %[[QUERY_OFFSET]], %[[QUERY_SIZE]], %[[QUERY_STRIDE]], %[[KEY]], %[[KEY]], %[[KEY_OFFSET]], %[[KEY_SIZE]], %[[KEY_STRIDE]], %[[VALUE]], %[[VALUE]], %[[VALUE_OFFSET]], %[[VALUE_SIZE]], %[[VALUE_STRIDE]], %[[DECAY]], %[[DECAY]], %[[DECAY_OFFSET]], %[[DECAY_SIZE]], %[[DECAY_STRIDE]], %[[BETA]], %[[BETA]], %[[BETA_OFFSET]], %[[BETA_SIZE]], %[[BETA_STRIDE]], %[[S0]], %[[S0]], %[[S0_OFFSET]], %[[S0_SIZE]], %[[S0_STRIDE]], %[[OUT]], %[[OUT]], %[[OUT_OFFSET]], %[[OUT_SIZE]], %[[OUT_STRIDE]], %[[S1]], %[[S1]], %[[S1_OFFSET]], %[[S1_SIZE]], %[[S1_STRIDE]], %[[SCRATCH]], %[[SCRATCH]], %[[SCRATCH_OFFSET]], %[[SCRATCH_FLOATS]], %[[SCRATCH_STRIDE]], %[[NEXT]], %[[NEXT]], %[[NEXT_OFFSET]], %[[NEXT_SIZE]], %[[NEXT_STRIDE]], %[[NEXT_QUERY]], %[[NEXT_QUERY]], %[[NEXT_QUERY_OFFSET]], %[[NEXT_QUERY_SIZE]], %[[NEXT_QUERY_STRIDE]], %[[NEXT_KEY]], %[[NEXT_KEY]], %[[NEXT_KEY_OFFSET]], %[[NEXT_KEY_SIZE]], %[[NEXT_KEY_STRIDE]], %[[NEXT_DECAY]], %[[NEXT_DECAY]], %[[NEXT_DECAY_OFFSET]], %[[NEXT_DECAY_SIZE]], %[[NEXT_DECAY_STRIDE]], %[[T]], %[[QUERY_TOKEN_STRIDE]], %[[KEY_TOKEN_STRIDE]], %[[VALUE_TOKEN_STRIDE]], %[[DECAY_TOKEN_STRIDE]], %[[BETA_TOKEN_STRIDE]], %[[OUT_TOKEN_STRIDE]], %[[QUERY_READOUT_STRIDE]], %[[OUT_READOUT_STRIDE]], %[[NEXT_T]], %[[NEXT_QUERY_TOKEN_STRIDE]], %[[NEXT_KEY_TOKEN_STRIDE]], %[[NEXT_DECAY_TOKEN_STRIDE]], %[[NEXT_QUERY_READOUT_STRIDE]], %[[V_BEGIN]], %[[V_END]], %[[NO_STREAMING]], %[[OUT_FLAG]], %[[OWN_TAG]], %[[NEXT_TAG]], %[[NEXT_COLUMNS]]) : ({{.*}}) -> ()
// ENTRY-NEXT: llvm.cond_br %[[OUT_STREAM]], ^[[FENCE:.*]], ^[[DONE:[^ ]*]]{{$}}
// ENTRY-NEXT: ^[[FENCE]]:
// ENTRY-NEXT: llvm.fence seq_cst
// ENTRY-NEXT: llvm.br ^[[DONE]]
// ENTRY-NEXT: ^[[DONE]]:
// ENTRY-NEXT: %[[OK:.*]] = llvm.mlir.constant(0 : i32) : i32
// ENTRY-NEXT: llvm.return %[[OK]] : i32
// ENTRY-NEXT: }

// The streamed last token of a whole tile followed by another (whose sums
// the sweep takes): each row prefetches the row min(32, K) = 2 rows after
// it in the tile it sums (into L2), past that tile's last row the same row of the
// tile after it (this task's column + 32 while it is inside v_end, else the
// next task's first column), before the row's load.
// BODY-LABEL: func private @order_streaming_body(
// BODY-SAME: %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[S0:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[S1:[^:]*]]: memref<?xf32>, %[[SCRATCH:[^:]*]]: memref<?xf32>, %[[NEXT:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: index,
// BODY-SAME: %[[V1:[^:]*]]: index, %[[STREAM_ARG:[^:]*]]: index, %[[OUT_STREAM_ARG:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index)
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[STREAM:.*]] = arith.cmpi ne, %[[STREAM_ARG]], %[[C0]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: arith.cmpi ne, %[[OUT_STREAM_ARG]], %[[C0]] : index
// T = 0's copy streams.
// BODY: scf.if %[[STREAM]] {
// BODY: vector.store %{{.*}}, %[[S1]][%{{.*}}] {gdr.nontemporal}
// A last block of one to four tokens (after the loop over the others):
// its tiles stream (the task's last block), each prefetching the tile after
// the one it sums from the block's source (the initial state in the task's
// first block, else the scratch).
// BODY: %[[HAS_TAIL:.*]] = arith.cmpi ult, %{{.*}}, %c4{{(_[0-9]+)?}} : index
// BODY: scf.if %[[HAS_TAIL]] {
// BODY: %[[SOURCE:.*]] = select %{{.*}}, %[[S0]], %[[SCRATCH]] : memref<?xf32>
// BODY: scf.for %[[COL:[^ ]*]] = %{{.*}} to %{{.*}} step %c16{{.*}} iter_args
// BODY: %[[LAST_BLOCK_STREAMS:.*]] = arith.andi %[[STREAM]], %{{.*}} : i1
// BODY-NEXT: scf.if %[[LAST_BLOCK_STREAMS]] -> ({{.*}}) {
// BODY-NEXT: %[[C32:.*]] = arith.constant 32 : index
// BODY-NEXT: %[[AFTER:.*]] = arith.addi %[[COL]], %[[C32]] : index
// BODY-NEXT: %[[IN_TASK:.*]] = arith.cmpi ult, %[[AFTER]], %[[V1]] : index
// BODY-NEXT: %[[AHEAD:.*]] = select %[[IN_TASK]], %[[SOURCE]], %[[NEXT]] : memref<?xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AHEAD_COL:.*]] = select %[[IN_TASK]], %[[AFTER]], %[[C0]] : index
// BODY: %[[IN_TILE:.*]] = arith.cmpi ult, %[[AHEAD_ROW:.*]], %c2{{.*}} : index
// BODY-NEXT: %[[K:.*]] = arith.constant 2 : index
// BODY-NEXT: %[[PAST:.*]] = arith.subi %[[AHEAD_ROW]], %[[K]] : index
// BODY-NEXT: %[[V:.*]] = arith.constant 32 : index
// BODY-NEXT: %[[PAST_ROW:.*]] = arith.muli %[[PAST]], %[[V]] : index
// BODY-NEXT: %[[THERE:.*]] = arith.addi %[[PAST_ROW]], %[[AHEAD_COL]] : index
// BODY: %[[MEM:.*]] = select %[[IN_TILE]], %{{.*}}, %[[AHEAD]] : memref<?xf32>
// BODY: %[[AT:.*]] = select %[[IN_TILE]], %{{.*}}, %{{.*}} : index
// BODY-NEXT: memref.prefetch %[[MEM]][%[[AT]]], read, locality<2>, data : memref<?xf32>
// BODY: vector.store %{{.*}}, %[[S1]][%{{.*}}] {gdr.nontemporal}

// The entry point streams the final state if asked (field 25 is 1) and the
// task's first final-state row starts a line: (final_state + 4 v_begin) &
// 63 = 0; then (if it streams either) a fence after the body.
// ENTRY-LABEL: llvm.func @order_streaming(
// ENTRY: llvm.getelementptr %[[ARGS:arg[0-9]+]][%{{.*}}, 22] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[V_END:.*]] = llvm.load %{{.*}} : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(25 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 25] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_STORES:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[STREAMING:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[ASKED:.*]] = llvm.icmp "eq" %[[GOT_STORES]], %[[STREAMING]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(7 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 7] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[FINAL:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[ADDRESS:.*]] = llvm.ptrtoint %[[FINAL]] : !llvm.ptr<f32> to i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(21 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 21] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[V_BEGIN:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// ENTRY-NEXT: %[[COLUMN_BYTES:.*]] = llvm.mul %[[V_BEGIN]], %[[FOUR]] : i64
// ENTRY-NEXT: %[[FIRST:.*]] = llvm.add %[[ADDRESS]], %[[COLUMN_BYTES]] : i64
// ENTRY-NEXT: %[[MASK:.*]] = llvm.mlir.constant(63 : i64) : i64
// ENTRY-NEXT: %[[OFF_LINE:.*]] = llvm.and %[[FIRST]], %[[MASK]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[ALIGNED:.*]] = llvm.icmp "eq" %[[OFF_LINE]], %[[Z]] : i64
// ENTRY-NEXT: %[[STREAM:.*]] = llvm.and %[[ASKED]], %[[ALIGNED]] : i1
// Out streams if asked (field 28 is 1), the task's first out column
// starts a line and so does every token's row (4 out_token_stride & 63 =
// 0; one readout: its stride unused).
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(28 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 28] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_OUT_STORES:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[STREAMING:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[OUT_ASKED:.*]] = llvm.icmp "eq" %[[GOT_OUT_STORES]], %[[STREAMING]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(6 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 6] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[OUT:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[ADDRESS:.*]] = llvm.ptrtoint %[[OUT]] : !llvm.ptr<f32> to i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(21 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 21] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[V_BEGIN:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// ENTRY-NEXT: %[[COLUMN_BYTES:.*]] = llvm.mul %[[V_BEGIN]], %[[FOUR]] : i64
// ENTRY-NEXT: %[[FIRST:.*]] = llvm.add %[[ADDRESS]], %[[COLUMN_BYTES]] : i64
// ENTRY-NEXT: %[[MASK:.*]] = llvm.mlir.constant(63 : i64) : i64
// ENTRY-NEXT: %[[OFF_LINE:.*]] = llvm.and %[[FIRST]], %[[MASK]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[OUT_ALIGNED:.*]] = llvm.icmp "eq" %[[OFF_LINE]], %[[Z]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(18 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 18] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[OUT_STRIDE:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// ENTRY-NEXT: %[[STRIDE_BYTES:.*]] = llvm.mul %[[OUT_STRIDE]], %[[FOUR]] : i64
// ENTRY-NEXT: %[[MASK:.*]] = llvm.mlir.constant(63 : i64) : i64
// ENTRY-NEXT: %[[OFF_LINE:.*]] = llvm.and %[[STRIDE_BYTES]], %[[MASK]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[ROWS_ALIGNED:.*]] = llvm.icmp "eq" %[[OFF_LINE]], %[[Z]] : i64
// ENTRY-NEXT: %[[OUT_STARTS:.*]] = llvm.and %[[OUT_ALIGNED]], %[[ROWS_ALIGNED]] : i1
// ENTRY-NEXT: %[[OUT_STREAM:.*]] = llvm.and %[[OUT_ASKED]], %[[OUT_STARTS]] : i1
// ENTRY-NEXT: %[[FLAG:.*]] = llvm.zext %[[STREAM]] : i1 to i64
// ENTRY-NEXT: %[[OUT_FLAG:.*]] = llvm.zext %[[OUT_STREAM]] : i1 to i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(27 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 27] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[OWN_TAG:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(27 : i32) : i32
// ENTRY-NEXT: llvm.getelementptr
// ENTRY-NEXT: llvm.load
// ENTRY-NEXT: llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[NEXT_TAG:.*]] = llvm.select
// ENTRY-NEXT: llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(21 : i32) : i32
// ENTRY-NEXT: llvm.getelementptr
// ENTRY-NEXT: llvm.load
// ENTRY-NEXT: llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(22 : i32) : i32
// ENTRY-NEXT: llvm.getelementptr
// ENTRY-NEXT: llvm.load
// ENTRY-NEXT: %[[NEXT_COLUMNS:.*]] = llvm.sub
// ENTRY-NEXT: llvm.call @order_streaming_body({{.*}}, %[[V_END]], %[[FLAG]], %[[OUT_FLAG]], %[[OWN_TAG]], %[[NEXT_TAG]], %[[NEXT_COLUMNS]])
// ENTRY-NEXT: %[[EITHER:.*]] = llvm.or %[[STREAM]], %[[OUT_STREAM]] : i1
// ENTRY-NEXT: llvm.cond_br %[[EITHER]], ^[[FENCE:.*]], ^[[DONE:[^ ]*]]{{$}}
// ENTRY-NEXT: ^[[FENCE]]:
// ENTRY-NEXT: llvm.fence seq_cst
// ENTRY-NEXT: llvm.br ^[[DONE]]
// ENTRY-NEXT: ^[[DONE]]:
// ENTRY-NEXT: %[[OK:.*]] = llvm.mlir.constant(0 : i32) : i32
// ENTRY-NEXT: llvm.return %[[OK]] : i32
