// The kernel's forms (gate, readouts) are facts of its code: gdr-lower-recurrent
// specialises the sweeps for them and the entry point refuses arguments of
// another form (kernel_abi.h: decay_kind and readouts must equal the
// kernel's own; gdr_kernel_args fields 11 and 12).
// RUN: gdr-opt %s -gdr-lower-recurrent | FileCheck %s
// RUN: gdr-opt %s -gdr-lower-recurrent -gdr-lower-to-llvm | FileCheck %s --check-prefix=ENTRY

// gate = channelwise: a token's decay is K factors. The token loop reads
// token t + 1's decay as vectors, once, into P (times the last P unless the
// sweep is a full one: FULL); the sweeps read no decay. FULL: P out of
// [2^-20, 2^20] (unordered compares: NaN too) or the last token of a block
// of 64. The full sweep is S = P S̃ + k delta (a multiply, then an FMA), the
// cheap one S̃ += (k / P) delta (the FMA alone, its factor k / P divided
// once per token).
// CHECK-LABEL: func private @channelwise_body(
// CHECK-SAME: %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[DECAY:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[SCRATCH:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[T:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[DECAY_STRIDE:[^:]*]]: index,
// CHECK-SAME: gdr.decay_kind = 0 : i64
// CHECK: %[[LAST:.*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK: scf.for %[[TOK:[^ ]*]] = %{{.*}} to %[[LAST]] step %{{.*}} iter_args(
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[NEXT:.*]] = arith.addi %[[TOK]], %{{.*}} : index
// CHECK-NEXT: %[[BLOCK:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[IN_BLOCK:.*]] = arith.remui %[[NEXT]], %[[BLOCK]] : index
// CHECK: %[[BLOCK_END:.*]] = arith.cmpi eq, %[[IN_BLOCK]], %{{.*}} : index
// CHECK: %[[P:.*]] = vector.load %[[SCRATCH]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: %[[BELOW:.*]] = arith.cmpf ult, %[[P]], %{{.*}} : vector<4xf32>
// CHECK-NEXT: %[[ABOVE:.*]] = arith.cmpf ugt, %[[P]], %{{.*}} : vector<4xf32>
// CHECK-NEXT: %[[OUTSIDE:.*]] = arith.ori %[[BELOW]], %[[ABOVE]] : vector<4xi1>
// CHECK-NEXT: %[[ANY:.*]] = vector.reduction "or", %[[OUTSIDE]] : vector<4xi1> into i1
// CHECK-NEXT: %[[FULL:.*]] = arith.ori %[[BLOCK_END]], %[[ANY]] : i1
// CHECK: %[[CHEAP:.*]] = arith.divf %{{.*}}, %[[P2:.*]] : vector<4xf32>
// CHECK-NEXT: select %[[FULL]], %[[P2]], %[[CHEAP]] : vector<4xf32>
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[DECAY_ROW:.*]] = arith.muli %{{.*}}, %[[DECAY_STRIDE]] : index
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[D:.*]] = vector.load %[[DECAY]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[FROM:.*]] = select %[[FULL]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: arith.mulf %[[D]], %[[FROM]] : vector<4xf32>
// CHECK-NOT: %[[DECAY]][
// CHECK: scf.if %[[FULL]] -> (vector<4xf32>, vector<4xf32>) {
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[S:.*]] = vector.load %[[SCRATCH]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %[[S]], %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %{{.*}}, %{{.*}}, %[[SCALED]] : vector<4xf32>
// CHECK: } else {
// CHECK-NOT: arith.mulf
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[S:.*]] = vector.load %[[SCRATCH]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: vector.fma %{{.*}}, %{{.*}}, %[[S]] : vector<4xf32>
// CHECK-NOT: arith.mulf
// CHECK-NOT: %[[DECAY]][
// CHECK: scf.yield
gdr.kernel @channelwise problem <k = 4, v = 4, element_type = f32, gate = channelwise, route = recurrent> schedule <vector_width = 4, v_tile = 4, unroll = 1, prefetch = 0>

// gate = scalar: one decay per token. The token loop reads token t + 1's
// decay with one scalar load (no vector load of decay) into the one-float P;
// the cheap sweep's update is k (delta / P), its one division per token
// (not per row); the full sweep scales by P broadcast once before its row
// loop. No row of either sweep reads decay.
// CHECK-LABEL: func private @scalar_body(
// CHECK-SAME: %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[DECAY:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[SCRATCH:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[T:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[DECAY_STRIDE:[^:]*]]: index,
// CHECK-SAME: gdr.decay_kind = 1 : i64
// CHECK: %[[LAST:.*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK: scf.for %[[TOK:[^ ]*]] = %{{.*}} to %[[LAST]] step %{{.*}} iter_args(
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[SCALE:.*]] = memref.load %[[SCRATCH]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT: %[[SCALE_VECTOR:.*]] = vector.broadcast %[[SCALE]] : f32 to vector<4xf32>
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[BLOCK_END:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: %[[FULL:.*]] = arith.ori %[[BLOCK_END]], %{{.*}} : i1
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[INVERSE:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[INVERSE_VECTOR:.*]] = vector.broadcast %[[INVERSE]] : f32 to vector<4xf32>
// CHECK-NEXT: %[[SCALED_DELTA:.*]] = arith.mulf %[[DELTA:.*]], %[[INVERSE_VECTOR]] : vector<4xf32>
// CHECK: %[[NEXT_DECAY_ROW:.*]] = arith.muli %{{.*}}, %[[DECAY_STRIDE]] : index
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[ND:.*]] = memref.load %[[DECAY]][%[[NEXT_DECAY_ROW]]] : memref<?xf32>
// CHECK-NOT: %[[DECAY]][
// CHECK: scf.if %[[FULL]] -> (vector<4xf32>, vector<4xf32>) {
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[S:.*]] = vector.load %[[SCRATCH]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %[[S]], %[[SCALE_VECTOR]] : vector<4xf32>
// CHECK-NEXT: vector.fma %{{.*}}, %[[DELTA]], %[[SCALED]] : vector<4xf32>
// CHECK: } else {
// CHECK-NOT: arith.mulf
// CHECK-NOT: %[[DECAY]][
// CHECK: %[[S:.*]] = vector.load %[[SCRATCH]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: vector.fma %{{.*}}, %[[SCALED_DELTA]], %[[S]] : vector<4xf32>
// CHECK-NOT: arith.mulf
// CHECK-NOT: %[[DECAY]][
// CHECK: scf.yield
gdr.kernel @scalar problem <k = 4, v = 4, element_type = f32, gate = scalar, route = recurrent> schedule <vector_width = 4, v_tile = 4, unroll = 1, prefetch = 0>

// readouts = 2 (two query heads read each state head): the sweeps carry
// 1 + 2 accumulators per vector of the tile (Sᵀdk and each readout's Sᵀdq:
// 2 vectors, 6 accumulators), each state vector feeds three FMAs, and each
// column vector of a token is stored twice: at the token's out row (readout
// 0) and out_readout_stride · 1 further (readout 1), both from its delta.
// CHECK-LABEL: func private @grouped_body(
// CHECK-SAME: %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[S0:[^:]*]]: memref<?xf32>, %[[OUT:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[SCRATCH:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[T:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[OUT_STRIDE:[^:]*]]: index, %{{[^:]*}}: index, %[[OUT_READOUT:[^:]*]]: index,
// CHECK-SAME: gdr.readouts = 2 : i64, gdr.scratch_floats = 52 : i64
// Token 0's read-only sweep.
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK: %[[S:.*]] = vector.load %[[S0]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: vector.fma %[[S]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %[[S]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %[[S]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: arith.constant
// Tokens 1 .. T-2: two stores per column vector, then the fused sweep.
// CHECK: %[[LAST:.*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK: scf.for %[[TOK:[^ ]*]] = %{{.*}} to %[[LAST]] step %{{.*}} iter_args(%[[SK0:[^ ]*]] = %{{[^,]*}}, %[[SK1:[^ ]*]] = %{{[^,]*}}, %[[SQ00:[^ ]*]] = %{{[^,]*}}, %[[SQ01:[^ ]*]] = %{{[^,]*}}, %[[SQ10:[^ ]*]] = %{{[^,]*}}, %[[SQ11:[^ ]*]] = %{{[^,]*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK: %[[OUT_TOKEN:.*]] = arith.muli %[[TOK]], %[[OUT_STRIDE]] : index
// CHECK-NEXT: %[[OUT_ROW:.*]] = arith.addi %[[OUT_TOKEN]], %{{.*}} : index
// CHECK: %[[DELTA0:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: %[[DELTA1:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT: vector.store %{{.*}}, %[[OUT]]
// CHECK: vector.reduction
// CHECK-NEXT: %[[KQ0:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ROW0:.*]] = arith.addi %[[OUT_ROW]], %[[C]] : index
// CHECK-NEXT: %[[O:.*]] = vector.fma %[[KQ0]], %[[DELTA0]], %[[SQ00]] : vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[ROW0]], %[[C]] : index
// CHECK-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: %[[O:.*]] = vector.fma %[[KQ0]], %[[DELTA1]], %[[SQ01]] : vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[ROW0]], %[[C]] : index
// CHECK-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// CHECK-NOT: vector.store %{{.*}}, %[[OUT]]
// CHECK: vector.reduction
// CHECK-NEXT: %[[KQ1:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[READOUT1:.*]] = arith.muli %[[OUT_READOUT]], %[[C]] : index
// CHECK-NEXT: %[[ROW1:.*]] = arith.addi %[[OUT_ROW]], %[[READOUT1]] : index
// CHECK-NEXT: %[[O:.*]] = vector.fma %[[KQ1]], %[[DELTA0]], %[[SQ10]] : vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[ROW1]], %[[C]] : index
// CHECK-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: %[[O:.*]] = vector.fma %[[KQ1]], %[[DELTA1]], %[[SQ11]] : vector<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[ROW1]], %[[C]] : index
// CHECK-NEXT: vector.store %[[O]], %[[OUT]][%[[AT]]] : memref<?xf32>, vector<4xf32>
// CHECK-NOT: vector.store %{{.*}}, %[[OUT]]
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK: vector.store %[[NEW:[^,]*]], %[[SCRATCH]][%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: vector.fma %[[NEW]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %[[NEW]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %[[NEW]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: arith.constant
gdr.kernel @grouped problem <k = 4, v = 8, element_type = f32, readouts = 2, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 1, prefetch = 0>

// The entry points compare the decay kind (field 11) and the readouts
// (field 12) with the kernel's own, and return 1 unless both match (with K
// and V); <name>_info ends with the decay kind and the readouts: ABI
// version, K, V, column alignment, scratch floats, vector bits, decay kind,
// readouts, then token steps (1).
// ENTRY: llvm.mlir.global external constant @channelwise_info(dense<[3, 4, 4, 4, 32, 128, 0, 1, 1]> : tensor<9xi64>) : !llvm.array<9 x i64>
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
// ENTRY: llvm.mlir.global external constant @scalar_info(dense<[3, 4, 4, 4, 32, 128, 1, 1, 1]> : tensor<9xi64>) : !llvm.array<9 x i64>
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
// ENTRY: llvm.mlir.global external constant @grouped_info(dense<[3, 4, 8, 4, 52, 128, 0, 2, 1]> : tensor<9xi64>) : !llvm.array<9 x i64>
