// Float max and min reduced across ranks order -0.0 below +0.0, as
// arith.maximumf and arith.minimumf do: a rank whose rows are all -0.0
// and one whose rows are +0.0 give max +0.0 and min -0.0 whatever order
// the collective combines them in. Before, -0.0 == +0.0 was a tie that
// kept the accumulator, so the answer was the order's (found by an
// adversarial sweep of the runtime's reductions: min came back +0.0 on 2
// and 4 ranks). Results are returned as their bits, so that the sign of
// zero is compared; every element checked on 2, 3 and 4 ranks. The
// runtime's arithmetic itself: test/runtime/ReduceTest.cpp
// SignedZerosInEitherOrder (f32, f64, f16, bf16).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry max0,min0 --check --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry max0,min0 --check --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry max0,min0 --check --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: shard-opt %t.4.mlir -shard-propagate=alpha-us=0 -shard-spmd-partition | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @max0(
// IR: shard.spmd.all_reduce {{.*}} reduce max
// IR-LABEL: func.func @min0(
// IR: shard.spmd.all_reduce {{.*}} reduce min
// NP2: shard-run: @max0: rank 0: OK, 3 elements checked, received 12 bytes
// NP2-NEXT: shard-run: @max0: rank 1: OK, 3 elements checked, received 12 bytes
// NP2-NEXT: shard-run: @min0: rank 0: OK, 3 elements checked, received 12 bytes
// NP2-NEXT: shard-run: @min0: rank 1: OK, 3 elements checked, received 12 bytes
// NP3: shard-run: @max0: rank 0: OK, 3 elements checked, received 16 bytes
// NP3-NEXT: shard-run: @max0: rank 1: OK, 3 elements checked, received 16 bytes
// NP3-NEXT: shard-run: @max0: rank 2: OK, 3 elements checked, received 16 bytes
// NP3-NEXT: shard-run: @min0: rank 0: OK, 3 elements checked, received 16 bytes
// NP3-NEXT: shard-run: @min0: rank 1: OK, 3 elements checked, received 16 bytes
// NP3-NEXT: shard-run: @min0: rank 2: OK, 3 elements checked, received 16 bytes
// NP4: shard-run: @max0: rank 0: OK, 3 elements checked, received 20 bytes
// NP4-NEXT: shard-run: @max0: rank 1: OK, 3 elements checked, received 16 bytes
// NP4-NEXT: shard-run: @max0: rank 2: OK, 3 elements checked, received 16 bytes
// NP4-NEXT: shard-run: @max0: rank 3: OK, 3 elements checked, received 20 bytes
// NP4-NEXT: shard-run: @min0: rank 0: OK, 3 elements checked, received 20 bytes
// NP4-NEXT: shard-run: @min0: rank 1: OK, 3 elements checked, received 16 bytes
// NP4-NEXT: shard-run: @min0: rank 2: OK, 3 elements checked, received 16 bytes
// NP4-NEXT: shard-run: @min0: rank 3: OK, 3 elements checked, received 20 bytes

#m = #shard.mesh<shape = [@N@]>
#k0 = #shard.placements<mesh = #m, placements = [S(0)]>
#r = #shard.placements<mesh = #m, placements = [R]>
#map = affine_map<(d0, d1) -> (d0, d1)>
// Row i of x is -0.0 where i is even, +0.0 where it is odd (its own value
// unread); each rank holds one row.
func.func @zeros(%x: tensor<@N@x3xf32>) -> tensor<@N@x3xf32> {
  %e = tensor.empty() : tensor<@N@x3xf32>
  %f = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<@N@x3xf32>) outs(%e : tensor<@N@x3xf32>) {
    ^bb0(%in: f32, %o: f32):
      %i = linalg.index 0 : index
      %c2 = arith.constant 2 : index
      %c0 = arith.constant 0 : index
      %rem = arith.remui %i, %c2 : index
      %even = arith.cmpi eq, %rem, %c0 : index
      %mz = arith.constant -0.0 : f32
      %pz = arith.constant 0.0 : f32
      %v = arith.select %even, %mz, %pz : f32
      linalg.yield %v : f32
  } -> tensor<@N@x3xf32>
  return %f : tensor<@N@x3xf32>
}
// The max (min) over the cut rows, returned as its bits so that the sign
// of zero is compared (-0.0 == +0.0 as floats).
func.func @max0(%x: tensor<@N@x3xf32> {shard.layout = #k0}) -> (tensor<3xi32> {shard.layout = #r}) {
  %f = func.call @zeros(%x) : (tensor<@N@x3xf32>) -> tensor<@N@x3xf32>
  %i = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3xf32>
  %z = linalg.fill ins(%i : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %s = linalg.reduce ins(%f : tensor<@N@x3xf32>) outs(%z : tensor<3xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %t = arith.maximumf %in, %acc : f32
      linalg.yield %t : f32
    }
  %b = arith.bitcast %s : tensor<3xf32> to tensor<3xi32>
  return %b : tensor<3xi32>
}
func.func @min0(%x: tensor<@N@x3xf32> {shard.layout = #k0}) -> (tensor<3xi32> {shard.layout = #r}) {
  %f = func.call @zeros(%x) : (tensor<@N@x3xf32>) -> tensor<@N@x3xf32>
  %i = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3xf32>
  %z = linalg.fill ins(%i : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %s = linalg.reduce ins(%f : tensor<@N@x3xf32>) outs(%z : tensor<3xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %t = arith.minimumf %in, %acc : f32
      linalg.yield %t : f32
    }
  %b = arith.bitcast %s : tensor<3xf32> to tensor<3xi32>
  return %b : tensor<3xi32>
}
