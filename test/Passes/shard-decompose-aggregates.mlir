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
