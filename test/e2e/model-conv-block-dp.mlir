// A ResNet bottleneck block (issue 26, item 3), written here in the form
// torch-mlir's linalg-on-tensors output takes for conv2d + batch norm
// (eval) + relu: each convolution's init is its bias broadcast
// (linalg.generic), linalg.conv_2d_nchw_fchw accumulates into it, the 3x3
// convolution reads its input padded by tensor.pad, batch norm is a
// per-channel scale and shift, and the residual is added before the last
// relu. Data parallel: the batch cut over the ranks, the weights
// replicated.
//
// The cheapest plan, by hand: nothing moves. Every op is cut along the
// batch (a convolution's window dims and channels are whole on every
// rank, and the padding is along H and W, which no rank cuts), so each
// rank runs the block on its own images: 0 B per rank, also for 3 images
// over 2 ranks (2 and 1). (The broadcast biases, whose operand is
// replicated, are computed whole and each rank keeps its images' part,
// which moves nothing: -shard-propagate decides an op from its operands
// before its result's users, issue 27.)
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g; s/@B@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry bottleneck --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=remark: --check-prefix=NP4
// RUN: sed -e 's/@N@/2/g; s/@B@/3/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry bottleneck --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=remark: --check-prefix=NP2
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// NP4: shard-run: rank 0: OK, 144 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 1: OK, 144 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 2: OK, 144 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 3: OK, 144 elements checked, received 0 bytes
// NP2: shard-run: rank 0: OK, 288 elements checked, received 0 bytes
// NP2-NEXT: shard-run: rank 1: OK, 144 elements checked, received 0 bytes
// LOCAL-NOT: shard.spmd.{{all_|scatter|gather}}
// LOCAL: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// LOCAL: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>)
// LOCAL-NOT: shard.spmd.{{all_|scatter|gather}}

#m = #shard.mesh<shape = [@N@]>
#R = #shard.placements<mesh = #m, placements = [R]>
#Batch = #shard.placements<mesh = #m, placements = [S(0)]>
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#x4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @bottleneck(%x: tensor<@B@x4x6x6xf32> {shard.layout = #Batch},
    %w1: tensor<2x4x1x1xf32> {shard.layout = #R}, %b1: tensor<2xf32> {shard.layout = #R},
    %w2: tensor<2x2x3x3xf32> {shard.layout = #R}, %b2: tensor<2xf32> {shard.layout = #R},
    %w3: tensor<4x2x1x1xf32> {shard.layout = #R}, %b3: tensor<4xf32> {shard.layout = #R},
    %bn_scale: tensor<4xf32> {shard.layout = #R}, %bn_shift: tensor<4xf32> {shard.layout = #R})
    -> (tensor<@B@x4x6x6xf32> {shard.layout = #Batch}) {
  %zero = arith.constant 0.0 : f32
  // conv1x1 (4 -> 2) with its bias as the init, relu.
  %e1 = tensor.empty() : tensor<@B@x2x6x6xf32>
  %i1 = linalg.generic {indexing_maps = [#bias, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b1 : tensor<2xf32>) outs(%e1 : tensor<@B@x2x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<@B@x2x6x6xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w1 : tensor<@B@x4x6x6xf32>, tensor<2x4x1x1xf32>) outs(%i1 : tensor<@B@x2x6x6xf32>) -> tensor<@B@x2x6x6xf32>
  %r1 = linalg.generic {indexing_maps = [#x4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<@B@x2x6x6xf32>) outs(%e1 : tensor<@B@x2x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %gt = arith.cmpf ugt, %in, %zero : f32
    %r = arith.select %gt, %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<@B@x2x6x6xf32>
  // conv3x3 (2 -> 2) on the input padded by 1, as torch-mlir pads it.
  %p = tensor.pad %r1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<@B@x2x6x6xf32> to tensor<@B@x2x8x8xf32>
  %i2 = linalg.generic {indexing_maps = [#bias, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b2 : tensor<2xf32>) outs(%e1 : tensor<@B@x2x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<@B@x2x6x6xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p, %w2 : tensor<@B@x2x8x8xf32>, tensor<2x2x3x3xf32>) outs(%i2 : tensor<@B@x2x6x6xf32>) -> tensor<@B@x2x6x6xf32>
  %r2 = linalg.generic {indexing_maps = [#x4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2 : tensor<@B@x2x6x6xf32>) outs(%e1 : tensor<@B@x2x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %gt = arith.cmpf ugt, %in, %zero : f32
    %r = arith.select %gt, %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<@B@x2x6x6xf32>
  // conv1x1 (2 -> 4), batch norm (eval: per-channel scale and shift),
  // the residual and relu.
  %e3 = tensor.empty() : tensor<@B@x4x6x6xf32>
  %i3 = linalg.generic {indexing_maps = [#bias, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b3 : tensor<4xf32>) outs(%e3 : tensor<@B@x4x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<@B@x4x6x6xf32>
  %c3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%r2, %w3 : tensor<@B@x2x6x6xf32>, tensor<4x2x1x1xf32>) outs(%i3 : tensor<@B@x4x6x6xf32>) -> tensor<@B@x4x6x6xf32>
  %y = linalg.generic {indexing_maps = [#x4, #bias, #bias, #x4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c3, %bn_scale, %bn_shift, %x : tensor<@B@x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<@B@x4x6x6xf32>) outs(%e3 : tensor<@B@x4x6x6xf32>) {
  ^bb0(%c: f32, %s: f32, %t: f32, %res: f32, %out: f32):
    %n = arith.mulf %c, %s : f32
    %b = arith.addf %n, %t : f32
    %a = arith.addf %b, %res : f32
    %gt = arith.cmpf ugt, %a, %zero : f32
    %r = arith.select %gt, %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<@B@x4x6x6xf32>
  return %y : tensor<@B@x4x6x6xf32>
}
