// A program annotated for upstream MLIR's own shard dialect, as its
// sharding-propagation takes it (shard.grid, shard.sharding, shard.shard),
// in shardc's form: a grid is a mesh, a sharding DTensor placements (a dim
// split over grid axes is S(dim) on each, major axis first; an axis that
// splits nothing is R), an annotated function argument takes the layout
// (its callers pass it so), a value returned annotated and nothing else is
// the function's result layout, any other annotation a pin
// (shard.constraint). Upstream's ops are gone; the rest is as written.
// The second RUN line is README.md's command.
// RUN: shard-translate --import-upstream-shard --mlir-print-local-scope %s | FileCheck %s
// RUN: shard-translate --import-upstream-shard %s | shard-opt -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=PART

shard.grid @line(shape = 4)
shard.grid @plane(shape = 2x4)

// CHECK-NOT: shard.grid
// CHECK-NOT: shard.sharding
// CHECK-LABEL: func.func @column_parallel(
// CHECK-SAME: %arg0: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2, 4]>, placements = [S(0), R]>}
// CHECK-SAME: %arg1: tensor<16x32xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2, 4]>, placements = [R, S(1)]>}
// CHECK-SAME: -> (tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2, 4]>, placements = [R, R]>})
// CHECK: %[[Y:.*]] = linalg.matmul
// CHECK-NEXT: %[[C:.*]] = shard.constraint %[[Y]] layout #shard.placements<mesh = #shard.mesh<shape = [2, 4]>, placements = [S(0), S(1)]> : tensor<8x32xf32>
// CHECK-NEXT: %[[T:.*]] = tosa.sigmoid %[[C]]
// CHECK-NEXT: return %[[T]]
// The program shardc partitions: each rank's blocks (4 rows of x on dp, 8
// columns of w on tp).
// PART-LABEL: func.func @column_parallel
// PART-SAME: tensor<4x16xf32>
// PART-SAME: tensor<16x8xf32>
func.func @column_parallel(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %sx = shard.sharding @plane split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %sx annotate_for_users : tensor<8x16xf32>
  %sw = shard.sharding @plane split_axes = [[], [1]] : !shard.sharding
  %ws = shard.shard %w to %sw annotate_for_users : tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.matmul ins(%xs, %ws : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %sy = shard.sharding @plane split_axes = [[0], [1]] : !shard.sharding
  %ys = shard.shard %y to %sy : tensor<8x32xf32>
  %t = tosa.sigmoid %ys : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %sr = shard.sharding @plane split_axes = [[]] : !shard.sharding
  %r = shard.shard %t to %sr annotate_for_users : tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// Two grid axes on one dim nest major first, as DTensor's [S(0), S(0)]
// does; an argument annotated twice alike is annotated once; a second,
// different annotation of it pins its users.
// CHECK-LABEL: func.func @nested(
// CHECK-SAME: {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2, 4]>, placements = [S(0), S(0)]>}
// CHECK-NEXT: %[[A:.*]] = arith.addf %arg0, %arg0
// CHECK-NEXT: %[[C:.*]] = shard.constraint %arg0 layout #shard.placements<mesh = #shard.mesh<shape = [2, 4]>, placements = [R, S(1)]> : tensor<8x8xf32>
// CHECK-NEXT: %[[B:.*]] = arith.subf %[[A]], %[[C]]
// CHECK-NEXT: return %[[B]]
func.func @nested(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = shard.sharding @plane split_axes = [[0, 1]] : !shard.sharding
  %x0 = shard.shard %x to %s : tensor<8x8xf32>
  %x1 = shard.shard %x0 to %s annotate_for_users : tensor<8x8xf32>
  %a = arith.addf %x1, %x1 : tensor<8x8xf32>
  %s2 = shard.sharding @plane split_axes = [[], [1]] : !shard.sharding
  %x2 = shard.shard %x0 to %s2 annotate_for_users : tensor<8x8xf32>
  %b = arith.subf %a, %x2 : tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// A 1-D grid; a value returned twice, each position taking the layout.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME: -> (tensor<12xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(0)]>}, tensor<12xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(0)]>})
// CHECK-NOT: shard.constraint
func.func @twice(%x: tensor<12xf32>) -> (tensor<12xf32>, tensor<12xf32>) {
  %n = math.exp %x : tensor<12xf32>
  %s = shard.sharding @line split_axes = [[0]] : !shard.sharding
  %r = shard.shard %n to %s : tensor<12xf32>
  return %r, %r : tensor<12xf32>, tensor<12xf32>
}

// A program with no annotation is read as it is.
// CHECK-LABEL: func.func @plain(
// CHECK-SAME: %arg0: tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT: arith.muli
func.func @plain(%x: tensor<3xi32>) -> tensor<3xi32> {
  %y = arith.muli %x, %x : tensor<3xi32>
  return %y : tensor<3xi32>
}

// A scalar replicated as upstream writes it ([[]], one empty list for a
// tensor of rank 0).
// CHECK-LABEL: func.func @scalar(
// CHECK-SAME: %arg0: tensor<f32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [R]>}
// CHECK-SAME: -> (tensor<4xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(0)]>})
// CHECK-NOT: shard.constraint
// CHECK: return
func.func @scalar(%x: tensor<f32>) -> tensor<4xf32> {
  %s = shard.sharding @line split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<f32>
  %e = tensor.empty() : tensor<4xf32>
  %b = linalg.broadcast ins(%xs : tensor<f32>) outs(%e : tensor<4xf32>) dimensions = [0]
  %s0 = shard.sharding @line split_axes = [[0]] : !shard.sharding
  %r = shard.shard %b to %s0 : tensor<4xf32>
  return %r : tensor<4xf32>
}

// Grid axes listed out of grid order: the more major axis, later in the
// grid, makes the earlier one a strided shard (DTensor's _StridedShard):
// on the 2x4 grid, [[1, 0]] is the 8 rows in 4 blocks over axis 1, each
// cut in 2 over axis 0: rank (i, j) holds row 2 j + i.
// CHECK-LABEL: func.func @strided(
// CHECK-SAME: {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2, 4]>, placements = [_S(0, 4), S(0)]>}
func.func @strided(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %s = shard.sharding @plane split_axes = [[1, 0]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<8x3xf32>
  %y = math.exp %xs : tensor<8x3xf32>
  return %y : tensor<8x3xf32>
}

// Explicit shard offsets: each rank's block, as a #shard.enumerable layout
// (rank r of the grid row-major; along a split dim, the shard its axes
// name, major first, between that dim's offsets).
// CHECK-LABEL: func.func @offsets(
// CHECK-SAME: {shard.layout = #shard.enumerable<[{offsets = [0, 0], sizes = [1, 3], placement = "rank:0/cpu"}, {offsets = [1, 0], sizes = [3, 3], placement = "rank:1/cpu"}, {offsets = [4, 0], sizes = [3, 3], placement = "rank:2/cpu"}, {offsets = [7, 0], sizes = [1, 3], placement = "rank:3/cpu"}]>}
func.func @offsets(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %s = shard.sharding @line split_axes = [[0]] sharded_dims_offsets = [0, 1, 4, 7, 8] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<8x3xf32>
  %y = math.exp %xs : tensor<8x3xf32>
  %r = shard.sharding @line split_axes = [[]] : !shard.sharding
  %ys = shard.shard %y to %r annotate_for_users : tensor<8x3xf32>
  return %ys : tensor<8x3xf32>
}
