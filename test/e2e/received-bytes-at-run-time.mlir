// shard-run's "received N bytes" is what the runtime counted as the calls
// completed (shardrt_bytes_received), not the plan report's bytes of each
// op once (issue 25, item 7): a redistribution in a loop counts once per
// iteration. Before, 0, 1, 5 and 1000 iterations all said the same.
// On 2 ranks, 6x10 f32: S(0) -> S(1) receives 3x5 elements (60 B) per rank
// and S(1) -> S(0) as many, 120 B an iteration. On 3 ranks (rows 2/2/2,
// columns 4/4/2): 64 + 48 = 112 B on ranks 0 and 1, 32 + 64 = 96 B on rank 2.
// A native all_reduce of 16 elements on 2 ranks counts the ring's
// 2 (16 - 8) elements (64 B).
// REQUIRES: mpi
// RUN: for n in 0 1 5 1000; do \
// RUN:   sed -e "s/@N@/$n/g" -e 's/@R@/2/g' %s > %t.$n.mlir; \
// RUN:   %mpirun -np 2 %shard-run %t.$n.mlir --entry loop --check 2>%t.err | sort | sed -e "s/^/n=$n /"; \
// RUN:   cat %t.err; \
// RUN: done | FileCheck %s --implicit-check-not=error:
// CHECK: n=0 shard-run: rank 0: OK, 30 elements checked, received 0 bytes
// CHECK-NEXT: n=0 shard-run: rank 1: OK, 30 elements checked, received 0 bytes
// CHECK-NEXT: n=1 shard-run: rank 0: OK, 30 elements checked, received 120 bytes
// CHECK-NEXT: n=1 shard-run: rank 1: OK, 30 elements checked, received 120 bytes
// CHECK-NEXT: n=5 shard-run: rank 0: OK, 30 elements checked, received 600 bytes
// CHECK-NEXT: n=5 shard-run: rank 1: OK, 30 elements checked, received 600 bytes
// CHECK-NEXT: n=1000 shard-run: rank 0: OK, 30 elements checked, received 120000 bytes
// CHECK-NEXT: n=1000 shard-run: rank 1: OK, 30 elements checked, received 120000 bytes
// RUN: sed -e 's/@N@/5/g' -e 's/@R@/3/g' %s > %t.np3.mlir
// RUN: %mpirun -np 3 %shard-run %t.np3.mlir --entry loop --check 2>&1 | sort | FileCheck %s --check-prefix=NP3 --implicit-check-not=error:
// NP3: rank 0: OK, 20 elements checked, received 560 bytes
// NP3-NEXT: rank 1: OK, 20 elements checked, received 560 bytes
// NP3-NEXT: rank 2: OK, 20 elements checked, received 480 bytes
// AR: rank 0: OK, 16 elements checked, received 64 bytes
// AR-NEXT: rank 1: OK, 16 elements checked, received 64 bytes
// A reduce_scatter of 4x4 to S(1) receives the other rank's 4x2 (32 B).
// RUN: %mpirun -np 2 %shard-run %t.0.mlir --entry all_reduce,reduce_scatter --check > %t.run1 2>&1
// RUN: not grep "error:" %t.run1
// RUN: %entry-lines all_reduce %t.run1 | FileCheck %s --check-prefix=AR --implicit-check-not=error:
// RUN: %entry-lines reduce_scatter %t.run1 | FileCheck %s --check-prefix=RS --implicit-check-not=error:
// RS: rank 0: OK, 8 elements checked, received 32 bytes
// RS-NEXT: rank 1: OK, 8 elements checked, received 32 bytes

#m = #shard.mesh<shape = [@R@]>
!a = tensor<6x10xf32>

// @N@ rounds of S(0) -> S(1), subtract 1, S(1) -> S(0).
func.func @loop(%a: !a {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> !a {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant @N@ : index
  %one = arith.constant dense<1.0> : !a
  %r = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %a) -> (!a) {
    %x = shard.constraint %acc layout #shard.placements<mesh = #m, placements = [S(1)]> : !a
    %n = arith.subf %x, %one : !a
    %y = shard.constraint %n layout #shard.placements<mesh = #m, placements = [S(0)]> : !a
    scf.yield %y : !a
  }
  return %r : !a
}

// The contraction dim split: partial sums, then an all_reduce.
func.func @all_reduce(%x: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                      %y: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %z = arith.constant dense<0.0> : tensor<4x4xf32>
  %p = linalg.matmul ins(%x, %y : tensor<4x6xf32>, tensor<6x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %p : tensor<4x4xf32>
}

// The same partial sums, scattered by columns: a reduce_scatter.
func.func @reduce_scatter(%x: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                          %y: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %z = arith.constant dense<0.0> : tensor<4x4xf32>
  %p = linalg.matmul ins(%x, %y : tensor<4x6xf32>, tensor<6x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %p : tensor<4x4xf32>
}
