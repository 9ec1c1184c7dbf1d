// A rank-reducing slice whose dims are all of size 1, with stride 3 on the
// dropped one (found by a differential fuzzer): shard-run's lowering (the
// shard-to-llvm pipeline, for the partitioned program and the reference
// alike) crashed in upstream MLIR 22's -expand-strided-metadata
// (SubViewOp::getDroppedDims) before -shard-unit-strides wrote those
// strides as 1. Sharded (the slice of a tensor cut on a 1x2 mesh) and not.
// REQUIRES: mpi
// RUN: %mpirun -np 2 %shard-run %s --entry sharded,whole --check 2>&1 | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=error
// CHECK-COUNT-4: OK,

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
