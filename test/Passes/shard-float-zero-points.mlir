// RUN: shard-opt %s -shard-float-zero-points | FileCheck %s
// -shard-float-zero-points: a TOSA op on floats whose zero point is a value
// (a function argument, as upstream MLIR's own tests write tosa.matmul's
// and tosa.negate's) gets a constant zero there, which TOSA requires of a
// float zero point; upstream's lowering to linalg refused tosa.matmul's
// ("failed to legalize") and gave tosa.negate's result a garbage extent on
// a dynamic dim (e2e/float-zero-points-run.mlir runs both). Integer zero
// points, which may be anything, and constant ones stay.

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf32>, %[[B:.*]]: tensor<2x8x3xf32>, %[[ZP:.*]]: tensor<1xf32>)
// CHECK: %[[Z0:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}>
// CHECK: %[[Z1:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}>
// CHECK: tosa.matmul %[[A]], %[[B]], %[[Z0]], %[[Z1]]
func.func @matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>, %zp: tensor<1xf32>) -> tensor<2x4x3xf32> {
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// CHECK-LABEL: func.func @negate
// CHECK: %[[Z0:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}>
// CHECK: %[[Z1:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}>
// CHECK: tosa.negate %arg0, %[[Z0]], %[[Z1]]
func.func @negate(%x: tensor<8x?xf16>, %zp1: tensor<1xf16>, %zp2: tensor<1xf16>) -> tensor<8x?xf16> {
  %0 = tosa.negate %x, %zp1, %zp2 : (tensor<8x?xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<8x?xf16>
  return %0 : tensor<8x?xf16>
}

// Integer zero points are the program's: kept.
// CHECK-LABEL: func.func @integers
// CHECK-NOT: tosa.const
// CHECK: tosa.matmul %arg0, %arg1, %arg2, %arg2
func.func @integers(%a: tensor<1x4x8xi8>, %b: tensor<1x8x3xi8>, %zp: tensor<1xi8>) -> tensor<1x4x3xi32> {
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4x8xi8>, tensor<1x8x3xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x3xi32>
  return %0 : tensor<1x4x3xi32>
}

// Constant zero points: kept as they are.
// CHECK-LABEL: func.func @constant
// CHECK-COUNT-1: tosa.const
// CHECK-NOT: tosa.const
// CHECK: tosa.negate %arg0, %[[C:.*]], %[[C]]
func.func @constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.negate %x, %z, %z : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
