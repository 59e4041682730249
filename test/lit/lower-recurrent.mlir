// gdr-lower-recurrent: each recurrent kernel becomes a function over flat
// memrefs; the schedule's knobs show in the code: the vector type
// (vector_width), the tile loop's step and the accumulators per sweep
// (v_tile / vector_width, 1 + readouts sets: two here), the K loop's step
// (unroll) with a remainder loop, smaller whole tiles then a masked
// one-vector tail for ragged column ranges, and prefetches `prefetch` tokens
// ahead; the last token's sweep is emitted twice, streamed and cached.
// lower-recurrent-forms.mlir shows scalar decay and readouts.
// RUN: gdr-opt %s -gdr-lower-recurrent | FileCheck %s

// CHECK-LABEL: func private @w16_body(
// One task: the 8 tensors, the scratch, the next task's initial state and
// its query, key and decay, T, six token strides (query, key, value, decay,
// beta, out), two readout strides (query, out), the next task's T, its
// token strides of query, key and decay and its query readout stride,
// v_begin, v_end, the streaming flags of the final state and of out, this
// task's tag, the next task's and its column count. Scratch: the state
// between blocks (K x V), the packed tile, 128 tokens' rows and scalars (full, k·q, and a key's and a query's
// corrections by each of 3 tokens before), a scale per pair, a row of
// P, the next task's first sums (four tokens' at most) and their tag:
// 16·40 + 16·32 + 128·(3·16 + 8) + 64·16 + 16 + 4·2·32 + 2 = 9618.
// CHECK-SAME: %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[S0:[^:]*]]: memref<?xf32>, %[[OUT:[^:]*]]: memref<?xf32>, %[[S1:[^:]*]]: memref<?xf32>, %[[SCRATCH:[^:]*]]: memref<?xf32>, %[[NEXT:[^:]*]]: memref<?xf32>, %[[NEXT_QUERY:[^:]*]]: memref<?xf32>, %[[NEXT_KEY:[^:]*]]: memref<?xf32>, %[[NEXT_DECAY_ROWS:[^:]*]]: memref<?xf32>, %[[T:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[V0:[^:]*]]: index, %[[V1:[^:]*]]: index, %[[STREAM_ARG:[^:]*]]: index, %[[OUT_STREAM_ARG:[^:]*]]: index, %[[OWN_TAG:[^:]*]]: index, %[[NEXT_TAG:[^:]*]]: index, %[[NEXT_COLUMNS:[^:]*]]: index)
// CHECK-SAME: attributes {gdr.abi_entry = "w16", gdr.decay_kind = 0 : i64, gdr.k = 16 : i64, gdr.readouts = 1 : i64, gdr.scratch_floats = 9618 : i64, gdr.v = 40 : i64, gdr.vector_bits = 512 : i64}
// CHECK: %[[STREAM:.*]] = arith.cmpi ne, %[[STREAM_ARG]], %{{.*}} : index
// CHECK: %[[OUT_STREAM:.*]] = arith.cmpi ne, %[[OUT_STREAM_ARG]], %{{.*}} : index
// Blocks of 128 tokens (64 token-major: key, query or decay rows not K
// apart).
// CHECK: %[[BLOCK:.*]] = select %{{.*}}, %c64{{(_[0-9]+)?}}, %c128{{(_[0-9]+)?}} : index
// T = 0 copies the state row by row, each row's tiles in turn (no loop
// over heads), streamed (whole tiles of whole lines) or cached.
// CHECK: scf.if %[[STREAM]] {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16{{(_[0-9]+)?}} step %c1 {
// CHECK: %[[TILE:.*]] = arith.constant 32 : index
// CHECK: scf.for %{{.*}} = %[[V0]] to %{{.*}} step %[[TILE]]
// CHECK: vector.store %{{.*}}, %[[S1]][%{{.*}}] {gdr.nontemporal}
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16{{(_[0-9]+)?}} step %c1 {
// CHECK-NOT: gdr.nontemporal
// Else blocks: each computes its per-token rows once (one k·q reduction
// per token), then runs its tiles; the last one to four tokens past a
// multiple of 64 (T mod 64 - 1 < 4, unsigned: GDR_TOKEN_BLOCK, whatever the
// block) run apart, after the others.
// CHECK: } else {
// CHECK-NEXT: %[[SIXTY_FOUR:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[LEFT:.*]] = arith.remui %[[T]], %[[SIXTY_FOUR]] : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: %[[BEFORE_ONE:.*]] = arith.subi %[[LEFT]], %{{.*}} : index
// CHECK-NEXT: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[HAS_TAIL:.*]] = arith.cmpi ult, %[[BEFORE_ONE]], %[[FOUR]] : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[TAIL:.*]] = select %[[HAS_TAIL]], %[[LEFT]], %{{.*}} : index
// CHECK-NEXT: %[[BLOCKS_END:.*]] = arith.subi %[[T]], %[[TAIL]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[BLOCKS_END]] step %[[BLOCK]] {
// The block reads the initial state in the task's first block, else the
// scratch, and writes the final state in the task's last block, else the
// scratch.
// CHECK: %[[BLOCK_SOURCE:.*]] = select %{{.*}}, %[[S0]], %[[SCRATCH]] : memref<?xf32>
// CHECK-NEXT: select %{{.*}}, %[[S1]], %[[SCRATCH]] : memref<?xf32>
// Blocks of more tokens: their rows pass, then pairs. The first sweep packs the
// tile into scratch while it sums the first pair (four accumulators per
// vector); each pair then carries its sums into one fused sweep on the
// packed tile, full or cheap (lower-recurrent-forms.mlir): full: load,
// multiply by P, two FMAs (the pair's updates), store, four FMAs for the
// next pair's sums; cheap: the same without the multiply.
// CHECK: %[[GROUPS:.*]] = arith.divui %{{[0-9]+}}, %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[GROUPS]] step %{{.*}} {
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.store %{{.*}}, %[[SCRATCH]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// No prefetch asked: none in the token sweeps.
// CHECK-NOT: memref.prefetch
// CHECK: scf.if %{{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: vector.load %[[SCRATCH]]
// CHECK-NEXT: arith.mulf {{.*}} : vector<16xf32>
// CHECK-NEXT: vector.fma
// CHECK-NEXT: vector.fma
// CHECK: vector.store %{{.*}}, %[[SCRATCH]]
// CHECK-COUNT-4: vector.fma
// CHECK: } else {
// CHECK: vector.load %[[SCRATCH]]
// CHECK-NEXT: vector.fma
// CHECK-NEXT: vector.fma
// CHECK: vector.store %{{.*}}, %[[SCRATCH]]
// CHECK-COUNT-4: vector.fma
// Columns past the last whole tile: a tile of one whole vector (none fits
// here: 8 columns are left), then one masked vector at a time.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16{{.*}} {
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %[[V1]] step %{{.*}} {
// CHECK: %[[LEFT:.*]] = arith.subi %[[V1]], %[[C]] : index
// CHECK: vector.create_mask %[[LEFT]] : vector<16xi1>
// CHECK: vector.maskedload
// CHECK: vector.maskedstore
// Then a last block of one to four tokens, apart, reading its state like
// the others and writing the final state.
// CHECK: %[[SOURCE:.*]] = select %{{.*}}, %[[S0]], %[[SCRATCH]] : memref<?xf32>
// CHECK: vector.reduction "add", %{{.*}} : vector<16xf32> into f32
// A block of one token: the first whole tile's sums (a read-only sweep,
// two accumulators per vector of the tile), then the whole tiles in turn.
// Each one's last sweep also sums the next tile, while there is one, and
// is streamed (in the task's last block, if asked): it prefetches the
// lines of each row of the tile after the one it sums (of this task, else
// the next task's first) and writes whole vectors non-temporally; else
// cached.
// Kernel ABI 5: in the task's first block the first tile's sums come from
// scratch (after the row of P, at 9360) when it holds the task's non-zero
// tag (inverted, an i64 in the two floats after the sums, at 9616), left
// by the worker's task before; else from the read-only sweep.
// CHECK: %[[TILE:.*]] = arith.constant 32 : index
// CHECK: %[[ANY:.*]] = arith.cmpi ult, %[[V0]], %[[END:.*]] : index
// CHECK-NEXT: %[[NONE:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[TAGGED:.*]] = arith.cmpi ne, %[[OWN_TAG]], %[[NONE]] : index
// CHECK-NEXT: %[[TAG_AT:.*]] = arith.constant 9616 : index
// CHECK-NEXT: %[[HELD:.*]] = vector.load %[[SCRATCH]][%[[TAG_AT]]] : memref<?xf32>, vector<2xf32>
// CHECK-NEXT: %[[BITS:.*]] = vector.bitcast %[[HELD]] : vector<2xf32> to vector<1xi64>
// CHECK-NEXT: %[[MARK:.*]] = vector.extract %[[BITS]][0] : vector<1xi64>
// CHECK-NEXT: %[[OWN:.*]] = arith.index_cast %[[OWN_TAG]] : index to i64
// CHECK-NEXT: %[[ALL_ONES:.*]] = arith.constant -1 : i64
// CHECK-NEXT: %[[OWN_MARK:.*]] = arith.xori %[[OWN]], %[[ALL_ONES]] : i64
// CHECK-NEXT: %[[MINE:.*]] = arith.cmpi eq, %[[MARK]], %[[OWN_MARK]] : i64
// CHECK-NEXT: %[[LEFT:.*]] = arith.andi %[[TAGGED]], %[[MINE]] : i1
// CHECK-NEXT: %[[HANDED:.*]] = arith.andi %{{.*}}, %[[LEFT]] : i1
// CHECK-NEXT: %[[FIRST:[0-9]+]]:4 = scf.if %[[ANY]] -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-NEXT: scf.if %[[HANDED]] -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-NEXT: %[[SUMS_AT:.*]] = arith.constant 9360 : index
// CHECK-NEXT: vector.load %[[SCRATCH]][%[[SUMS_AT]]] : memref<?xf32>, vector<16xf32>
// CHECK: } else {
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.fma {{.*}} : vector<16xf32>
// The task hands its next task's first sums on if that task has a tag,
// one token and a whole tile of columns.
// CHECK: %[[THEIRS:.*]] = arith.cmpi ne, %[[NEXT_TAG]], %{{.*}} : index
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[DECODE:.*]] = arith.cmpi eq, %{{.*}}, %[[ONE]] : index
// CHECK-NEXT: %[[TILE_COLUMNS:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[WHOLE:.*]] = arith.cmpi uge, %[[NEXT_COLUMNS]], %[[TILE_COLUMNS]] : index
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[THEIRS]], %[[DECODE]] : i1
// CHECK-NEXT: %[[HAND_OFF:.*]] = arith.andi %[[BOTH]], %[[WHOLE]] : i1
// CHECK-NEXT: arith.constant 32 : index
// CHECK-NEXT: scf.for %[[COL:.*]] = %[[V0]] to %[[END]] step %{{.*}} iter_args(%{{[^ ]*}} = %[[FIRST]]#0, %{{[^ ]*}} = %[[FIRST]]#1, %{{[^ ]*}} = %[[FIRST]]#2, %{{[^ ]*}} = %[[FIRST]]#3)
// CHECK: %[[FOLLOWING:.*]] = arith.addi %[[COL]], %{{.*}} : index
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi ult, %[[FOLLOWING]], %[[END]] : index
// CHECK-NEXT: scf.if %[[MORE]] -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// The token's outputs, streamed (if asked: whole vectors, non-temporally)
// or cached.
// CHECK: scf.if %[[OUT_STREAM]] {
// CHECK: vector.store %{{.*}}, %[[OUT]][%{{.*}}] {gdr.nontemporal}
// CHECK: } else {
// CHECK-NOT: gdr.nontemporal
// CHECK: vector.store %{{.*}}, %[[OUT]][%{{.*}}] :
// CHECK: %[[LAST_STREAM:.*]] = arith.andi %[[STREAM]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[LAST_STREAM]] -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-NEXT: %[[TWO_TILES:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[AFTER:.*]] = arith.addi %[[COL]], %[[TWO_TILES]] : index
// CHECK-NEXT: %[[IN_TASK:.*]] = arith.cmpi ult, %[[AFTER]], %[[V1]] : index
// CHECK-NEXT: %[[AHEAD:.*]] = select %[[IN_TASK]], %[[SOURCE]], %[[NEXT]] : memref<?xf32>
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[PREFETCHED:.*]] = select %{{.*}}, %{{.*}}, %[[AHEAD]] : memref<?xf32>
// CHECK: %[[AT:.*]] = select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: memref.prefetch %[[PREFETCHED]][%[[AT]]]
// CHECK: vector.store %{{.*}}, %[[S1]][%{{.*}}] {gdr.nontemporal}
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK: } else {
// CHECK-NOT: gdr.nontemporal
// CHECK: vector.store %{{.*}}, %[[S1]][%{{.*}}] :
// The last whole tile: handing off, its sweep sums the next task's first
// tile (the next task's key and query rows times its decay, a row at a
// time), its streamed sweep prefetching the next task's second tile; the
// sums and the next task's tag go to scratch.
// CHECK: } else {
// CHECK-NEXT: scf.if %[[HAND_OFF]] {
// CHECK: scf.if %{{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-NEXT: %[[SECOND:.*]] = arith.constant 32 : index
// CHECK: scf.for %[[ROW:.*]] = {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[NEXT_DECAY:.*]] = memref.load %[[NEXT_DECAY_ROWS]][%[[ROW_AT:.*]]] : memref<?xf32>
// CHECK-NEXT: %[[NEXT_K:.*]] = memref.load %[[NEXT_KEY]][%[[ROW_AT]]] : memref<?xf32>
// CHECK-NEXT: %[[GATED_K:.*]] = arith.mulf %[[NEXT_DECAY]], %[[NEXT_K]] : f32
// CHECK-NEXT: vector.broadcast %[[GATED_K]] : f32 to vector<16xf32>
// CHECK-NEXT: %[[FIRST_READOUT:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[AT_Q:.*]] = arith.addi %[[FIRST_READOUT]], %[[ROW_AT]] : index
// CHECK-NEXT: %[[NEXT_Q:.*]] = memref.load %[[NEXT_QUERY]][%[[AT_Q]]] : memref<?xf32>
// CHECK-NEXT: %[[GATED_Q:.*]] = arith.mulf %[[NEXT_DECAY]], %[[NEXT_Q]] : f32
// CHECK: %[[THEIRS:.*]] = select %{{.*}}, %[[NEXT]], %[[NEXT]] : memref<?xf32>
// CHECK: %[[AT:.*]] = select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: memref.prefetch %[[THEIRS]][%[[AT]]]
// CHECK: vector.store %{{.*}}, %[[S1]][%{{.*}}] {gdr.nontemporal}
// CHECK: vector.load %[[NEXT]][%{{.*}}] : memref<?xf32>, vector<16xf32>
// CHECK: } else {
// CHECK: %[[HANDED_AT:.*]] = arith.constant 9360 : index
// CHECK-NEXT: vector.store %{{.*}}, %[[SCRATCH]][%[[HANDED_AT]]] : memref<?xf32>, vector<16xf32>
// CHECK: %[[WIDE:.*]] = arith.index_cast %[[NEXT_TAG]] : index to i64
// CHECK-NEXT: %[[ALL_ONES_2:.*]] = arith.constant -1 : i64
// CHECK-NEXT: %[[NEXT_MARK:.*]] = arith.xori %[[WIDE]], %[[ALL_ONES_2]] : i64
// CHECK-NEXT: %[[ONE_TAG:.*]] = vector.broadcast %[[NEXT_MARK]] : i64 to vector<1xi64>
// CHECK-NEXT: %[[TAG_BITS:.*]] = vector.bitcast %[[ONE_TAG]] : vector<1xi64> to vector<2xf32>
// CHECK-NEXT: %[[NEW_TAG_AT:.*]] = arith.constant 9616 : index
// CHECK-NEXT: vector.store %[[TAG_BITS]], %[[SCRATCH]][%[[NEW_TAG_AT]]] : memref<?xf32>, vector<2xf32>
// Else no sums to carry; its streamed sweep prefetches the tile after it.
// CHECK-NEXT: } else {
// CHECK: scf.if %[[OUT_STREAM]] {
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %[[ONE_TILE:.*]] = arith.constant 32 : index
// CHECK-NEXT: arith.addi %[[COL]], %[[ONE_TILE]] : index
// Blocks of two, three and four tokens run likewise, their first sums 8,
// 12 and 16 vectors (two vectors of the tile, two accumulators a token).
// CHECK: scf.if %{{.*}} -> ({{(vector<16xf32>, ){11}vector<16xf32>}})
// CHECK: scf.if %{{.*}} -> ({{(vector<16xf32>, ){15}vector<16xf32>}})
gdr.kernel @w16 problem <k = 16, v = 40, element_type = f32, route = recurrent> schedule <vector_width = 16, v_tile = 32, unroll = 1>

// CHECK-LABEL: func private @w4_body(
// CHECK-SAME: gdr.vector_bits = 128 : i64
// CHECK: %[[TILE4:.*]] = arith.constant 8 : index
// CHECK: scf.for %{{.*}} step %[[TILE4]]
// K = 6 with unroll 4: rows 0..3 four per iteration, then rows 4..5 one by one.
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c4{{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK-COUNT-8: vector.load {{.*}} : memref<?xf32>, vector<4xf32>
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %c4{{.*}} to %c6{{.*}} step %c1{{.*}} iter_args
gdr.kernel @w4 problem <k = 6, v = 40, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 4>

// prefetch = 2: each token reads the rows of token min(t + 2, T - 1): key,
// decay, query (K = 32: two lines each), beta (its line: token-major, H
// floats apart), value (v_tile 32: two lines), and write-prefetches the same
// output lines unless out is streamed (then never read).
// CHECK-LABEL: func private @prefetching_body(
// CHECK-SAME: %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[BETA:[^:]*]]: memref<?xf32>
// Blocks of more than four tokens, tile by tile (their rows pass first; a
// head of one tile, the first two pairs' rows only):
// CHECK: %[[GROUPS:.*]] = arith.divui %{{[0-9]+}}, %c2{{(_[0-9]+)?}} : index
// CHECK: %[[UPFRONT:.*]] = select %{{.*}}, %{{.*}}, %[[GROUPS]] : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[UPFRONT]] step %{{.*}} {
// The tile's pairs: the rows two pairs ahead (interleavesRows), the sweep.
// CHECK: %[[ROWS_AHEAD:.*]] = arith.addi %{{.*}}, %c2{{(_[0-9]+)?}} : index
// CHECK: arith.cmpi ult, %[[ROWS_AHEAD]], %{{.*}} : index
// CHECK-NEXT: scf.if
// CHECK: %[[AHEAD:.*]] = arith.addi %{{.*}}, %c2{{(_[0-9]+)?}} : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[AHEAD]], %{{.*}} : index
// CHECK: select %[[IN]], %[[AHEAD]], %{{.*}} : index
// CHECK-COUNT-6: memref.prefetch %{{.*}}[%{{.*}}], read, locality<3>, data : memref<?xf32>
// CHECK: memref.prefetch %[[BETA]][%{{.*}}], read, locality<3>, data : memref<?xf32>
// CHECK: memref.prefetch %{{.*}}[%{{.*}}], read, locality<3>, data : memref<?xf32>
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: } else {
// CHECK: memref.prefetch %{{.*}}[%{{.*}}], write, locality<3>, data : memref<?xf32>
gdr.kernel @prefetching problem <k = 32, v = 32, element_type = f32, route = recurrent> schedule <vector_width = 16, v_tile = 32, unroll = 1, prefetch = 2>

// A pair's sweeps go in groups of 16 rows (a line of floats), each group
// first prefetching into L2 line k0 of the key, query and decay rows of the
// tokens a block after the pair's, which the next block's rows pass reads;
// past T, those of the worker's next task (its token t + block - T,
// clamped to its last: next T - 1), from its own key, query and decay and
// strides. Blocks are 128 tokens, 64 token-major (key, query or decay rows
// not K apart).
// CHECK-LABEL: func private @next_block_body(
// CHECK-SAME: %[[Q:[^:]*]]: memref<?xf32>, %[[K:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[D:[^:]*]]: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[NEXT_Q:[^:]*]]: memref<?xf32>, %[[NEXT_K:[^:]*]]: memref<?xf32>, %[[NEXT_D:[^:]*]]: memref<?xf32>, %[[T:[^:]*]]: index, %[[Q_STRIDE:[^:]*]]: index, %[[K_STRIDE:[^:]*]]: index, %{{[^:]*}}: index, %[[D_STRIDE:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[NEXT_T:[^:]*]]: index, %[[NEXT_Q_STRIDE:[^:]*]]: index, %[[NEXT_K_STRIDE:[^:]*]]: index, %[[NEXT_D_STRIDE:[^:]*]]: index,
// CHECK: %[[KEYS:.*]] = arith.cmpi ne, %[[K_STRIDE]], %c32 : index
// CHECK: %[[QUERIES:.*]] = arith.cmpi ne, %[[Q_STRIDE]], %{{.*}} : index
// CHECK-NEXT: %[[KQ:.*]] = arith.ori %[[KEYS]], %[[QUERIES]] : i1
// CHECK: %[[DECAYS:.*]] = arith.cmpi ne, %[[D_STRIDE]], %{{.*}} : index
// CHECK-NEXT: %[[TOKEN_MAJOR:.*]] = arith.ori %[[KQ]], %[[DECAYS]] : i1
// CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[BLOCK:.*]] = select %[[TOKEN_MAJOR]], %[[C64]], %[[C128]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[BLOCK]] {
// CHECK: %[[AHEAD:.*]] = arith.addi %{{.*}}, %[[BLOCK]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[AHEAD]], %[[T]] : index
// CHECK-NEXT: %[[PAST:.*]] = arith.subi %[[AHEAD]], %[[T]] : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: %[[NEXT_LAST:.*]] = arith.subi %[[NEXT_T]], %{{.*}} : index
// CHECK-NEXT: %[[BEYOND:.*]] = arith.cmpi ugt, %[[PAST]], %[[NEXT_LAST]] : index
// CHECK-NEXT: %[[NEXT_TOKEN:.*]] = select %[[BEYOND]], %[[NEXT_LAST]], %[[PAST]] : index
// CHECK-NEXT: %[[TOKEN:.*]] = select %[[IN]], %[[AHEAD]], %[[NEXT_TOKEN]] : index
// CHECK-NEXT: %[[KEY:.*]] = select %[[IN]], %[[K]], %[[NEXT_K]] : memref<?xf32>
// CHECK-NEXT: %[[KS:.*]] = select %[[IN]], %[[K_STRIDE]], %[[NEXT_K_STRIDE]] : index
// CHECK-NEXT: %[[KEY_ROW:.*]] = arith.muli %[[TOKEN]], %[[KS]] : index
// CHECK-NEXT: %[[QUERY:.*]] = select %[[IN]], %[[Q]], %[[NEXT_Q]] : memref<?xf32>
// CHECK-NEXT: %[[QS:.*]] = select %[[IN]], %[[Q_STRIDE]], %[[NEXT_Q_STRIDE]] : index
// CHECK-NEXT: %[[QUERY_ROW:.*]] = arith.muli %[[TOKEN]], %[[QS]] : index
// CHECK: %[[DECAY:.*]] = select %[[IN]], %[[D]], %[[NEXT_D]] : memref<?xf32>
// CHECK-NEXT: %[[DS:.*]] = select %[[IN]], %[[D_STRIDE]], %[[NEXT_D_STRIDE]] : index
// CHECK-NEXT: %[[DECAY_ROW:.*]] = arith.muli %[[TOKEN]], %[[DS]] : index
// CHECK: scf.for %[[K0:[^ ]*]] = %c0{{.*}} to %c32{{.*}} step %c16{{.*}} iter_args
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[KEY_ROW]], %[[K0]] : index
// CHECK-NEXT: memref.prefetch %[[KEY]][%[[AT]]], read, locality<2>, data : memref<?xf32>
// CHECK-NEXT: arith.addi %{{.*}}, %[[K0]] : index
// CHECK-NEXT: memref.prefetch %[[QUERY]][%{{.*}}], read, locality<2>, data : memref<?xf32>
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[DECAY_ROW]], %[[K0]] : index
// CHECK-NEXT: memref.prefetch %[[DECAY]][%[[AT]]], read, locality<2>, data : memref<?xf32>
// CHECK-NEXT: arith.addi %{{.*}}, %[[K0]] : index
// CHECK-NEXT: memref.prefetch %{{.*}}[%{{.*}}], read, locality<2>, data : memref<?xf32>
// CHECK-NEXT: arith.addi %{{.*}}, %[[K0]] : index
// CHECK-NEXT: memref.prefetch %{{.*}}[%{{.*}}], read, locality<2>, data : memref<?xf32>
// CHECK-NEXT: arith.addi %{{.*}}, %[[K0]] : index
// CHECK-NEXT: memref.prefetch %{{.*}}[%{{.*}}], read, locality<2>, data : memref<?xf32>
// CHECK: scf.for %{{.*}} = %[[K0]] to %{{.*}} step %c1{{.*}} iter_args
gdr.kernel @next_block problem <k = 32, v = 16, element_type = f32, route = recurrent> schedule <vector_width = 16, v_tile = 16, unroll = 1>

// sweep_tokens = 1: the block's tokens go one per sweep, each carrying the
// next token's (1 + R) · 2 sums (pairs step by 2 and carry twice as many).
// CHECK-LABEL: func private @single_body(
// CHECK: %[[BLOCK:.*]] = select %{{.*}}, %c64{{(_[0-9]+)?}}, %c128{{(_[0-9]+)?}} : index
// A last block of one token runs apart (one token per sweep: no groups of
// more).
// CHECK: %[[HAS_TAIL:.*]] = arith.cmpi ult, %{{.*}}, %c1{{(_[0-9]+)?}} : index
// CHECK: scf.for %{{.*}} step %[[BLOCK]]
// Longer blocks: the groups loop carries the next token's sums.
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c1{{.*}} iter_args(%{{[^ ]*}} = %[[SUMS:[0-9]+]]#0, %{{[^ ]*}} = %[[SUMS]]#1, %{{[^ ]*}} = %[[SUMS]]#2, %{{[^ ]*}} = %[[SUMS]]#3) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// The last block of one token: the first whole tile's sums, then the
// whole tiles' loop, whose sweep writing a tile's final state returns the
// next tile's sums while there is one.
// CHECK: scf.if %[[HAS_TAIL]] {
// CHECK: %[[FIRST:[0-9]+]]:4 = scf.if %{{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK: scf.for %{{.*}} step %c8{{.*}} iter_args(%{{[^ ]*}} = %[[FIRST]]#0, %{{[^ ]*}} = %[[FIRST]]#1, %{{[^ ]*}} = %[[FIRST]]#2, %{{[^ ]*}} = %[[FIRST]]#3) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK-NEXT: arith.constant 8 : index
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi ult, %[[NEXT]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[MORE]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
gdr.kernel @single problem <k = 4, v = 8, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 4, sweep_tokens = 1>

// On a 256-bit target (x86, 16 vector registers) a pair's sweep stores the
// row's updated vectors, then sums them one broadcast of the next pair's
// gated rows at a time: loaded all at once, the broadcasts left no room
// for the 8 accumulators.
// CHECK-LABEL: func private @avx2_body(
// CHECK: arith.cmpf one
// CHECK: vector.store %[[ROW0:[0-9]+]], %{{.*}} : memref<?xf32>, vector<8xf32>
// CHECK: vector.store %[[ROW1:[0-9]+]], %{{.*}} : memref<?xf32>, vector<8xf32>
// CHECK-NEXT: arith.constant
// CHECK: %[[G0:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT: vector.fma %[[ROW0]], %[[G0]], %{{.*}} : vector<8xf32>
// CHECK-NEXT: vector.fma %[[ROW1]], %[[G0]], %{{.*}} : vector<8xf32>
// CHECK: %[[G1:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT: vector.fma %[[ROW0]], %[[G1]], %{{.*}} : vector<8xf32>
// CHECK-NEXT: vector.fma %[[ROW1]], %[[G1]], %{{.*}} : vector<8xf32>
gdr.kernel @avx2 problem <k = 4, v = 16, element_type = f32, route = recurrent> schedule <vector_width = 8, v_tile = 16, unroll = 1> target <cpu = "znver3", vector_bits = 256>

// The same on SSE (an x86 CPU at 128 bits: 16 registers), which before
// 2026-12-07 was lowered as NEON's 32.
// CHECK-LABEL: func private @sse_body(
// CHECK: arith.cmpf one
// CHECK: vector.store %[[ROW0:[0-9]+]], %{{.*}} : memref<?xf32>, vector<4xf32>
// CHECK: vector.store %[[ROW1:[0-9]+]], %{{.*}} : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: arith.constant
// CHECK: %[[G0:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK-NEXT: vector.fma %[[ROW0]], %[[G0]], %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.fma %[[ROW1]], %[[G0]], %{{.*}} : vector<4xf32>
gdr.kernel @sse problem <k = 4, v = 8, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 8, unroll = 1> target <cpu = "x86-64-v2", vector_bits = 128>

// Kernels of other routes are left to their own lowering.
// CHECK: gdr.kernel @chunked
gdr.kernel @chunked problem <k = 16, v = 40, element_type = f32, route = chunked>
