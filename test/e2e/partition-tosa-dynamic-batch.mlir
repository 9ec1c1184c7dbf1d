// TOSA elementwise ops on a batch of run-time size (as TFLite-born models
// and the torq tests write them: tensor<?x...>), the features cut: the
// bias added by tosa.add (broadcast over the rows), tosa.abs and tosa.mul
// keep the batch whole and the features cut, so nothing moves but the
// output's gather (they were refused: "sharding needs static shapes").
// Batch 5 and 1 (the dim given at run time), 2 and 3 ranks (features 12:
// 6, 6 and 4, 4, 4); every element checked against the unpartitioned
// program.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry block --check --dynamic-size 5 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry block --check --dynamic-size 1 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// NP2: shard-run: rank 0: OK, 60 elements checked, received 120 bytes
// NP2-NEXT: shard-run: rank 1: OK, 60 elements checked, received 120 bytes
// NP3: shard-run: rank 0: OK, 12 elements checked, received 32 bytes
// NP3-NEXT: shard-run: rank 1: OK, 12 elements checked, received 32 bytes
// NP3-NEXT: shard-run: rank 2: OK, 12 elements checked, received 32 bytes
// LOCAL-NOT: shard.spmd.{{all_gather|exchange|all_to_all}}
// LOCAL: tosa.add %{{.*}}, %{{.*}} : (tensor<?x{{[0-9]+}}xf32>, tensor<1x{{[0-9]+}}xf32>) -> tensor<?x{{[0-9]+}}xf32>
// LOCAL-NEXT: tosa.abs %{{.*}} : (tensor<?x{{[0-9]+}}xf32>) -> tensor<?x{{[0-9]+}}xf32>
// LOCAL-NEXT: tosa.mul
// LOCAL: shard.spmd.all_gather
#m = #shard.mesh<shape = [@N@], axes = ["tp"]>
#cols = #shard.placements<mesh = #m, placements = [S(1)]>
#rep = #shard.placements<mesh = #m, placements = [R]>
func.func @block(%x: tensor<?x12xf32> {shard.layout = #cols},
                 %b: tensor<1x12xf32> {shard.layout = #cols})
    -> (tensor<?x12xf32> {shard.layout = #rep}) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %h = tosa.add %x, %b : (tensor<?x12xf32>, tensor<1x12xf32>) -> tensor<?x12xf32>
  %a = tosa.abs %h : (tensor<?x12xf32>) -> tensor<?x12xf32>
  %y = tosa.mul %a, %h, %shift : (tensor<?x12xf32>, tensor<?x12xf32>, tensor<1xi8>) -> tensor<?x12xf32>
  return %y : tensor<?x12xf32>
}
