// A value moved to a Partial layout (shard.constraint to P(...)) is made
// partial by the planner's one decision (planning::decideMove): moved
// whole on the Partial axes, then the copies made where they lie (sum,
// product: the first copy keeps the value, the others hold the identity;
// max: every copy holds it). Reduced again (to R or S), every element is
// the value: had every copy kept it, a P(sum) would reduce to N times it.
// The same move makes a cut reduction's init partial (a matmul accumulating
// into a value, its contracted loop pinned cut).
// REQUIRES: mpi
// Partial results are checked as what their copies reduce to (each group
// of copies reduced by shard-run, then every element compared); a copy one
// rank gets wrong is a MISMATCH on every rank of its group:
// RUN: %mpirun -np 3 %shard-run %s --entry sum3,max3,accumulate3,keep_sum3 --check > %t.run2 2>&1
// RUN: %entry-lines sum3 %t.run2 | FileCheck %s --check-prefix=OK3
// RUN: %entry-lines max3 %t.run2 | FileCheck %s --check-prefix=OK3
// RUN: %entry-lines accumulate3 %t.run2 | FileCheck %s --check-prefix=OK3
// RUN: %entry-lines keep_sum3 %t.run2 | FileCheck %s --check-prefix=OK3
// RUN: %mpirun -np 2 %shard-run %s --entry sum2,product2,keep_product2 --check > %t.run1 2>&1
// RUN: %entry-lines sum2 %t.run1 | FileCheck %s --check-prefix=OK2
// RUN: %entry-lines product2 %t.run1 | FileCheck %s --check-prefix=OK2
// RUN: %entry-lines keep_product2 %t.run1 | FileCheck %s --check-prefix=OK2
// RUN: %mpirun -np 4 %shard-run %s --entry mesh2x2,accumulate4,keep_avg4,partial_matmul4 --check > %t.run3 2>&1
// RUN: %entry-lines mesh2x2 %t.run3 | FileCheck %s --check-prefix=OK4
// RUN: %entry-lines accumulate4 %t.run3 | FileCheck %s --check-prefix=OK4
// RUN: %entry-lines keep_avg4 %t.run3 | FileCheck %s --check-prefix=OK4
// RUN: %entry-lines partial_matmul4 %t.run3 | FileCheck %s --check-prefix=OK4
// RUN: not %mpirun -np 3 %shard-run %s --entry keep_sum3 --check --corrupt-rank=1 | sort | FileCheck %s --check-prefix=WRONG
// WRONG: rank 0: MISMATCH, 1 of 21 elements differ; first: result #0 element [0, 0]: partitioned -5.000000e+00, unpartitioned -6.000000e+00
// WRONG-NEXT: rank 1: MISMATCH, 1 of 21 elements differ
// WRONG-NEXT: rank 2: MISMATCH, 1 of 21 elements differ
// OK2: shard-run: rank 0: OK
// OK2-NEXT: shard-run: rank 1: OK
// OK3: shard-run: rank 0: OK
// OK3-NEXT: shard-run: rank 1: OK
// OK3-NEXT: shard-run: rank 2: OK
// OK4: shard-run: rank 0: OK
// OK4-NEXT: shard-run: rank 1: OK
// OK4-NEXT: shard-run: rank 2: OK
// OK4-NEXT: shard-run: rank 3: OK

#m2 = #shard.mesh<shape = [2]>
#m3 = #shard.mesh<shape = [3]>
#m4 = #shard.mesh<shape = [2, 2]>
func.func @sum2(%a: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [R]>})
    -> (tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [R]>}) {
  %p = shard.constraint %a layout #shard.placements<mesh = #m2, placements = [P(sum)]> : tensor<6x4xf32>
  %r = shard.constraint %p layout #shard.placements<mesh = #m2, placements = [R]> : tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
func.func @product2(%a: tensor<5xi32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>})
    -> (tensor<5xi32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}) {
  %p = shard.constraint %a layout #shard.placements<mesh = #m2, placements = [P(product)]> : tensor<5xi32>
  %r = shard.constraint %p layout #shard.placements<mesh = #m2, placements = [S(0)]> : tensor<5xi32>
  return %r : tensor<5xi32>
}
func.func @sum3(%a: tensor<7x3xf64> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>})
    -> (tensor<7x3xf64> {shard.layout = #shard.placements<mesh = #m3, placements = [S(1)]>}) {
  %p = shard.constraint %a layout #shard.placements<mesh = #m3, placements = [P(sum)]> : tensor<7x3xf64>
  %r = shard.constraint %p layout #shard.placements<mesh = #m3, placements = [S(1)]> : tensor<7x3xf64>
  return %r : tensor<7x3xf64>
}
func.func @max3(%a: tensor<7xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>})
    -> (tensor<7xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [R]>}) {
  %p = shard.constraint %a layout #shard.placements<mesh = #m3, placements = [P(max)]> : tensor<7xf32>
  %r = shard.constraint %p layout #shard.placements<mesh = #m3, placements = [R]> : tensor<7xf32>
  return %r : tensor<7xf32>
}
func.func @mesh2x2(%a: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1), S(0)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [R, S(0)]>}) {
  %p = shard.constraint %a layout #shard.placements<mesh = #m4, placements = [P(sum), S(0)]> : tensor<8x4xf32>
  %r = shard.constraint %p layout #shard.placements<mesh = #m4, placements = [R, S(0)]> : tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
func.func @accumulate3(%a: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(1)]>},
                       %b: tensor<6x5xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>},
                       %c: tensor<4x5xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [R]>})
    -> (tensor<4x5xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [R]>}) {
  %d = linalg.matmul {shard.sharding = #shard.sharding<mesh = #m3, loops = [d2]>} ins(%a, %b : tensor<4x6xf32>, tensor<6x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %d : tensor<4x5xf32>
}
func.func @accumulate4(%a: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1), S(0)]>},
                       %b: tensor<6x5xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0), R]>},
                       %c: tensor<4x5xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [R, S(0)]>})
    -> (tensor<4x5xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [R, S(0)]>}) {
  %d = linalg.matmul {shard.sharding = #shard.sharding<mesh = #m4, loops = [d2, d0]>} ins(%a, %b : tensor<4x6xf32>, tensor<6x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %d : tensor<4x5xf32>
}
func.func @keep_sum3(%a: tensor<7x3xf64> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>})
    -> (tensor<7x3xf64> {shard.layout = #shard.placements<mesh = #m3, placements = [P(sum)]>}) {
  return %a : tensor<7x3xf64>
}
func.func @keep_product2(%a: tensor<5xi32> {shard.layout = #shard.placements<mesh = #m2, placements = [R]>})
    -> (tensor<5xi32> {shard.layout = #shard.placements<mesh = #m2, placements = [P(product)]>}) {
  return %a : tensor<5xi32>
}
func.func @keep_avg4(%a: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1), S(0)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [P(avg), S(0)]>}) {
  return %a : tensor<8x4xf32>
}
func.func @partial_matmul4(%a: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1), S(0)]>},
                           %b: tensor<6x5xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0), R]>},
                           %c: tensor<4x5xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [R, S(0)]>})
    -> (tensor<4x5xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [P(sum), S(0)]>}) {
  %d = linalg.matmul {shard.sharding = #shard.sharding<mesh = #m4, loops = [d2, d0]>} ins(%a, %b : tensor<4x6xf32>, tensor<6x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %d : tensor<4x5xf32>
}
