// A TOSA convolution block as TFLite- and TorchDynamo-based ingress write
// it (NHWC): tosa.conv2d with a bias, tosa.clamp, max and average pooling,
// tosa.concat of the two along channels, tosa.reverse along H, and
// tosa.argmax over channels. The batch is cut on dp, the weights and bias
// on their output channels on tp: the convolution runs on each rank's
// images and channels (nothing moves into it); pooling keeps channels cut;
// argmax and concat need every channel, reverse cuts nothing it reverses.
// Every element checked against the unpartitioned program:
// - 8 channels on a 2x2 mesh: the cheapest modelled plan gathers the
//   clamped convolution's other 4 channels once (one message: 2 x 6 x 6 x
//   4 f32 = 1152 B per rank) rather than pooling cut and gathering both
//   poolings (two messages, 576 B) or the weights and bias (two, 448 B).
//   With alpha-us=0 (bytes only) it gathers the weights and bias (4 x 3 x
//   3 x 3 + 4 f32 = 448 B per rank) and every rank convolves all channels.
// - 5 channels (3 and 2 per tp rank, uneven): each rank's convolution and
//   pooling run on its channels grown to 3 with zeros (TOSA's lowering
//   takes no dynamic channel count), the grown ones dropped; the gather
//   brings 2 x 6 x 6 x (5 - own) f32: 576 B and 864 B. On a 1x3 mesh
//   (channels 2, 2, 1; the batch of 4 whole): 4 x 6 x 6 x (5 - own) f32,
//   1728 B and 2304 B.
// - @pool: max and average pooling of channels cut unevenly (5 on 2 ranks:
//   each rank's grown to 3), nothing moved; @tconv (tosa.transpose_conv2d,
//   lowered through TOSA's optional decompositions) and @c3 (tosa.conv3d):
//   the images on dp, the output channels on tp, nothing moved.
// REQUIRES: mpi
// RUN: sed -e 's/@DP@/2/g; s/@TP@/2/g; s/@C2@/16/g; s/@C@/8/g' %s > %t.8.mlir
// RUN: %mpirun -np 4 %shard-run %t.8.mlir --entry cnn --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=EVEN
// RUN: %mpirun -np 4 %shard-run %t.8.mlir --entry cnn --check --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=BYTES
// RUN: shard-opt %t.8.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// RUN: sed -e 's/@DP@/2/g; s/@TP@/2/g; s/@C2@/10/g; s/@C@/5/g' %s > %t.5.mlir
// RUN: %mpirun -np 4 %shard-run %t.5.mlir --entry cnn --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=UNEVEN
// RUN: shard-opt %t.5.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=GROWN
// RUN: sed -e 's/@DP@/1/g; s/@TP@/3/g; s/@C2@/10/g; s/@C@/5/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry cnn --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// EVEN: shard-run: rank 0: OK, 162 elements checked, received 1152 bytes
// EVEN-NEXT: shard-run: rank 1: OK, 162 elements checked, received 1152 bytes
// EVEN-NEXT: shard-run: rank 2: OK, 162 elements checked, received 1152 bytes
// EVEN-NEXT: shard-run: rank 3: OK, 162 elements checked, received 1152 bytes
// BYTES: shard-run: rank 0: OK, 162 elements checked, received 448 bytes
// BYTES-NEXT: shard-run: rank 1: OK, 162 elements checked, received 448 bytes
// BYTES-NEXT: shard-run: rank 2: OK, 162 elements checked, received 448 bytes
// BYTES-NEXT: shard-run: rank 3: OK, 162 elements checked, received 448 bytes
// LOCAL: tosa.conv2d %arg0, %arg1, %arg2, {{.*}} : (tensor<2x6x6x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x6x6x4xf32>
// LOCAL-NEXT: tosa.clamp {{.*}} -> tensor<2x6x6x4xf32>
// LOCAL-NEXT: shard.spmd.all_gather {{.*}} over axes [1] dim 3
// LOCAL-NOT: shard.spmd.{{all_|exchange|scatter|gather}}
// LOCAL: tosa.max_pool2d {{.*}} -> tensor<2x3x3x8xf32>
// UNEVEN: shard-run: rank 0: OK, 108 elements checked, received 576 bytes
// UNEVEN-NEXT: shard-run: rank 1: OK, 108 elements checked, received 864 bytes
// UNEVEN-NEXT: shard-run: rank 2: OK, 108 elements checked, received 576 bytes
// UNEVEN-NEXT: shard-run: rank 3: OK, 108 elements checked, received 864 bytes
// GROWN: tensor.pad %arg1 low[0, 0, 0, 0] high[%{{.*}}, 0, 0, 0]
// GROWN: tensor.pad %arg2 low[0] high[%{{.*}}]
// GROWN: tosa.conv2d {{.*}} : (tensor<2x6x6x3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x6x6x3xf32>
// GROWN: tensor.extract_slice {{.*}} : tensor<2x6x6x3xf32> to tensor<2x6x6x?xf32>
// RUN: %mpirun -np 4 %shard-run %t.5.mlir --entry pool --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=POOL
// RUN: shard-opt %t.5.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=GROWNPOOL
// POOL: shard-run: rank 0: OK, 108 elements checked, received 0 bytes
// POOL-NEXT: shard-run: rank 1: OK, 72 elements checked, received 0 bytes
// POOL-NEXT: shard-run: rank 2: OK, 108 elements checked, received 0 bytes
// POOL-NEXT: shard-run: rank 3: OK, 72 elements checked, received 0 bytes
// GROWNPOOL-LABEL: func.func @pool
// GROWNPOOL: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 0, %{{.*}}]
// GROWNPOOL: tosa.max_pool2d {{.*}} : (tensor<2x6x6x3xf32>) -> tensor<2x3x3x3xf32>
// GROWNPOOL: tensor.extract_slice {{.*}} : tensor<2x3x3x3xf32> to tensor<2x3x3x?xf32>
// GROWNPOOL: tosa.avg_pool2d {{.*}} -> tensor<2x3x3x3xf32>
// GROWNPOOL: tensor.extract_slice {{.*}} : tensor<2x3x3x3xf32> to tensor<2x3x3x?xf32>
// GROWNPOOL-NOT: shard.spmd.{{all_|exchange|scatter|gather}}
// RUN: %mpirun -np 4 %shard-run %t.5.mlir --entry tconv,c3 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MORE
// MORE: shard-run: @c3: rank 0: OK, 96 elements checked, received 0 bytes
// MORE-NEXT: shard-run: @c3: rank 1: OK, 64 elements checked, received 0 bytes
// MORE-NEXT: shard-run: @c3: rank 2: OK, 96 elements checked, received 0 bytes
// MORE-NEXT: shard-run: @c3: rank 3: OK, 64 elements checked, received 0 bytes
// MORE-NEXT: shard-run: @tconv: rank 0: OK, 108 elements checked, received 0 bytes
// MORE-NEXT: shard-run: @tconv: rank 1: OK, 72 elements checked, received 0 bytes
// MORE-NEXT: shard-run: @tconv: rank 2: OK, 108 elements checked, received 0 bytes
// MORE-NEXT: shard-run: @tconv: rank 3: OK, 72 elements checked, received 0 bytes
// NP3: shard-run: rank 0: OK, 180 elements checked, received 1728 bytes
// NP3-NEXT: shard-run: rank 1: OK, 180 elements checked, received 1728 bytes
// NP3-NEXT: shard-run: rank 2: OK, 108 elements checked, received 2304 bytes

#m = #shard.mesh<shape = [@DP@, @TP@], axes = ["dp", "tp"]>
func.func @cnn(%x: tensor<4x6x6x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>},
               %w: tensor<@C@x3x3x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>},
               %b: tensor<@C@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>})
    -> (tensor<4x3x3x@C2@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(3)]>},
        tensor<4x3x3xi32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<4x6x6x3xf32>, tensor<@C@x3x3x3xf32>, tensor<@C@xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x6x6x@C@xf32>
  %r = tosa.clamp %c {max_val = 40.0 : f32, min_val = -20.0 : f32} : (tensor<4x6x6x@C@xf32>) -> tensor<4x6x6x@C@xf32>
  %p = tosa.max_pool2d %r {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<4x6x6x@C@xf32>) -> tensor<4x3x3x@C@xf32>
  %a = tosa.avg_pool2d %r, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<4x6x6x@C@xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x3x3x@C@xf32>
  %cat = tosa.concat %p, %a {axis = 3 : i32} : (tensor<4x3x3x@C@xf32>, tensor<4x3x3x@C@xf32>) -> tensor<4x3x3x@C2@xf32>
  %rev = tosa.reverse %cat {axis = 1 : i32} : (tensor<4x3x3x@C2@xf32>) -> tensor<4x3x3x@C2@xf32>
  %am = tosa.argmax %p {axis = 3 : i32} : (tensor<4x3x3x@C@xf32>) -> tensor<4x3x3xi32>
  return %rev, %am : tensor<4x3x3x@C2@xf32>, tensor<4x3x3xi32>
}

func.func @pool(%x: tensor<4x6x6x@C@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(3)]>})
    -> (tensor<4x3x3x@C@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(3)]>},
        tensor<4x3x3x@C@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(3)]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<4x6x6x@C@xf32>) -> tensor<4x3x3x@C@xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<4x6x6x@C@xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x3x3x@C@xf32>
  return %p, %a : tensor<4x3x3x@C@xf32>, tensor<4x3x3x@C@xf32>
}

func.func @tconv(%x: tensor<2x4x4x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>},
                 %w: tensor<@C@x3x3x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>},
                 %b: tensor<@C@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>})
    -> (tensor<2x6x6x@C@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(3)]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x4x4x3xf32>, tensor<@C@x3x3x3xf32>, tensor<@C@xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x6x6x@C@xf32>
  return %c : tensor<2x6x6x@C@xf32>
}
func.func @c3(%x: tensor<2x3x4x4x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>},
              %w: tensor<@C@x2x3x3x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>},
              %b: tensor<@C@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>})
    -> (tensor<2x2x4x4x@C@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(4)]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv3d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 1, 1, 1, 1>, stride = array<i64: 1, 1, 1>} : (tensor<2x3x4x4x3xf32>, tensor<@C@x2x3x3x3xf32>, tensor<@C@xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x2x4x4x@C@xf32>
  return %c : tensor<2x2x4x4x@C@xf32>
}
