// bufferization.materialize_in_destination into a sharded argument (issue
// 26, item 1), as ingress tools end a function that writes its result into
// an output argument: each rank writes its own block, nothing moves (10 rows
// over 3 ranks: 4, 4, 2). Every element checked.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/3/g' -e 's/@R@/10/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry write_into --check 2>&1 | sort | FileCheck %s --implicit-check-not=error:
// CHECK: shard-run: rank 0: OK, 16 elements checked, received 0 bytes
// CHECK-NEXT: shard-run: rank 1: OK, 16 elements checked, received 0 bytes
// CHECK-NEXT: shard-run: rank 2: OK, 8 elements checked, received 0 bytes

#m = #shard.mesh<shape = [@N@]>
func.func @write_into(%x: tensor<@R@x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                      %out: tensor<@R@x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<@R@x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %y = math.exp %x : tensor<@R@x4xf32>
  %r = bufferization.materialize_in_destination %y in %out : (tensor<@R@x4xf32>, tensor<@R@x4xf32>) -> tensor<@R@x4xf32>
  return %r : tensor<@R@x4xf32>
}
