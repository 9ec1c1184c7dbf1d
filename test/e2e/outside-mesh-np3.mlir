// A mesh of 2 run on 3 ranks: rank 2 is outside it and holds no block of
// the gathered indices, yet runs the program, which reads them as indices.
// The runtime zeroes the destination of a rank holding none of it (before,
// what the buffer held: rank 2 stopped on an out-of-bounds read, the others
// right; byteir's linalg-fuse-elementwise-ext-existing test, split 27, in a
// sweep). The ranks in the mesh are checked element by element. The iota
// reads its init (adds 0 of it), so that it is computed where %arg0 is and
// gathered (an iota into an init it never reads is made by every rank:
// UnreadDestinations.h).
// An op that places a tensor into its result (a pad, a concat, an
// insert_slice) along a cut dim: rank 2's block of the result is a phantom
// of its local type's size, and it holds none of the placed tensor, so it
// places nothing (before: it sliced past the end of its empty part and
// stopped on a runtime check).
// REQUIRES: mpi
// RUN: %mpirun -np 3 %shard-run %s --entry iota_lookup --check 2>&1 | sort | FileCheck %s --implicit-check-not=error:
// RUN: %mpirun -np 3 %shard-run %s --entry pad_rows,concat_rows,insert_rows --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=PLACE
// CHECK: shard-run: rank 0: OK, 4 elements checked, received 48 bytes
// CHECK-NEXT: shard-run: rank 1: OK, 4 elements checked, received 48 bytes
// CHECK-NEXT: shard-run: rank 2: OK, 0 elements checked, received 0 bytes
// PLACE: @concat_rows: rank 0: OK, 16 elements checked
// PLACE-NEXT: @concat_rows: rank 1: OK, 16 elements checked
// PLACE-NEXT: @concat_rows: rank 2: OK, 0 elements checked
// PLACE-NEXT: @insert_rows: rank 0: OK, 16 elements checked
// PLACE-NEXT: @insert_rows: rank 1: OK, 16 elements checked
// PLACE-NEXT: @insert_rows: rank 2: OK, 0 elements checked
// PLACE-NEXT: @pad_rows: rank 0: OK, 16 elements checked
// PLACE-NEXT: @pad_rows: rank 1: OK, 16 elements checked
// PLACE-NEXT: @pad_rows: rank 2: OK, 0 elements checked

#m = #shard.mesh<shape = [2], axes = ["x"]>
func.func @iota_lookup(%arg0: tensor<8xi64> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                       %arg1: tensor<8xi32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8xi32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%arg0 : tensor<8xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 0 : index
    %v = arith.index_cast %i : index to i64
    %z = arith.subi %o, %o : i64
    %w = arith.addi %v, %z : i64
    linalg.yield %w : i64
  } -> tensor<8xi64>
  %1 = tensor.empty() : tensor<8xi32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<8xi64>) outs(%1 : tensor<8xi32>) {
  ^bb0(%at: i64, %o: i32):
    %k = arith.index_cast %at : i64 to index
    %v = tensor.extract %arg1[%k] : tensor<8xi32>
    linalg.yield %v : i32
  } -> tensor<8xi32>
  return %2 : tensor<8xi32>
}

func.func @pad_rows(%x: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8x4xf32> {
  %cst = arith.constant 1.5 : f32
  %p = tensor.pad %x low[0, 0] high[2, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<6x4xf32> to tensor<8x4xf32>
  return %p : tensor<8x4xf32>
}
func.func @concat_rows(%a: tensor<5x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %b: tensor<3x4xf32>) -> tensor<8x4xf32> {
  %c = tensor.concat dim(0) %a, %b : (tensor<5x4xf32>, tensor<3x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}
func.func @insert_rows(%a: tensor<3x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %d: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8x4xf32> {
  %r = tensor.insert_slice %a into %d[3, 0] [3, 4] [1, 1] : tensor<3x4xf32> into tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
