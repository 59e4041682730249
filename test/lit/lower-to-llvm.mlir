// gdr-lower-to-llvm: everything in the LLVM dialect, the body internal and
// never inlined (its frame starts below the entry point's page), and
// the C entry point int32_t name(const gdr_kernel_args*) that returns 1 if K,
// V, the decay kind or the readouts differ from the kernel's, 2 if the
// scratch is too small, else 0.
// Nothing of another dialect anywhere in the output (the CHECK-NOTs below
// cover only the lines before the first store); `vector.` would also match
// llvm.intr.vector.reduce, so vector ops are named by their dialect's ops.
// RUN: gdr-opt %s -gdr-attach-schedule -gdr-lower-recurrent -gdr-lower-to-llvm | FileCheck %s \
// RUN:   --implicit-check-not=scf. --implicit-check-not=memref. --implicit-check-not=arith. \
// RUN:   --implicit-check-not=" vector." --implicit-check-not="= vector."

// CHECK-LABEL: llvm.func internal @gdr_k64_v80_body(
// CHECK-SAME: passthrough = ["noinline", ["prefer-vector-width", "512"], ["min-legal-vector-width", "512"]]
// CHECK-NOT: scf.
// CHECK-NOT: vector.
// CHECK-NOT: memref.
// CHECK-NOT: arith.
// The streamed final state: non-temporal stores aligned to the vector (T = 0's
// copy comes first).
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 64 : i64, nontemporal} : !llvm.ptr<vector<16xf32>>
// CHECK: "llvm.intr.fmuladd"({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK: llvm.intr.masked.load
// CHECK: llvm.intr.masked.store
// CHECK-LABEL: llvm.func @gdr_k64_v80(
// CHECK-SAME: %[[ARGS:.*]]: !llvm.ptr<struct<(ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, ptr<f32>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, ptr<f32>, i64, i64, ptr<i8>, i64, i64)>>) -> i32
// CHECK: llvm.getelementptr %[[ARGS]][%{{.*}}, 9]
// CHECK: llvm.mlir.constant(64 : i64)
// CHECK: llvm.getelementptr %[[ARGS]][%{{.*}}, 10]
// CHECK: llvm.mlir.constant(80 : i64)
// CHECK: llvm.getelementptr %[[ARGS]][%{{.*}}, 11]
// CHECK: llvm.mlir.constant(0 : i64)
// CHECK: llvm.getelementptr %[[ARGS]][%{{.*}}, 12]
// CHECK: llvm.mlir.constant(1 : i64)
// CHECK: llvm.cond_br
// Scratch must hold the state between blocks (K x V), the packed tile
// (K x v_tile), a block of 128 tokens'
// rows (dk, one dq per readout, the row factor: K x (2 + readouts)) and
// scalars (1 + readouts, then 3 x (1 + readouts) corrections), a scale per
// pair of them and a row of P: 64 x 80 + 64 x 64 + 128 x (64 x 3 + 8) + 64 x 64
// + 64, then the next task's first sums (four tokens' at most:
// 4 x 2 x 64) and their tag (2): 39490 (the default tile on an Intel core:
// 4 vectors of 16).
// CHECK: llvm.getelementptr %[[ARGS]][%{{.*}}, 24]
// CHECK: llvm.mlir.constant(39490 : i64)
// CHECK: llvm.cond_br
// CHECK: %[[WRONG_SIZE:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.return %[[WRONG_SIZE]] : i32
// CHECK: %[[NO_SCRATCH:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: llvm.return %[[NO_SCRATCH]] : i32
// The next task (field 26), or this task itself if null.
// CHECK: %[[NEXT:.*]] = llvm.getelementptr %[[ARGS]][%{{.*}}, 26]
// CHECK: llvm.icmp "eq"
// CHECK: llvm.select
// Streams if asked (field 25 is 1) and the task's first final-state row
// starts a cache line (V = 80 floats: every row does).
// CHECK: llvm.getelementptr %[[ARGS]][%{{.*}}, 25]
// CHECK: llvm.ptrtoint
// CHECK: llvm.mlir.constant(63 : i64)
// CHECK: %[[STREAM:.*]] = llvm.and {{.*}} : i1
// Out streams if asked (field 28 is 1) and every row of it starts a line.
// CHECK: llvm.getelementptr %[[ARGS]][%{{.*}}, 28]
// CHECK: llvm.and {{.*}} : i1
// CHECK-NEXT: %[[OUT_STREAM:.*]] = llvm.and {{.*}} : i1
// CHECK: llvm.call @gdr_k64_v80_body(
// Then a fence orders the non-temporal stores of either.
// CHECK: %[[EITHER:.*]] = llvm.or %[[STREAM]], %[[OUT_STREAM]] : i1
// CHECK: llvm.cond_br %[[EITHER]], ^[[FENCE:.*]], ^[[DONE:.*]]
// CHECK: ^[[FENCE]]:
// CHECK-NEXT: llvm.fence seq_cst
// CHECK: ^[[DONE]]:
// CHECK: %[[OK:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.return %[[OK]] : i32
// The kernel's facts for loaders (kernel_abi.h, gdr_kernel_info_field): ABI
// version, K, V, column alignment (the vector width), scratch floats,
// vector bits, decay kind (0: channelwise), readouts, token steps.
// CHECK: llvm.mlir.global external constant @gdr_k64_v80_info(dense<[6, 64, 80, 16, 39490, 512, 0, 1, 1]> : tensor<9xi64>) : !llvm.array<9 x i64>
gdr.kernel @gdr_k64_v80 problem <k = 64, v = 80, element_type = f32, route = recurrent> target <cpu = "icelake-client", vector_bits = 512>
