// A slice of static size out of a dim of run-time size, its result cut
// and its source whole there: each rank slices its rows of the result,
// its offset kept within the source's extent. That extent was taken from
// the dim's global size, kDynamic for a dim of run-time size: every rank
// sliced at -2^63 (its checks stopped shard-run, blaming the program). It
// is the local source's own extent now (the source is whole there), at a
// static offset and at a loop's induction variable alike. Rows of 4, 6
// and 9 on 2, 3 and 4 ranks (the result's 3 rows: empty blocks on 4),
// every element checked.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: for n in 2 3 4; do for b in 4 6 9; do %mpirun -np $n %shard-run %t.$n.mlir --entry static_offset,run_time_offset --check --dynamic-size $b; done; done 2>&1 | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=error --implicit-check-not=ERROR
// CHECK-COUNT-54: OK, {{[0-9]+}} elements checked, received 0 bytes

#m = #shard.mesh<shape = [@N@]>
#R = #shard.placements<mesh = #m, placements = [R]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>

func.func @static_offset(%a: tensor<?x4xf32> {shard.layout = #R}) -> (tensor<3x4xf32> {shard.layout = #S0}) {
  %s = tensor.extract_slice %a[1, 0] [3, 4] [1, 1] : tensor<?x4xf32> to tensor<3x4xf32>
  %t = arith.addf %s, %s : tensor<3x4xf32>
  return %t : tensor<3x4xf32>
}

func.func @run_time_offset(%a: tensor<?x4xf32> {shard.layout = #R}) -> (tensor<3x4xf32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant dense<0.0> : tensor<3x4xf32>
  %r = scf.for %t = %c0 to %c2 step %c1 iter_args(%acc = %z) -> (tensor<3x4xf32>) {
    %s = tensor.extract_slice %a[%t, 0] [3, 4] [1, 1] : tensor<?x4xf32> to tensor<3x4xf32>
    %u = arith.addf %acc, %s : tensor<3x4xf32>
    scf.yield %u : tensor<3x4xf32>
  }
  return %r : tensor<3x4xf32>
}
