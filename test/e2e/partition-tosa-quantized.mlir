// An int8 convolution as TFLite's TOSA form writes it: tosa.conv2d of i8
// images and weights with zero points into i32 (bias i32), then per-channel
// requantization (tosa.rescale: one multiplier and shift per output
// channel), a lookup table (tosa.table, an activation) and tosa.cast to
// f32; beside it the square of the accumulator through tosa.mul with a
// shift (which lowers to tosa.apply_scale, as rescale does). The batch is
// cut on dp and the output channels on tp, with the weights, bias and each
// channel's scales: nothing moves (0 B). 5 channels: 3 and 2 per rank on
// tp = 2, 2, 2 and 1 on tp = 3 (each rank's convolution grown to the
// largest block, the grown channels dropped). Every element checked
// against the unpartitioned program.
// REQUIRES: mpi
// RUN: sed -e 's/@DP@/2/g; s/@TP@/2/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry qcnn --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// RUN: sed -e 's/@DP@/1/g; s/@TP@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry qcnn --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: sed -e 's/@DP@/2/g; s/@TP@/1/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry qcnn --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// NP4: shard-run: rank 0: OK, 300 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 1: OK, 200 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 2: OK, 300 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 3: OK, 200 elements checked, received 0 bytes
// NP3: shard-run: rank 0: OK, 400 elements checked, received 0 bytes
// NP3-NEXT: shard-run: rank 1: OK, 400 elements checked, received 0 bytes
// NP3-NEXT: shard-run: rank 2: OK, 200 elements checked, received 0 bytes
// NP2: shard-run: rank 0: OK, 500 elements checked, received 0 bytes
// NP2-NEXT: shard-run: rank 1: OK, 500 elements checked, received 0 bytes
// LOCAL-NOT: shard.spmd.{{all_|exchange|scatter|gather}}
// LOCAL: tosa.conv2d {{.*}} : (tensor<2x5x5x3xi8>, tensor<3x3x3x3xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x5x5x3xi32>
// LOCAL: tosa.mul {{.*}} -> tensor<2x5x5x?xi32>
// LOCAL: tosa.rescale {{.*}} : (tensor<2x5x5x?xi32>, tensor<?xi32>, tensor<?xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<2x5x5x?xi8>
// LOCAL: tosa.table {{.*}} : (tensor<2x5x5x?xi8>, tensor<256xi8>) -> tensor<2x5x5x?xi8>
// LOCAL: tosa.cast {{.*}} -> tensor<2x5x5x?xf32>
// LOCAL-NOT: shard.spmd.{{all_|exchange|scatter|gather}}
#m = #shard.mesh<shape = [@DP@, @TP@], axes = ["dp", "tp"]>
func.func @qcnn(%x: tensor<4x5x5x3xi8> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>},
                %w: tensor<5x3x3x3xi8> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>},
                %b: tensor<5xi32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>})
    -> (tensor<4x5x5x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(3)]>},
        tensor<4x5x5x5xi32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(3)]>}) {
  %izp = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<4x5x5x3xi8>, tensor<5x3x3x3xi8>, tensor<5xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<4x5x5x5xi32>
  %shift = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sq = tosa.mul %c, %c, %shift : (tensor<4x5x5x5xi32>, tensor<4x5x5x5xi32>, tensor<1xi8>) -> tensor<4x5x5x5xi32>
  %mult = "tosa.const"() <{values = dense<[1073741824, 1197198613, 1320655402, 1444112191, 1567568980]> : tensor<5xi32>}> : () -> tensor<5xi32>
  %sh = "tosa.const"() <{values = dense<[30, 31, 32, 33, 34]> : tensor<5xi8>}> : () -> tensor<5xi8>
  %rzp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.rescale %c, %mult, %sh, %rzp, %ozp {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = true, input_unsigned = false, output_unsigned = false} : (tensor<4x5x5x5xi32>, tensor<5xi32>, tensor<5xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<4x5x5x5xi8>
  %tab = "tosa.const"() <{values = dense<[-128, -91, -54, -17, 20, 57, 94, -125, -88, -51, -14, 23, 60, 97, -122, -85, -48, -11, 26, 63, 100, -119, -82, -45, -8, 29, 66, 103, -116, -79, -42, -5, 32, 69, 106, -113, -76, -39, -2, 35, 72, 109, -110, -73, -36, 1, 38, 75, 112, -107, -70, -33, 4, 41, 78, 115, -104, -67, -30, 7, 44, 81, 118, -101, -64, -27, 10, 47, 84, 121, -98, -61, -24, 13, 50, 87, 124, -95, -58, -21, 16, 53, 90, 127, -92, -55, -18, 19, 56, 93, -126, -89, -52, -15, 22, 59, 96, -123, -86, -49, -12, 25, 62, 99, -120, -83, -46, -9, 28, 65, 102, -117, -80, -43, -6, 31, 68, 105, -114, -77, -40, -3, 34, 71, 108, -111, -74, -37, 0, 37, 74, 111, -108, -71, -34, 3, 40, 77, 114, -105, -68, -31, 6, 43, 80, 117, -102, -65, -28, 9, 46, 83, 120, -99, -62, -25, 12, 49, 86, 123, -96, -59, -22, 15, 52, 89, 126, -93, -56, -19, 18, 55, 92, -127, -90, -53, -16, 21, 58, 95, -124, -87, -50, -13, 24, 61, 98, -121, -84, -47, -10, 27, 64, 101, -118, -81, -44, -7, 30, 67, 104, -115, -78, -41, -4, 33, 70, 107, -112, -75, -38, -1, 36, 73, 110, -109, -72, -35, 2, 39, 76, 113, -106, -69, -32, 5, 42, 79, 116, -103, -66, -29, 8, 45, 82, 119, -100, -63, -26, 11, 48, 85, 122, -97, -60, -23, 14, 51, 88, 125, -94, -57, -20, 17, 54, 91]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %t = tosa.table %r, %tab : (tensor<4x5x5x5xi8>, tensor<256xi8>) -> tensor<4x5x5x5xi8>
  %f = tosa.cast %t : (tensor<4x5x5x5xi8>) -> tensor<4x5x5x5xf32>
  return %f, %sq : tensor<4x5x5x5xf32>, tensor<4x5x5x5xi32>
}
