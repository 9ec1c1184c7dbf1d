// RUN: shard-opt %s -shard-propagate -shard-spmd-partition | FileCheck %s

// Each op kind's partitioned IR (issue 42, item 9; executed in test/e2e's
// partition-*.mlir): each rank's local types, the per-rank tables
// (torch.chunk's sizes and offsets, one entry per rank and a last one, 0,
// for ranks outside the mesh), the collectives, and none where nothing
// moves. 10 over 4 ranks is 3, 3, 3, 1; 13 is 4, 4, 4, 1; 7 is 2, 2, 2, 1.
// Where the cost model could choose, the Partial result is pinned.

#m2 = #shard.mesh<shape = [2]>
#m4 = #shard.mesh<shape = [4]>
#mm = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
#R = #shard.placements<mesh = #m4, placements = [R]>
#S0 = #shard.placements<mesh = #m4, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m4, placements = [S(1)]>

// TOSA elementwise ops (a row broadcast, mul's shift) on column blocks:
// the same ops on local blocks, the shift whole, nothing moves.
// CHECK-LABEL: func.func @tosa_elementwise(
// CHECK-SAME: %arg0: tensor<8x?xf32> {shard.global = !shard.tensor<8x10xf32, {{.*}}#layout_S1>}, %arg1: tensor<1x?xf32> {{.*}}, %arg2: tensor<8x?xi1>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[SHIFT:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
// CHECK: %[[A:.*]] = tosa.add %arg0, %arg1 : (tensor<8x?xf32>, tensor<1x?xf32>) -> tensor<8x?xf32>
// CHECK: %[[S:.*]] = tosa.sigmoid %[[A]] : (tensor<8x?xf32>) -> tensor<8x?xf32>
// CHECK: tosa.mul %[[A]], %[[S]], %[[SHIFT]] : (tensor<8x?xf32>, tensor<8x?xf32>, tensor<1xi8>) -> tensor<8x?xf32>
// CHECK: tosa.select %arg2, %{{.*}}, %arg0 : (tensor<8x?xi1>, tensor<8x?xf32>, tensor<8x?xf32>) -> tensor<8x?xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return
func.func @tosa_elementwise(%x: tensor<8x10xf32> {shard.layout = #S1}, %b: tensor<1x10xf32> {shard.layout = #S1},
                            %c: tensor<8x10xi1> {shard.layout = #S1}) -> (tensor<8x10xf32> {shard.layout = #S1}) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a = tosa.add %x, %b : (tensor<8x10xf32>, tensor<1x10xf32>) -> tensor<8x10xf32>
  %s = tosa.sigmoid %a : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %p = tosa.mul %a, %s, %shift : (tensor<8x10xf32>, tensor<8x10xf32>, tensor<1xi8>) -> tensor<8x10xf32>
  %r = tosa.select %c, %p, %x : (tensor<8x10xi1>, tensor<8x10xf32>, tensor<8x10xf32>) -> tensor<8x10xf32>
  return %r : tensor<8x10xf32>
}

// A broadcast operand is needed whole along the broadcast dim's partner:
// the 1x6 row cut by columns (2, 2, 2, 0) is all-gathered first.
// CHECK-LABEL: func.func @tosa_broadcast_gathered(
// CHECK-NEXT: %[[B:.*]] = shard.spmd.all_gather %arg1 over axes [0] dim 1 {{.*}} : tensor<1x?xf32> -> tensor<1x6xf32>
// CHECK-NEXT: tosa.add %arg0, %[[B]] : (tensor<?x6xf32>, tensor<1x6xf32>) -> tensor<?x6xf32>
// CHECK-NEXT: return
func.func @tosa_broadcast_gathered(%x: tensor<10x6xf32> {shard.layout = #S0}, %b: tensor<1x6xf32> {shard.layout = #S1})
    -> (tensor<10x6xf32> {shard.layout = #S0}) {
  %a = tosa.add %x, %b : (tensor<10x6xf32>, tensor<1x6xf32>) -> tensor<10x6xf32>
  return %a : tensor<10x6xf32>
}

// Even blocks (8 rows over 2) are static.
// CHECK-LABEL: func.func @tosa_elementwise_even(
// CHECK-NEXT: tosa.exp %arg0 : (tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return
func.func @tosa_elementwise_even(%x: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}) {
  %a = tosa.exp %x : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return %a : tensor<8x6xf32>
}

// tosa.matmul on a 2x2 mesh: batch 3 on dp (2, 1), the contracted 5 on tp
// (3, 2): a partial sum, all-reduced over tp only.
// CHECK-LABEL: func.func @tosa_matmul(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[C:.*]] = tosa.matmul %arg0, %arg1, %{{.*}}, %{{.*}} : (tensor<?x8x?xf32>, tensor<?x?x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x8x6xf32>
// CHECK-NEXT: shard.spmd.all_reduce %[[C]] over axes [1] reduce sum from {{.*}}#layout_S0_Psum> to {{.*}}#layout_S0_R> : tensor<?x8x6xf32> -> tensor<?x8x6xf32>
// CHECK-NEXT: return
func.func @tosa_matmul(%a: tensor<3x8x5xf32> {shard.layout = #shard.placements<mesh = #mm, placements = [S(0), S(2)]>},
                       %b: tensor<3x5x6xf32> {shard.layout = #shard.placements<mesh = #mm, placements = [S(0), S(1)]>})
    -> (tensor<3x8x6xf32> {shard.layout = #shard.placements<mesh = #mm, placements = [S(0), R]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.matmul %a, %b, %zp, %zp : (tensor<3x8x5xf32>, tensor<3x5x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x8x6xf32>
  %p = shard.constraint %c layout #shard.placements<mesh = #mm, placements = [S(0), P(sum)]> : tensor<3x8x6xf32>
  return %p : tensor<3x8x6xf32>
}

// Rows cut (9 over 2: 5, 4), b replicated: local, nothing moves.
// CHECK-LABEL: func.func @tosa_matmul_rows(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: tosa.matmul %arg0, %arg1, %{{.*}}, %{{.*}} : (tensor<2x?x4xf32>, tensor<2x4x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x?x6xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return
func.func @tosa_matmul_rows(%a: tensor<2x9x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1)]>},
                            %b: tensor<2x4x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [R]>})
    -> (tensor<2x9x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1)]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.matmul %a, %b, %zp, %zp : (tensor<2x9x4xf32>, tensor<2x4x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x9x6xf32>
  return %c : tensor<2x9x6xf32>
}

// The cut dim follows the permutation: S(0) in, S(1) out, nothing moves.
// CHECK-LABEL: func.func @tosa_transpose(
// CHECK-NEXT: tosa.transpose %arg0 {perms = array<i32: 1, 0>} : (tensor<?x6xf32>) -> tensor<6x?xf32>
// CHECK-NEXT: return
func.func @tosa_transpose(%x: tensor<10x6xf32> {shard.layout = #S0}) -> (tensor<6x10xf32> {shard.layout = #S1}) {
  %t = tosa.transpose %x {perms = array<i32: 1, 0>} : (tensor<10x6xf32>) -> tensor<6x10xf32>
  return %t : tensor<6x10xf32>
}

// Reductions over the cut rows: each rank's is partial, all-reduced with
// the op's combiner; over the whole columns: local.
// CHECK-LABEL: func.func @tosa_reduce(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[SUM:.*]] = tosa.reduce_sum %arg0 {axis = 0 : i32} : (tensor<?x6xf32>) -> tensor<1x6xf32>
// CHECK: %[[MAX:.*]] = tosa.reduce_max %arg0 {axis = 0 : i32} : (tensor<?x6xf32>) -> tensor<1x6xf32>
// CHECK: %[[MIN:.*]] = tosa.reduce_min %arg0 {axis = 0 : i32} : (tensor<?x6xf32>) -> tensor<1x6xf32>
// CHECK: %[[PROD:.*]] = tosa.reduce_product %arg0 {axis = 0 : i32} : (tensor<?x6xf32>) -> tensor<1x6xf32>
// CHECK: %[[ROWS:.*]] = tosa.reduce_sum %arg0 {axis = 1 : i32} : (tensor<?x6xf32>) -> tensor<?x1xf32>
// CHECK-DAG: %[[R0:.*]] = shard.spmd.all_reduce %[[SUM]] over axes [0] reduce sum
// CHECK-DAG: %[[R1:.*]] = shard.spmd.all_reduce %[[MAX]] over axes [0] reduce max
// CHECK-DAG: %[[R2:.*]] = shard.spmd.all_reduce %[[MIN]] over axes [0] reduce min
// CHECK-DAG: %[[R3:.*]] = shard.spmd.all_reduce %[[PROD]] over axes [0] reduce product
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[ROWS]] : tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<?x1xf32>
func.func @tosa_reduce(%x: tensor<10x6xf32> {shard.layout = #S0})
    -> (tensor<1x6xf32> {shard.layout = #R}, tensor<1x6xf32> {shard.layout = #R}, tensor<1x6xf32> {shard.layout = #R},
        tensor<1x6xf32> {shard.layout = #R}, tensor<10x1xf32> {shard.layout = #S0}) {
  %s = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<10x6xf32>) -> tensor<1x6xf32>
  %s1 = shard.constraint %s layout #shard.placements<mesh = #m4, placements = [P(sum)]> : tensor<1x6xf32>
  %mx = tosa.reduce_max %x {axis = 0 : i32} : (tensor<10x6xf32>) -> tensor<1x6xf32>
  %mx1 = shard.constraint %mx layout #shard.placements<mesh = #m4, placements = [P(max)]> : tensor<1x6xf32>
  %mn = tosa.reduce_min %x {axis = 0 : i32} : (tensor<10x6xf32>) -> tensor<1x6xf32>
  %mn1 = shard.constraint %mn layout #shard.placements<mesh = #m4, placements = [P(min)]> : tensor<1x6xf32>
  %pr = tosa.reduce_product %x {axis = 0 : i32} : (tensor<10x6xf32>) -> tensor<1x6xf32>
  %pr1 = shard.constraint %pr layout #shard.placements<mesh = #m4, placements = [P(product)]> : tensor<1x6xf32>
  %rs = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<10x6xf32>) -> tensor<10x1xf32>
  return %s1, %mx1, %mn1, %pr1, %rs : tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<10x1xf32>
}

// tosa.reshape where torch.chunk's cuts fall on whole rows / heads: 7x2
// rows 2, 2, 2, 1 fold into 14 cut 4, 4, 4, 2; 14 features cut 4, 4, 4, 2
// split into 7 heads cut 2, 2, 2, 1 (read by rank). Local reshapes.
// CHECK-LABEL: func.func @tosa_reshape_aligned(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<?x2xf32> into tensor<?xf32>
// CHECK: %[[HEADS:.*]] = arith.constant dense<[2, 2, 2, 1, 0]> : tensor<5xindex>
// CHECK: %[[H:.*]] = tensor.extract %[[HEADS]]
// CHECK: tensor.expand_shape %arg1 {{\[\[}}0], [1, 2]] output_shape [8, %[[H]], 2] : tensor<8x?xf32> into tensor<8x?x2xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return
func.func @tosa_reshape_aligned(%x: tensor<7x2xf32> {shard.layout = #S0}, %y: tensor<8x14xf32> {shard.layout = #S1})
    -> (tensor<14xf32> {shard.layout = #S0}, tensor<8x7x2xf32> {shard.layout = #S1}) {
  %s1 = tosa.const_shape {values = dense<[14]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %f = tosa.reshape %x, %s1 : (tensor<7x2xf32>, !tosa.shape<1>) -> tensor<14xf32>
  %s3 = tosa.const_shape {values = dense<[8, 7, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %h = tosa.reshape %y, %s3 : (tensor<8x14xf32>, !tosa.shape<3>) -> tensor<8x7x2xf32>
  return %f, %h : tensor<14xf32>, tensor<8x7x2xf32>
}

// Not aligned (rows 3, 3, 3, 1 are 18, 18, 18, 6 elements; 60 is cut 15
// each): the rows are gathered, reshaped whole, then cut.
// CHECK-LABEL: func.func @tosa_reshape_unaligned(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[W:.*]] = shard.spmd.all_gather %arg0 over axes [0] dim 0 {{.*}} : tensor<?x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: %[[F:.*]] = tosa.reshape %[[W]], %{{.*}} : (tensor<10x6xf32>, !tosa.shape<1>) -> tensor<60xf32>
// CHECK-NEXT: shard.spmd.exchange %[[F]] from {{.*}}#layout_R> to {{.*}}#layout_S0> : tensor<60xf32> -> tensor<15xf32>
// CHECK-NEXT: return
func.func @tosa_reshape_unaligned(%x: tensor<10x6xf32> {shard.layout = #S0}) -> (tensor<60xf32> {shard.layout = #S0}) {
  %s1 = tosa.const_shape {values = dense<[60]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %f = tosa.reshape %x, %s1 : (tensor<10x6xf32>, !tosa.shape<1>) -> tensor<60xf32>
  return %f : tensor<60xf32>
}

// tosa.gather from a table cut by rows (13: 4, 4, 4, 1 at 0, 4, 8, 12):
// each rank picks the rows it holds at their local index, 0 elsewhere;
// the Partial(sum) lookup is all-reduced.
// CHECK-LABEL: func.func @tosa_gather_vocab(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[IDS:.*]] = tosa.add %arg1, %{{.*}} : (tensor<1x5xi32>, tensor<1x5xi32>) -> tensor<1x5xi32>
// CHECK: %[[OFFS:.*]] = arith.constant dense<[0, 4, 8, 12, 0]> : tensor<5xindex>
// CHECK: %[[OFF:.*]] = tensor.extract %[[OFFS]]
// CHECK: %[[SIZES:.*]] = arith.constant dense<[4, 4, 4, 1, 0]> : tensor<5xindex>
// CHECK: %[[SIZE:.*]] = tensor.extract %[[SIZES]]
// CHECK-NOT: tosa.gather
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[IDS]] : tensor<1x5xi32>) outs(%{{.*}} : tensor<1x5x8xf32>)
// CHECK: %[[ID:.*]] = arith.index_cast
// The table's rows in all, for shard-run's check of the global index.
// CHECK: %[[LOCAL:.*]] = arith.subi %[[ID]], %[[OFF]] {shard.lookup_extent = 13 : i64} : index
// CHECK: arith.cmpi slt, %[[LOCAL]], %[[SIZE]] : index
// CHECK: scf.if
// CHECK: tensor.extract %arg0[%{{.*}}, %[[LOCAL]], %{{.*}}] : tensor<1x?x8xf32>
// CHECK: } else {
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: shard.spmd.all_reduce %[[G]] over axes [0] reduce sum {{.*}} : tensor<1x5x8xf32> -> tensor<1x5x8xf32>
// CHECK-NEXT: return
func.func @tosa_gather_vocab(%table: tensor<1x13x8xf32> {shard.layout = #S1}, %ids: tensor<1x5xi32> {shard.layout = #R})
    -> (tensor<1x5x8xf32> {shard.layout = #R}) {
  %six = "tosa.const"() <{values = dense<6> : tensor<1x5xi32>}> : () -> tensor<1x5xi32>
  %i = tosa.add %ids, %six : (tensor<1x5xi32>, tensor<1x5xi32>) -> tensor<1x5xi32>
  %e = tosa.gather %table, %i : (tensor<1x13x8xf32>, tensor<1x5xi32>) -> tensor<1x5x8xf32>
  %p = shard.constraint %e layout #shard.placements<mesh = #m4, placements = [P(sum)]> : tensor<1x5x8xf32>
  return %p : tensor<1x5x8xf32>
}

// A replicated table, the tokens cut (7: 2, 2, 2, 1): each rank gathers
// its own tokens' rows; the tosa.const of the tokens' shape is sliced.
// CHECK-LABEL: func.func @tosa_gather_tokens(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[K:.*]] = "tosa.const"() <{values = dense<6> : tensor<1x7xi32>}>
// CHECK: arith.constant dense<[2, 2, 2, 1, 0]> : tensor<5xindex>
// CHECK: arith.constant dense<[0, 2, 4, 6, 0]> : tensor<5xindex>
// CHECK: %[[KS:.*]] = tensor.extract_slice %[[K]][0, %{{.*}}] [1, %{{.*}}] [1, 1] : tensor<1x7xi32> to tensor<1x?xi32>
// CHECK: %[[IDS:.*]] = tosa.add %arg1, %[[KS]] : (tensor<1x?xi32>, tensor<1x?xi32>) -> tensor<1x?xi32>
// CHECK: tosa.gather %arg0, %[[IDS]] : (tensor<1x13x4xf32>, tensor<1x?xi32>) -> tensor<1x?x4xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return
func.func @tosa_gather_tokens(%table: tensor<1x13x4xf32> {shard.layout = #R}, %ids: tensor<1x7xi32> {shard.layout = #S1})
    -> (tensor<1x7x4xf32> {shard.layout = #S1}) {
  %six = "tosa.const"() <{values = dense<6> : tensor<1x7xi32>}> : () -> tensor<1x7xi32>
  %i = tosa.add %ids, %six : (tensor<1x7xi32>, tensor<1x7xi32>) -> tensor<1x7xi32>
  %f = tosa.gather %table, %i : (tensor<1x13x4xf32>, tensor<1x7xi32>) -> tensor<1x7x4xf32>
  return %f : tensor<1x7x4xf32>
}

// tosa.const takes the layout of its user: each rank slices its block.
// CHECK-LABEL: func.func @tosa_const(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[C:.*]] = "tosa.const"() {{.*}} : () -> tensor<10xf32>
// CHECK: %[[SIZES:.*]] = arith.constant dense<[3, 3, 3, 1, 0]> : tensor<5xindex>
// CHECK: %[[N:.*]] = tensor.extract %[[SIZES]]
// CHECK: %[[OFFS:.*]] = arith.constant dense<[0, 3, 6, 9, 0]> : tensor<5xindex>
// CHECK: %[[O:.*]] = tensor.extract %[[OFFS]]
// CHECK: %[[MINE:.*]] = tensor.extract_slice %[[C]][%[[O]]] [%[[N]]] [1] : tensor<10xf32> to tensor<?xf32>
// CHECK-NEXT: tosa.add %arg0, %[[MINE]] : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT: return
func.func @tosa_const(%x: tensor<10xf32> {shard.layout = #S0}) -> (tensor<10xf32> {shard.layout = #S0}) {
  %c = "tosa.const"() <{values = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]> : tensor<10xf32>}> : () -> tensor<10xf32>
  %a = tosa.add %x, %c : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>
  return %a : tensor<10xf32>
}

// tensor.pad: along the whole dim, this rank's rows; along the cut dim
// (10 rows padded to 13: blocks at 0, 4, 8, 12 of 4, 4, 4, 1) each rank
// receives the rows of x that land in its block (x's rows 0-1, 2-5, 6-9,
// none) and pads around them; a replicated source padded into a cut result
// (9 rows: 3, 3, 3, 0) is sliced where it is.
// CHECK-LABEL: func.func @pad(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: tensor.pad %{{.*}} low[0, 2] high[0, 3]
// CHECK: } : tensor<?x16xf32> to tensor<?x21xf32>
// CHECK: arith.constant dense<[0, 4, 8, 12, 0]> : tensor<5xindex>
// CHECK: arith.constant dense<[4, 4, 4, 1, 0]> : tensor<5xindex>
// CHECK: arith.constant dense<[0, 2, 6, 10, 0]> : tensor<5xindex>
// CHECK: %[[PART:.*]] = shard.spmd.exchange %arg0 from {{.*}}#layout_S0> to !shard.tensor<10x16xf32, #shard.enumerable<[{offsets = [0, 0], sizes = [2, 16], placement = "rank:0/cpu"}, {offsets = [2, 0], sizes = [4, 16], placement = "rank:1/cpu"}, {offsets = [6, 0], sizes = [4, 16], placement = "rank:2/cpu"}, {offsets = [10, 0], sizes = [0, 16], placement = "rank:3/cpu"}]>> : tensor<?x16xf32> -> tensor<?x16xf32>
// CHECK: %[[P:.*]] = tensor.extract_slice %[[PART]][%{{.*}}, 0] [%{{.*}}, 16] [1, 1] : tensor<?x16xf32> to tensor<?x16xf32>
// CHECK: tensor.pad %[[P]] low[%{{.*}}, 0] high[%{{.*}}, 0]
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: arith.constant dense<[0, 3, 6, 9, 0]> : tensor<5xindex>
// CHECK: arith.constant dense<[3, 3, 3, 0, 0]> : tensor<5xindex>
// CHECK: %[[Y:.*]] = tensor.extract_slice %arg1[%{{.*}}, 0] [%{{.*}}, 16] [1, 1] : tensor<3x16xf32> to tensor<?x16xf32>
// CHECK: tensor.pad %[[Y]] low[%{{.*}}, 0] high[%{{.*}}, 0]
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return
func.func @pad(%x: tensor<10x16xf32> {shard.layout = #S0}, %y: tensor<3x16xf32> {shard.layout = #R})
    -> (tensor<10x21xf32> {shard.layout = #S0}, tensor<13x16xf32> {shard.layout = #S0}, tensor<9x16xf32> {shard.layout = #S0}) {
  %cst = arith.constant 0.5 : f32
  %p1 = tensor.pad %x low[0, 2] high[0, 3] { ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32 } : tensor<10x16xf32> to tensor<10x21xf32>
  %p2 = tensor.pad %x low[2, 0] high[1, 0] { ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32 } : tensor<10x16xf32> to tensor<13x16xf32>
  %p3 = tensor.pad %y low[4, 0] high[2, 0] { ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32 } : tensor<3x16xf32> to tensor<9x16xf32>
  return %p1, %p2, %p3 : tensor<10x21xf32>, tensor<13x16xf32>, tensor<9x16xf32>
}

// tensor.concat: along the whole dim, each rank joins its own rows; along
// the cut dim (10 + 3 rows into 13: x's rows 0-3, 4-7, 8-9, none move to
// blocks 0-3, 4-7, 8-11, 12, y's rows land on ranks 2 and 3); two
// replicated operands into a cut result (3 + 4 rows: 2, 2, 2, 1): sliced.
// CHECK-LABEL: func.func @concat(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x32xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[E]][0, 0] [%{{.*}}, 16] [1, 1] : tensor<?x16xf32> into tensor<?x32xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 16] [%{{.*}}, 16] [1, 1] : tensor<?x16xf32> into tensor<?x32xf32>
// CHECK: arith.constant dense<[4, 4, 4, 1, 0]> : tensor<5xindex>
// CHECK: arith.constant dense<[0, 4, 8, 10, 0]> : tensor<5xindex>
// CHECK: %[[PART:.*]] = shard.spmd.exchange %arg0 from {{.*}}#layout_S0> to !shard.tensor<10x16xf32, #shard.enumerable<[{offsets = [0, 0], sizes = [4, 16], placement = "rank:0/cpu"}, {offsets = [4, 0], sizes = [4, 16], placement = "rank:1/cpu"}, {offsets = [8, 0], sizes = [2, 16], placement = "rank:2/cpu"}, {offsets = [10, 0], sizes = [0, 16], placement = "rank:3/cpu"}]>>
// CHECK: tensor.extract_slice %[[PART]]
// CHECK: tensor.extract_slice %arg1[%{{.*}}, 0] [%{{.*}}, 16] [1, 1] : tensor<3x16xf32> to tensor<?x16xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: arith.constant dense<[0, 2, 4, 6, 0]> : tensor<5xindex>
// CHECK: arith.constant dense<[2, 2, 2, 1, 0]> : tensor<5xindex>
// CHECK: tensor.extract_slice %arg1[%{{.*}}, 0] [%{{.*}}, 16] [1, 1] : tensor<3x16xf32> to tensor<?x16xf32>
// CHECK: tensor.extract_slice %arg2[%{{.*}}, 0] [%{{.*}}, 16] [1, 1] : tensor<4x16xf32> to tensor<?x16xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return
func.func @concat(%x: tensor<10x16xf32> {shard.layout = #S0}, %y: tensor<3x16xf32> {shard.layout = #R}, %z: tensor<4x16xf32> {shard.layout = #R})
    -> (tensor<10x32xf32> {shard.layout = #S0}, tensor<13x16xf32> {shard.layout = #S0}, tensor<7x16xf32> {shard.layout = #S0}) {
  %c1 = tensor.concat dim(1) %x, %x : (tensor<10x16xf32>, tensor<10x16xf32>) -> tensor<10x32xf32>
  %c2 = tensor.concat dim(0) %x, %y : (tensor<10x16xf32>, tensor<3x16xf32>) -> tensor<13x16xf32>
  %c3 = tensor.concat dim(0) %y, %z : (tensor<3x16xf32>, tensor<4x16xf32>) -> tensor<7x16xf32>
  return %c1, %c2, %c3 : tensor<10x32xf32>, tensor<13x16xf32>, tensor<7x16xf32>
}

// tensor.insert_slice into a cut destination, nothing moves: a strided one
// (rows 1, 3, .., 9 of 12 cut 3 each: the first row of s on this rank is
// ceil((offset - 1) / 2)), a rank-reducing row, and columns of the rows.
// CHECK-LABEL: func.func @insert_slice(
// CHECK-SAME: %arg2: tensor<3x16xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[OFFS:.*]] = arith.constant dense<[0, 3, 6, 9, 0]> : tensor<5xindex>
// CHECK: %[[O:.*]] = tensor.extract %[[OFFS]]
// CHECK: %[[D:.*]] = arith.subi %[[O]], %c1 : index
// CHECK: arith.ceildivsi %[[D]], %c2 : index
// CHECK: %[[S:.*]] = tensor.extract_slice %arg1[%{{.*}}, 0] [%[[N:.*]], 16] [1, 1] : tensor<5x16xf32> to tensor<?x16xf32>
// CHECK: tensor.insert_slice %[[S]] into %arg2[%{{.*}}, 0] [%[[N]], 16] [2, 1] : tensor<?x16xf32> into tensor<3x16xf32>
// CHECK: %[[ROW:.*]] = tensor.expand_shape %arg3 {{\[\[}}0, 1]] output_shape [1, 16] : tensor<16xf32> into tensor<1x16xf32>
// CHECK: %[[RS:.*]] = tensor.extract_slice %[[ROW]][%{{.*}}, 0] [%{{.*}}, 16] [1, 1] : tensor<1x16xf32> to tensor<?x16xf32>
// CHECK: tensor.insert_slice %[[RS]] into %arg0[%{{.*}}, 0] [%{{.*}}, 16] [1, 1] : tensor<?x16xf32> into tensor<?x16xf32>
// CHECK: tensor.insert_slice %{{.*}} into %arg0[0, 6] [%{{.*}}, 4] [1, 1] : tensor<?x4xf32> into tensor<?x16xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return
func.func @insert_slice(%x: tensor<10x16xf32> {shard.layout = #S0}, %s: tensor<5x16xf32> {shard.layout = #R},
                        %big: tensor<12x16xf32> {shard.layout = #S0}, %row: tensor<16xf32> {shard.layout = #R},
                        %c: tensor<10x4xf32> {shard.layout = #S0})
    -> (tensor<12x16xf32> {shard.layout = #S0}, tensor<10x16xf32> {shard.layout = #S0}, tensor<10x16xf32> {shard.layout = #S0}) {
  %i1 = tensor.insert_slice %s into %big[1, 0] [5, 16] [2, 1] : tensor<5x16xf32> into tensor<12x16xf32>
  %i2 = tensor.insert_slice %row into %x[3, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<10x16xf32>
  %i3 = tensor.insert_slice %c into %x[0, 6] [10, 4] [1, 1] : tensor<10x4xf32> into tensor<10x16xf32>
  return %i1, %i2, %i3 : tensor<12x16xf32>, tensor<10x16xf32>, tensor<10x16xf32>
}

// tensor.extract_slice: columns of the cut rows, local; rows 1-5 of the
// cut rows: each rank slices the rows it holds (rank 0 its rows 1-2, rank
// 1 all 3) and they move to the result's 2, 2, 1, 0; the row z[2, :] of 16
// (4 per rank) is taken from z made column-cut. (Three tensors: slices of
// one would all read the copy one gather makes, the cheapest at 2 us a
// message.)
// CHECK-LABEL: func.func @extract_slice(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: tensor.extract_slice %arg0[0, 3] [%{{.*}}, 6] [1, 1] : tensor<?x16xf32> to tensor<?x6xf32>
// CHECK: %[[FIRSTS:.*]] = arith.constant dense<[1, 0, 0, 0, 0]> : tensor<5xindex>
// CHECK: %[[F:.*]] = tensor.extract %[[FIRSTS]]
// CHECK: %[[COUNTS:.*]] = arith.constant dense<[2, 3, 0, 0, 0]> : tensor<5xindex>
// CHECK: %[[N:.*]] = tensor.extract %[[COUNTS]]
// CHECK: %[[MINE:.*]] = tensor.extract_slice %arg1[%[[F]], 0] [%[[N]], 16] [1, 1] : tensor<?x16xf32> to tensor<?x16xf32>
// CHECK: shard.spmd.exchange %[[MINE]] from !shard.tensor<5x16xf32, #shard.enumerable<[{offsets = [0, 0], sizes = [2, 16], placement = "rank:0/cpu"}, {offsets = [2, 0], sizes = [3, 16], placement = "rank:1/cpu"}, {offsets = [5, 0], sizes = [0, 16], placement = "rank:2/cpu"}, {offsets = [5, 0], sizes = [0, 16], placement = "rank:3/cpu"}]>> to {{.*}}#layout_S0> : tensor<?x16xf32> -> tensor<?x16xf32>
// CHECK: %[[T:.*]] = shard.spmd.all_to_all %arg2 over axes [0] split 1 concat 0 {{.*}} : tensor<?x16xf32> -> tensor<10x4xf32>
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[T]][2, 0] [1, 4] [1, 1] : tensor<10x4xf32> to tensor<1x4xf32>
// CHECK-NEXT: tensor.collapse_shape %[[ROW]] {{\[\[}}0, 1]] : tensor<1x4xf32> into tensor<4xf32>
// CHECK-NEXT: return
func.func @extract_slice(%x: tensor<10x16xf32> {shard.layout = #S0},
                         %y: tensor<10x16xf32> {shard.layout = #S0},
                         %z: tensor<10x16xf32> {shard.layout = #S0})
    -> (tensor<10x6xf32> {shard.layout = #S0}, tensor<5x16xf32> {shard.layout = #S0}, tensor<16xf32> {shard.layout = #S0}) {
  %a = tensor.extract_slice %x[0, 3] [10, 6] [1, 1] : tensor<10x16xf32> to tensor<10x6xf32>
  %b = tensor.extract_slice %y[1, 0] [5, 16] [1, 1] : tensor<10x16xf32> to tensor<5x16xf32>
  %d = tensor.extract_slice %z[2, 0] [1, 16] [1, 1] : tensor<10x16xf32> to tensor<16xf32>
  return %a, %b, %d : tensor<10x6xf32>, tensor<5x16xf32>, tensor<16xf32>
}

// linalg.softmax: cut along another dim, local on this rank's rows; cut
// along the normalized dim, gathered first.
// CHECK-LABEL: func.func @softmax(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[ROWS:.*]] = arith.constant dense<[3, 3, 3, 1, 0]> : tensor<5xindex>
// CHECK: %[[N:.*]] = tensor.extract %[[ROWS]]
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x6xf32>
// CHECK: linalg.softmax dimension(1) ins(%arg0 : tensor<?x6xf32>) outs(%[[E]] : tensor<?x6xf32>) -> tensor<?x6xf32>
// CHECK: %[[W:.*]] = shard.spmd.all_gather %arg1 over axes [0] dim 1 {{.*}} : tensor<6x?xf32> -> tensor<6x10xf32>
// CHECK-NEXT: linalg.softmax dimension(1) ins(%[[W]] : tensor<6x10xf32>) outs(%{{.*}} : tensor<6x10xf32>) -> tensor<6x10xf32>
// CHECK-NEXT: return
func.func @softmax(%x: tensor<10x6xf32> {shard.layout = #S0}, %y: tensor<6x10xf32> {shard.layout = #S1})
    -> (tensor<10x6xf32> {shard.layout = #S0}, tensor<6x10xf32> {shard.layout = #R}) {
  %e = tensor.empty() : tensor<10x6xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<10x6xf32>) outs(%e : tensor<10x6xf32>) -> tensor<10x6xf32>
  %e2 = tensor.empty() : tensor<6x10xf32>
  %t = linalg.softmax dimension(1) ins(%y : tensor<6x10xf32>) outs(%e2 : tensor<6x10xf32>) -> tensor<6x10xf32>
  return %s, %t : tensor<10x6xf32>, tensor<6x10xf32>
}

// tensor.extract / tensor.insert of a scalar: a slice of one element
// (ScalarSlices.h): the element is broadcast from the rank holding it (row
// 2: rank 0), and only the rank holding [0, 0] writes it; nothing else
// moves (before: %x gathered whole on every rank, then sliced back).
// CHECK-LABEL: func.func @extract_insert(
// CHECK-NOT: shard.spmd.{{all_|exchange|gather|scatter|reduce_}}
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[%{{.*}}, 2] [%{{.*}}, 1] [1, 1] : tensor<?x16xf32> to tensor<?x1xf32>
// CHECK-NEXT: %[[B:.*]] = shard.spmd.broadcast %[[S]] over ranks [0, 1, 2, 3] root 0
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[B]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK-NEXT: %[[V:.*]] = tensor.extract %[[C]][] : tensor<f32>
// CHECK-NEXT: tensor.from_elements %[[V]] : tensor<1x1xf32>
// CHECK-NOT: shard.spmd.
// CHECK: tensor.insert_slice %{{.*}} into %arg0[%{{.*}}, 0] [%{{.*}}, 1] [1, 1] : tensor<?x1xf32> into tensor<?x16xf32>
// CHECK-NEXT: return
func.func @extract_insert(%x: tensor<10x16xf32> {shard.layout = #S0}) -> (tensor<10x16xf32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %e = tensor.extract %x[%c2, %c2] : tensor<10x16xf32>
  %i = tensor.insert %e into %x[%c0, %c0] : tensor<10x16xf32>
  return %i : tensor<10x16xf32>
}

// tensor.dim reads the global size (10, not this rank's 3 or 1).
// CHECK-LABEL: func.func @dim(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[TEN:.*]] = arith.constant 10 : index
// CHECK: arith.index_cast %[[TEN]] : index to i32
// The fill never reads %x: it fills an empty tensor of this rank's rows.
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x3xf32>
// CHECK: linalg.fill {{.*}}ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: return
func.func @dim(%x: tensor<10x3xf32> {shard.layout = #S0}) -> (tensor<10x3xf32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<10x3xf32>
  %di = arith.index_cast %d : index to i32
  %df = arith.sitofp %di : i32 to f32
  %g = linalg.fill ins(%df : f32) outs(%x : tensor<10x3xf32>) -> tensor<10x3xf32>
  return %g : tensor<10x3xf32>
}

// bufferization.materialize_in_destination into a cut argument: each rank
// writes its own block.
// CHECK-LABEL: func.func @materialize(
// CHECK-NEXT: %[[Y:.*]] = math.exp %arg0 : tensor<?x4xf32>
// CHECK-NEXT: bufferization.materialize_in_destination %[[Y]] in %arg1 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: return
func.func @materialize(%x: tensor<10x4xf32> {shard.layout = #S0}, %out: tensor<10x4xf32> {shard.layout = #S0})
    -> (tensor<10x4xf32> {shard.layout = #S0}) {
  %y = math.exp %x : tensor<10x4xf32>
  %r = bufferization.materialize_in_destination %y in %out : (tensor<10x4xf32>, tensor<10x4xf32>) -> tensor<10x4xf32>
  return %r : tensor<10x4xf32>
}

// tensor.splat: a splat of this rank's block sizes; nothing moves.
// CHECK-LABEL: func.func @splat(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[ROWS:.*]] = arith.constant dense<[3, 3, 3, 1, 0]> : tensor<5xindex>
// CHECK: %[[N:.*]] = tensor.extract %[[ROWS]]
// CHECK: %[[S:.*]] = tensor.splat %{{.*}}[%[[N]]] : tensor<?x6xf32>
// CHECK: arith.addf %[[S]], %arg0 : tensor<?x6xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return
func.func @splat(%x: tensor<10x6xf32> {shard.layout = #S0}, %f: f32)
    -> (tensor<10x6xf32> {shard.layout = #S0}) {
  %s = tensor.splat %f : tensor<10x6xf32>
  %y = arith.addf %s, %x : tensor<10x6xf32>
  return %y : tensor<10x6xf32>
}

// A payload reading its loop index: the index plus this rank's offset of
// the loop (torch.chunk's offsets, 0, 3, 6, 9); nothing moves.
// CHECK-LABEL: func.func @index_offset(
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[OFFSETS:.*]] = arith.constant dense<[0, 3, 6, 9, 0]> : tensor<5xindex>
// CHECK: %[[OFFSET:.*]] = tensor.extract %[[OFFSETS]]
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[G:.*]] = arith.addi %[[I]], %[[OFFSET]] : index
// CHECK-NEXT: arith.addi %{{.*}}, %[[G]] : index
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return
func.func @index_offset(%a: tensor<10xindex> {shard.layout = #S0}) -> (tensor<10xindex> {shard.layout = #S0}) {
  %e = tensor.empty() : tensor<10xindex>
  %d = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<10xindex>) outs(%e : tensor<10xindex>) {
    ^bb0(%in: index, %out: index):
      %i = linalg.index 0 : index
      %s = arith.addi %in, %i : index
      linalg.yield %s : index
    } -> tensor<10xindex>
  return %d : tensor<10xindex>
}

// tensor.gather of a table cut by columns (7 over 4 ranks: 2, 2, 2, 1):
// the same op on this rank's columns; the indices (a constant) are built
// whole on each rank; nothing moves.
// CHECK-LABEL: func.func @tensor_gather(
// CHECK-SAME: %arg0: tensor<10x?xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: %[[I:.*]] = arith.constant dense<{{.*}}> : tensor<5x1xindex>
// CHECK: tensor.gather %arg0[%[[I]]] gather_dims([0]) : (tensor<10x?xf32>, tensor<5x1xindex>) -> tensor<5x?xf32>
// CHECK-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// CHECK: return
func.func @tensor_gather(%t: tensor<10x7xf32> {shard.layout = #S1})
    -> (tensor<5x7xf32> {shard.layout = #S1}) {
  %i = arith.constant dense<[[3], [0], [9], [3], [7]]> : tensor<5x1xindex>
  %r = tensor.gather %t[%i] gather_dims([0]) : (tensor<10x7xf32>, tensor<5x1xindex>) -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}

// Pooling of a batch cut unevenly (2 images on 3 ranks: 1, 1, 0) grows each
// rank's block to 1 image (TOSA's lowering takes no dynamic size there).
// Its elements ui8, which arith.constant cannot make a zero of: the block
// is written into a tensor of the grown shape, not padded with a constant
// (that was IR the verifier refused).
// CHECK-LABEL: func.func @pool_unsigned(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x6x6x4xui8>
// CHECK: %[[G:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 0, 0, 0] [%{{.*}}, 6, 6, 4] [1, 1, 1, 1] : tensor<?x6x6x4xui8> into tensor<1x6x6x4xui8>
// CHECK: tosa.max_pool2d %[[G]] {{.*}} : (tensor<1x6x6x4xui8>) -> tensor<1x4x4x4xui8>
// CHECK: tensor.extract_slice
#m3 = #shard.mesh<shape = [3]>
func.func @pool_unsigned(%x: tensor<2x6x6x4xui8> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>})
    -> (tensor<2x4x4x4xui8> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>}) {
  %0 = tosa.max_pool2d %x {pad = array<i64: 0, 0, 0, 0>, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>} : (tensor<2x6x6x4xui8>) -> tensor<2x4x4x4xui8>
  return %0 : tensor<2x4x4x4xui8>
}
