// The kernel's forms (gate, readouts) are facts of its code: gdr-lower-recurrent
// specialises the sweeps for them and the entry point refuses arguments of
// another form (kernel_abi.h: decay_kind and readouts must equal the
// kernel's own; gdr_kernel_args fields 11 and 12).
// RUN: gdr-opt %s -gdr-lower-recurrent | FileCheck %s
// RUN: gdr-opt %s -gdr-lower-recurrent -gdr-lower-to-llvm | FileCheck %s --check-prefix=ENTRY

// gate = channelwise: a token's decay is K factors, and only the block's
// row pass reads it, before the tiles run the block: per pair, the first
// token's P is its decay times 1 (the block's first pair, or after a full
// sweep) or the last pair's P, the second token's its decay times the
// first's; each checked against [2^-20, 2^20] (unordered compares: NaN
// too); FULL also at the end of a block of 64 tokens. The row factors are
// k / P, overwritten when FULL by decay[t + 1] ⊙ k for the first token. The tiles' sweeps
// read no decay: the full one is S = scale ⊙ S̃ + f0 δ0 + f1 δ1 (a multiply,
// then an FMA per token), the cheap one S̃ += f0 δ0 + f1 δ1 (the FMAs alone).
// CHECK-LABEL: func private @channelwise_body(
// CHECK-SAME: %{{[^:]*}}: memref<?xf32>, %[[KEYS:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[DECAY:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[SCRATCH:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[T:[^:]*]]: index,
// CHECK-SAME: gdr.decay_kind = 0 : i64
// CHECK: %[[BLOCKS_END:.*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK: scf.for %{{[^ ]*}} = %{{.*}} to %[[BLOCKS_END]] step %{{.*}} {
// A block that does not run as one group, its pairs' rows: a head of one
// tile (V = v_tile) computes the first two pairs' before its tile, the
// tile's sweeps the others, each two pairs ahead (interleavesRows); all of
// them come first if the task has no whole tile or the block fewer than
// two pairs.
// CHECK: %[[GROUPS:.*]] = arith.divui %{{[0-9]+}}, %c2{{(_[0-9]+)?}} : index
// CHECK: %[[HAS_TILE:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[AHEAD:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[ENOUGH:.*]] = arith.cmpi uge, %[[GROUPS]], %[[AHEAD]] : index
// CHECK-NEXT: %[[INTERLEAVED:.*]] = arith.andi %[[HAS_TILE]], %[[ENOUGH]] : i1
// CHECK-NEXT: %[[UPFRONT:.*]] = select %[[INTERLEAVED]], %[[AHEAD]], %[[GROUPS]] : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[UPFRONT]] step %{{.*}} {
// CHECK: %[[D0:.*]] = vector.load %[[DECAY]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK: %[[FROM:.*]] = select %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: %[[P0:.*]] = arith.mulf %[[D0]], %[[FROM]] : vector<4xf32>
// CHECK: %[[KEY0:.*]] = vector.load %[[KEYS]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK: arith.divf %[[KEY0]], %[[P0]] : vector<4xf32>
// CHECK: arith.cmpf ult, %[[P0]], %{{.*}} : vector<4xf32>
// CHECK-NEXT: arith.cmpf ugt, %[[P0]], %{{.*}} : vector<4xf32>
// CHECK: %[[D1:.*]] = vector.load %[[DECAY]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: %[[P1:.*]] = arith.mulf %[[D1]], %[[P0]] : vector<4xf32>
// CHECK: %[[KEY1:.*]] = vector.load %[[KEYS]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK: arith.divf %[[KEY1]], %[[P1]] : vector<4xf32>
// CHECK: arith.cmpf ult, %[[P1]], %{{.*}} : vector<4xf32>
// CHECK-NEXT: arith.cmpf ugt, %[[P1]], %{{.*}} : vector<4xf32>
// CHECK: %[[BLOCK:.*]] = arith.constant 64 : index
// CHECK-NEXT: arith.remui %{{.*}}, %[[BLOCK]] : index
// CHECK: %[[ANY:.*]] = vector.reduction "or", %{{.*}} : vector<4xi1> into i1
// CHECK-NEXT: %[[FULL:.*]] = arith.ori %{{.*}}, %[[ANY]] : i1
// CHECK: scf.if %[[FULL]] {
// CHECK: %[[NEXT_DECAY:.*]] = vector.load %[[DECAY]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK: %[[KEY:.*]] = vector.load %[[KEYS]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: %[[WHOLE:.*]] = arith.mulf %[[NEXT_DECAY]], %[[KEY]] : vector<4xf32>
// CHECK: vector.store %[[WHOLE]], %[[SCRATCH]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// The tile's pairs: the whole tile computes the rows of the pair two ahead
// (after the last pair, the odd token's), then sweeps.
// CHECK: scf.for %[[J:[^ ]*]] = %{{.*}} to %{{.*}} step %c2{{(_[0-9]+)?}} iter_args
// CHECK-NEXT: arith.constant 2 : index
// CHECK-NEXT: %[[PAIR:.*]] = arith.divui %[[J]], %{{.*}} : index
// CHECK: %[[TARGET:.*]] = arith.addi %[[PAIR]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[TARGET]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: vector.load %[[DECAY]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[TARGET]], %{{.*}} : index
// CHECK: arith.andi %[[LAST]], %{{.*}} : i1
// The tiles: a pair's sweep, full or cheap.
// CHECK: scf.if %{{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[S:.*]] = vector.load %[[SCRATCH]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %[[S]], %{{.*}} : vector<4xf32>
// CHECK-NEXT: %[[HALF:.*]] = vector.fma %{{.*}}, %{{.*}}, %[[SCALED]] : vector<4xf32>
// CHECK-NEXT: vector.fma %{{.*}}, %{{.*}}, %[[HALF]] : vector<4xf32>
// CHECK: } else {
// CHECK-NOT: arith.mulf
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[S:.*]] = vector.load %[[SCRATCH]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: %[[HALF:.*]] = vector.fma %{{.*}}, %{{.*}}, %[[S]] : vector<4xf32>
// CHECK-NEXT: vector.fma %{{.*}}, %{{.*}}, %[[HALF]] : vector<4xf32>
// CHECK-NOT: arith.mulf
// CHECK-NOT: %[[DECAY]][
// CHECK: scf.yield
gdr.kernel @channelwise problem <k = 4, v = 4, element_type = f32, gate = channelwise, route = recurrent> schedule <vector_width = 4, v_tile = 4, unroll = 1, prefetch = 0>

// gate = scalar: one decay per token, read with one scalar load and
// broadcast (never a vector load); from there the rows are channelwise's,
// so the tiles run the same sweeps.
// CHECK-LABEL: func private @scalar_body(
// CHECK-SAME: %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[DECAY:[^:]*]]: memref<?xf32>,
// CHECK-SAME: gdr.decay_kind = 1 : i64
// CHECK-NOT: vector.load %[[DECAY]]
// CHECK: %[[D:.*]] = memref.load %[[DECAY]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT: %[[DV:.*]] = vector.broadcast %[[D]] : f32 to vector<4xf32>
// CHECK: arith.mulf %[[DV]], %{{.*}} : vector<4xf32>
// CHECK-NOT: vector.load %[[DECAY]]
gdr.kernel @scalar problem <k = 4, v = 4, element_type = f32, gate = scalar, route = recurrent> schedule <vector_width = 4, v_tile = 4, unroll = 1, prefetch = 0>

// readouts = 2 (two query heads read each state head): a pair's sweeps carry
// 2 tokens x (1 + 2) accumulators per vector of the tile (Sᵀdk and each
// readout's Sᵀdq: 2 vectors, 12 accumulators), so each state vector feeds six
// FMAs; each token stores each column vector twice: at its out row (readout
// 0) and out_readout_stride · 1 further (readout 1), both from its delta,
// with its k · q of that readout from the block's rows.
// CHECK-LABEL: func private @grouped_body(
// CHECK-SAME: %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[S0:[^:]*]]: memref<?xf32>, %[[OUT:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[SCRATCH:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[OUT_STRIDE:[^:]*]]: index, %{{[^:]*}}: index, %[[OUT_READOUT:[^:]*]]: index,
// CHECK-SAME: gdr.readouts = 2 : i64, gdr.scratch_floats = 4006 : i64
// A block of more than four tokens: its rows (the first two pairs', the
// tile computing the others: a head of one tile), then the first pair's
// sums over the state, which the sweep packs.
// CHECK: %[[GROUPS:.*]] = arith.divui %{{[0-9]+}}, %c2{{(_[0-9]+)?}} : index
// CHECK: %[[UPFRONT:.*]] = select %{{.*}}, %{{.*}}, %[[GROUPS]] : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[UPFRONT]] step %{{.*}} {
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK: %[[S:.*]] = vector.load %{{.*}} : memref<?xf32>, vector<4xf32>
// CHECK: vector.store %[[S]], %[[SCRATCH]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: vector.fma %[[S]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %[[S]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %[[S]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %[[S]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %[[S]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %[[S]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: arith.constant
// The pairs: the first token's out row, its delta, then k · q and both
// readouts' outputs, then their stores.
// CHECK: scf.for %[[J:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SK0:[^ ]*]] = %{{[^,]*}}, %[[SK1:[^ ]*]] = %{{[^,]*}}, %[[SQ00:[^ ]*]] = %{{[^,]*}}, %[[SQ01:[^ ]*]] = %{{[^,]*}}, %[[SQ10:[^ ]*]] = %{{[^,]*}}, %[[SQ11:[^ ]*]] = %{{[^,]*}},
// CHECK: %[[OUT_TOKEN:.*]] = arith.muli %{{.*}}, %[[OUT_STRIDE]] : index
// CHECK-NEXT: %[[OUT_ROW:.*]] = arith.addi %[[OUT_TOKEN]], %{{.*}} : index
// CHECK: %[[DELTA0:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: %[[DELTA1:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT: vector.store %{{.*}}, %[[OUT]]
// CHECK: %[[KQ0_AT:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[KQ0_SCALAR:.*]] = memref.load %[[SCRATCH]][%[[KQ0_AT]]] : memref<?xf32>
// CHECK-NEXT: %[[KQ0:.*]] = vector.broadcast %[[KQ0_SCALAR]] : f32 to vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ROW0:.*]] = arith.addi %[[OUT_ROW]], %[[C]] : index
// CHECK-NEXT: %[[O00:.*]] = vector.fma %[[KQ0]], %[[DELTA0]], %[[SQ00]] : vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[AT00:.*]] = arith.addi %[[ROW0]], %[[C]] : index
// CHECK-NEXT: %[[O01:.*]] = vector.fma %[[KQ0]], %[[DELTA1]], %[[SQ01]] : vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[AT01:.*]] = arith.addi %[[ROW0]], %[[C]] : index
// CHECK-NOT: vector.store %{{.*}}, %[[OUT]]
// CHECK: %[[KQ1_SCALAR:.*]] = memref.load %[[SCRATCH]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT: %[[KQ1:.*]] = vector.broadcast %[[KQ1_SCALAR]] : f32 to vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[READOUT1:.*]] = arith.muli %[[OUT_READOUT]], %[[C]] : index
// CHECK-NEXT: %[[ROW1:.*]] = arith.addi %[[OUT_ROW]], %[[READOUT1]] : index
// CHECK-NEXT: %[[O10:.*]] = vector.fma %[[KQ1]], %[[DELTA0]], %[[SQ10]] : vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[AT10:.*]] = arith.addi %[[ROW1]], %[[C]] : index
// CHECK-NEXT: %[[O11:.*]] = vector.fma %[[KQ1]], %[[DELTA1]], %[[SQ11]] : vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[AT11:.*]] = arith.addi %[[ROW1]], %[[C]] : index
// Then the token's stores (cached: tiles of 8 floats are not whole lines).
// CHECK-NEXT: vector.store %[[O00]], %[[OUT]][%[[AT00]]] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: vector.store %[[O01]], %[[OUT]][%[[AT01]]] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: vector.store %[[O10]], %[[OUT]][%[[AT10]]] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: vector.store %[[O11]], %[[OUT]][%[[AT11]]] : memref<?xf32>, vector<4xf32>
gdr.kernel @grouped problem <k = 4, v = 8, element_type = f32, readouts = 2, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 1, prefetch = 0>

// The entry points compare the decay kind (field 11) and the readouts
// (field 12) with the kernel's own, and return 1 unless both match (with K
// and V); <name>_info ends with the decay kind and the readouts: ABI
// version, K, V, column alignment, scratch floats, vector bits, decay kind,
// readouts, then token steps (1).
// ENTRY: llvm.mlir.global external constant @channelwise_info(dense<[6, 4, 4, 4, 2886, 128, 0, 1, 1]> : tensor<9xi64>) : !llvm.array<9 x i64>
// ENTRY-LABEL: llvm.func @scalar(
// ENTRY-SAME: %[[ARGS:[^:]*]]: !llvm.ptr<struct<(
// ENTRY: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%{{.*}}, 11] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_DECAY:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[WANT_DECAY:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[DECAY_OK:.*]] = llvm.icmp "eq" %[[GOT_DECAY]], %[[WANT_DECAY]] : i64
// ENTRY-NEXT: llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(12 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%{{.*}}, 12] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_READOUTS:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[WANT_READOUTS:.*]] = llvm.mlir.constant(1 : i64) : i64
// ENTRY-NEXT: %[[READOUTS_OK:.*]] = llvm.icmp "eq" %[[GOT_READOUTS]], %[[WANT_READOUTS]] : i64
// ENTRY-NEXT: %[[SIZES_OK:.*]] = llvm.and %{{.*}}, %{{.*}} : i1
// ENTRY-NEXT: %[[FORM_OK:.*]] = llvm.and %[[DECAY_OK]], %[[READOUTS_OK]] : i1
// ENTRY-NEXT: %[[ALL_OK:.*]] = llvm.and %[[SIZES_OK]], %[[FORM_OK]] : i1
// ENTRY-NEXT: llvm.cond_br %[[ALL_OK]], ^{{.*}}, ^[[REJECT:[^ ]*]]{{$}}
// ENTRY: ^[[REJECT]]:
// ENTRY-NEXT: %[[MISMATCH:.*]] = llvm.mlir.constant(1 : i32) : i32
// ENTRY-NEXT: llvm.return %[[MISMATCH]] : i32
// ENTRY: llvm.mlir.global external constant @scalar_info(dense<[6, 4, 4, 4, 2886, 128, 1, 1, 1]> : tensor<9xi64>) : !llvm.array<9 x i64>
// ENTRY-LABEL: llvm.func @grouped(
// ENTRY-SAME: %[[ARGS:[^:]*]]: !llvm.ptr<struct<(
// ENTRY: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%{{.*}}, 11] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_DECAY:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[WANT_DECAY:.*]] = llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: %[[DECAY_OK:.*]] = llvm.icmp "eq" %[[GOT_DECAY]], %[[WANT_DECAY]] : i64
// ENTRY-NEXT: llvm.mlir.constant(0 : i64) : i64
// ENTRY-NEXT: llvm.mlir.constant(12 : i32) : i32
// ENTRY-NEXT: %[[P:.*]] = llvm.getelementptr %[[ARGS]][%{{.*}}, 12] : {{.*}} -> !llvm.ptr<i64>
// ENTRY-NEXT: %[[GOT_READOUTS:.*]] = llvm.load %[[P]] : !llvm.ptr<i64>
// ENTRY-NEXT: %[[WANT_READOUTS:.*]] = llvm.mlir.constant(2 : i64) : i64
// ENTRY-NEXT: %[[READOUTS_OK:.*]] = llvm.icmp "eq" %[[GOT_READOUTS]], %[[WANT_READOUTS]] : i64
// ENTRY-NEXT: %[[SIZES_OK:.*]] = llvm.and %{{.*}}, %{{.*}} : i1
// ENTRY-NEXT: %[[FORM_OK:.*]] = llvm.and %[[DECAY_OK]], %[[READOUTS_OK]] : i1
// ENTRY-NEXT: %[[ALL_OK:.*]] = llvm.and %[[SIZES_OK]], %[[FORM_OK]] : i1
// ENTRY-NEXT: llvm.cond_br %[[ALL_OK]], ^{{.*}}, ^[[REJECT:[^ ]*]]{{$}}
// ENTRY: ^[[REJECT]]:
// ENTRY-NEXT: %[[MISMATCH:.*]] = llvm.mlir.constant(1 : i32) : i32
// ENTRY-NEXT: llvm.return %[[MISMATCH]] : i32
// ENTRY: llvm.mlir.global external constant @grouped_info(dense<[6, 4, 8, 4, 4006, 128, 0, 2, 1]> : tensor<9xi64>) : !llvm.array<9 x i64>
