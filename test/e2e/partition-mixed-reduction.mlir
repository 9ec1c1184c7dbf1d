// A linalg.generic whose reduction loop also indexes one of its results
// (a softmax's exp and its row sum fused, as IREE's dispatch formation
// leaves them): the loop is never cut (each rank runs all of it: the exp
// is placed along it, the sum reduced over it); the rows, parallel, are.
// Before: "has a sharding rule that is not valid: result #0 is indexed by
// d1, a reduction loop" (5 of 1,610 variants of a sweep over IREE's tests).
// Every element checked on 2 and 3 ranks: rows cut, nothing moves; columns
// cut, they are gathered.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry rows --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=ROWS2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry cols --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=COLS2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry rows --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=ROWS3
// RUN: shard-opt %t.2.mlir -shard-print-sharding-rules | FileCheck %s --check-prefix=RULE
// ROWS2: shard-run: rank 0: OK, 14 elements checked, received 0 bytes
// ROWS2-NEXT: shard-run: rank 1: OK, 14 elements checked, received 0 bytes
// ROWS3: shard-run: rank 0: OK, 14 elements checked, received 0 bytes
// ROWS3-NEXT: shard-run: rank 1: OK, 14 elements checked, received 0 bytes
// ROWS3-NEXT: shard-run: rank 2: OK, 0 elements checked, received 0 bytes
// COLS2: shard-run: rank 0: OK, 14 elements checked, received 48 bytes
// COLS2-NEXT: shard-run: rank 1: OK, 14 elements checked, received 48 bytes
// RULE: linalg.generic {{.*}}unshardable={d1: "a reduction loop that indexes result #0"}

#m = #shard.mesh<shape = [@N@]>
#rows = #shard.placements<mesh = #m, placements = [S(0)]>
#cols = #shard.placements<mesh = #m, placements = [S(1)]>
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @rows(%x: tensor<4x6xf32> {shard.layout = #rows})
    -> (tensor<4x6xf32> {shard.layout = #rows}, tensor<4xf32> {shard.layout = #rows}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %s0 = tensor.empty() : tensor<4xf32>
  %s = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4xf32>) -> tensor<4xf32>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x6xf32>) outs(%e, %s : tensor<4x6xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %t = arith.addf %acc, %q : f32
    linalg.yield %q, %t : f32, f32
  } -> (tensor<4x6xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4x6xf32>, tensor<4xf32>
}

func.func @cols(%x: tensor<4x6xf32> {shard.layout = #cols})
    -> (tensor<4x6xf32> {shard.layout = #cols}, tensor<4xf32> {shard.layout = #rows}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %s0 = tensor.empty() : tensor<4xf32>
  %s = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4xf32>) -> tensor<4xf32>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x6xf32>) outs(%e, %s : tensor<4x6xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %t = arith.addf %acc, %q : f32
    linalg.yield %q, %t : f32, f32
  } -> (tensor<4x6xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4x6xf32>, tensor<4xf32>
}
