// tosa.resize and tosa.scatter have rules: the images and channels of a
// resize, the batch and channels of a scatter, are cut and stay cut,
// nothing moved (TFLite's upsampling and torch's index_put in TOSA form
// under data parallelism); channels cut unevenly are resized grown to the
// largest block (TOSA's lowering takes no channel count of run-time size)
// and the grown ones dropped; a resize of cut image rows moves them first
// (each image is resampled whole). Every element checked against the
// program as written on 2, 3 and 4 ranks (uneven, torch.chunk's: 4 images
// or channels on 3 ranks are 2, 2, 0; 6 channels on 4 are 2, 2, 2, 0).
// REQUIRES: mpi
// RUN: sed 's/@N@/2/' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry nearest,bilinear,channels,image_rows,scatter_batch,scatter_channels --check 2>&1 | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: sed 's/@N@/3/' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry nearest,bilinear,channels,image_rows,scatter_batch,scatter_channels --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: sed 's/@N@/4/' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry nearest,bilinear,channels,image_rows,scatter_batch,scatter_channels --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=GROWN
// NP2-COUNT-2: shard-run: @nearest: rank {{[0-9]}}: OK, 150 elements checked, received 0 bytes
// NP2-COUNT-2: shard-run: @bilinear: rank {{[0-9]}}: OK, 150 elements checked, received 0 bytes
// NP2-COUNT-2: shard-run: @channels: rank {{[0-9]}}: OK, 150 elements checked, received 0 bytes
// NP2-COUNT-2: shard-run: @image_rows: rank {{[0-9]}}: OK, 150 elements checked, received {{[1-9][0-9]*}} bytes
// NP2-COUNT-2: shard-run: @scatter_batch: rank {{[0-9]}}: OK, 30 elements checked, received 0 bytes
// NP2-COUNT-2: shard-run: @scatter_channels: rank {{[0-9]}}: OK, 40 elements checked, received 0 bytes
// NP3: @bilinear: rank 0: OK, 150 elements checked, received 0 bytes
// NP3: @bilinear: rank 1: OK, 150 elements checked, received 0 bytes
// NP3: @bilinear: rank 2: OK, 0 elements checked, received 0 bytes
// NP3: @channels: rank 0: OK, 100 elements checked, received 0 bytes
// NP3: @channels: rank 1: OK, 100 elements checked, received 0 bytes
// NP3: @channels: rank 2: OK, 100 elements checked, received 0 bytes
// NP3: @image_rows: rank 0: OK, 150 elements checked, received {{[1-9][0-9]*}} bytes
// NP3: @image_rows: rank 1: OK, 150 elements checked, received {{[1-9][0-9]*}} bytes
// NP3: @image_rows: rank 2: OK, 0 elements checked, received 0 bytes
// NP3: @nearest: rank 0: OK, 150 elements checked, received 0 bytes
// NP3: @nearest: rank 1: OK, 150 elements checked, received 0 bytes
// NP3: @nearest: rank 2: OK, 0 elements checked, received 0 bytes
// NP3: @scatter_batch: rank 0: OK, 30 elements checked, received 0 bytes
// NP3: @scatter_batch: rank 1: OK, 30 elements checked, received 0 bytes
// NP3: @scatter_batch: rank 2: OK, 0 elements checked, received 0 bytes
// NP3: @scatter_channels: rank 0: OK, 40 elements checked, received 0 bytes
// NP3: @scatter_channels: rank 1: OK, 40 elements checked, received 0 bytes
// NP3: @scatter_channels: rank 2: OK, 0 elements checked, received 0 bytes
// NP4: @bilinear: rank 0: OK, 150 elements checked, received 0 bytes
// NP4: @bilinear: rank 1: OK, 150 elements checked, received 0 bytes
// NP4: @bilinear: rank 2: OK, 0 elements checked, received 0 bytes
// NP4: @bilinear: rank 3: OK, 0 elements checked, received 0 bytes
// NP4: @channels: rank 0: OK, 100 elements checked, received 0 bytes
// NP4: @channels: rank 1: OK, 100 elements checked, received 0 bytes
// NP4: @channels: rank 2: OK, 100 elements checked, received 0 bytes
// NP4: @channels: rank 3: OK, 0 elements checked, received 0 bytes
// NP4-COUNT-4: @image_rows: rank {{[0-9]}}: OK, 75 elements checked, received {{[0-9]+}} bytes
// NP4-COUNT-4: @nearest: rank {{[0-9]}}: OK, 75 elements checked, received 0 bytes
// NP4-COUNT-4: @scatter_batch: rank {{[0-9]}}: OK, 15 elements checked, received 0 bytes
// NP4-COUNT-4: @scatter_channels: rank {{[0-9]}}: OK, 20 elements checked, received 0 bytes
// The ops on local blocks, nothing moved but the cut rows:
// IR-LABEL: func.func @nearest
// IR-NOT: over axes
// IR: tosa.resize %arg0, {{.*}} : (tensor<2x3x3x3xf32>, {{.*}}) -> tensor<2x5x5x3xf32>
// IR-LABEL: func.func @bilinear
// IR-NOT: over axes
// IR: tosa.resize %arg0, {{.*}} : (tensor<1x3x3x6xf32>, {{.*}}) -> tensor<1x5x5x6xf32>
// IR-LABEL: func.func @channels
// IR-NOT: over axes
// IR: tosa.resize %arg0, {{.*}} : (tensor<2x3x3x3xf32>, {{.*}}) -> tensor<2x5x5x3xf32>
// 6 channels on 4 ranks (2, 2, 2, 0): each rank's grown to 2, resized,
// cut back to its own.
// GROWN-LABEL: func.func @channels
// GROWN: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 0, %{{.*}}]
// GROWN: tosa.resize %{{.*}} : (tensor<2x3x3x2xf32>, {{.*}}) -> tensor<2x5x5x2xf32>
// GROWN: tensor.extract_slice
// IR-LABEL: func.func @image_rows
// IR: shard.spmd.{{all_to_all|all_gather}} {{.*}}over axes
// IR: tosa.resize
// IR-LABEL: func.func @scatter_batch
// IR-NOT: over axes
// IR: tosa.scatter {{.*}} : (tensor<2x5x3xf32>, tensor<2x2xi32>, tensor<2x2x3xf32>) -> tensor<2x5x3xf32>
// IR-LABEL: func.func @scatter_channels
// IR-NOT: over axes
// IR: tosa.scatter {{.*}} : (tensor<4x5x2xf32>, tensor<4x2xi32>, tensor<4x2x2xf32>) -> tensor<4x5x2xf32>
#m = #shard.mesh<shape = [@N@]>
#N = #shard.placements<mesh = #m, placements = [S(0)]>
#H = #shard.placements<mesh = #m, placements = [S(1)]>
#C = #shard.placements<mesh = #m, placements = [S(3)]>
#C2 = #shard.placements<mesh = #m, placements = [S(2)]>
func.func @nearest(%x: tensor<4x3x3x3xf32> {shard.layout = #N}) -> (tensor<4x5x5x3xf32> {shard.layout = #N}) {
  %scale = tosa.const_shape {values = dense<[4, 2, 4, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %offset = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %border = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.resize %x, %scale, %offset, %border {mode = NEAREST_NEIGHBOR} : (tensor<4x3x3x3xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<4x5x5x3xf32>
  return %r : tensor<4x5x5x3xf32>
}
func.func @bilinear(%x: tensor<2x3x3x6xf32> {shard.layout = #N}) -> (tensor<2x5x5x6xf32> {shard.layout = #N}) {
  %scale = tosa.const_shape {values = dense<[4, 2, 4, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %offset = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %border = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.resize %x, %scale, %offset, %border {mode = BILINEAR} : (tensor<2x3x3x6xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x5x5x6xf32>
  return %r : tensor<2x5x5x6xf32>
}
func.func @channels(%x: tensor<2x3x3x6xf32> {shard.layout = #C}) -> (tensor<2x5x5x6xf32> {shard.layout = #C}) {
  %scale = tosa.const_shape {values = dense<[4, 2, 4, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %offset = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %border = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.resize %x, %scale, %offset, %border {mode = BILINEAR} : (tensor<2x3x3x6xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x5x5x6xf32>
  return %r : tensor<2x5x5x6xf32>
}
func.func @image_rows(%x: tensor<4x3x3x3xf32> {shard.layout = #H}) -> (tensor<4x5x5x3xf32> {shard.layout = #N}) {
  %scale = tosa.const_shape {values = dense<[4, 2, 4, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %offset = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %border = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.resize %x, %scale, %offset, %border {mode = NEAREST_NEIGHBOR} : (tensor<4x3x3x3xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<4x5x5x3xf32>
  return %r : tensor<4x5x5x3xf32>
}
func.func @scatter_batch(%values: tensor<4x5x3xf32> {shard.layout = #N}, %input: tensor<4x2x3xf32> {shard.layout = #N}) -> (tensor<4x5x3xf32> {shard.layout = #N}) {
  %idx = "tosa.const"() <{values = dense<[[3, 0], [1, 4], [0, 2], [4, 3]]> : tensor<4x2xi32>}> : () -> tensor<4x2xi32>
  %0 = tosa.scatter %values, %idx, %input : (tensor<4x5x3xf32>, tensor<4x2xi32>, tensor<4x2x3xf32>) -> tensor<4x5x3xf32>
  return %0 : tensor<4x5x3xf32>
}
func.func @scatter_channels(%values: tensor<4x5x4xf32> {shard.layout = #C2}, %input: tensor<4x2x4xf32> {shard.layout = #C2}) -> (tensor<4x5x4xf32> {shard.layout = #C2}) {
  %idx = "tosa.const"() <{values = dense<[[3, 0], [1, 4], [0, 2], [4, 3]]> : tensor<4x2xi32>}> : () -> tensor<4x2xi32>
  %0 = tosa.scatter %values, %idx, %input : (tensor<4x5x4xf32>, tensor<4x2xi32>, tensor<4x2x4xf32>) -> tensor<4x5x4xf32>
  return %0 : tensor<4x5x4xf32>
}
