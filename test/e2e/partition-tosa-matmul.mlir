// tosa.matmul with its reduction dim sharded (issue 26, item 1): each rank
// multiplies its part of the 10 (or 12) inner features, 4, 4, 2 over 3
// ranks: a partial sum, reduced once (2x8x6 f32 = 384 B; the ring's
// 2(n-1)/n of it counted twice: 512 B per rank on 3 ranks, 384 B on 2),
// then tosa.tanh on every rank's whole result. Every element checked.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/3/g' -e 's/@C@/10/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry bmm --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: sed -e 's/@N@/2/g' -e 's/@C@/12/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry bmm --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// The IR checked below is op-by-op propagation's (search=greedy); shard-run
// runs the default (search=whole).
// RUN: shard-opt %t.3.mlir -shard-propagate=search=greedy -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// NP3: shard-run: rank 0: OK, 96 elements checked, received 512 bytes
// NP3-NEXT: shard-run: rank 1: OK, 96 elements checked, received 512 bytes
// NP3-NEXT: shard-run: rank 2: OK, 96 elements checked, received 512 bytes
// NP2: shard-run: rank 0: OK, 96 elements checked, received 384 bytes
// NP2-NEXT: shard-run: rank 1: OK, 96 elements checked, received 384 bytes
// LOCAL: tosa.matmul %arg0, %arg1, %{{.*}}, %{{.*}} : (tensor<2x8x?xf32>, tensor<2x?x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x6xf32>
// LOCAL-NEXT: shard.spmd.all_reduce
// LOCAL-NEXT: tosa.tanh

#m = #shard.mesh<shape = [@N@], axes = ["tp"]>
func.func @bmm(%a: tensor<2x8x@C@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(2)]>},
               %b: tensor<2x@C@x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<2x8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.matmul %a, %b, %zp, %zp : (tensor<2x8x@C@xf32>, tensor<2x@C@x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x6xf32>
  %t = tosa.tanh %c : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  return %t : tensor<2x8x6xf32>
}
