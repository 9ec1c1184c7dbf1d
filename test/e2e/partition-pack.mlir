// linalg.pack and linalg.unpack (data tiling: IREE's encodings materialize
// as them) have a rule (rules/PackRules.cpp): a dim they do not tile is
// cut alike on both sides (a batch dim stays where it is: nothing moves),
// a tiled dim is whole (its elements interleave outer and tile positions).
// Before: "'linalg.pack' op has no sharding rule". Every element checked on
// 2 and 3 ranks (3: batches of 2, 2 and 1 of @batched's 5); a batch of
// run-time size.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry batched --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=BATCH2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry padded --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=PAD2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry dyn --dynamic-size=5 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DYN2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry dynsrc --dynamic-size=6 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DSRC2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry unit --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=UNIT2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry dyn --dynamic-size=7 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DYN3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry batched --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=BATCH3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry padded --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=PAD3
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// @batched: packed, doubled, unpacked, each rank on its own batches.
// BATCH2: shard-run: rank 0: OK, 144 elements checked, received 0 bytes
// BATCH2-NEXT: shard-run: rank 1: OK, 96 elements checked, received 0 bytes
// BATCH3: shard-run: rank 0: OK, 96 elements checked, received 0 bytes
// BATCH3-NEXT: shard-run: rank 1: OK, 96 elements checked, received 0 bytes
// BATCH3-NEXT: shard-run: rank 2: OK, 48 elements checked, received 0 bytes
// @padded: rows tiled by 4 (7 rows: the last tile padded) and column
// tiles outer, the result cut on them: the argument's rows, cut, are
// exchanged for its columns (one all_to_all: 3 rows of 3 columns to rank 0
// on 2 ranks), then each rank packs its columns.
// PAD2: shard-run: rank 0: OK, 24 elements checked, received 36 bytes
// PAD2-NEXT: shard-run: rank 1: OK, 24 elements checked, received 48 bytes
// PAD3: shard-run: rank 0: OK, 16 elements checked, received 32 bytes
// PAD3-NEXT: shard-run: rank 1: OK, 16 elements checked, received 32 bytes
// PAD3-NEXT: shard-run: rank 2: OK, 16 elements checked, received 48 bytes
// @dyn: a batch of run-time size (5 and 7 rows), each rank packing its
// own rows.
// DYN2: shard-run: rank 0: OK, 24 elements checked, received 0 bytes
// DYN2-NEXT: shard-run: rank 1: OK, 16 elements checked, received 0 bytes
// DYN3: shard-run: rank 0: OK, 24 elements checked, received 0 bytes
// DYN3-NEXT: shard-run: rank 1: OK, 24 elements checked, received 0 bytes
// DYN3-NEXT: shard-run: rank 2: OK, 8 elements checked, received 0 bytes
// @dynsrc: an unpack of a packed tensor of run-time size into a static
// one, its column tiles truncated (7 of 8): the loop's size taken from the
// dest (before: refused, "has a sharding rule whose loop d0 of size ...
// indexes dim 0 of operand #1"); each rank unpacks its own rows.
// DSRC2: shard-run: rank 0: OK, 21 elements checked, received 0 bytes
// DSRC2-NEXT: shard-run: rank 1: OK, 21 elements checked, received 0 bytes
// @unit: columns cut one per rank, rows unpacked from one tile of 4: each
// rank's unpack has outer dims of 1 only (lowered by upstream's pattern
// for that case: lowerUnPack's slice there read the tile in the wrong
// order, "slice along dimension 1 runs out-of-bounds").
// UNIT2: shard-run: rank 0: OK, 4 elements checked, received 0 bytes
// UNIT2-NEXT: shard-run: rank 1: OK, 4 elements checked, received 0 bytes
// IR-LABEL: func.func @batched
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: linalg.pack %arg0 inner_dims_pos = [1, 2] inner_tiles = [4, 2] into %{{.*}} : tensor<?x8x6xf32> -> tensor<?x2x3x4x2xf32>
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: linalg.unpack
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR-LABEL: func.func @padded
// IR: %[[C:.*]] = shard.spmd.all_to_all %arg0 over axes [0] split 1 concat 0
// IR: linalg.pack %[[C]] padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [4] into %{{.*}} : tensor<7x3xf32> -> tensor<3x2x4xf32>

#m = #shard.mesh<shape = [@N@]>
#batch = #shard.placements<mesh = #m, placements = [S(0)]>

func.func @batched(%x: tensor<5x8x6xf32> {shard.layout = #batch})
    -> (tensor<5x8x6xf32> {shard.layout = #batch}) {
  %e = tensor.empty() : tensor<5x2x3x4x2xf32>
  %p = linalg.pack %x inner_dims_pos = [1, 2] inner_tiles = [4, 2] into %e : tensor<5x8x6xf32> -> tensor<5x2x3x4x2xf32>
  %d = arith.addf %p, %p : tensor<5x2x3x4x2xf32>
  %u0 = tensor.empty() : tensor<5x8x6xf32>
  %u = linalg.unpack %d inner_dims_pos = [1, 2] inner_tiles = [4, 2] into %u0 : tensor<5x2x3x4x2xf32> -> tensor<5x8x6xf32>
  return %u : tensor<5x8x6xf32>
}

// Rows tiled by 4 with the outer dims swapped (columns first).
func.func @padded(%x: tensor<7x6xf32> {shard.layout = #batch})
    -> (tensor<6x2x4xf32> {shard.layout = #batch}) {
  %zero = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<6x2x4xf32>
  %p = linalg.pack %x padding_value(%zero : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [4] into %e : tensor<7x6xf32> -> tensor<6x2x4xf32>
  return %p : tensor<6x2x4xf32>
}

func.func @dyn(%x: tensor<?x8xf32> {shard.layout = #batch})
    -> (tensor<?x2x4xf32> {shard.layout = #batch}) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x2x4xf32>
  %p = linalg.pack %x inner_dims_pos = [1] inner_tiles = [4] into %e : tensor<?x8xf32> -> tensor<?x2x4xf32>
  return %p : tensor<?x2x4xf32>
}

func.func @dynsrc(%x: tensor<?x2x4xf32> {shard.layout = #batch})
    -> (tensor<6x7xf32> {shard.layout = #batch}) {
  %e = tensor.empty() : tensor<6x7xf32>
  %u = linalg.unpack %x inner_dims_pos = [1] inner_tiles = [4] into %e : tensor<?x2x4xf32> -> tensor<6x7xf32>
  return %u : tensor<6x7xf32>
}

func.func @unit(%x: tensor<1x2x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<4x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %e = tensor.empty() : tensor<4x2xf32>
  %u = linalg.unpack %x inner_dims_pos = [0] inner_tiles = [4] into %e : tensor<1x2x4xf32> -> tensor<4x2xf32>
  return %u : tensor<4x2xf32>
}
