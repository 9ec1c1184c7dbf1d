// RUN: shard-opt %s -shard-unit-strides | FileCheck %s
// -shard-unit-strides: a slice's dims of static size 1 get stride 1 (one
// element either way); other strides stay, and a rank-reducing slice with
// one left is written at full rank with a collapse_shape of the dims it
// drops (an insert: an expand_shape of its source, then the insert at full
// rank). Upstream MLIR 22's -expand-strided-metadata crashed
// (SubViewOp::getDroppedDims) on @dropped and @ambiguous as bufferized; the
// shard-to-llvm pipeline runs this pass before bufferizing
// (e2e/unit-strides-run.mlir runs them under shard-run).

// CHECK-LABEL: func.func @dropped
// CHECK: tensor.extract_slice %{{.*}}[1, 3] [1, 1] [1, 1] : tensor<3x4xf32> to tensor<1xf32>
func.func @dropped(%t: tensor<3x4xf32>) -> tensor<1xf32> {
  %s = tensor.extract_slice %t[1, 3] [1, 1] [3, 1] : tensor<3x4xf32> to tensor<1xf32>
  return %s : tensor<1xf32>
}

// A dim of size 2 keeps its stride (the slice, rank-reducing, then at full
// rank and collapsed); one of dynamic size too.
// CHECK-LABEL: func.func @kept
// CHECK: %[[FULL:.*]] = tensor.extract_slice %{{.*}}[0, 1] [2, 1] [2, 1] : tensor<3x4xf32> to tensor<2x1xf32>
// CHECK: tensor.collapse_shape %[[FULL]] {{\[\[}}0, 1]] : tensor<2x1xf32> into tensor<2xf32>
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

// More dims of size 1 than the slice drops, and stride 2 on the one of
// size 2 (an adversarial sweep of run-time offsets): the extract at full
// rank, collapsed; the insert's source expanded, inserted at full rank.
// Dynamic sizes and a 0-D result alike.
// CHECK-LABEL: func.func @ambiguous
// CHECK: %[[E:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [2, 1, 1, 1] [2, 1, 1, 1] : tensor<3x1x2x2xf32> to tensor<2x1x1x1xf32>
// CHECK: tensor.collapse_shape %[[E]] {{\[\[}}0], [1, 2, 3]] : tensor<2x1x1x1xf32> into tensor<2x1xf32>
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] output_shape [2, 1, 1, 1] : tensor<2x1xf32> into tensor<2x1x1x1xf32>
// CHECK: tensor.insert_slice %[[X]] into %{{.*}}[%{{.*}}, 0, 1, 0] [2, 1, 1, 1] [2, 1, 1, 1] : tensor<2x1x1x1xf32> into tensor<3x1x2x2xf32>
// CHECK: %[[D:.*]] = tensor.extract_slice %{{.*}}[0, 1] [%{{.*}}, 1] [2, 1] : tensor<?x4xf32> to tensor<?x1xf32>
// CHECK: tensor.collapse_shape %[[D]] {{\[\[}}0, 1]] : tensor<?x1xf32> into tensor<?xf32>
// CHECK: %[[Z:.*]] = tensor.extract_slice %{{.*}}[1, 2] [1, 1] [1, 1] : tensor<3x4xf32> to tensor<f32>
func.func @ambiguous(%d: tensor<3x1x2x2xf32>, %a: tensor<2x1xf32>, %i: index, %v: tensor<?x4xf32>, %n: index, %t: tensor<3x4xf32>) -> (tensor<2x1xf32>, tensor<3x1x2x2xf32>, tensor<?xf32>, tensor<f32>) {
  %x = tensor.extract_slice %d[0, 0, 0, 0] [2, 1, 1, 1] [2, 1, 1, 1] : tensor<3x1x2x2xf32> to tensor<2x1xf32>
  %r = tensor.insert_slice %a into %d[%i, 0, 1, 0] [2, 1, 1, 1] [2, 1, 1, 1] : tensor<2x1xf32> into tensor<3x1x2x2xf32>
  %y = tensor.extract_slice %v[0, 1] [%n, 1] [2, 1] : tensor<?x4xf32> to tensor<?xf32>
  %z = tensor.extract_slice %t[1, 2] [1, 1] [2, 2] : tensor<3x4xf32> to tensor<f32>
  return %x, %r, %y, %z : tensor<2x1xf32>, tensor<3x1x2x2xf32>, tensor<?xf32>, tensor<f32>
}
