// Unit dims, empty blocks and ranks a layout does not name (issue 41, item 2
// and the refusals it lists), every element of every result checked on
// every rank against the program as written:
// - @ins: a rank-reducing insert_slice of a tensor<1xf32> cut S(0) (one rank
//   holds the element, the others empty blocks) into column 6 of a
//   tensor<1x8xf32> cut S(1). The op's rule dropped dest dim 0 (MLIR's
//   getDroppedDims) while its partition dropped dim 1, so nothing moved and
//   the rank holding column 6 sliced an element out of its empty block
//   (MISMATCH at [0, 6], found twice by random programs); @ins3 in 3-D;
//   @ins2 (a 2x8 destination) was right;
// - @enum_to_chunk: the whole tensor<1xf32> on rank 0 (an enumerable
//   layout) moved to a chunk layout over 3 ranks (sizes 1, 0, 0): it was
//   cast, and ranks 1 and 2 returned a 1-element block of undefined
//   contents;
// - @extract_enumerable, @extract_two_chunks_one_rank: a scalar read with
//   tensor.extract from an enumerable layout or one with several blocks on
//   a rank: partition refused ("has no tensor with a mesh layout");
// - @slice_subset: a slice along the cut dim on a mesh of ranks 1 and 2 of
//   3 (rank 0 outside the mesh takes an empty part): partition built an
//   extract_slice the verifier refused ("size mismatch").
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry ins,ins3 --check > %t.run3 2>&1
// RUN: not grep "error:" %t.run3
// RUN: %entry-lines ins %t.run3 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK4
// RUN: %entry-lines ins3 %t.run3 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK4
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry ins,ins2,ins3,extract_enumerable,extract_two_chunks_one_rank --check > %t.run1 2>&1
// RUN: not grep "error:" %t.run1
// RUN: %entry-lines ins %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK2
// RUN: %entry-lines ins2 %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK2
// RUN: %entry-lines ins3 %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK2
// RUN: %entry-lines extract_enumerable %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK2
// RUN: %entry-lines extract_two_chunks_one_rank %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK2
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry ins,ins3,enum_to_chunk,slice_subset --check > %t.run2 2>&1
// RUN: not grep "error:" %t.run2
// RUN: %entry-lines ins %t.run2 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK3
// RUN: %entry-lines ins3 %t.run2 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK3
// RUN: %entry-lines enum_to_chunk %t.run2 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK3
// RUN: %entry-lines slice_subset %t.run2 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK3
// OK2: shard-run: rank 0: OK
// OK2-NEXT: shard-run: rank 1: OK
// OK3: shard-run: rank 0: OK
// OK3-NEXT: shard-run: rank 1: OK
// OK3-NEXT: shard-run: rank 2: OK
// OK4: shard-run: rank 0: OK
// OK4-NEXT: shard-run: rank 1: OK
// OK4-NEXT: shard-run: rank 2: OK
// OK4-NEXT: shard-run: rank 3: OK

#m = #shard.mesh<shape = [@N@]>
func.func @ins(%src: tensor<1xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
               %dst: tensor<1x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<1x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %r = tensor.insert_slice %src into %dst[0, 6] [1, 1] [1, 1] : tensor<1xf32> into tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}
func.func @ins2(%src: tensor<1xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                %dst: tensor<2x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<2x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %r = tensor.insert_slice %src into %dst[1, 6] [1, 1] [1, 1] : tensor<1xf32> into tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}
func.func @ins3(%src: tensor<1x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                %dst: tensor<1x4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<1x4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %r = tensor.insert_slice %src into %dst[0, 3, 2] [1, 1, 3] [1, 1, 1] : tensor<1x3xf32> into tensor<1x4x8xf32>
  return %r : tensor<1x4x8xf32>
}

#E1 = #shard.enumerable<[{offsets = [0], sizes = [1], placement = "rank:0"}]>
#C3 = #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2"]>
func.func @enum_to_chunk(%x: tensor<1xf32> {shard.layout = #E1}) -> (tensor<1xf32> {shard.layout = #C3}) {
  return %x : tensor<1xf32>
}

#E2 = #shard.enumerable<[{offsets = [0], sizes = [2], placement = "rank:0"}, {offsets = [2], sizes = [2], placement = "rank:1"}]>
#m2 = #shard.mesh<shape = [2]>
#R2 = #shard.placements<mesh = #m2, placements = [R]>
func.func @extract_enumerable(%x: tensor<4xf32> {shard.layout = #E2}) -> (tensor<2xf32> {shard.layout = #R2}) {
  %c2 = arith.constant 2 : index
  %v = tensor.extract %x[%c2] : tensor<4xf32>
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.fill ins(%v : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func @extract_two_chunks_one_rank(%x: tensor<4xf32> {shard.layout = #shard.chunk<dim = 0, placements = ["rank:0", "rank:0"]>}) -> (tensor<2xf32> {shard.layout = #R2}) {
  %c2 = arith.constant 2 : index
  %v = tensor.extract %x[%c2] : tensor<4xf32>
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.fill ins(%v : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

#sub = #shard.mesh<shape = [2], devices = [1, 2]>
#S0sub = #shard.placements<mesh = #sub, placements = [S(0)]>
func.func @slice_subset(%x: tensor<8x6xf32> {shard.layout = #S0sub}) -> (tensor<6x6xf32> {shard.layout = #S0sub}) {
  %s = tensor.extract_slice %x[1, 0] [6, 6] [1, 1] : tensor<8x6xf32> to tensor<6x6xf32>
  return %s : tensor<6x6xf32>
}
