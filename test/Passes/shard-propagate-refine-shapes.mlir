// -shard-propagate's first step (passes/RefineShapes.cpp) on functions with
// layouts and dynamic dims: a reshape folding a dim of run-time size with
// others is fused into the linalg ops beside it (their loops over the dims
// unfolded), an elementwise op on tensors beside one is first written as
// its linalg.generic, and an expand_shape of a tensor.empty becomes an
// empty of the expanded sizes. A fold of static dims, an elementwise op
// beside no such fold (math.absf; math.tanh reads the fold's expand), and a
// function without layouts are left as written.
// RUN: shard-opt %s -shard-propagate -split-input-file | FileCheck %s

#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @dynamic_fold
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: tensor.empty(%{{.*}}) {{.*}}: tensor<?x4x2x3xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<?x4x2x8xf32>, tensor<?x4x8x3xf32>)
// CHECK: linalg.generic
// CHECK: math.exp {{.*}} : f32
// CHECK: linalg.generic
// CHECK: math.tanh {{.*}} : f32
// CHECK: math.absf %{{.*}} : tensor<?x4x2x3xf32>
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @dynamic_fold(%q: tensor<?x4x2x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %k: tensor<?x4x8x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<?x4x2x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %q, %c0 : tensor<?x4x2x8xf32>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<?x4x2x8xf32> into tensor<?x2x8xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<?x4x8x3xf32> into tensor<?x8x3xf32>
  %bh = tensor.dim %qc, %c0 : tensor<?x2x8xf32>
  %e = tensor.empty(%bh) : tensor<?x2x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2x3xf32>) -> tensor<?x2x3xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<?x2x8xf32>, tensor<?x8x3xf32>) outs(%f : tensor<?x2x3xf32>) -> tensor<?x2x3xf32>
  %p = math.exp %s : tensor<?x2x3xf32>
  %r = tensor.expand_shape %p [[0, 1], [2], [3]] output_shape [%b, 4, 2, 3] : tensor<?x2x3xf32> into tensor<?x4x2x3xf32>
  %t = math.tanh %r : tensor<?x4x2x3xf32>
  %u = math.absf %t : tensor<?x4x2x3xf32>
  return %u : tensor<?x4x2x3xf32>
}

// -----

// A fold of static dims beside a dynamic batch: kept (its rule folds it).
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @static_fold
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]]
// CHECK: linalg.matmul
func.func @static_fold(%x: tensor<?x4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %w: tensor<32x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) -> (tensor<?x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x4x8xf32>
  %xc = tensor.collapse_shape %x [[0], [1, 2]] : tensor<?x4x8xf32> into tensor<?x32xf32>
  %e = tensor.empty(%b) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %y = linalg.matmul ins(%xc, %w : tensor<?x32xf32>, tensor<32x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// A function with no layout is left as written.
// CHECK-LABEL: func.func @no_layouts
// CHECK: tensor.collapse_shape
// CHECK: math.exp %{{.*}} : tensor<?x8xf32>
// CHECK: tensor.expand_shape
func.func @no_layouts(%x: tensor<?x4x8xf32>) -> tensor<?x4x8xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x4x8xf32>
  %f = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x4x8xf32> into tensor<?x8xf32>
  %y = math.exp %f : tensor<?x8xf32>
  %r = tensor.expand_shape %y [[0, 1], [2]] output_shape [%b, 4, 8] : tensor<?x8xf32> into tensor<?x4x8xf32>
  return %r : tensor<?x4x8xf32>
}
