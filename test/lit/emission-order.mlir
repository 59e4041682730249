// Op order at every place where the passes build more than one op in one
// C++ expression: GCC and clang evaluate function arguments in different
// orders, so such builders are sequenced into statements of their own
// (dialect/lib/*.cpp). Every line here follows the previous one (CHECK-NEXT),
// so a builder left to the compiler's order fails this test under one of the
// two compilers; tools/scripts/test.sh runs the suite with both.
//
// One small kernel reaches every such place: K = 5 is one vector of 4 lanes
// and one scalar (k·q, dk, dq), unroll 2 leaves a remainder row, prefetch 0
// leaves the token loop's bound the only T - 1, and readouts = 2 gives the
// second readout's offsets (query and out readout strides times 1) and its
// own dq, k·q and outputs. Its twin with gate = scalar reaches the places
// only scalar decay has (one decay load and broadcast per token).
// RUN: gdr-opt %s -gdr-lower-recurrent | FileCheck %s --check-prefix=BODY
// RUN: gdr-opt %s -gdr-lower-recurrent -gdr-lower-to-llvm | FileCheck %s --check-prefix=ENTRY

gdr.kernel @order problem <k = 5, v = 12, element_type = f32, readouts = 2, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 2, prefetch = 0> target <cpu = "x86-64", vector_bits = 128>
gdr.kernel @order_scalar problem <k = 5, v = 12, element_type = f32, gate = scalar, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 2, prefetch = 0> target <cpu = "x86-64", vector_bits = 128>
// Rows and tiles of whole cache lines (16 floats) reach the places only a
// streamed final state has: the flag, the next tile's place and prefetches,
// and the entry point's alignment test.
gdr.kernel @order_streaming problem <k = 2, v = 32, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 16, unroll = 1, prefetch = 0> target <cpu = "x86-64", vector_bits = 128>

// The body's arguments: the 8 tensors and the scratch, T, the token strides
// of query, key, value, decay, beta and out, the readout strides of query
// and out, v_begin, v_end.
// BODY-LABEL: func private @order_body(
// BODY-SAME: %[[QUERY:[^:]*]]: memref<?xf32>, %[[KEY:[^:]*]]: memref<?xf32>, %[[VALUE:[^:]*]]: memref<?xf32>, %[[DECAY:[^:]*]]: memref<?xf32>, %[[BETA:[^:]*]]: memref<?xf32>, %[[S0:[^:]*]]: memref<?xf32>, %[[OUT:[^:]*]]: memref<?xf32>, %[[S1:[^:]*]]: memref<?xf32>, %[[SCRATCH:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[T:[^:]*]]: index, %[[QUERY_STRIDE:[^:]*]]: index, %[[KEY_STRIDE:[^:]*]]: index, %[[VALUE_STRIDE:[^:]*]]: index, %[[DECAY_STRIDE:[^:]*]]: index, %[[BETA_STRIDE:[^:]*]]: index, %[[OUT_STRIDE:[^:]*]]: index, %[[QUERY_READOUT:[^:]*]]: index, %[[OUT_READOUT:[^:]*]]: index, %[[V0:[^:]*]]: index, %[[V1:[^:]*]]: index, %{{[^:]*}}: index)

// The zero vector, then whole tiles: (v_end - v_begin) / v_tile * v_tile;
// per tile, T = 0?
// BODY-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// BODY-NEXT: %[[COLUMNS:.*]] = arith.subi %[[V1]], %[[V0]] : index
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[TILES:.*]] = arith.divui %[[COLUMNS]], %[[C8]] : index
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[WHOLE:.*]] = arith.muli %[[TILES]], %[[C8]] : index
// BODY-NEXT: %[[TILES_END:.*]] = arith.addi %[[V0]], %[[WHOLE]] : index
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: scf.for %[[COL:[^ ]*]] = %[[V0]] to %[[TILES_END]] step %[[C8]] {
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[NO_TOKENS:.*]] = arith.cmpi eq, %[[T]], %[[C0]] : index
// BODY-NEXT: scf.if %[[NO_TOKENS]] {
// T = 0 copies initial_state to final_state: the unrolled rows' loop (begin,
// end, step), row k0 + 0, vector 0: initial_state at col + (k·V + 0), its
// load, then final_state's address and the store.
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 2 : index
// BODY-NEXT: scf.for %[[K0:[^ ]*]] = %[[BEGIN]] to %[[END]] step %[[STEP]] {
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[K:.*]] = arith.addi %[[K0]], %[[C0]] : index
// BODY-NEXT: %[[C12:.*]] = arith.constant 12 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[C12]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[IN_ROW:.*]] = arith.addi %[[ROW]], %[[C0]] : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[COL]], %[[IN_ROW]] : index
// BODY-NEXT: %[[S:.*]] = vector.load %[[S0]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C12:.*]] = arith.constant 12 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[C12]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[IN_ROW:.*]] = arith.addi %[[ROW]], %[[C0]] : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[COL]], %[[IN_ROW]] : index
// BODY-NEXT: vector.store %[[S]], %[[S1]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// The remainder rows' loop: begin, end, step.
// BODY: {{^ *}}}{{$}}
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 5 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 1 : index
// BODY-NEXT: scf.for %{{[^ ]*}} = %[[BEGIN]] to %[[END]] step %[[STEP]] {

// T > 0: token 0's rows (key, query, decay: t times the token stride), each
// readout's query row (+ 0, + query_readout_stride · 1), then P = decay and
// dk = P ⊙ key and dq = P ⊙ query of each readout into scratch, one vector
// then one scalar, each product made just before its store; then token 0's
// read-only sweep (begin, end, step, 3 accumulators per vector): row k0 + 0
// broadcasts dk and both dq, vector 0 of initial_state feeds its three FMAs.
// BODY: } else {
// BODY-NEXT: %[[TOKEN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[KEY_ROW:.*]] = arith.muli %[[TOKEN]], %[[KEY_STRIDE]] : index
// BODY-NEXT: %[[QUERY_ROW:.*]] = arith.muli %[[TOKEN]], %[[QUERY_STRIDE]] : index
// BODY-NEXT: %[[DECAY_ROW:.*]] = arith.muli %[[TOKEN]], %[[DECAY_STRIDE]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[QUERY_ROW0:.*]] = arith.addi %[[QUERY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[C1:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[READOUT1:.*]] = arith.muli %[[QUERY_READOUT]], %[[C1]] : index
// BODY-NEXT: %[[QUERY_ROW1:.*]] = arith.addi %[[QUERY_ROW]], %[[READOUT1]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DECAY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[D:.*]] = vector.load %[[DECAY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 55 : index
// BODY-NEXT: vector.store %[[D]], %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = vector.load %[[KEY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DK:.*]] = arith.mulf %[[D]], %[[KEY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: vector.store %[[DK]], %[[SCRATCH]][%[[DK_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW0]], %[[C0]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DQ0:.*]] = arith.mulf %[[D]], %[[QUERY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DQ0_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: vector.store %[[DQ0]], %[[SCRATCH]][%[[DQ0_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW1]], %[[C0]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DQ1:.*]] = arith.mulf %[[D]], %[[QUERY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DQ1_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: vector.store %[[DQ1]], %[[SCRATCH]][%[[DQ1_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DECAY_ROW]], %[[C4]] : index
// BODY-NEXT: %[[D:.*]] = memref.load %[[DECAY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 59 : index
// BODY-NEXT: memref.store %[[D]], %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C4]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DK:.*]] = arith.mulf %[[D]], %[[KEY_AT]] : f32
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 44 : index
// BODY-NEXT: memref.store %[[DK]], %[[SCRATCH]][%[[DK_AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW0]], %[[C4]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ0:.*]] = arith.mulf %[[D]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[DQ0_AT:.*]] = arith.constant 49 : index
// BODY-NEXT: memref.store %[[DQ0]], %[[SCRATCH]][%[[DQ0_AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW1]], %[[C4]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ1:.*]] = arith.mulf %[[D]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[DQ1_AT:.*]] = arith.constant 54 : index
// BODY-NEXT: memref.store %[[DQ1]], %[[SCRATCH]][%[[DQ1_AT]]] : memref<?xf32>
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 2 : index
// BODY-NEXT: %{{[^ :]*}}:6 = scf.for %[[K0:[^ ]*]] = %[[BEGIN]] to %[[END]] step %[[STEP]] iter_args(%[[SK0:[^ ]*]] = %[[ZERO]], %[[SK1:[^ ]*]] = %[[ZERO]], %[[SQ00:[^ ]*]] = %[[ZERO]], %[[SQ01:[^ ]*]] = %[[ZERO]], %[[SQ10:[^ ]*]] = %[[ZERO]], %[[SQ11:[^ ]*]] = %[[ZERO]]) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[K:.*]] = arith.addi %[[K0]], %[[C0]] : index
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DK_AT]], %[[K]] : index
// BODY-NEXT: %[[DK:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DKV:.*]] = vector.broadcast %[[DK]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DQ0_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DQ0_AT]], %[[K]] : index
// BODY-NEXT: %[[DQ0:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ0V:.*]] = vector.broadcast %[[DQ0]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DQ1_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DQ1_AT]], %[[K]] : index
// BODY-NEXT: %[[DQ1:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ1V:.*]] = vector.broadcast %[[DQ1]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C12:.*]] = arith.constant 12 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[C12]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[IN_ROW:.*]] = arith.addi %[[ROW]], %[[C0]] : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[COL]], %[[IN_ROW]] : index
// BODY-NEXT: %[[S:.*]] = vector.load %[[S0]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[NEXT_SK0:.*]] = vector.fma %[[S]], %[[DKV]], %[[SK0]] : vector<4xf32>
// BODY-NEXT: %[[NEXT_SQ00:.*]] = vector.fma %[[S]], %[[DQ0V]], %[[SQ00]] : vector<4xf32>
// BODY-NEXT: %[[NEXT_SQ10:.*]] = vector.fma %[[S]], %[[DQ1V]], %[[SQ10]] : vector<4xf32>

// Tokens 1 .. T-2 (begin, end, step): the token's rows, beta, delta per
// vector (value, error, times beta), then per readout k·q (key then query, a
// vector then a scalar) and its outputs, each made before its address; then
// whether the sweep is full (the block's end, then P out of range: its
// vector, then its scalar) and the row factors (P or key / P), then token
// t + 1's P (decay times 1 or the last P) and gated keys into scratch, and
// the fused sweep from the packed tile (rows n·W = 8 apart) back to it, full
// or cheap: row k0 + 0 broadcasts its factor (and the key, full), dk and
// both dq; vector 0 is read at k·8 + 0, updated, stored before the next
// token's three sums take it.
// BODY: %[[LAST:.*]] = arith.subi %[[T]], %{{[0-9a-z_]+}} : index
// BODY-NEXT: %[[SECOND:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 1 : index
// BODY-NEXT: %{{[^ :]*}}:6 = scf.for %[[TOK:[^ ]*]] = %[[SECOND]] to %[[LAST]] step %[[STEP]] iter_args(%[[SK0:[^ ]*]] = %{{[0-9a-z_]+}}#0, %[[SK1:[^ ]*]] = %{{[0-9a-z_]+}}#1, %[[SQ00:[^ ]*]] = %{{[0-9a-z_]+}}#2, %[[SQ01:[^ ]*]] = %{{[0-9a-z_]+}}#3, %[[SQ10:[^ ]*]] = %{{[0-9a-z_]+}}#4, %[[SQ11:[^ ]*]] = %{{[0-9a-z_]+}}#5) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// BODY-NEXT: %[[KEY_ROW:.*]] = arith.muli %[[TOK]], %[[KEY_STRIDE]] : index
// BODY-NEXT: %[[QUERY_ROW:.*]] = arith.muli %[[TOK]], %[[QUERY_STRIDE]] : index
// BODY-NEXT: %[[VALUE_TOKEN:.*]] = arith.muli %[[TOK]], %[[VALUE_STRIDE]] : index
// BODY-NEXT: %[[VALUE_ROW:.*]] = arith.addi %[[VALUE_TOKEN]], %[[COL]] : index
// BODY-NEXT: %[[OUT_TOKEN:.*]] = arith.muli %[[TOK]], %[[OUT_STRIDE]] : index
// BODY-NEXT: %[[OUT_ROW:.*]] = arith.addi %[[OUT_TOKEN]], %[[COL]] : index
// BODY-NEXT: %[[BETA_AT:.*]] = arith.muli %[[TOK]], %[[BETA_STRIDE]] : index
// BODY-NEXT: %[[B:.*]] = memref.load %[[BETA]][%[[BETA_AT]]] : memref<?xf32>
// BODY-NEXT: %[[BV:.*]] = vector.broadcast %[[B]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[VALUE_ROW]], %[[C0]] : index
// BODY-NEXT: %[[VAL:.*]] = vector.load %[[VALUE]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[ERR:.*]] = arith.subf %[[VAL]], %[[SK0]] : vector<4xf32>
// BODY-NEXT: %[[DELTA0:.*]] = arith.mulf %[[BV]], %[[ERR]] : vector<4xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[VALUE_ROW]], %[[C4]] : index
// BODY-NEXT: %[[VAL:.*]] = vector.load %[[VALUE]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[ERR:.*]] = arith.subf %[[VAL]], %[[SK1]] : vector<4xf32>
// BODY-NEXT: %[[DELTA1:.*]] = arith.mulf %[[BV]], %[[ERR]] : vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[QUERY_ROW0:.*]] = arith.addi %[[QUERY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[KQ_INIT:.*]] = arith.constant 0.000000e+00 : f32
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = vector.load %[[KEY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW0]], %[[C0]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[KQ_V:.*]] = vector.fma %[[KEY_AT]], %[[QUERY_AT]], %[[ZERO]] : vector<4xf32>
// BODY-NEXT: %[[SUM:.*]] = vector.reduction "add", %[[KQ_V]] : vector<4xf32> into f32
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C4]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW0]], %[[C4]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[KQ_S:.*]] = arith.mulf %[[KEY_AT]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[KQ:.*]] = arith.addf %[[SUM]], %[[KQ_S]] : f32
// BODY-NEXT: %[[KQV:.*]] = vector.broadcast %[[KQ]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[OUT_ROW0:.*]] = arith.addi %[[OUT_ROW]], %[[C0]] : index
// BODY-NEXT: %[[O:.*]] = vector.fma %[[KQV]], %[[DELTA0]], %[[SQ00]] : vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[OUT_ROW0]], %[[C0]] : index
// BODY-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[O:.*]] = vector.fma %[[KQV]], %[[DELTA1]], %[[SQ01]] : vector<4xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[OUT_ROW0]], %[[C4]] : index
// BODY-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C1:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[READOUT1:.*]] = arith.muli %[[QUERY_READOUT]], %[[C1]] : index
// BODY-NEXT: %[[QUERY_ROW1:.*]] = arith.addi %[[QUERY_ROW]], %[[READOUT1]] : index
// BODY-NEXT: %[[KQ_INIT:.*]] = arith.constant 0.000000e+00 : f32
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = vector.load %[[KEY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW1]], %[[C0]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[KQ_V:.*]] = vector.fma %[[KEY_AT]], %[[QUERY_AT]], %[[ZERO]] : vector<4xf32>
// BODY-NEXT: %[[SUM:.*]] = vector.reduction "add", %[[KQ_V]] : vector<4xf32> into f32
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C4]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW1]], %[[C4]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[KQ_S:.*]] = arith.mulf %[[KEY_AT]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[KQ:.*]] = arith.addf %[[SUM]], %[[KQ_S]] : f32
// BODY-NEXT: %[[KQV:.*]] = vector.broadcast %[[KQ]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C1:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[OUT_READOUT1:.*]] = arith.muli %[[OUT_READOUT]], %[[C1]] : index
// BODY-NEXT: %[[OUT_ROW1:.*]] = arith.addi %[[OUT_ROW]], %[[OUT_READOUT1]] : index
// BODY-NEXT: %[[O:.*]] = vector.fma %[[KQV]], %[[DELTA0]], %[[SQ10]] : vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[OUT_ROW1]], %[[C0]] : index
// BODY-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[O:.*]] = vector.fma %[[KQV]], %[[DELTA1]], %[[SQ11]] : vector<4xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[OUT_ROW1]], %[[C4]] : index
// BODY-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[LOW:.*]] = arith.constant 9.53674316E-7 : f32
// BODY-NEXT: %[[HIGH:.*]] = arith.constant 0x49800000 : f32
// BODY-NEXT: %[[C1:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[NEXT:.*]] = arith.addi %[[TOK]], %[[C1]] : index
// BODY-NEXT: %[[BLOCK:.*]] = arith.constant 64 : index
// BODY-NEXT: %[[IN_BLOCK:.*]] = arith.remui %[[NEXT]], %[[BLOCK]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[BLOCK_END:.*]] = arith.cmpi eq, %[[IN_BLOCK]], %[[C0]] : index
// BODY-NEXT: %[[LOWV:.*]] = vector.broadcast %[[LOW]] : f32 to vector<4xf32>
// BODY-NEXT: %[[HIGHV:.*]] = vector.broadcast %[[HIGH]] : f32 to vector<4xf32>
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 55 : index
// BODY-NEXT: %[[P:.*]] = vector.load %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[BELOW:.*]] = arith.cmpf ult, %[[P]], %[[LOWV]] : vector<4xf32>
// BODY-NEXT: %[[ABOVE:.*]] = arith.cmpf ugt, %[[P]], %[[HIGHV]] : vector<4xf32>
// BODY-NEXT: %[[OUTSIDE:.*]] = arith.ori %[[BELOW]], %[[ABOVE]] : vector<4xi1>
// BODY-NEXT: %[[ANY:.*]] = vector.reduction "or", %[[OUTSIDE]] : vector<4xi1> into i1
// BODY-NEXT: %[[FULL_V:.*]] = arith.ori %[[BLOCK_END]], %[[ANY]] : i1
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 59 : index
// BODY-NEXT: %[[P:.*]] = memref.load %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[BELOW:.*]] = arith.cmpf ult, %[[P]], %[[LOW]] : f32
// BODY-NEXT: %[[ABOVE:.*]] = arith.cmpf ugt, %[[P]], %[[HIGH]] : f32
// BODY-NEXT: %[[OUTSIDE:.*]] = arith.ori %[[BELOW]], %[[ABOVE]] : i1
// BODY-NEXT: %[[FULL:.*]] = arith.ori %[[FULL_V]], %[[OUTSIDE]] : i1
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 55 : index
// BODY-NEXT: %[[P:.*]] = vector.load %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = vector.load %[[KEY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[CHEAP:.*]] = arith.divf %[[KEY_AT]], %[[P]] : vector<4xf32>
// BODY-NEXT: %[[FACTOR:.*]] = select %[[FULL]], %[[P]], %[[CHEAP]] : vector<4xf32>
// BODY-NEXT: %[[FACTOR_AT:.*]] = arith.constant 60 : index
// BODY-NEXT: vector.store %[[FACTOR]], %[[SCRATCH]][%[[FACTOR_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 59 : index
// BODY-NEXT: %[[P:.*]] = memref.load %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C4]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[CHEAP:.*]] = arith.divf %[[KEY_AT]], %[[P]] : f32
// BODY-NEXT: %[[FACTOR:.*]] = select %[[FULL]], %[[P]], %[[CHEAP]] : f32
// BODY-NEXT: %[[FACTOR_AT:.*]] = arith.constant 64 : index
// BODY-NEXT: memref.store %[[FACTOR]], %[[SCRATCH]][%[[FACTOR_AT]]] : memref<?xf32>
// BODY-NEXT: %[[C1:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[NEXT_TOKEN:.*]] = arith.addi %[[TOK]], %[[C1]] : index
// BODY-NEXT: %[[NEXT_KEY_ROW:.*]] = arith.muli %[[NEXT_TOKEN]], %[[KEY_STRIDE]] : index
// BODY-NEXT: %[[NEXT_QUERY_ROW:.*]] = arith.muli %[[NEXT_TOKEN]], %[[QUERY_STRIDE]] : index
// BODY-NEXT: %[[NEXT_DECAY_ROW:.*]] = arith.muli %[[NEXT_TOKEN]], %[[DECAY_STRIDE]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[NEXT_QUERY_ROW0:.*]] = arith.addi %[[NEXT_QUERY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[C1:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[READOUT1:.*]] = arith.muli %[[QUERY_READOUT]], %[[C1]] : index
// BODY-NEXT: %[[NEXT_QUERY_ROW1:.*]] = arith.addi %[[NEXT_QUERY_ROW]], %[[READOUT1]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_DECAY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[D:.*]] = vector.load %[[DECAY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 55 : index
// BODY-NEXT: %[[PREVIOUS:.*]] = vector.load %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<4xf32>
// BODY-NEXT: %[[FROM:.*]] = select %[[FULL]], %[[ONE]], %[[PREVIOUS]] : vector<4xf32>
// BODY-NEXT: %[[PN:.*]] = arith.mulf %[[D]], %[[FROM]] : vector<4xf32>
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 55 : index
// BODY-NEXT: vector.store %[[PN]], %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_KEY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = vector.load %[[KEY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DK:.*]] = arith.mulf %[[PN]], %[[KEY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: vector.store %[[DK]], %[[SCRATCH]][%[[DK_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_QUERY_ROW0]], %[[C0]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DQ0:.*]] = arith.mulf %[[PN]], %[[QUERY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DQ0_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: vector.store %[[DQ0]], %[[SCRATCH]][%[[DQ0_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_QUERY_ROW1]], %[[C0]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DQ1:.*]] = arith.mulf %[[PN]], %[[QUERY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DQ1_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: vector.store %[[DQ1]], %[[SCRATCH]][%[[DQ1_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_DECAY_ROW]], %[[C4]] : index
// BODY-NEXT: %[[D:.*]] = memref.load %[[DECAY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 59 : index
// BODY-NEXT: %[[PREVIOUS:.*]] = memref.load %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// BODY-NEXT: %[[FROM:.*]] = select %[[FULL]], %[[ONE]], %[[PREVIOUS]] : f32
// BODY-NEXT: %[[PN:.*]] = arith.mulf %[[D]], %[[FROM]] : f32
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 59 : index
// BODY-NEXT: memref.store %[[PN]], %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_KEY_ROW]], %[[C4]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DK:.*]] = arith.mulf %[[PN]], %[[KEY_AT]] : f32
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 44 : index
// BODY-NEXT: memref.store %[[DK]], %[[SCRATCH]][%[[DK_AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_QUERY_ROW0]], %[[C4]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ0:.*]] = arith.mulf %[[PN]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[DQ0_AT:.*]] = arith.constant 49 : index
// BODY-NEXT: memref.store %[[DQ0]], %[[SCRATCH]][%[[DQ0_AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_QUERY_ROW1]], %[[C4]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ1:.*]] = arith.mulf %[[PN]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[DQ1_AT:.*]] = arith.constant 54 : index
// BODY-NEXT: memref.store %[[DQ1]], %[[SCRATCH]][%[[DQ1_AT]]] : memref<?xf32>
// BODY-NEXT: %{{[^ :]*}}:6 = scf.if %[[FULL]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 2 : index
// BODY-NEXT: %{{[^ :]*}}:6 = scf.for %[[K0:[^ ]*]] = %[[BEGIN]] to %[[END]] step %[[STEP]] iter_args(%[[NSK0:[^ ]*]] = %[[ZERO]], %[[NSK1:[^ ]*]] = %[[ZERO]], %[[NSQ00:[^ ]*]] = %[[ZERO]], %[[NSQ01:[^ ]*]] = %[[ZERO]], %[[NSQ10:[^ ]*]] = %[[ZERO]], %[[NSQ11:[^ ]*]] = %[[ZERO]]) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[K:.*]] = arith.addi %[[K0]], %[[C0]] : index
// BODY-NEXT: %[[FACTOR_AT:.*]] = arith.constant 60 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[FACTOR_AT]], %[[K]] : index
// BODY-NEXT: %[[SCALE:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[SCALEV:.*]] = vector.broadcast %[[SCALE]] : f32 to vector<4xf32>
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[K]] : index
// BODY-NEXT: %[[KEY_K:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[KEYV:.*]] = vector.broadcast %[[KEY_K]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DK_AT]], %[[K]] : index
// BODY-NEXT: %[[DK:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DKV:.*]] = vector.broadcast %[[DK]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DQ0_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DQ0_AT]], %[[K]] : index
// BODY-NEXT: %[[DQ0:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ0V:.*]] = vector.broadcast %[[DQ0]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DQ1_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DQ1_AT]], %[[K]] : index
// BODY-NEXT: %[[DQ1:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ1V:.*]] = vector.broadcast %[[DQ1]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[C8]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[C0]] : index
// BODY-NEXT: %[[S:.*]] = vector.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DS:.*]] = arith.mulf %[[S]], %[[SCALEV]] : vector<4xf32>
// BODY-NEXT: %[[NEW:.*]] = vector.fma %[[KEYV]], %[[DELTA0]], %[[DS]] : vector<4xf32>
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[C8]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[C0]] : index
// BODY-NEXT: vector.store %[[NEW]], %[[SCRATCH]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[NEXT_SK0:.*]] = vector.fma %[[NEW]], %[[DKV]], %[[NSK0]] : vector<4xf32>
// BODY-NEXT: %[[NEXT_SQ00:.*]] = vector.fma %[[NEW]], %[[DQ0V]], %[[NSQ00]] : vector<4xf32>
// BODY-NEXT: %[[NEXT_SQ10:.*]] = vector.fma %[[NEW]], %[[DQ1V]], %[[NSQ10]] : vector<4xf32>
// The cheap sweep: the row's factor k / P, no multiply before the FMA.
// BODY: } else {
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 2 : index
// BODY-NEXT: %{{[^ :]*}}:6 = scf.for %[[K0:[^ ]*]] = %[[BEGIN]] to %[[END]] step %[[STEP]] iter_args(%[[NSK0:[^ ]*]] = %[[ZERO]], %[[NSK1:[^ ]*]] = %[[ZERO]], %[[NSQ00:[^ ]*]] = %[[ZERO]], %[[NSQ01:[^ ]*]] = %[[ZERO]], %[[NSQ10:[^ ]*]] = %[[ZERO]], %[[NSQ11:[^ ]*]] = %[[ZERO]]) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[K:.*]] = arith.addi %[[K0]], %[[C0]] : index
// BODY-NEXT: %[[FACTOR_AT:.*]] = arith.constant 60 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[FACTOR_AT]], %[[K]] : index
// BODY-NEXT: %[[FACTOR:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[FACTORV:.*]] = vector.broadcast %[[FACTOR]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DK_AT]], %[[K]] : index
// BODY-NEXT: %[[DK:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DKV:.*]] = vector.broadcast %[[DK]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DQ0_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DQ0_AT]], %[[K]] : index
// BODY-NEXT: %[[DQ0:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ0V:.*]] = vector.broadcast %[[DQ0]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DQ1_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DQ1_AT]], %[[K]] : index
// BODY-NEXT: %[[DQ1:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ1V:.*]] = vector.broadcast %[[DQ1]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[C8]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[C0]] : index
// BODY-NEXT: %[[S:.*]] = vector.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[NEW:.*]] = vector.fma %[[FACTORV]], %[[DELTA0]], %[[S]] : vector<4xf32>
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[C8]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[C0]] : index
// BODY-NEXT: vector.store %[[NEW]], %[[SCRATCH]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[NEXT_SK0:.*]] = vector.fma %[[NEW]], %[[DKV]], %[[NSK0]] : vector<4xf32>
// BODY-NEXT: %[[NEXT_SQ00:.*]] = vector.fma %[[NEW]], %[[DQ0V]], %[[NSQ00]] : vector<4xf32>
// BODY-NEXT: %[[NEXT_SQ10:.*]] = vector.fma %[[NEW]], %[[DQ1V]], %[[NSQ10]] : vector<4xf32>

// @order_scalar: the same arguments, zero vector and whole tiles as @order.
// BODY-LABEL: func private @order_scalar_body(
// BODY-SAME: %[[QUERY:[^:]*]]: memref<?xf32>, %[[KEY:[^:]*]]: memref<?xf32>, %[[VALUE:[^:]*]]: memref<?xf32>, %[[DECAY:[^:]*]]: memref<?xf32>, %[[BETA:[^:]*]]: memref<?xf32>, %[[S0:[^:]*]]: memref<?xf32>, %[[OUT:[^:]*]]: memref<?xf32>, %[[S1:[^:]*]]: memref<?xf32>, %[[SCRATCH:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[T:[^:]*]]: index, %[[QUERY_STRIDE:[^:]*]]: index, %[[KEY_STRIDE:[^:]*]]: index, %[[VALUE_STRIDE:[^:]*]]: index, %[[DECAY_STRIDE:[^:]*]]: index, %[[BETA_STRIDE:[^:]*]]: index, %[[OUT_STRIDE:[^:]*]]: index, %[[QUERY_READOUT:[^:]*]]: index, %[[OUT_READOUT:[^:]*]]: index, %[[V0:[^:]*]]: index, %[[V1:[^:]*]]: index, %{{[^:]*}}: index)
// BODY-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// BODY-NEXT: %[[COLUMNS:.*]] = arith.subi %[[V1]], %[[V0]] : index
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[TILES:.*]] = arith.divui %[[COLUMNS]], %[[C8]] : index
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[WHOLE:.*]] = arith.muli %[[TILES]], %[[C8]] : index
// BODY-NEXT: %[[TILES_END:.*]] = arith.addi %[[V0]], %[[WHOLE]] : index
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: scf.for %[[COL:[^ ]*]] = %[[V0]] to %[[TILES_END]] step %[[C8]] {

// T > 0: token 0's rows, then its one decay (a scalar load at t·decay_stride,
// stored as P, and its broadcast) before dk and dq, vectors times the broadcast, scalars
// times the load; then token 0's sweep (begin, end, step).
// BODY: } else {
// BODY-NEXT: %[[TOKEN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[KEY_ROW:.*]] = arith.muli %[[TOKEN]], %[[KEY_STRIDE]] : index
// BODY-NEXT: %[[QUERY_ROW:.*]] = arith.muli %[[TOKEN]], %[[QUERY_STRIDE]] : index
// BODY-NEXT: %[[DECAY_ROW:.*]] = arith.muli %[[TOKEN]], %[[DECAY_STRIDE]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[QUERY_ROW0:.*]] = arith.addi %[[QUERY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[D:.*]] = memref.load %[[DECAY]][%[[DECAY_ROW]]] : memref<?xf32>
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: memref.store %[[D]], %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[DV:.*]] = vector.broadcast %[[D]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = vector.load %[[KEY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DK:.*]] = arith.mulf %[[DV]], %[[KEY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: vector.store %[[DK]], %[[SCRATCH]][%[[DK_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW0]], %[[C0]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DQ:.*]] = arith.mulf %[[DV]], %[[QUERY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DQ_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: vector.store %[[DQ]], %[[SCRATCH]][%[[DQ_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C4]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DK:.*]] = arith.mulf %[[D]], %[[KEY_AT]] : f32
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 44 : index
// BODY-NEXT: memref.store %[[DK]], %[[SCRATCH]][%[[DK_AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW0]], %[[C4]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ:.*]] = arith.mulf %[[D]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[DQ_AT:.*]] = arith.constant 49 : index
// BODY-NEXT: memref.store %[[DQ]], %[[SCRATCH]][%[[DQ_AT]]] : memref<?xf32>
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 2 : index
// BODY-NEXT: %{{[^ :]*}}:4 = scf.for %[[K0:[^ ]*]] = %[[BEGIN]] to %[[END]] step %[[STEP]] iter_args(%{{[^ ]*}} = %[[ZERO]], %{{[^ ]*}} = %[[ZERO]], %{{[^ ]*}} = %[[ZERO]], %{{[^ ]*}} = %[[ZERO]]) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {

// Tokens 1 .. T-2 as in @order with one readout; P is one float: loaded and
// broadcast once (the full sweep's scale), compared once, its inverse taken
// once and the cheap sweep's delta / P made per vector; the gated keys of
// token t + 1 load its decay once (times 1 or P) and broadcast the new P;
// neither sweep's rows read decay; the full one multiplies the tile by the
// broadcast P.
// BODY: %[[LAST:.*]] = arith.subi %[[T]], %{{[0-9a-z_]+}} : index
// BODY-NEXT: %[[SECOND:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 1 : index
// BODY-NEXT: %{{[^ :]*}}:4 = scf.for %[[TOK:[^ ]*]] = %[[SECOND]] to %[[LAST]] step %[[STEP]] iter_args(%[[SK0:[^ ]*]] = %{{[0-9a-z_]+}}#0, %[[SK1:[^ ]*]] = %{{[0-9a-z_]+}}#1, %[[SQ0:[^ ]*]] = %{{[0-9a-z_]+}}#2, %[[SQ1:[^ ]*]] = %{{[0-9a-z_]+}}#3) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// BODY-NEXT: %[[KEY_ROW:.*]] = arith.muli %[[TOK]], %[[KEY_STRIDE]] : index
// BODY-NEXT: %[[QUERY_ROW:.*]] = arith.muli %[[TOK]], %[[QUERY_STRIDE]] : index
// BODY-NEXT: %[[VALUE_TOKEN:.*]] = arith.muli %[[TOK]], %[[VALUE_STRIDE]] : index
// BODY-NEXT: %[[VALUE_ROW:.*]] = arith.addi %[[VALUE_TOKEN]], %[[COL]] : index
// BODY-NEXT: %[[OUT_TOKEN:.*]] = arith.muli %[[TOK]], %[[OUT_STRIDE]] : index
// BODY-NEXT: %[[OUT_ROW:.*]] = arith.addi %[[OUT_TOKEN]], %[[COL]] : index
// BODY-NEXT: %[[BETA_AT:.*]] = arith.muli %[[TOK]], %[[BETA_STRIDE]] : index
// BODY-NEXT: %[[B:.*]] = memref.load %[[BETA]][%[[BETA_AT]]] : memref<?xf32>
// BODY-NEXT: %[[BV:.*]] = vector.broadcast %[[B]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[VALUE_ROW]], %[[C0]] : index
// BODY-NEXT: %[[VAL:.*]] = vector.load %[[VALUE]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[ERR:.*]] = arith.subf %[[VAL]], %[[SK0]] : vector<4xf32>
// BODY-NEXT: %[[DELTA0:.*]] = arith.mulf %[[BV]], %[[ERR]] : vector<4xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[VALUE_ROW]], %[[C4]] : index
// BODY-NEXT: %[[VAL:.*]] = vector.load %[[VALUE]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[ERR:.*]] = arith.subf %[[VAL]], %[[SK1]] : vector<4xf32>
// BODY-NEXT: %[[DELTA1:.*]] = arith.mulf %[[BV]], %[[ERR]] : vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[QUERY_ROW0:.*]] = arith.addi %[[QUERY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[KQ_INIT:.*]] = arith.constant 0.000000e+00 : f32
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = vector.load %[[KEY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW0]], %[[C0]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[KQ_V:.*]] = vector.fma %[[KEY_AT]], %[[QUERY_AT]], %[[ZERO]] : vector<4xf32>
// BODY-NEXT: %[[SUM:.*]] = vector.reduction "add", %[[KQ_V]] : vector<4xf32> into f32
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[C4]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[QUERY_ROW0]], %[[C4]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[KQ_S:.*]] = arith.mulf %[[KEY_AT]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[KQ:.*]] = arith.addf %[[SUM]], %[[KQ_S]] : f32
// BODY-NEXT: %[[KQV:.*]] = vector.broadcast %[[KQ]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[OUT_ROW0:.*]] = arith.addi %[[OUT_ROW]], %[[C0]] : index
// BODY-NEXT: %[[O:.*]] = vector.fma %[[KQV]], %[[DELTA0]], %[[SQ0]] : vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[OUT_ROW0]], %[[C0]] : index
// BODY-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[O:.*]] = vector.fma %[[KQV]], %[[DELTA1]], %[[SQ1]] : vector<4xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[OUT_ROW0]], %[[C4]] : index
// BODY-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: %[[P:.*]] = memref.load %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[PV:.*]] = vector.broadcast %[[P]] : f32 to vector<4xf32>
// BODY-NEXT: %[[LOW:.*]] = arith.constant 9.53674316E-7 : f32
// BODY-NEXT: %[[HIGH:.*]] = arith.constant 0x49800000 : f32
// BODY-NEXT: %[[C1:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[NEXT:.*]] = arith.addi %[[TOK]], %[[C1]] : index
// BODY-NEXT: %[[BLOCK:.*]] = arith.constant 64 : index
// BODY-NEXT: %[[IN_BLOCK:.*]] = arith.remui %[[NEXT]], %[[BLOCK]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[BLOCK_END:.*]] = arith.cmpi eq, %[[IN_BLOCK]], %[[C0]] : index
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: %[[P:.*]] = memref.load %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[BELOW:.*]] = arith.cmpf ult, %[[P]], %[[LOW]] : f32
// BODY-NEXT: %[[ABOVE:.*]] = arith.cmpf ugt, %[[P]], %[[HIGH]] : f32
// BODY-NEXT: %[[OUTSIDE:.*]] = arith.ori %[[BELOW]], %[[ABOVE]] : i1
// BODY-NEXT: %[[FULL:.*]] = arith.ori %[[BLOCK_END]], %[[OUTSIDE]] : i1
// BODY-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: %[[P:.*]] = memref.load %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[INVERSE:.*]] = arith.divf %[[ONE]], %[[P]] : f32
// BODY-NEXT: %[[INVERSEV:.*]] = vector.broadcast %[[INVERSE]] : f32 to vector<4xf32>
// BODY-NEXT: %[[SDELTA0:.*]] = arith.mulf %[[DELTA0]], %[[INVERSEV]] : vector<4xf32>
// BODY-NEXT: %[[SDELTA1:.*]] = arith.mulf %[[DELTA1]], %[[INVERSEV]] : vector<4xf32>
// BODY-NEXT: %[[C1:.*]] = arith.constant 1 : index
// BODY-NEXT: %[[NEXT_TOKEN:.*]] = arith.addi %[[TOK]], %[[C1]] : index
// BODY-NEXT: %[[NEXT_KEY_ROW:.*]] = arith.muli %[[NEXT_TOKEN]], %[[KEY_STRIDE]] : index
// BODY-NEXT: %[[NEXT_QUERY_ROW:.*]] = arith.muli %[[NEXT_TOKEN]], %[[QUERY_STRIDE]] : index
// BODY-NEXT: %[[NEXT_DECAY_ROW:.*]] = arith.muli %[[NEXT_TOKEN]], %[[DECAY_STRIDE]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[NEXT_QUERY_ROW0:.*]] = arith.addi %[[NEXT_QUERY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[ND:.*]] = memref.load %[[DECAY]][%[[NEXT_DECAY_ROW]]] : memref<?xf32>
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: %[[PREVIOUS:.*]] = memref.load %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// BODY-NEXT: %[[FROM:.*]] = select %[[FULL]], %[[ONE]], %[[PREVIOUS]] : f32
// BODY-NEXT: %[[PN:.*]] = arith.mulf %[[ND]], %[[FROM]] : f32
// BODY-NEXT: %[[P_AT:.*]] = arith.constant 50 : index
// BODY-NEXT: memref.store %[[PN]], %[[SCRATCH]][%[[P_AT]]] : memref<?xf32>
// BODY-NEXT: %[[PNV:.*]] = vector.broadcast %[[PN]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_KEY_ROW]], %[[C0]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = vector.load %[[KEY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DK:.*]] = arith.mulf %[[PNV]], %[[KEY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: vector.store %[[DK]], %[[SCRATCH]][%[[DK_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_QUERY_ROW0]], %[[C0]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = vector.load %[[QUERY]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DQ:.*]] = arith.mulf %[[PNV]], %[[QUERY_AT]] : vector<4xf32>
// BODY-NEXT: %[[DQ_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: vector.store %[[DQ]], %[[SCRATCH]][%[[DQ_AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_KEY_ROW]], %[[C4]] : index
// BODY-NEXT: %[[KEY_AT:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DK:.*]] = arith.mulf %[[PN]], %[[KEY_AT]] : f32
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 44 : index
// BODY-NEXT: memref.store %[[DK]], %[[SCRATCH]][%[[DK_AT]]] : memref<?xf32>
// BODY-NEXT: %[[C4:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[NEXT_QUERY_ROW0]], %[[C4]] : index
// BODY-NEXT: %[[QUERY_AT:.*]] = memref.load %[[QUERY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQ:.*]] = arith.mulf %[[PN]], %[[QUERY_AT]] : f32
// BODY-NEXT: %[[DQ_AT:.*]] = arith.constant 49 : index
// BODY-NEXT: memref.store %[[DQ]], %[[SCRATCH]][%[[DQ_AT]]] : memref<?xf32>
// BODY-NEXT: %{{[^ :]*}}:4 = scf.if %[[FULL]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 2 : index
// BODY-NEXT: %{{[^ :]*}}:4 = scf.for %[[K0:[^ ]*]] = %[[BEGIN]] to %[[END]] step %[[STEP]] iter_args(%[[NSK0:[^ ]*]] = %[[ZERO]], %[[NSK1:[^ ]*]] = %[[ZERO]], %[[NSQ0:[^ ]*]] = %[[ZERO]], %[[NSQ1:[^ ]*]] = %[[ZERO]]) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[K:.*]] = arith.addi %[[K0]], %[[C0]] : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[K]] : index
// BODY-NEXT: %[[KEY_K:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[KEYV:.*]] = vector.broadcast %[[KEY_K]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DK_AT]], %[[K]] : index
// BODY-NEXT: %[[DK:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DKV:.*]] = vector.broadcast %[[DK]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DQ_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DQ_AT]], %[[K]] : index
// BODY-NEXT: %[[DQ:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQV:.*]] = vector.broadcast %[[DQ]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[C8]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[C0]] : index
// BODY-NEXT: %[[S:.*]] = vector.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[DS:.*]] = arith.mulf %[[S]], %[[PV]] : vector<4xf32>
// BODY-NEXT: %[[NEW:.*]] = vector.fma %[[KEYV]], %[[DELTA0]], %[[DS]] : vector<4xf32>
// The cheap sweep: the key times delta / P, no multiply before the FMA.
// BODY: } else {
// BODY-NEXT: %[[BEGIN:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[END:.*]] = arith.constant 4 : index
// BODY-NEXT: %[[STEP:.*]] = arith.constant 2 : index
// BODY-NEXT: %{{[^ :]*}}:4 = scf.for %[[K0:[^ ]*]] = %[[BEGIN]] to %[[END]] step %[[STEP]] iter_args(%[[NSK0:[^ ]*]] = %[[ZERO]], %[[NSK1:[^ ]*]] = %[[ZERO]], %[[NSQ0:[^ ]*]] = %[[ZERO]], %[[NSQ1:[^ ]*]] = %[[ZERO]]) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[K:.*]] = arith.addi %[[K0]], %[[C0]] : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[K]] : index
// BODY-NEXT: %[[KEY_K:.*]] = memref.load %[[KEY]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[KEYV:.*]] = vector.broadcast %[[KEY_K]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DK_AT:.*]] = arith.constant 40 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DK_AT]], %[[K]] : index
// BODY-NEXT: %[[DK:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DKV:.*]] = vector.broadcast %[[DK]] : f32 to vector<4xf32>
// BODY-NEXT: %[[DQ_AT:.*]] = arith.constant 45 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[DQ_AT]], %[[K]] : index
// BODY-NEXT: %[[DQ:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>
// BODY-NEXT: %[[DQV:.*]] = vector.broadcast %[[DQ]] : f32 to vector<4xf32>
// BODY-NEXT: %[[C8:.*]] = arith.constant 8 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %[[K]], %[[C8]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[C0]] : index
// BODY-NEXT: %[[S:.*]] = vector.load %[[SCRATCH]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// BODY-NEXT: %[[NEW:.*]] = vector.fma %[[KEYV]], %[[SDELTA0]], %[[S]] : vector<4xf32>

// The entry point: K, V, the decay kind and the readouts (each field's load
// before its constant, each comparison before the next field), the scratch,
// then the tensors in the order of the body's arguments (pointer twice,
// offset 0, size 2^62, stride 1), the scratch (its size the floats given),
// and T, the six token strides, the two readout strides, v_begin, v_end.
// ENTRY-LABEL: llvm.func @order(
// ENTRY-SAME: %[[ARGS:.*]]: !llvm.ptr<struct<(ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, ptr<f32>, i64, i64, ptr<f32>)>>) -> i32 attributes {{.*}} {
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
// ENTRY-NEXT: %[[WANT_SCRATCH:.*]] = llvm.mlir.constant(65 : i64) : i64
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
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 26] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[GIVEN_NEXT:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[NULL:.*]] = llvm.mlir.null : !llvm.ptr<f32>
// ENTRY-NEXT: %[[NONE:.*]] = llvm.icmp "eq" %[[GIVEN_NEXT]], %[[NULL]] : !llvm.ptr<f32>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(5 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 5] : {{.*}} -> !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[OWN:.*]] = llvm.load %[[P]] : !llvm.ptr<ptr<f32>>
// ENTRY-NEXT: %[[NEXT:.*]] = llvm.select %[[NONE]], %[[OWN]], %[[GIVEN_NEXT]] : i1, !llvm.ptr<f32>
// ENTRY-NEXT: %[[NEXT_OFFSET:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[NEXT_SIZE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// ENTRY-NEXT: %[[NEXT_STRIDE:.*]] = llvm.mlir.constant(1 : i64) : i64
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
// ENTRY-NEXT: llvm.mlir.constant(21 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 21] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[V_BEGIN:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(22 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%[[Z]], 22] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[V_END:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// V = 12 floats: rows do not start cache lines, the streaming flag is 0.
// ENTRY-NEXT: %[[NO_STREAMING:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.call @order_body(%[[QUERY]], %[[QUERY]], %[[QUERY_OFFSET]], %[[QUERY_SIZE]], %[[QUERY_STRIDE]], %[[KEY]], %[[KEY]], %[[KEY_OFFSET]], %[[KEY_SIZE]], %[[KEY_STRIDE]], %[[VALUE]], %[[VALUE]], %[[VALUE_OFFSET]], %[[VALUE_SIZE]], %[[VALUE_STRIDE]], %[[DECAY]], %[[DECAY]], %[[DECAY_OFFSET]], %[[DECAY_SIZE]], %[[DECAY_STRIDE]], %[[BETA]], %[[BETA]], %[[BETA_OFFSET]], %[[BETA_SIZE]], %[[BETA_STRIDE]], %[[S0]], %[[S0]], %[[S0_OFFSET]], %[[S0_SIZE]], %[[S0_STRIDE]], %[[OUT]], %[[OUT]], %[[OUT_OFFSET]], %[[OUT_SIZE]], %[[OUT_STRIDE]], %[[S1]], %[[S1]], %[[S1_OFFSET]], %[[S1_SIZE]], %[[S1_STRIDE]], %[[SCRATCH]], %[[SCRATCH]], %[[SCRATCH_OFFSET]], %[[SCRATCH_FLOATS]], %[[SCRATCH_STRIDE]], %[[NEXT]], %[[NEXT]], %[[NEXT_OFFSET]], %[[NEXT_SIZE]], %[[NEXT_STRIDE]], %[[T]], %[[QUERY_TOKEN_STRIDE]], %[[KEY_TOKEN_STRIDE]], %[[VALUE_TOKEN_STRIDE]], %[[DECAY_TOKEN_STRIDE]], %[[BETA_TOKEN_STRIDE]], %[[OUT_TOKEN_STRIDE]], %[[QUERY_READOUT_STRIDE]], %[[OUT_READOUT_STRIDE]], %[[V_BEGIN]], %[[V_END]], %[[NO_STREAMING]]) : ({{.*}}) -> ()
// ENTRY-NEXT: %[[OK:.*]] = llvm.mlir.constant(0 : i32) : i32
// ENTRY-NEXT: llvm.return %[[OK]] : i32
// ENTRY-NEXT: }

// The streamed last token: the next tile is this task's (column + 16)
// while it is inside v_end, else the next task's first column; each row's
// prefetch of it comes before the row's load.
// BODY-LABEL: func private @order_streaming_body(
// BODY-SAME: %[[S0:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[S1:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[NEXT:[^:]*]]: memref<?xf32>, %{{[^:]*}}: index,
// BODY-SAME: %[[V1:[^:]*]]: index, %[[STREAM_ARG:[^:]*]]: index)
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[STREAM:.*]] = arith.cmpi ne, %[[STREAM_ARG]], %[[C0]] : index
// BODY: scf.for %[[COL:[^ ]*]] =
// BODY: scf.if %[[STREAM]] {
// BODY: vector.store %{{.*}}, %[[S1]][%{{.*}}] {gdr.nontemporal}
// BODY: scf.if %[[STREAM]] {
// BODY-NEXT: %[[C16:.*]] = arith.constant 16 : index
// BODY-NEXT: %[[AFTER:.*]] = arith.addi %[[COL]], %[[C16]] : index
// BODY-NEXT: %[[IN_TASK:.*]] = arith.cmpi ult, %[[AFTER]], %[[V1]] : index
// BODY-NEXT: %[[AHEAD:.*]] = select %[[IN_TASK]], %[[S0]], %[[NEXT]] : memref<?xf32>
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[AHEAD_COL:.*]] = select %[[IN_TASK]], %[[AFTER]], %[[C0]] : index
// BODY: %[[CV:.*]] = arith.constant 32 : index
// BODY-NEXT: %[[ROW:.*]] = arith.muli %{{.*}}, %[[CV]] : index
// BODY-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[AHEAD_COL]] : index
// BODY-NEXT: %[[C0:.*]] = arith.constant 0 : index
// BODY-NEXT: %[[LINE:.*]] = arith.addi %[[AT]], %[[C0]] : index
// BODY-NEXT: memref.prefetch %[[AHEAD]][%[[LINE]]], read, locality<3>, data : memref<?xf32>

// The entry point streams if asked (field 25 is 1) and the task's first
// final-state row starts a line: (final_state + 4 v_begin) & 63 = 0; then
// a fence after the body.
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
// ENTRY-NEXT: %[[FLAG:.*]] = llvm.zext %[[STREAM]] : i1 to i64
// ENTRY-NEXT: llvm.call @order_streaming_body({{.*}}, %[[V_END]], %[[FLAG]])
// ENTRY-NEXT: llvm.cond_br %[[STREAM]], ^[[FENCE:.*]], ^[[DONE:[^ ]*]]{{$}}
// ENTRY-NEXT: ^[[FENCE]]:
// ENTRY-NEXT: llvm.fence seq_cst
// ENTRY-NEXT: llvm.br ^[[DONE]]
// ENTRY-NEXT: ^[[DONE]]:
// ENTRY-NEXT: %[[OK:.*]] = llvm.mlir.constant(0 : i32) : i32
// ENTRY-NEXT: llvm.return %[[OK]] : i32
