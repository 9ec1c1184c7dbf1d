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
// RUN: %mpirun -np 2 %shard-run %s --entry sharded,whole,ambiguous,self_checked --check 2>&1 | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=error --implicit-check-not=Assertion
// RUN: %mpirun -np 3 %shard-run %s --entry ambiguous --check 2>&1 | FileCheck %s --check-prefix=THREE --implicit-check-not=MISMATCH --implicit-check-not=error
// CHECK-COUNT-8: OK,
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

// The rewrite checked against tensor.extract, element by element (both
// programs --check compares go through -shard-unit-strides: an assert is
// what would catch a wrong one): the strided rank-reducing extract reads
// d[0, 0, 1, 0] and d[2, 0, 1, 0]; the insert writes a's two elements at
// [0, 0, 0, 1] and [2, 0, 0, 1] and leaves [1, 0, 0, 1] as it was.
func.func @self_checked(%d: tensor<3x1x2x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, R]>}, %a: tensor<2x1xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, R]>}) -> (tensor<2x1xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, R]>}, tensor<3x1x2x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = tensor.extract_slice %d[0, 0, 1, 0] [2, 1, 1, 1] [2, 1, 1, 1] : tensor<3x1x2x2xf32> to tensor<2x1xf32>
  %x0 = tensor.extract %x[%c0, %c0] : tensor<2x1xf32>
  %x1 = tensor.extract %x[%c1, %c0] : tensor<2x1xf32>
  %d0 = tensor.extract %d[%c0, %c0, %c1, %c0] : tensor<3x1x2x2xf32>
  %d1 = tensor.extract %d[%c2, %c0, %c1, %c0] : tensor<3x1x2x2xf32>
  %e0 = arith.cmpf oeq, %x0, %d0 : f32
  %e1 = arith.cmpf oeq, %x1, %d1 : f32
  %read = arith.andi %e0, %e1 : i1
  cf.assert %read, "-shard-unit-strides: the strided extract read other elements"
  %r = tensor.insert_slice %a into %d[0, 0, 0, 1] [2, 1, 1, 1] [2, 1, 1, 1] : tensor<2x1xf32> into tensor<3x1x2x2xf32>
  %a0 = tensor.extract %a[%c0, %c0] : tensor<2x1xf32>
  %a1 = tensor.extract %a[%c1, %c0] : tensor<2x1xf32>
  %r0 = tensor.extract %r[%c0, %c0, %c0, %c1] : tensor<3x1x2x2xf32>
  %r1 = tensor.extract %r[%c2, %c0, %c0, %c1] : tensor<3x1x2x2xf32>
  %rk = tensor.extract %r[%c1, %c0, %c0, %c1] : tensor<3x1x2x2xf32>
  %dk = tensor.extract %d[%c1, %c0, %c0, %c1] : tensor<3x1x2x2xf32>
  %f0 = arith.cmpf oeq, %r0, %a0 : f32
  %f1 = arith.cmpf oeq, %r1, %a1 : f32
  %fk = arith.cmpf oeq, %rk, %dk : f32
  %w01 = arith.andi %f0, %f1 : i1
  %written = arith.andi %w01, %fk : i1
  cf.assert %written, "-shard-unit-strides: the strided insert wrote other elements"
  return %x, %r : tensor<2x1xf32>, tensor<3x1x2x2xf32>
}
