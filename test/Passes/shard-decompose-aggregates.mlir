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

