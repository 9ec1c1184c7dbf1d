// A value needed in several layouts is moved once per layout, each from
// the cheapest source (issue 27, item 1): here the value itself (S(0)) or
// its other copy. Gathered to R, it is sliced to S(1) for free, not moved
// again by an all-to-all. Under both searches; every element checked on 2,
// 3 and 4 ranks, and each rank receives only the gather's bytes.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/3/g' %s | shard-opt -shard-propagate | FileCheck %s --check-prefix=IR
// RUN: sed -e 's/@N@/3/g' %s | shard-opt -shard-propagate=search=greedy | FileCheck %s --check-prefix=IR
// RUN: sed -e 's/@N@/3/g' %s | shard-opt -shard-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// IR: %[[S0:.*]] = shard.constraint %{{.*}} placements = [S(0)]>
// IR-NEXT: %[[R:.*]] = shard.constraint %[[S0]] layout {{.*}} placements = [R]>
// IR-NEXT: %[[S1:.*]] = shard.constraint %[[R]] layout {{.*}} placements = [S(1)]>
// IR-NEXT: return %[[R]], %[[S1]]
// EXPLAIN: remark: kept d0 on axis 0 (compute {{.*}} us; %0 [S(0)] -> [R]: 480 bytes, 4 us); best rejected
// RUN: for n in 2 3 4; do for s in whole greedy; do \
// RUN:   sed -e "s/@N@/$n/g" %s > %t.$n.mlir; \
// RUN:   %mpirun -np $n %shard-run %t.$n.mlir --entry copies --check --propagate=search=$s 2>&1 | sort | sed -e "s/^/$n $s: /"; \
// RUN: done; done | FileCheck %s --implicit-check-not=error:
// 10 rows of 6 f32: each rank receives the rows it lacks (24 bytes a row).
// CHECK: 2 whole: shard-run: rank 0: OK, 90 elements checked, received 120 bytes
// CHECK-NEXT: 2 whole: shard-run: rank 1: OK, 90 elements checked, received 120 bytes
// CHECK-NEXT: 2 greedy: shard-run: rank 0: OK, 90 elements checked, received 120 bytes
// CHECK-NEXT: 2 greedy: shard-run: rank 1: OK, 90 elements checked, received 120 bytes
// CHECK-NEXT: 3 whole: shard-run: rank 0: OK, 80 elements checked, received 144 bytes
// CHECK-NEXT: 3 whole: shard-run: rank 1: OK, 80 elements checked, received 144 bytes
// CHECK-NEXT: 3 whole: shard-run: rank 2: OK, 80 elements checked, received 192 bytes
// CHECK-NEXT: 3 greedy: shard-run: rank 0: OK, 80 elements checked, received 144 bytes
// CHECK-NEXT: 3 greedy: shard-run: rank 1: OK, 80 elements checked, received 144 bytes
// CHECK-NEXT: 3 greedy: shard-run: rank 2: OK, 80 elements checked, received 192 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 0: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 1: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 2: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 3: OK, 60 elements checked, received 216 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 0: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 1: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 2: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 3: OK, 60 elements checked, received 216 bytes

#m = #shard.mesh<shape = [@N@]>
func.func @copies(%x: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
        tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %a = math.exp %x : tensor<10x6xf32>
  return %a, %a : tensor<10x6xf32>, tensor<10x6xf32>
}
