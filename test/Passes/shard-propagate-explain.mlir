// -shard-propagate=explain=true (PropagateExplain.cpp): one remark on the
// function (how the search chose and what it models) and one per op (the
// sharding kept, its compute and moves, and the best rejected option with
// what it would add). An op that reads a linear group Partial says so.
// RUN: shard-opt %s -shard-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s

// Two row-parallel products summed: each product is P(sum) and the add
// reads both P(sum) (nothing moves), then one reduction where the sum is
// returned whole.
#m = #shard.mesh<shape = [4]>
// CHECK: :[[@LINE+1]]:1: remark: search=whole chose the shardings of 5 ops {{.*}}proven optimal: modelled {{.*}} us (moves {{.*}} us, compute {{.*}} us); each rank holds {{[0-9]+}} bytes
func.func @sum_of_products(%a: tensor<8x12xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                           %b: tensor<12x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                           %c: tensor<12x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  // The fill (and its tensor.empty) every rank makes alone: made again in
  // the layout each matmul reads it in, at what that computes.
  // CHECK: :[[@LINE+1]]:8: remark: kept {{.*}} (compute
  %e = tensor.empty() : tensor<8x6xf32>
  // CHECK: :[[@LINE+1]]:8: remark: kept {{.*}} (compute
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  // CHECK: :[[@LINE+1]]:8: remark: kept d2 on axis 0 (compute {{.*}}; %{{[0-9]+}} made again in [R]: {{.*}} us); best rejected: nothing sharded (+{{.*}} us: %arg0 [S(1)] -> [R]
  %x = linalg.matmul ins(%a, %b : tensor<8x12xf32>, tensor<12x6xf32>) outs(%z : tensor<8x6xf32>) -> tensor<8x6xf32>
  // CHECK: :[[@LINE+1]]:8: remark: kept d2 on axis 0
  %y = linalg.matmul ins(%a, %c : tensor<8x12xf32>, tensor<12x6xf32>) outs(%z : tensor<8x6xf32>) -> tensor<8x6xf32>
  // CHECK: :[[@LINE+1]]:8: remark: kept nothing sharded, reading #0, #1 P(sum) on axis 0 (compute {{.*}}; %{{[0-9]+}} [P(sum)] -> [R]: 1152 bytes, 12 us)
  %s = arith.addf %x, %y : tensor<8x6xf32>
  return %s : tensor<8x6xf32>
}

// A window read pinned (the search's own choice for the concat, written back
// with its reads and pinned again) is priced as the search prices it: the
// window's parts moved by the op's hook (8 us on 4 ranks), not nothing (a
// pinned run said 0 us, proven optimal, for the same moves).
#m4w = #shard.mesh<shape = [4]>
#s1w = #shard.placements<mesh = #m4w, placements = [S(1)]>
// CHECK: :[[@LINE+1]]:1: remark: search=whole chose {{.*}} proven optimal: modelled 8.001 us (moves 8.001 us, compute {{.*}})
func.func @window_free(%x: tensor<4x8xf32> {shard.layout = #s1w}, %y: tensor<4x8xf32> {shard.layout = #s1w})
    -> (tensor<4x16xf32> {shard.layout = #s1w}) {
  // CHECK: :[[@LINE+1]]:8: remark: kept d1 on axis 0 {{.*}}the window's parts moved: 8.001 us
  %c = tensor.concat dim(1) %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}
// CHECK: :[[@LINE+1]]:1: remark: search=whole chose {{.*}} proven optimal: modelled 8.001 us (moves 8.001 us, compute {{.*}})
func.func @window_pinned(%x: tensor<4x8xf32> {shard.layout = #s1w}, %y: tensor<4x8xf32> {shard.layout = #s1w})
    -> (tensor<4x16xf32> {shard.layout = #s1w}) {
  // CHECK: :[[@LINE+1]]:8: remark: kept d1 on axis 0 {{.*}}the window's parts moved: 8.001 us
  %c = tensor.concat dim(1) %x, %y {shard.sharding = #shard.sharding<mesh = #m4w, loops = [d1], reads = [#s1w, #s1w]>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}
