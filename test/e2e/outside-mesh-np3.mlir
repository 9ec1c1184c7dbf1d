// A mesh of 2 run on 3 ranks: rank 2 is outside it and holds no block of
// the gathered indices, yet runs the program, which reads them as indices.
// The runtime zeroes the destination of a rank holding none of it (before,
// what the buffer held: rank 2 stopped on an out-of-bounds read, the others
// right; byteir's linalg-fuse-elementwise-ext-existing test, split 27, in a
// sweep). The ranks in the mesh are checked element by element. The iota
// reads its init (adds 0 of it), so that it is computed where %arg0 is and
// gathered (an iota into an init it never reads is made by every rank:
// UnreadDestinations.h).
// REQUIRES: mpi
// RUN: %mpirun -np 3 %shard-run %s --entry iota_lookup --check 2>&1 | sort | FileCheck %s --implicit-check-not=error:
// CHECK: shard-run: rank 0: OK, 4 elements checked, received 48 bytes
// CHECK-NEXT: shard-run: rank 1: OK, 4 elements checked, received 48 bytes
// CHECK-NEXT: shard-run: rank 2: OK, 0 elements checked, received 0 bytes

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
