// Op order at every place where the passes build more than one op in one
// C++ expression: GCC and clang evaluate function arguments in different
// orders, so such builders are sequenced into statements of their own
// (dialect/lib/*.cpp). Every line here follows the previous one (CHECK-NEXT),
// so a builder left to the compiler's order fails this test under one of the
// two compilers; tools/scripts/test.sh runs the suite with both.
//
// One small kernel reaches every such place: K = 5 is one vector of 4 lanes
// and one scalar (k·q, dk, dq), unroll 2 leaves a remainder row, and
// prefetch 0 leaves the token loop's bound the only T - 1.
// RUN: gdr-opt %s -gdr-lower-recurrent | FileCheck %s --check-prefix=BODY
// RUN: gdr-opt %s -gdr-lower-recurrent -gdr-lower-to-llvm | FileCheck %s --check-prefix=ENTRY

gdr.kernel @order problem <k = 5, v = 12, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 2, prefetch = 0> target <cpu = "x86-64", vector_bits = 128>

// BODY-LABEL: func private @order_body(
// BODY-SAME: %[[QUERY:[^:]*]]: memref<?xf32>, %[[KEY:[^:]*]]: memref<?xf32>, %[[VALUE:[^:]*]]: memref<?xf32>, %[[DECAY:[^:]*]]: memref<?xf32>, %[[BETA:[^:]*]]: memref<?xf32>, %[[S0:[^:]*]]: memref<?xf32>, %[[OUT:[^:]*]]: memref<?xf32>, %[[S1:[^:]*]]: memref<?xf32>, %[[SCRATCH:[^:]*]]: memref<?xf32>, %[[T:[^:]*]]: index, %[[BH0:[^:]*]]: index, %[[BH1:[^:]*]]: index, %[[V0:[^:]*]]: index, %[[V1:[^:]*]]: index)

// Whole tiles: (v_end - v_begin) / v_tile * v_tile.
// BODY: scf.for %[[BH:.*]] = %[[BH0]] to %[[BH1]] step %{{.*}} {
// BODY-NEXT: %[[COLUMNS:.*]] = arith.subi %[[V1]], %[[V0]] : index
// BODY-NEXT: %[[TILE:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[TILES:.*]] = arith.divui %[[COLUMNS]], %[[TILE]] : index
// BODY-NEXT: %[[TILE:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[WHOLE:.*]] = arith.muli %[[TILES]], %[[TILE]] : index
// BODY-NEXT: %[[TILES_END:.*]] = arith.addi %[[V0]], %[[WHOLE]] : index
// BODY-NEXT: %[[TILE:.*]] = arith.constant 8 : index
// BODY-NEXT: scf.for %[[COL:.*]] = %[[V0]] to %[[TILES_END]] step %[[TILE]] {
// BODY-NEXT: %[[KV:.*]] = arith.constant 60 : index
// BODY-NEXT: %[[HEAD:.*]] = arith.muli %[[BH]], %[[KV]] : index
// BODY-NEXT: %[[BASE:.*]] = arith.addi %[[HEAD]], %[[COL]] : index
// BODY-NEXT: %[[TOKEN_BASE:.*]] = arith.muli %[[BH]], %[[T]] : index
// BODY-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[NO_TOKENS:.*]] = arith.cmpi eq, %[[T]], %[[ZERO]] : index
// BODY-NEXT: scf.if %[[NO_TOKENS]] {
// T = 0 copies initial_state to final_state: the unrolled rows' loop (begin,
// end, step), row k0 + 0, vector 0: initial_state at base + (k·V + 0), its
// load, then final_state's address and the store.
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 2 : index
// BODY-NEXT: scf.for %[[K0:.*]] = %[[BEGIN]] to %[[END]] step %[[STEP]] {
// BODY-NEXT: %[[R:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[K:.*]] = arith.addi %[[K0]], %[[R]] : index
// BODY-NEXT: %[[V:.*]] = arith.constant 12 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[V]] : index
// BODY-NEXT: %[[J:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[IN_ROW:.*]] = arith.addi %[[ROW]], %[[J]] : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[BASE]], %[[IN_ROW]] : index
// BODY-NEXT: %[[S:.*]] = vector.load %[[S0]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[V:.*]] = arith.constant 12 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[V]] : index
// BODY-NEXT: %[[J:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[IN_ROW:.*]] = arith.addi %[[ROW]], %[[J]] : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[BASE]], %[[IN_ROW]] : index
// BODY-NEXT: vector.store %[[S]], %[[S1]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// The remainder rows' loop: begin, end, step.
// BODY: {{^ *}}}{{$}}
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 5 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 1 : index
// BODY-NEXT: scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %[[STEP]] {

// T > 0: dk = decay ⊙ key and dq = decay ⊙ query of token 0 into scratch,
// one vector then one scalar, each product made just before its store; then
// token 0's read-only sweep (begin, end, step).
// BODY: } else {
// BODY-NEXT: %[[KC:.*]] = arith.constant 5 : index
// BODY-NEXT: %[[QK:.*]] = arith.muli %[[TOKEN_BASE]], %[[KC]] : index
// BODY-NEXT: %[[I:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QK]], %[[I]] : index
// BODY-NEXT: %[[D:.*]] = vector.load %[[DECAY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[KEY_AT:.*]] = vector.load %[[KEY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DK:.*]] = arith.mulf %[[D]], %[[KEY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: vector.store %[[DK]], %[[SCRATCH]][%[[DK_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DQ:.*]] = arith.mulf %[[D]], %[[QUERY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DQ_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: vector.store %[[DQ]], %[[SCRATCH]][%[[DQ_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[I:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QK]], %[[I]] : index
// BODY-NEXT: %[[D:.*]] = memref.load %[[DECAY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DK:.*]] = arith.mulf %[[D]], %[[KEY_AT]] : f32
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 44 : index
// BODY-NEXT: memref.store %[[DK]], %[[SCRATCH]][%[[DK_AT]]] : memref<?xf32>
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ:.*]] = arith.mulf %[[D]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[DQ_AT:.*]] = arith.constant 49 : index
// BODY-NEXT: memref.store %[[DQ]], %[[SCRATCH]][%[[DQ_AT]]] : memref<?xf32>
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 2 : index
// BODY-NEXT: scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %[[STEP]] iter_args(

// Tokens 1 .. T-2 (begin, end, step): the token's rows, beta, k·q (key then
// query, a vector then a scalar), then per vector delta and the output,
// made before its address.
// BODY: %[[LAST:.*]] = arith.subi %[[T]], %{{.*}} : index
// BODY-NEXT: %[[SECOND:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 1 : index
// BODY-NEXT: scf.for %[[TOK:.*]] = %[[SECOND]] to %[[LAST]] step %[[STEP]] iter_args(%[[SK0:[^ ]*]] = %{{[^,]*}}, %{{[^,]*}}, %[[SQ0:[^ ]*]] = %{{[^,]*}}, %{{[^)]*}}) ->
// BODY-NEXT: %[[TOKEN:.*]] = arith.addi %[[TOKEN_BASE]], %[[TOK]] : index
// BODY-NEXT: %[[KC:.*]] = arith.constant 5 : index
// BODY-NEXT: %[[QK:.*]] = arith.muli %[[TOKEN]], %[[KC]] : index
// BODY-NEXT: %[[VC:.*]] = arith.constant 12 : index
// BODY-NEXT: %[[VROW0:.*]] = arith.muli %[[TOKEN]], %[[VC]] : index
// BODY-NEXT: %[[VROW:.*]] = arith.addi %[[VROW0]], %[[COL]] : index
// BODY-NEXT: %[[B:.*]] = memref.load %[[BETA]][%[[TOKEN]]] : memref<?xf32>
// BODY-NEXT: %[[BV:.*]] = vector.broadcast %[[B]] : f32 to vector<4xf32>
// BODY-NEXT: arith.constant 0.000000e+00 : f32
// BODY-NEXT: %[[I:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QK]], %[[I]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = vector.load %[[KEY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[KQ_V:.*]] = vector.fma %[[KEY_AT]], %[[QUERY_AT]], %{{.*}} : vector<4xf32>
// BODY-NEXT: %[[SUM:.*]] = vector.reduction "add", %[[KQ_V]] : vector<4xf32> into f32
// BODY-NEXT: %[[I:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QK]], %[[I]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[KQ_S:.*]] = arith.mulf %[[KEY_AT]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[KQ:.*]] = arith.addf %[[SUM]], %[[KQ_S]] : f32
// BODY-NEXT: %[[KQV:.*]] = vector.broadcast %[[KQ]] : f32 to vector<4xf32>
// BODY-NEXT: %[[J:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[VROW]], %[[J]] : index
// BODY-NEXT: %[[VAL:.*]] = vector.load %[[VALUE]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[ERR:.*]] = arith.subf %[[VAL]], %[[SK0]] : vector<4xf32>
// BODY-NEXT: %[[DELTA:.*]] = arith.mulf %[[BV]], %[[ERR]] : vector<4xf32>
// BODY-NEXT: %[[O:.*]] = vector.fma %[[KQV]], %[[DELTA]], %[[SQ0]] : vector<4xf32>
// BODY-NEXT: %[[J:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[VROW]], %[[J]] : index
// BODY-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// Its sweep from the packed tile (rows n·W = 8 apart) back to it: row k0 + 0,
// vector 0 is read at k·8 + 0 before the address it is written to is made.
// BODY: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// BODY-NEXT: %[[R:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[K:.*]] = arith.addi %[[K0]], %[[R]] : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QK]], %[[K]] : index
// BODY-NEXT: %[[D:.*]] = memref.load %[[DECAY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DV:.*]] = vector.broadcast %[[D]] : f32 to vector<4xf32>
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QK]], %[[K]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[KEYV:.*]] = vector.broadcast %[[KEY_AT]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DK_AT]], %[[K]] : index
// BODY-NEXT: %[[DK:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: vector.broadcast %[[DK]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DQ_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DQ_AT]], %[[K]] : index
// BODY-NEXT: %[[DQ:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: vector.broadcast %[[DQ]] : f32 to vector<4xf32>
// BODY-NEXT: %[[NW:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[NW]] : index
// BODY-NEXT: %[[J:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[J]] : index
// BODY-NEXT: %[[S:.*]] = vector.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DS:.*]] = arith.mulf %[[S]], %[[DV]] : vector<4xf32>
// BODY-NEXT: %[[NEW:.*]] = vector.fma %[[KEYV]], %[[DELTA]], %[[DS]] : vector<4xf32>
// BODY-NEXT: %[[NW:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[NW]] : index
// BODY-NEXT: %[[J:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[J]] : index
// BODY-NEXT: vector.store %[[NEW]], %[[SCRATCH]][%[[AT]]] : memref<?xf32>, vector<4xf32>

// The entry point: K and V (each field's load before its constant, K's
// comparison before V's field), the scratch, then the tensors in the order
// of the body's arguments (pointer twice, offset 0, size, stride 1) and
// T, bh_begin, bh_end, v_begin, v_end.
// ENTRY-LABEL: llvm.func @order(
// ENTRY-SAME: %[[ARGS:.*]]: !llvm.ptr<struct<(ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, i64, i64, i64, i64, i64, i64, i64, ptr<f32>, i64)>>) -> i32 attributes {{.*}} {
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
// ENTRY-NEXT: %[[SIZES_OK:.*]] = llvm.and %[[K_OK]], %[[V_OK]] : i1
// ENTRY-NEXT: llvm.cond_br %[[SIZES_OK]], ^[[GOOD_SIZES:.*]], ^[[REJECT:.*]]{{$}}
// ENTRY-NEXT: ^[[GOOD_SIZES]]:
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(16 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 16] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[SCRATCH_FLOATS:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[WANT_SCRATCH:.*]] = llvm.mlir.constant(50 : i64) : i64
// ENTRY-NEXT: %[[SCRATCH_OK:.*]] = llvm.icmp "sge" %[[SCRATCH_FLOATS]], %[[WANT_SCRATCH]] : i64
// ENTRY-NEXT: llvm.cond_br %[[SCRATCH_OK]], ^[[CALL:.*]], ^[[NO_SCRATCH:.*]]{{$}}
// ENTRY-NEXT: ^[[REJECT]]:
// ENTRY-NEXT: %[[WRONG_SIZE:.*]] = llvm.mlir.constant(1 : i32) : i32
// ENTRY-NEXT: llvm.return %[[WRONG_SIZE]] : i32
// ENTRY-NEXT: ^[[NO_SCRATCH]]:
// ENTRY-NEXT: %[[SHORT:.*]] = llvm.mlir.constant(2 : i32) : i32
// ENTRY-NEXT: llvm.return %[[SHORT]] : i32
// ENTRY-NEXT: ^[[CALL]]:
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(8 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 8] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[T:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(12 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 12] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[BH_END:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[TOKENS:.*]] = llvm.mul %[[BH_END]], %[[T]] : i64
// ENTRY-NEXT: %[[KC:.*]] = llvm.mlir.constant(5 : i64) : i64
// ENTRY-NEXT: %[[QK_SIZE:.*]] = llvm.mul %[[TOKENS]], %[[KC]] : i64
// ENTRY-NEXT: %[[VC:.*]] = llvm.mlir.constant(12 : i64) : i64
// ENTRY-NEXT: %[[V_SIZE:.*]] = llvm.mul %[[TOKENS]], %[[VC]] : i64
// ENTRY-NEXT: %[[KVC:.*]] = llvm.mlir.constant(60 : i64) : i64
// ENTRY-NEXT: %[[STATE_SIZE:.*]] = llvm.mul %[[BH_END]], %[[KVC]] : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(0 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 0] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[QUERY:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[QUERY_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[QUERY_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(1 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 1] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[KEY:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[KEY_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[KEY_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(2 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 2] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[VALUE:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[VALUE_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[VALUE_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(3 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 3] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[DECAY:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[DECAY_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[DECAY_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(4 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 4] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[BETA:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[BETA_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[BETA_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(5 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 5] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[S0:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[S0_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[S0_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(6 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 6] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[OUT:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[OUT_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[OUT_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(7 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 7] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[S1:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[S1_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[S1_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(15 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 15] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[SCRATCH:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[SCRATCH_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[SCRATCH_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(11 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 11] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[BH_BEGIN:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(13 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 13] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[V_BEGIN:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(14 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 14] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[V_END:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: llvm.call @order_body(%[[QUERY]], %[[QUERY]], %[[QUERY_OFFSET]], %[[QK_SIZE]], %[[QUERY_STRIDE]], %[[KEY]], %[[KEY]], %[[KEY_OFFSET]], %[[QK_SIZE]], %[[KEY_STRIDE]], %[[VALUE]], %[[VALUE]], %[[VALUE_OFFSET]], %[[V_SIZE]], %[[VALUE_STRIDE]], %[[DECAY]], %[[DECAY]], %[[DECAY_OFFSET]], %[[QK_SIZE]], %[[DECAY_STRIDE]], %[[BETA]], %[[BETA]], %[[BETA_OFFSET]], %[[TOKENS]], %[[BETA_STRIDE]], %[[S0]], %[[S0]], %[[S0_OFFSET]], %[[STATE_SIZE]], %[[S0_STRIDE]], %[[OUT]], %[[OUT]], %[[OUT_OFFSET]], %[[V_SIZE]], %[[OUT_STRIDE]], %[[S1]], %[[S1]], %[[S1_OFFSET]], %[[STATE_SIZE]], %[[S1_STRIDE]], %[[SCRATCH]], %[[SCRATCH]], %[[SCRATCH_OFFSET]], %[[SCRATCH_FLOATS]], %[[SCRATCH_STRIDE]], %[[T]], %[[BH_BEGIN]], %[[BH_END]], %[[V_BEGIN]], %[[V_END]]) : ({{.*}}) -> ()
// ENTRY-NEXT: %[[OK:.*]] = llvm.mlir.constant(0 : i32) : i32
// ENTRY-NEXT: llvm.return %[[OK]] : i32
// ENTRY-NEXT: }
