// RUN: shard-opt %s -shard-dynamic-expands -split-input-file | FileCheck %s
// An expand_shape splitting a dim into two dims of run-time size (aten.linear
// on a [B?, S?, K] input, its rows expanded back) becomes the reshape of its
// source into the same shape; a split into one dim of run-time size stays.

// CHECK-LABEL: func.func @two_dynamic
// CHECK-SAME: (%[[Y:.*]]: tensor<?x6xf32>, %[[B:.*]]: index, %[[S:.*]]: index)
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[B]], %[[S]], %[[C6]] : tensor<3xindex>
// CHECK: %[[R:.*]] = tensor.reshape %[[Y]](%[[SHAPE]]) : (tensor<?x6xf32>, tensor<3xindex>) -> tensor<?x?x6xf32>
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[R]]
func.func @two_dynamic(%y: tensor<?x6xf32>, %b: index, %s: index) -> tensor<?x?x6xf32> {
  %r = tensor.expand_shape %y [[0, 1], [2]] output_shape [%b, %s, 6] : tensor<?x6xf32> into tensor<?x?x6xf32>
  return %r : tensor<?x?x6xf32>
}

// -----

// CHECK-LABEL: func.func @one_dynamic
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2{{\]\]}} output_shape [%{{.*}}, 4, 6] : tensor<?x6xf32> into tensor<?x4x6xf32>
// CHECK-NOT: tensor.reshape
func.func @one_dynamic(%y: tensor<?x6xf32>, %b: index) -> tensor<?x4x6xf32> {
  %r = tensor.expand_shape %y [[0, 1], [2]] output_shape [%b, 4, 6] : tensor<?x6xf32> into tensor<?x4x6xf32>
  return %r : tensor<?x4x6xf32>
}
