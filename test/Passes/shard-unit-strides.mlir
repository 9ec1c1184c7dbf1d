// RUN: shard-opt %s -shard-unit-strides | FileCheck %s
// -shard-unit-strides: a slice's dims of static size 1 get stride 1 (one
// element either way); other strides stay. Upstream MLIR 22's
// -expand-strided-metadata crashed (SubViewOp::getDroppedDims) on @dropped
// as bufferized; the shard-to-llvm pipeline runs this pass before
// bufferizing (e2e/unit-strides-run.mlir runs it under shard-run).

// CHECK-LABEL: func.func @dropped
// CHECK: tensor.extract_slice %{{.*}}[1, 3] [1, 1] [1, 1] : tensor<3x4xf32> to tensor<1xf32>
func.func @dropped(%t: tensor<3x4xf32>) -> tensor<1xf32> {
  %s = tensor.extract_slice %t[1, 3] [1, 1] [3, 1] : tensor<3x4xf32> to tensor<1xf32>
  return %s : tensor<1xf32>
}

// A dim of size 2 keeps its stride; one of dynamic size too.
// CHECK-LABEL: func.func @kept
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [2, 1] [2, 1] : tensor<3x4xf32> to tensor<2xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [%{{.*}}, 1] [2, 1] : tensor<3x4xf32> to tensor<?x1xf32>
func.func @kept(%t: tensor<3x4xf32>, %n: index) -> (tensor<2xf32>, tensor<?x1xf32>) {
  %s = tensor.extract_slice %t[0, 1] [2, 1] [2, 3] : tensor<3x4xf32> to tensor<2xf32>
  %d = tensor.extract_slice %t[0, 0] [%n, 1] [2, 5] : tensor<3x4xf32> to tensor<?x1xf32>
  return %s, %d : tensor<2xf32>, tensor<?x1xf32>
}

// An insert alike.
// CHECK-LABEL: func.func @inserted
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[2, 1] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<3x4xf32>
func.func @inserted(%s: tensor<1x1xf32>, %t: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = tensor.insert_slice %s into %t[2, 1] [1, 1] [2, 3] : tensor<1x1xf32> into tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
