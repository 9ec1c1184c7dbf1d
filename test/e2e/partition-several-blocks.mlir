// Layouts of several blocks per rank in compute (issue 26, item 1): a fused
// q|k|v projection in Hugging Face's order (columns q | k | v, as GPT-2's
// c_attn), whose weight and bias are laid out per rank as its heads' q, k
// and v (three blocks per rank, torch.chunk's cut of each part: an
// enumerable layout), splits with nothing moved. -shard-propagate computes
// each slice of the projection from the slices of its operands (the matmul,
// the bias broadcast and the add: SliceProducers), and each rank reads the
// block of the weight that holds its part of q, k or v out of its packed
// view (ShardingRuleOpInterface::layoutInPlace); no byte moves, on 4 ranks
// (8 columns per part: 2 each), 3 ranks (10 per part: 4, 4, 2) and 2 ranks.
// Every element of every result checked on every rank.
// @split: the weight itself split: each part's blocks are its S(1) layout.
// @odd: a layout whose slice is not one block per rank (rank 0 holds
//   columns 0-1 and 6-7 of q) is moved first, exactly: to the columns
//   whole (rank 0 lacks 20 columns of 4 rows: 320 B; rank 1 4: 64 B).
// REQUIRES: mpi
// RUN: %mpirun -np 3 %shard-run %s --entry qkv3 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=QKV3
// RUN: %mpirun -np 2 %shard-run %s --entry qkv2,odd --check > %t.run2 2>&1
// RUN: not grep "error:" %t.run2
// RUN: %entry-lines qkv2 %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=QKV2
// RUN: %entry-lines odd %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=ODD
// RUN: %mpirun -np 4 %shard-run %s --entry qkv4,split,row_of_k,through_call --check > %t.run1 2>&1
// RUN: not grep "error:" %t.run1
// RUN: %entry-lines qkv4 %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=QKV4
// RUN: %entry-lines split %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=SPLIT
// RUN: %entry-lines row_of_k %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=ROW
// RUN: %entry-lines through_call %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=CALL
// RUN: shard-opt %s -shard-propagate -shard-spmd-partition 2>&1 | FileCheck %s --check-prefix=LOCAL --implicit-check-not=error:
// QKV4-COUNT-4: OK, 12 elements checked, received 0 bytes
// QKV3: shard-run: rank 0: OK, 24 elements checked, received 0 bytes
// QKV3-NEXT: shard-run: rank 1: OK, 24 elements checked, received 0 bytes
// QKV3-NEXT: shard-run: rank 2: OK, 12 elements checked, received 0 bytes
// QKV2-COUNT-2: OK, 18 elements checked, received 0 bytes
// SPLIT-COUNT-4: OK, 24 elements checked, received 0 bytes
// @through_call: the weight passed to a function that slices it, whose
//   only mesh layout arrives through the call's result: the slice waits
//   for it, then reads the blocks as they are (found by adversarial
//   testing: it was refused).
// CALL-COUNT-4: OK, 8 elements checked, received 0 bytes
// @row_of_k: one row of k (a rank-reducing slice): each rank's block of k
//   holds its part of the row.
// ROW-COUNT-4: OK, 2 elements checked, received 0 bytes
// ODD: shard-run: rank 0: OK, 16 elements checked, received 320 bytes
// ODD-NEXT: shard-run: rank 1: OK, 16 elements checked, received 64 bytes
//
// The local form: three matmuls, each on the block of its part of the
// weight (8 rows x 2 columns on 4 ranks), read from the rank's packed 1-D
// view of its three blocks, and no collective.
// LOCAL-LABEL: func.func @qkv4(
// LOCAL-SAME: tensor<48xf32>
// LOCAL-NOT: shard.spmd
// LOCAL: tensor.extract_slice %arg1[0] [16] [1] : tensor<48xf32> to tensor<16xf32>
// LOCAL: tensor.reshape {{.*}} -> tensor<8x2xf32>
// LOCAL: linalg.matmul {{.*}}ins(%arg0, %{{.*}} : tensor<6x8xf32>, tensor<8x2xf32>)
// LOCAL-NOT: shard.spmd
// LOCAL: tensor.extract_slice %arg1[16] [16] [1] : tensor<48xf32> to tensor<16xf32>
// LOCAL-NOT: shard.spmd
// LOCAL: tensor.extract_slice %arg1[32] [16] [1] : tensor<48xf32> to tensor<16xf32>
// LOCAL-NOT: shard.spmd
// LOCAL: return

#m4 = #shard.mesh<shape = [4], axes = ["tp"]>
#W4 = #shard.enumerable<[
  {offsets = [0, 0], sizes = [8, 2], placement = "rank:0"},
  {offsets = [0, 8], sizes = [8, 2], placement = "rank:0"},
  {offsets = [0, 16], sizes = [8, 2], placement = "rank:0"},
  {offsets = [0, 2], sizes = [8, 2], placement = "rank:1"},
  {offsets = [0, 10], sizes = [8, 2], placement = "rank:1"},
  {offsets = [0, 18], sizes = [8, 2], placement = "rank:1"},
  {offsets = [0, 4], sizes = [8, 2], placement = "rank:2"},
  {offsets = [0, 12], sizes = [8, 2], placement = "rank:2"},
  {offsets = [0, 20], sizes = [8, 2], placement = "rank:2"},
  {offsets = [0, 6], sizes = [8, 2], placement = "rank:3"},
  {offsets = [0, 14], sizes = [8, 2], placement = "rank:3"},
  {offsets = [0, 22], sizes = [8, 2], placement = "rank:3"}]>
#B4 = #shard.enumerable<[
  {offsets = [0], sizes = [2], placement = "rank:0"},
  {offsets = [8], sizes = [2], placement = "rank:0"},
  {offsets = [16], sizes = [2], placement = "rank:0"},
  {offsets = [2], sizes = [2], placement = "rank:1"},
  {offsets = [10], sizes = [2], placement = "rank:1"},
  {offsets = [18], sizes = [2], placement = "rank:1"},
  {offsets = [4], sizes = [2], placement = "rank:2"},
  {offsets = [12], sizes = [2], placement = "rank:2"},
  {offsets = [20], sizes = [2], placement = "rank:2"},
  {offsets = [6], sizes = [2], placement = "rank:3"},
  {offsets = [14], sizes = [2], placement = "rank:3"},
  {offsets = [22], sizes = [2], placement = "rank:3"}]>
func.func @qkv4(%x: tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [R]>},
                %w: tensor<8x24xf32> {shard.layout = #W4},
                %b: tensor<24xf32> {shard.layout = #B4})
    -> (tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %e = tensor.empty() : tensor<6x24xf32>
  %c0 = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<6x24xf32>) -> tensor<6x24xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<6x8xf32>, tensor<8x24xf32>) outs(%z : tensor<6x24xf32>) -> tensor<6x24xf32>
  %bb = linalg.broadcast ins(%b : tensor<24xf32>) outs(%e : tensor<6x24xf32>) dimensions = [0]
  %qkv = linalg.add ins(%mm, %bb : tensor<6x24xf32>, tensor<6x24xf32>) outs(%e : tensor<6x24xf32>) -> tensor<6x24xf32>
  %q = tensor.extract_slice %qkv[0, 0] [6, 8] [1, 1] : tensor<6x24xf32> to tensor<6x8xf32>
  %k = tensor.extract_slice %qkv[0, 8] [6, 8] [1, 1] : tensor<6x24xf32> to tensor<6x8xf32>
  %v = tensor.extract_slice %qkv[0, 16] [6, 8] [1, 1] : tensor<6x24xf32> to tensor<6x8xf32>
  %qk = arith.mulf %q, %k : tensor<6x8xf32>
  %r = arith.addf %qk, %v : tensor<6x8xf32>
  return %r : tensor<6x8xf32>
}

#m3 = #shard.mesh<shape = [3], axes = ["tp"]>
#W3 = #shard.enumerable<[
  {offsets = [0, 0], sizes = [8, 4], placement = "rank:0"},
  {offsets = [0, 10], sizes = [8, 4], placement = "rank:0"},
  {offsets = [0, 20], sizes = [8, 4], placement = "rank:0"},
  {offsets = [0, 4], sizes = [8, 4], placement = "rank:1"},
  {offsets = [0, 14], sizes = [8, 4], placement = "rank:1"},
  {offsets = [0, 24], sizes = [8, 4], placement = "rank:1"},
  {offsets = [0, 8], sizes = [8, 2], placement = "rank:2"},
  {offsets = [0, 18], sizes = [8, 2], placement = "rank:2"},
  {offsets = [0, 28], sizes = [8, 2], placement = "rank:2"}]>
#B3 = #shard.enumerable<[
  {offsets = [0], sizes = [4], placement = "rank:0"},
  {offsets = [10], sizes = [4], placement = "rank:0"},
  {offsets = [20], sizes = [4], placement = "rank:0"},
  {offsets = [4], sizes = [4], placement = "rank:1"},
  {offsets = [14], sizes = [4], placement = "rank:1"},
  {offsets = [24], sizes = [4], placement = "rank:1"},
  {offsets = [8], sizes = [2], placement = "rank:2"},
  {offsets = [18], sizes = [2], placement = "rank:2"},
  {offsets = [28], sizes = [2], placement = "rank:2"}]>
func.func @qkv3(%x: tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [R]>},
                %w: tensor<8x30xf32> {shard.layout = #W3},
                %b: tensor<30xf32> {shard.layout = #B3})
    -> (tensor<6x10xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(1)]>}) {
  %e = tensor.empty() : tensor<6x30xf32>
  %c0 = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<6x30xf32>) -> tensor<6x30xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<6x8xf32>, tensor<8x30xf32>) outs(%z : tensor<6x30xf32>) -> tensor<6x30xf32>
  %bb = linalg.broadcast ins(%b : tensor<30xf32>) outs(%e : tensor<6x30xf32>) dimensions = [0]
  %qkv = linalg.add ins(%mm, %bb : tensor<6x30xf32>, tensor<6x30xf32>) outs(%e : tensor<6x30xf32>) -> tensor<6x30xf32>
  %q = tensor.extract_slice %qkv[0, 0] [6, 10] [1, 1] : tensor<6x30xf32> to tensor<6x10xf32>
  %k = tensor.extract_slice %qkv[0, 10] [6, 10] [1, 1] : tensor<6x30xf32> to tensor<6x10xf32>
  %v = tensor.extract_slice %qkv[0, 20] [6, 10] [1, 1] : tensor<6x30xf32> to tensor<6x10xf32>
  %qk = arith.mulf %q, %k : tensor<6x10xf32>
  %r = arith.addf %qk, %v : tensor<6x10xf32>
  return %r : tensor<6x10xf32>
}

#m2 = #shard.mesh<shape = [2], axes = ["tp"]>
#W2 = #shard.enumerable<[
  {offsets = [0, 0], sizes = [8, 3], placement = "rank:0"},
  {offsets = [0, 6], sizes = [8, 3], placement = "rank:0"},
  {offsets = [0, 12], sizes = [8, 3], placement = "rank:0"},
  {offsets = [0, 3], sizes = [8, 3], placement = "rank:1"},
  {offsets = [0, 9], sizes = [8, 3], placement = "rank:1"},
  {offsets = [0, 15], sizes = [8, 3], placement = "rank:1"}]>
#B2 = #shard.enumerable<[
  {offsets = [0], sizes = [3], placement = "rank:0"},
  {offsets = [6], sizes = [3], placement = "rank:0"},
  {offsets = [12], sizes = [3], placement = "rank:0"},
  {offsets = [3], sizes = [3], placement = "rank:1"},
  {offsets = [9], sizes = [3], placement = "rank:1"},
  {offsets = [15], sizes = [3], placement = "rank:1"}]>
func.func @qkv2(%x: tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [R]>},
                %w: tensor<8x18xf32> {shard.layout = #W2},
                %b: tensor<18xf32> {shard.layout = #B2})
    -> (tensor<6x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1)]>}) {
  %e = tensor.empty() : tensor<6x18xf32>
  %c0 = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<6x18xf32>) -> tensor<6x18xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<6x8xf32>, tensor<8x18xf32>) outs(%z : tensor<6x18xf32>) -> tensor<6x18xf32>
  %bb = linalg.broadcast ins(%b : tensor<18xf32>) outs(%e : tensor<6x18xf32>) dimensions = [0]
  %qkv = linalg.add ins(%mm, %bb : tensor<6x18xf32>, tensor<6x18xf32>) outs(%e : tensor<6x18xf32>) -> tensor<6x18xf32>
  %q = tensor.extract_slice %qkv[0, 0] [6, 6] [1, 1] : tensor<6x18xf32> to tensor<6x6xf32>
  %k = tensor.extract_slice %qkv[0, 6] [6, 6] [1, 1] : tensor<6x18xf32> to tensor<6x6xf32>
  %v = tensor.extract_slice %qkv[0, 12] [6, 6] [1, 1] : tensor<6x18xf32> to tensor<6x6xf32>
  %qk = arith.mulf %q, %k : tensor<6x6xf32>
  %r = arith.addf %qk, %v : tensor<6x6xf32>
  return %r : tensor<6x6xf32>
}

#Wsplit = #shard.enumerable<[
  {offsets = [0, 0], sizes = [4, 2], placement = "rank:0"},
  {offsets = [0, 8], sizes = [4, 2], placement = "rank:0"},
  {offsets = [0, 16], sizes = [4, 2], placement = "rank:0"},
  {offsets = [0, 2], sizes = [4, 2], placement = "rank:1"},
  {offsets = [0, 10], sizes = [4, 2], placement = "rank:1"},
  {offsets = [0, 18], sizes = [4, 2], placement = "rank:1"},
  {offsets = [0, 4], sizes = [4, 2], placement = "rank:2"},
  {offsets = [0, 12], sizes = [4, 2], placement = "rank:2"},
  {offsets = [0, 20], sizes = [4, 2], placement = "rank:2"},
  {offsets = [0, 6], sizes = [4, 2], placement = "rank:3"},
  {offsets = [0, 14], sizes = [4, 2], placement = "rank:3"},
  {offsets = [0, 22], sizes = [4, 2], placement = "rank:3"}]>
func.func @split(%w: tensor<4x24xf32> {shard.layout = #Wsplit})
    -> (tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>},
        tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>},
        tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %q = tensor.extract_slice %w[0, 0] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
  %k = tensor.extract_slice %w[0, 8] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
  %v = tensor.extract_slice %w[0, 16] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
  return %q, %k, %v : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// A layout of several blocks whose slice is not a mesh layout (rank 0 holds
// columns 0-1 and 6-7 of q): moved to one first, exactly.
#Wodd = #shard.enumerable<[
  {offsets = [0, 0], sizes = [4, 2], placement = "rank:0"},
  {offsets = [0, 2], sizes = [4, 4], placement = "rank:1"},
  {offsets = [0, 6], sizes = [4, 2], placement = "rank:0"},
  {offsets = [0, 8], sizes = [4, 16], placement = "rank:1"}]>
#m2b = #shard.mesh<shape = [2], axes = ["tp"]>
func.func @odd(%w: tensor<4x24xf32> {shard.layout = #Wodd})
    -> (tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m2b, placements = [S(1)]>}) {
  %q = tensor.extract_slice %w[0, 0] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
  %q2 = arith.addf %q, %q : tensor<4x8xf32>
  return %q2 : tensor<4x8xf32>
}

#Wqk = #shard.enumerable<[
  {offsets = [0, 0], sizes = [4, 2], placement = "rank:0"},
  {offsets = [0, 8], sizes = [4, 2], placement = "rank:0"},
  {offsets = [0, 2], sizes = [4, 2], placement = "rank:1"},
  {offsets = [0, 10], sizes = [4, 2], placement = "rank:1"},
  {offsets = [0, 4], sizes = [4, 2], placement = "rank:2"},
  {offsets = [0, 12], sizes = [4, 2], placement = "rank:2"},
  {offsets = [0, 6], sizes = [4, 2], placement = "rank:3"},
  {offsets = [0, 14], sizes = [4, 2], placement = "rank:3"}]>
func.func @through_call(%w: tensor<4x16xf32> {shard.layout = #Wqk})
    -> (tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %r = func.call @take_k(%w) : (tensor<4x16xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
func.func private @take_k(%w: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %k = tensor.extract_slice %w[0, 8] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %k2 = arith.addf %k, %k : tensor<4x8xf32>
  return %k2 : tensor<4x8xf32>
}
func.func @row_of_k(%w: tensor<4x24xf32> {shard.layout = #Wsplit})
    -> (tensor<8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>}) {
  %k = tensor.extract_slice %w[1, 8] [1, 8] [1, 1] : tensor<4x24xf32> to tensor<8xf32>
  return %k : tensor<8xf32>
}
