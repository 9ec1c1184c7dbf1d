// Programs annotated for upstream MLIR's own shard dialect, imported
// (shard-translate --import-upstream-shard) and run by shardc on ranks:
// every element of every rank checked against the program run whole. The
// Megatron MLP (x replicated, w1 split by columns, w2 by rows, the output
// replicated) moves only its output's reduction: an all_reduce of 8x16 f32
// (512 bytes; 768 received per rank by the ring of 4). On a 2x2 grid, rows
// and columns split, then rows over both axes: each rank receives the half
// of its 2 rows it lacks (6 elements, 24 bytes). On a grid of 3, a split
// computed as it is and gathered whole (each rank receives the 2 blocks of
// 2x4 it lacks, 64 bytes). Rows split over the 2x2 grid's axes in the
// order [[1, 0]] (a strided shard on axis 0: rank (i, j) holds block 2 j +
// i of 2 rows) and returned as [[0, 1]] (block 2 i + j): ranks 1 and 2
// swap their 2x2 blocks (16 bytes each), ranks 0 and 3 keep theirs. On a
// 2x2x2 grid, 8 rows split [[2, 0, 1]] (rank (i, j, k) holds row 4 k + 2 i
// + j) and returned as [[0, 1, 2]] (row 4 i + 2 j + k): all but ranks 0 and
// 7 hold another row than they return, 4 bytes each. Explicit shard
// offsets [0, 1, 4, 7, 8] over 4 ranks (rows 1, 3, 3, 1 of 8x3 f32),
// gathered whole: each rank receives the rows it lacks (84, 60, 60, 84
// bytes).
// REQUIRES: mpi
// RUN: shard-translate --import-upstream-shard %s -o %t.mlir
// RUN: %mpirun -np 4 %shard-run %t.mlir --entry megatron,grid2d,strided,offsets --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=FOUR
// RUN: %mpirun -np 3 %shard-run %t.mlir --entry three --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=THREE
// RUN: %mpirun -np 8 %shard-run %t.mlir --entry cube --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=EIGHT
// FOUR-COUNT-4: @grid2d: rank {{[0-3]}}: OK, 12 elements checked, received 24 bytes
// FOUR-COUNT-4: @megatron: rank {{[0-3]}}: OK, 128 elements checked, received 768 bytes
// FOUR: @offsets: rank 0: OK, 24 elements checked, received 84 bytes
// FOUR-NEXT: @offsets: rank 1: OK, 24 elements checked, received 60 bytes
// FOUR-NEXT: @offsets: rank 2: OK, 24 elements checked, received 60 bytes
// FOUR-NEXT: @offsets: rank 3: OK, 24 elements checked, received 84 bytes
// FOUR: @strided: rank 0: OK, 4 elements checked, received 0 bytes
// FOUR-NEXT: @strided: rank 1: OK, 4 elements checked, received 16 bytes
// FOUR-NEXT: @strided: rank 2: OK, 4 elements checked, received 16 bytes
// FOUR-NEXT: @strided: rank 3: OK, 4 elements checked, received 0 bytes
// EIGHT: rank 0: OK, 1 elements checked, received 0 bytes
// EIGHT-COUNT-6: OK, 1 elements checked, received 4 bytes
// EIGHT-NEXT: rank 7: OK, 1 elements checked, received 0 bytes
// THREE-COUNT-3: shard-run: rank {{[0-2]}}: OK, 24 elements checked, received 64 bytes

shard.grid @tp(shape = 4)
shard.grid @plane(shape = 2x2)
func.func @megatron(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %r = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %col = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %row = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %r annotate_for_users : tensor<8x16xf32>
  %w1s = shard.shard %w1 to %col annotate_for_users : tensor<16x32xf32>
  %w2s = shard.shard %w2 to %row annotate_for_users : tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%xs, %w1s : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %a = tosa.tanh %h : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %w2s : tensor<8x32xf32>, tensor<32x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %ys = shard.shard %y to %r annotate_for_users : tensor<8x16xf32>
  return %ys : tensor<8x16xf32>
}
func.func @grid2d(%x: tensor<8x6xf32>, %b: tensor<6xf32>) -> tensor<8x6xf32> {
  %s = shard.sharding @plane split_axes = [[0], [1]] : !shard.sharding
  %sb = shard.sharding @plane split_axes = [[1]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<8x6xf32>
  %bs = shard.shard %b to %sb annotate_for_users : tensor<6xf32>
  %e = tensor.empty() : tensor<8x6xf32>
  %bb = linalg.broadcast ins(%bs : tensor<6xf32>) outs(%e : tensor<8x6xf32>) dimensions = [0]
  %y = arith.addf %xs, %bb : tensor<8x6xf32>
  %t = shard.sharding @plane split_axes = [[0, 1]] : !shard.sharding
  %ys = shard.shard %y to %t : tensor<8x6xf32>
  return %ys : tensor<8x6xf32>
}
shard.grid @line3(shape = 3)
func.func @three(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %s = shard.sharding @line3 split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<6x4xf32>
  %y = math.exp %xs : tensor<6x4xf32>
  %r = shard.sharding @line3 split_axes = [[]] : !shard.sharding
  %ys = shard.shard %y to %r annotate_for_users : tensor<6x4xf32>
  return %ys : tensor<6x4xf32>
}
func.func @strided(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %s = shard.sharding @plane split_axes = [[1, 0]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<8x2xf32>
  %y = math.exp %xs : tensor<8x2xf32>
  %t = shard.sharding @plane split_axes = [[0, 1]] : !shard.sharding
  %ys = shard.shard %y to %t : tensor<8x2xf32>
  return %ys : tensor<8x2xf32>
}
shard.grid @g222(shape = 2x2x2)
func.func @cube(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @g222 split_axes = [[2, 0, 1]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<8xf32>
  %y = math.exp %xs : tensor<8xf32>
  %t = shard.sharding @g222 split_axes = [[0, 1, 2]] : !shard.sharding
  %ys = shard.shard %y to %t : tensor<8xf32>
  return %ys : tensor<8xf32>
}
func.func @offsets(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %s = shard.sharding @tp split_axes = [[0]] sharded_dims_offsets = [0, 1, 4, 7, 8] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<8x3xf32>
  %y = math.exp %xs : tensor<8x3xf32>
  %r = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %ys = shard.shard %y to %r annotate_for_users : tensor<8x3xf32>
  return %ys : tensor<8x3xf32>
}
