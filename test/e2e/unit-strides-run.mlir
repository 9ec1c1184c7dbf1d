// A rank-reducing slice whose dims are all of size 1, with stride 3 on the
// dropped one (found by a differential fuzzer): shard-run's lowering (the
// shard-to-llvm pipeline, for the partitioned program and the reference
// alike) crashed in upstream MLIR 22's -expand-strided-metadata
// (SubViewOp::getDroppedDims) before -shard-unit-strides wrote those
// strides as 1. Sharded (the slice of a tensor cut on a 1x2 mesh) and not.
// Also rank-reducing slices with more dims of size 1 than they drop and
// stride 2 on the one of size 2 (an extract and an insert, at a run-time
// offset: an adversarial sweep), which crashed alike until -shard-unit-
// strides wrote them at full rank with a reshape; 2 and 3 ranks.
// REQUIRES: mpi
// RUN: %mpirun -np 2 %shard-run %s --entry sharded,whole,ambiguous --check 2>&1 | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=error
// RUN: %mpirun -np 3 %shard-run %s --entry ambiguous --check 2>&1 | FileCheck %s --check-prefix=THREE --implicit-check-not=MISMATCH --implicit-check-not=error
// CHECK-COUNT-6: OK,
// THREE-COUNT-3: OK,

#m = #shard.mesh<shape = [1, 2]>
func.func @sharded(%a: tensor<3x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(1)]>}) -> (tensor<1x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(0)]>}) {
  %s = tensor.extract_slice %a[1, 3] [1, 1] [3, 1] : tensor<3x4xf32> to tensor<1xf32>
  %e = tensor.empty() : tensor<1x4xf32>
  %b = linalg.broadcast ins(%s : tensor<1xf32>) outs(%e : tensor<1x4xf32>) dimensions = [1]
  return %b : tensor<1x4xf32>
}

func.func @whole(%a: tensor<3x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, R]>}) -> (tensor<1xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, R]>}) {
  %s = tensor.extract_slice %a[2, 0] [1, 1] [2, 3] : tensor<3x4xf32> to tensor<1xf32>
  return %s : tensor<1xf32>
}

func.func @ambiguous(%d: tensor<3x1x2x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(3), R]>}, %a: tensor<2x1xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>}) -> (tensor<2x1xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>}, tensor<3x1x2x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(2)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tensor.extract_slice %d[0, 0, 1, 0] [2, 1, 1, 1] [2, 1, 1, 1] : tensor<3x1x2x2xf32> to tensor<2x1xf32>
  %s = arith.addf %x, %a : tensor<2x1xf32>
  %r = scf.for %t = %c0 to %c1 step %c1 iter_args(%acc = %d) -> (tensor<3x1x2x2xf32>) {
    %u = tensor.insert_slice %s into %acc[%t, 0, 0, 1] [2, 1, 1, 1] [2, 1, 1, 1] : tensor<2x1xf32> into tensor<3x1x2x2xf32>
    scf.yield %u : tensor<3x1x2x2xf32>
  }
  return %s, %r : tensor<2x1xf32>, tensor<3x1x2x2xf32>
}
