// auto=true on functions with ops that have no sharding rule (TOSA's
// rfft2d and control flow), every element checked against the program
// as written on 2 ranks:
// - @spectrum: tosa.rfft2d is the same op on whole tensors, so it runs
//   whole on every rank (its rule written on it: every tensor whole) and
//   the rest is sharded around it (its results returned cut: each rank
//   slices its rows, nothing moves);
// - @branch: tosa.cond_if has regions, so the function stays as written,
//   every rank running all of it.
// A warning names each. --shard-to-llvm lowers tosa.rfft2d through TOSA's
// lowering to linalg and tosa.cond_if through its lowering to scf.
// REQUIRES: mpi
// RUN: %mpirun -np 2 %shard-run %s --entry spectrum,branch --check --propagate=auto=true 2>&1 | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: shard-opt %s -shard-propagate=auto=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// NP2-DAG: shard-run: @spectrum: rank 0: OK, 20 elements checked, received 0 bytes
// NP2-DAG: shard-run: @spectrum: rank 1: OK, 20 elements checked, received 0 bytes
// NP2-DAG: shard-run: @branch: rank 0: OK, 24 elements checked, received 0 bytes
// NP2-DAG: shard-run: @branch: rank 1: OK, 24 elements checked, received 0 bytes
// WARN: warning: 'tosa.rfft2d' op has no sharding rule: auto=true runs it whole on every rank
// WARN: warning: 'tosa.cond_if' op has no sharding rule: auto=true leaves its function as written
#m = #shard.mesh<shape = [2]>
func.func @spectrum(%x: tensor<1x4x8xf32>) -> (tensor<1x4x5xf32>, tensor<1x4x5xf32>) attributes {shard.mesh = #m} {
  %re, %im = tosa.rfft2d %x : (tensor<1x4x8xf32>) -> (tensor<1x4x5xf32>, tensor<1x4x5xf32>)
  return %re, %im : tensor<1x4x5xf32>, tensor<1x4x5xf32>
}
func.func @branch(%x: tensor<4x6xf32>, %y: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {shard.mesh = #m} {
  %c = "tosa.const"() <{values = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %r = tosa.cond_if %c : tensor<i1> -> tensor<4x6xf32> {
    %s = tosa.add %x, %y : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    tosa.yield %s : tensor<4x6xf32>
  } else {
    %s = tosa.sub %x, %y : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    tosa.yield %s : tensor<4x6xf32>
  }
  return %r : tensor<4x6xf32>
}
