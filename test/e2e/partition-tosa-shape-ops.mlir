// TOSA's data movement ops as TFLite's TOSA form writes them around a
// convolution: tosa.pad of the spatial dims, tosa.slice of rows and
// channels, tosa.tile of the channels, the batch cut on every rank and
// left alone by each: nothing moves, each rank pads (a tensor.pad of its
// block), slices (a tensor.extract_slice of its block) and tiles its own
// images. @cut_sliced:
// a tensor cut along the dim a slice takes part of is moved first (to rows:
// the all_to_all of the other rank's columns of this rank's rows, 2 x 4 f32
// = 32 B per rank on 2 ranks), then sliced. Every element checked against
// the unpartitioned program on 2, 3 (batch 5: 2, 2, 1) and 4 ranks.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g; s/@B@/4/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry shape_ops,cut_sliced --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: sed -e 's/@N@/3/g; s/@B@/5/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry shape_ops --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: shard-opt %t.3.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// RUN: sed -e 's/@N@/4/g; s/@B@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry shape_ops --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// NP2: shard-run: @cut_sliced: rank 0: OK, 10 elements checked, received 32 bytes
// NP2-NEXT: shard-run: @cut_sliced: rank 1: OK, 10 elements checked, received 32 bytes
// NP2-NEXT: shard-run: @shape_ops: rank 0: OK, 576 elements checked, received 0 bytes
// NP2-NEXT: shard-run: @shape_ops: rank 1: OK, 576 elements checked, received 0 bytes
// NP3: shard-run: rank 0: OK, 576 elements checked, received 0 bytes
// NP3-NEXT: shard-run: rank 1: OK, 576 elements checked, received 0 bytes
// NP3-NEXT: shard-run: rank 2: OK, 288 elements checked, received 0 bytes
// NP4: shard-run: rank 0: OK, 288 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 1: OK, 288 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 2: OK, 288 elements checked, received 0 bytes
// NP4-NEXT: shard-run: rank 3: OK, 288 elements checked, received 0 bytes
// LOCAL-LABEL: func.func @shape_ops
// LOCAL-NOT: shard.spmd.{{all_|exchange|scatter|gather}}
// (tosa.pad of a constant padding is partitioned as a tensor.pad, the value
// its pad_const's element.)
// LOCAL: %[[V:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<1xf32>
// LOCAL: tensor.pad %{{.*}} low[0, 1, 2, 0] high[0, 2, 1, 0]
// LOCAL: tensor.yield %[[V]] : f32
// LOCAL-NEXT: } : tensor<?x5x5x6xf32> to tensor<?x8x8x6xf32>
// LOCAL: tensor.extract_slice %{{.*}}[0, 1, 0, 2] [%{{.*}}, 6, 8, 3] [1, 1, 1, 1] : tensor<?x8x8x6xf32> to tensor<?x6x8x3xf32>
// LOCAL: tosa.tile %{{.*}}, %{{.*}} : (tensor<?x6x8x3xf32>, !tosa.shape<4>) -> tensor<?x6x8x6xf32>
// LOCAL-LABEL: func.func @cut_sliced
// LOCAL: shard.spmd.all_to_all
// LOCAL: tensor.extract_slice

#m = #shard.mesh<shape = [@N@]>
func.func @shape_ops(%x: tensor<@B@x5x5x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<@B@x6x8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 2, 2, 1, 0, 0]> : tensor<8xindex>} : () -> !tosa.shape<8>
  %pc = "tosa.const"() <{values = dense<0.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = tosa.pad %x, %padding, %pc : (tensor<@B@x5x5x6xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<@B@x8x8x6xf32>
  %start = tosa.const_shape {values = dense<[0, 1, 0, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %size = tosa.const_shape {values = dense<[@B@, 6, 8, 3]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s = tosa.slice %p, %start, %size : (tensor<@B@x8x8x6xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<@B@x6x8x3xf32>
  %mult = tosa.const_shape {values = dense<[1, 1, 1, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %t = tosa.tile %s, %mult : (tensor<@B@x6x8x3xf32>, !tosa.shape<4>) -> tensor<@B@x6x8x6xf32>
  return %t : tensor<@B@x6x8x6xf32>
}
func.func @cut_sliced(%x: tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<4x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %start = tosa.const_shape {values = dense<[0, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[4, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s = tosa.slice %x, %start, %size : (tensor<4x8xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<4x5xf32>
  return %s : tensor<4x5xf32>
}
