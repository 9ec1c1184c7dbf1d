// A MobileNetV2 inverted-residual block and its classifier head as
// TFLite's TOSA form writes them (NHWC): a pointwise expansion
// (tosa.conv2d 1x1) and ReLU6 (tosa.clamp), a padded 3x3 depthwise
// convolution, a pointwise projection and the residual tosa.add, global
// average pooling, tosa.reshape of [N, 1, 1, C] into [1, N, C] for
// tosa.matmul (the fully connected layer), and softmax (reduce_max, sub,
// exp, reduce_sum, reciprocal, mul). Images cut on dp (data parallelism),
// every weight unpinned: the cheapest plan moves nothing (0 B), each rank
// running the block and the head on its images; the reshape keeps the
// images cut (it only drops and inserts dims of 1). Every element checked
// against the unpartitioned program on 2, 3 (4 images: 2, 2, 0), 4 ranks
// and a 2x2 mesh.
// @partial_reshape: a tosa.matmul over a cut reduction leaves Partial sums
// that the same reshape carries (it is linear in its input); reduced once
// (reduce-scatter then all-gather: 160 B per rank on 2 ranks).
// REQUIRES: mpi
// RUN: sed -e 's/@DP@/2/g; s/@TP@/1/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry mobilenet_block,partial_reshape --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// RUN: sed -e 's/@DP@/3/g; s/@TP@/1/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry mobilenet_block --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: sed -e 's/@DP@/2/g; s/@TP@/2/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mobilenet_block --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// NP2: shard-run: @mobilenet_block: rank 0: OK, 20 elements checked, received 0 bytes
// NP2-NEXT: shard-run: @mobilenet_block: rank 1: OK, 20 elements checked, received 0 bytes
// NP2-NEXT: shard-run: @partial_reshape: rank 0: OK, 40 elements checked, received 160 bytes
// NP2-NEXT: shard-run: @partial_reshape: rank 1: OK, 40 elements checked, received 160 bytes
// NP3: shard-run: rank 0: OK, 20 elements checked, received 0 bytes
// NP3-NEXT: shard-run: rank 1: OK, 20 elements checked, received 0 bytes
// NP3-NEXT: shard-run: rank 2: OK, 0 elements checked, received 0 bytes
// NP4: shard-run: rank 0: OK, 20 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 1: OK, 20 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 2: OK, 20 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 3: OK, 20 elements checked, received 0 bytes
// LOCAL-LABEL: func.func @mobilenet_block
// LOCAL-NOT: shard.spmd.{{all_|exchange|scatter|gather|reduce}}
// LOCAL: tosa.conv2d %arg0, {{.*}} -> tensor<2x8x8x16xf32>
// LOCAL: tosa.depthwise_conv2d {{.*}} -> tensor<2x8x8x16xf32>
// LOCAL: tosa.avg_pool2d {{.*}} -> tensor<2x1x1x8xf32>
// LOCAL: tensor.collapse_shape {{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<2x1x1x8xf32> into tensor<2x8xf32>
// LOCAL: tensor.expand_shape {{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 2, 8] : tensor<2x8xf32> into tensor<1x2x8xf32>
// LOCAL: tosa.matmul {{.*}} -> tensor<1x2x10xf32>
// LOCAL-LABEL: func.func @partial_reshape
// LOCAL: shard.spmd.reduce_scatter
// LOCAL: shard.spmd.all_gather

#m = #shard.mesh<shape = [@DP@, @TP@], axes = ["dp", "tp"]>
func.func @mobilenet_block(%x: tensor<4x8x8x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>},
                           %w_exp: tensor<16x1x1x8xf32>, %b_exp: tensor<16xf32>,
                           %w_dw: tensor<3x3x16x1xf32>, %b_dw: tensor<16xf32>,
                           %w_proj: tensor<8x1x1x16xf32>, %b_proj: tensor<8xf32>,
                           %w_fc: tensor<1x8x10xf32>)
    -> (tensor<4x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // Expansion: a pointwise convolution, ReLU6.
  %e = tosa.conv2d %x, %w_exp, %b_exp, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<4x8x8x8xf32>, tensor<16x1x1x8xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8x16xf32>
  %e6 = tosa.clamp %e {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<4x8x8x16xf32>) -> tensor<4x8x8x16xf32>
  // Depthwise 3x3, padded, ReLU6.
  %d = tosa.depthwise_conv2d %e6, %w_dw, %b_dw, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<4x8x8x16xf32>, tensor<3x3x16x1xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8x16xf32>
  %d6 = tosa.clamp %d {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<4x8x8x16xf32>) -> tensor<4x8x8x16xf32>
  // Projection, residual add.
  %p = tosa.conv2d %d6, %w_proj, %b_proj, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<4x8x8x16xf32>, tensor<8x1x1x16xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8x8xf32>
  %r = tosa.add %p, %x : (tensor<4x8x8x8xf32>, tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  // Global average pooling, the classifier, softmax.
  %g = tosa.avg_pool2d %r, %zp, %zp {acc_type = f32, kernel = array<i64: 8, 8>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<4x8x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x1x1x8xf32>
  %s3 = tosa.const_shape {values = dense<[1, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %g3 = tosa.reshape %g, %s3 : (tensor<4x1x1x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %logits3 = tosa.matmul %g3, %w_fc, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x10xf32>
  %s2 = tosa.const_shape {values = dense<[4, 10]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %logits = tosa.reshape %logits3, %s2 : (tensor<1x4x10xf32>, !tosa.shape<2>) -> tensor<4x10xf32>
  %mx = tosa.reduce_max %logits {axis = 1 : i32} : (tensor<4x10xf32>) -> tensor<4x1xf32>
  %sh = tosa.sub %logits, %mx : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
  %ex = tosa.exp %sh : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %sum = tosa.reduce_sum %ex {axis = 1 : i32} : (tensor<4x10xf32>) -> tensor<4x1xf32>
  %inv = tosa.reciprocal %sum : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %prob = tosa.mul %ex, %inv, %shift : (tensor<4x10xf32>, tensor<4x1xf32>, tensor<1xi8>) -> tensor<4x10xf32>
  return %prob : tensor<4x10xf32>
}
#m1 = #shard.mesh<shape = [2]>
func.func @partial_reshape(%a: tensor<1x4x6xf32> {shard.layout = #shard.placements<mesh = #m1, placements = [S(2)]>},
                           %b: tensor<1x6x10xf32> {shard.layout = #shard.placements<mesh = #m1, placements = [S(1)]>})
    -> (tensor<4x1x1x10xf32> {shard.layout = #shard.placements<mesh = #m1, placements = [R]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4x6xf32>, tensor<1x6x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x10xf32>
  %s = tosa.const_shape {values = dense<[4, 1, 1, 10]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %r = tosa.reshape %p, %s : (tensor<1x4x10xf32>, !tosa.shape<4>) -> tensor<4x1x1x10xf32>
  return %r : tensor<4x1x1x10xf32>
}
