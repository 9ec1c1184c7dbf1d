// TOSA ops on floats whose zero points are function arguments (as upstream
// MLIR's own sharding tests write them), sharded and run: a tosa.negate on
// a dim cut unevenly (16 columns over 3 ranks: 6, 6 and 4, a dim of
// run-time size on each) stopped on a segfault (upstream's lowering gave
// its result a garbage extent), and a tosa.matmul was refused ("failed to
// legalize"); the shard-to-llvm pipeline's -shard-float-zero-points gives
// them constant zeros first (Passes/shard-float-zero-points.mlir). Every
// element checked on 3 ranks.
// REQUIRES: mpi
// RUN: %mpirun -np 3 %shard-run %s --entry negate,matmul --check 2>&1 | sort | FileCheck %s --implicit-check-not=error:
// CHECK: @matmul: rank 0: OK
// CHECK-NEXT: @matmul: rank 1: OK
// CHECK-NEXT: @matmul: rank 2: OK
// CHECK-NEXT: @negate: rank 0: OK, 48 elements checked
// CHECK-NEXT: @negate: rank 1: OK, 48 elements checked
// CHECK-NEXT: @negate: rank 2: OK, 32 elements checked

#m = #shard.mesh<shape = [3], axes = ["x"]>
func.func @negate(%x: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}, %zp1: tensor<1xf32>, %zp2: tensor<1xf32>) -> (tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %0 = tosa.negate %x, %zp1, %zp2 : (tensor<8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
func.func @matmul(%a: tensor<3x5x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %b: tensor<3x4x2xf32>, %zp: tensor<1xf32>) -> tensor<3x5x2xf32> {
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<3x5x4xf32>, tensor<3x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x5x2xf32>
  return %0 : tensor<3x5x2xf32>
}
