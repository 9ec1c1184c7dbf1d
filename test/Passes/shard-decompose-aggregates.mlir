// RUN: shard-opt %s -shard-decompose-aggregates | FileCheck %s
// RUN: shard-opt %s -shard-print-sharding-rules | FileCheck %s --check-prefix=RULE

// linalg.softmax becomes its max reduction, exponential of the difference,
// sum reduction and division; no softmax is left.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK-NOT: linalg.softmax
// Its rule: the normalized dim whole, the others may be cut.
// RULE: linalg.softmax {{.*}}shard.sharding_rule = #shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=4, d1=6} unshardable={d1: "softmax normalizes along it"} inits=[1]>
func.func @softmax(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %e = tensor.empty() : tensor<4x6xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %s : tensor<4x6xf32>
}


// tensor.gather (nothing upstream bufferizes it) becomes a linalg.generic
// over its result: the coordinates read from the indices at the element's
// batch index, the source read there and at its own index along the other
// dims (test/e2e/decompose-gather-run.mlir runs it).
// CHECK-LABEL: func.func @gather
// CHECK-NOT: tensor.gather
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x1x4xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]} outs(%[[E]] : tensor<3x1x4xf32>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[K:.*]] = arith.constant 0 : index
// CHECK: %[[ROW:.*]] = tensor.extract %arg1[%[[B]], %[[K]]] : tensor<3x1xindex>
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: %[[V:.*]] = tensor.extract %arg0[%[[ROW]], %[[COL]]] : tensor<4x4xf32>
// CHECK: linalg.yield %[[V]]
// CHECK-NOT: tensor.gather
func.func @gather(%t: tensor<4x4xf32>, %i: tensor<3x1xindex>) -> tensor<3x1x4xf32> {
  %g = tensor.gather %t[%i] gather_dims([0]) : (tensor<4x4xf32>, tensor<3x1xindex>) -> tensor<3x1x4xf32>
  return %g : tensor<3x1x4xf32>
}

// linalg.pack and linalg.unpack (which no bufferization takes) become the
// pad, reshape and transpose they stand for, and back
// (test/e2e/pack-unpack-run.mlir runs them).
// CHECK-LABEL: func.func @pack_unpack
// CHECK-NOT: linalg.pack
// CHECK: tensor.pad
// CHECK: tensor.expand_shape {{.*}} into tensor<2x4x3x2xf32>
// CHECK: linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK-NOT: linalg.unpack
// CHECK: linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK: tensor.collapse_shape
// CHECK: tensor.extract_slice {{.*}} to tensor<7x6xf32>
func.func @pack_unpack(%a: tensor<7x6xf32>) -> tensor<7x6xf32> {
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x4x2xf32>
  %p = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %e : tensor<7x6xf32> -> tensor<2x3x4x2xf32>
  %eu = tensor.empty() : tensor<7x6xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %eu : tensor<2x3x4x2xf32> -> tensor<7x6xf32>
  return %u : tensor<7x6xf32>
}

// tensor.bitcast (torch-mlir's aten.view.dtype; no bufferization takes it)
// becomes the elementwise linalg.generic of arith.bitcast it is, a dim of
// run-time size taken from its operand, a static one from its result; its
// sharding rule is elementwise (each rank reinterprets its own block).
// CHECK-LABEL: func.func @bitcast
// CHECK-NOT: tensor.bitcast
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<?x4xi32>) outs(%[[E]] : tensor<?x4xf32>)
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<3x4xi32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<?x4xf32>) outs(%[[E2]] : tensor<3x4xi32>)
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK-NOT: tensor.bitcast
// RULE-LABEL: func.func @bitcast
// RULE: tensor.bitcast {{.*}}{shard.sharding_rule = #shard.rule<([d0, d1]) -> ([d0, d1]) {d0=64, d1=4}
func.func @bitcast(%x: tensor<?x4xi32>) -> (tensor<?x4xf32>, tensor<3x4xi32>) {
  %f = tensor.bitcast %x : tensor<?x4xi32> to tensor<?x4xf32>
  %i = tensor.bitcast %f : tensor<?x4xf32> to tensor<3x4xi32>
  return %f, %i : tensor<?x4xf32>, tensor<3x4xi32>
}
