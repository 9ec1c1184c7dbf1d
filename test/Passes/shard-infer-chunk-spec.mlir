// RUN: shard-opt %s -shard-infer-chunk-spec -split-input-file | FileCheck %s
// RUN: shard-opt %s -shard-infer-chunk-spec=blocks-to-mesh -split-input-file | FileCheck %s --check-prefix=MESH
// RUN: shard-opt %s -shard-infer-chunk-spec=mesh-to-blocks -split-input-file | FileCheck %s --check-prefix=BLOCKS
// RUN: not shard-opt %s -shard-infer-chunk-spec="mesh-to-blocks blocks-to-mesh" 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: error: -shard-infer-chunk-spec: mesh-to-blocks and blocks-to-mesh ask for opposite rewrites; pass one

// PyTorch's _infer_sharding_spec_from_shards_metadata cases
// (test_infer_sharding_spec_from_shards_metadata): the blocks are listed by
// rank, as PyTorch's test lists them, and the chunk spec orders the
// placements by offset.
// 32 over 4.
// CHECK-LABEL: func.func private @case0
// CHECK-SAME: !shard.tensor<32xf32, #shard.chunk<dim = 0, placements = ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2/cuda:2", "rank:3/cuda:3"]>>
func.func private @case0(!shard.tensor<32xf32, #shard.enumerable<[
    {offsets = [0], sizes = [8], placement = "rank:0/cuda:0"},
    {offsets = [8], sizes = [8], placement = "rank:1/cuda:1"},
    {offsets = [16], sizes = [8], placement = "rank:2/cuda:2"},
    {offsets = [24], sizes = [8], placement = "rank:3/cuda:3"} ]>>)

// -----
// 11 over 4 is 3, 3, 3, 2.
// CHECK-LABEL: func.func private @case1
// CHECK-SAME: !shard.tensor<11xf32, #shard.chunk<dim = 0, placements = ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2/cuda:2", "rank:3/cuda:3"]>>
func.func private @case1(!shard.tensor<11xf32, #shard.enumerable<[
    {offsets = [0], sizes = [3], placement = "rank:0/cuda:0"},
    {offsets = [3], sizes = [3], placement = "rank:1/cuda:1"},
    {offsets = [6], sizes = [3], placement = "rank:2/cuda:2"},
    {offsets = [9], sizes = [2], placement = "rank:3/cuda:3"} ]>>)

// -----
// 13 over 4 is 4, 4, 4, 1.
// CHECK-LABEL: func.func private @case2
// CHECK-SAME: !shard.tensor<13xf32, #shard.chunk<dim = 0, placements = ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2/cuda:2", "rank:3/cuda:3"]>>
func.func private @case2(!shard.tensor<13xf32, #shard.enumerable<[
    {offsets = [0], sizes = [4], placement = "rank:0/cuda:0"},
    {offsets = [4], sizes = [4], placement = "rank:1/cuda:1"},
    {offsets = [8], sizes = [4], placement = "rank:2/cuda:2"},
    {offsets = [12], sizes = [1], placement = "rank:3/cuda:3"} ]>>)

// -----
// 5 over 4 is 2, 2, 1, 0: the empty block sits at offset 6.
// CHECK-LABEL: func.func private @case3
// CHECK-SAME: !shard.tensor<5xf32, #shard.chunk<dim = 0, placements = ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2/cuda:2", "rank:3/cuda:3"]>>
func.func private @case3(!shard.tensor<5xf32, #shard.enumerable<[
    {offsets = [0], sizes = [2], placement = "rank:0/cuda:0"},
    {offsets = [2], sizes = [2], placement = "rank:1/cuda:1"},
    {offsets = [4], sizes = [1], placement = "rank:2/cuda:2"},
    {offsets = [6], sizes = [0], placement = "rank:3/cuda:3"} ]>>)

// -----
// [4, 16] on dim 0.
// CHECK-LABEL: func.func private @case4
// CHECK-SAME: !shard.tensor<4x16xf32, #shard.chunk<dim = 0, placements = ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2/cuda:2", "rank:3/cuda:3"]>>
func.func private @case4(!shard.tensor<4x16xf32, #shard.enumerable<[
    {offsets = [0, 0], sizes = [1, 16], placement = "rank:0/cuda:0"},
    {offsets = [1, 0], sizes = [1, 16], placement = "rank:1/cuda:1"},
    {offsets = [2, 0], sizes = [1, 16], placement = "rank:2/cuda:2"},
    {offsets = [3, 0], sizes = [1, 16], placement = "rank:3/cuda:3"} ]>>)

// -----
// [5, 15, 16] on dim 0.
// CHECK-LABEL: func.func private @case5
// CHECK-SAME: !shard.tensor<5x15x16xf32, #shard.chunk<dim = 0, placements = ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2/cuda:2", "rank:3/cuda:3"]>>
func.func private @case5(!shard.tensor<5x15x16xf32, #shard.enumerable<[
    {offsets = [0, 0, 0], sizes = [2, 15, 16], placement = "rank:0/cuda:0"},
    {offsets = [2, 0, 0], sizes = [2, 15, 16], placement = "rank:1/cuda:1"},
    {offsets = [4, 0, 0], sizes = [1, 15, 16], placement = "rank:2/cuda:2"},
    {offsets = [6, 0, 0], sizes = [0, 15, 16], placement = "rank:3/cuda:3"} ]>>)

// -----
// [12, 16] on dim 1.
// CHECK-LABEL: func.func private @case6
// CHECK-SAME: !shard.tensor<12x16xf32, #shard.chunk<dim = 1, placements = ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2/cuda:2", "rank:3/cuda:3"]>>
func.func private @case6(!shard.tensor<12x16xf32, #shard.enumerable<[
    {offsets = [0, 0], sizes = [12, 4], placement = "rank:0/cuda:0"},
    {offsets = [0, 4], sizes = [12, 4], placement = "rank:1/cuda:1"},
    {offsets = [0, 8], sizes = [12, 4], placement = "rank:2/cuda:2"},
    {offsets = [0, 12], sizes = [12, 4], placement = "rank:3/cuda:3"} ]>>)

// -----
// [4, 18, 15] on dim 2.
// CHECK-LABEL: func.func private @case7
// CHECK-SAME: !shard.tensor<4x18x15xf32, #shard.chunk<dim = 2, placements = ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2/cuda:2", "rank:3/cuda:3"]>>
func.func private @case7(!shard.tensor<4x18x15xf32, #shard.enumerable<[
    {offsets = [0, 0, 0], sizes = [4, 18, 4], placement = "rank:0/cuda:0"},
    {offsets = [0, 0, 4], sizes = [4, 18, 4], placement = "rank:1/cuda:1"},
    {offsets = [0, 0, 8], sizes = [4, 18, 4], placement = "rank:2/cuda:2"},
    {offsets = [0, 0, 12], sizes = [4, 18, 3], placement = "rank:3/cuda:3"} ]>>)

// -----
// [7, 12, 16, 37] on dim 3.
// CHECK-LABEL: func.func private @case8
// CHECK-SAME: !shard.tensor<7x12x16x37xf32, #shard.chunk<dim = 3, placements = ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2/cuda:2", "rank:3/cuda:3"]>>
func.func private @case8(!shard.tensor<7x12x16x37xf32, #shard.enumerable<[
    {offsets = [0, 0, 0, 0], sizes = [7, 12, 16, 10], placement = "rank:0/cuda:0"},
    {offsets = [0, 0, 0, 10], sizes = [7, 12, 16, 10], placement = "rank:1/cuda:1"},
    {offsets = [0, 0, 0, 20], sizes = [7, 12, 16, 10], placement = "rank:2/cuda:2"},
    {offsets = [0, 0, 0, 30], sizes = [7, 12, 16, 7], placement = "rank:3/cuda:3"} ]>>)

// -----
// [50, 4, 18, 15, 77] on dim 4, placements shuffled (rank order 0, 2, 3, 1).
// CHECK-LABEL: func.func private @case9
// CHECK-SAME: !shard.tensor<50x4x18x15x77xf32, #shard.chunk<dim = 4, placements = ["rank:0/cuda:0", "rank:2/cuda:2", "rank:3/cuda:3", "rank:1/cuda:1"]>>
func.func private @case9(!shard.tensor<50x4x18x15x77xf32, #shard.enumerable<[
    {offsets = [0, 0, 0, 0, 0], sizes = [50, 4, 18, 15, 20], placement = "rank:0/cuda:0"},
    {offsets = [0, 0, 0, 0, 60], sizes = [50, 4, 18, 15, 17], placement = "rank:1/cuda:1"},
    {offsets = [0, 0, 0, 0, 20], sizes = [50, 4, 18, 15, 20], placement = "rank:2/cuda:2"},
    {offsets = [0, 0, 0, 0, 40], sizes = [50, 4, 18, 15, 20], placement = "rank:3/cuda:3"} ]>>)

// -----
// Blocks that must stay enumerable: unequal sizes (3 and 7 are not chunks
// of 10 over 2).
// CHECK-LABEL: func.func private @unequal
// CHECK-SAME: #shard.enumerable
func.func private @unequal(!shard.tensor<10x4xf32, #shard.enumerable<[
    {offsets = [0, 0], sizes = [3, 4], placement = "rank:0"},
    {offsets = [3, 0], sizes = [7, 4], placement = "rank:1"} ]>>)

// -----
// PyTorch would infer dim 0 here: it chunks the sum of the sizes along the dim
// (2 + 1 = 3 over 2: sizes 2, 1 at offsets 0, 2), not the tensor's 2 rows.
// That spec would put row 1 on rank 1, which holds nothing: it stays.
// CHECK-LABEL: func.func private @empty_block_past_the_end
// CHECK-SAME: #shard.enumerable
func.func private @empty_block_past_the_end(!shard.tensor<2x2xf32, #shard.enumerable<[
    {offsets = [0, 0], sizes = [2, 2], placement = "rank:0"},
    {offsets = [2, 0], sizes = [1, 0], placement = "rank:1"} ]>>)

// -----

// A 2x2 grid: two dims carry offsets. With blocks-to-mesh it is S(0), S(1) on
// a 2x2 mesh; the ranks are laid out column-major, so the mesh lists them.
// CHECK-LABEL: func.func private @grid
// CHECK-SAME: #shard.enumerable
// MESH-LABEL: func.func private @grid
// MESH-SAME: !shard.tensor<4x6xf32, #layout_S0_S1>
func.func private @grid(!shard.tensor<4x6xf32, #shard.enumerable<[
    {offsets = [0, 0], sizes = [2, 3], placement = "rank:0"},
    {offsets = [2, 0], sizes = [2, 3], placement = "rank:1"},
    {offsets = [0, 3], sizes = [2, 3], placement = "rank:2"},
    {offsets = [2, 3], sizes = [2, 3], placement = "rank:3"} ]>>)

// -----

// Two blocks on one device (LocalShardsWrapper), 16 and 9: not chunks of 25
// over 2 (13, 12).
// CHECK-LABEL: func.func private @two_on_one
// CHECK-SAME: #shard.enumerable
// MESH-LABEL: func.func private @two_on_one
// MESH-SAME: #shard.enumerable
func.func private @two_on_one(!shard.tensor<25xf32, #shard.enumerable<[
    {offsets = [0], sizes = [16], placement = "rank:0/cuda:0"},
    {offsets = [16], sizes = [9], placement = "rank:0/cuda:0"} ]>>)

// -----

// One block at offset 0: no dim carries offsets, so PyTorch keeps it
// enumerable.
// CHECK-LABEL: func.func private @single
// CHECK-SAME: #shard.enumerable
func.func private @single(!shard.tensor<4xf32, #shard.enumerable<[
    {offsets = [0], sizes = [4], placement = "rank:0"} ]>>)

// -----

// Values and ops are rewritten too, not only signatures.
// CHECK-LABEL: func.func @values(
// CHECK-SAME: %[[T:.*]]: tensor<8xf32>) -> !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:1/cpu", "rank:0/cpu"]>>
// CHECK: shard.distribute %[[T]] from rank 0 : tensor<8xf32> -> !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:1/cpu", "rank:0/cpu"]>>
func.func @values(%t: tensor<8xf32>) -> !shard.tensor<8xf32, #shard.enumerable<[
    {offsets = [4], sizes = [4], placement = "rank:0"},
    {offsets = [0], sizes = [4], placement = "rank:1"} ]>> {
  %s = shard.distribute %t from rank 0 : tensor<8xf32> -> !shard.tensor<8xf32, #shard.enumerable<[
    {offsets = [4], sizes = [4], placement = "rank:0"},
    {offsets = [0], sizes = [4], placement = "rank:1"} ]>>
  return %s : !shard.tensor<8xf32, #shard.enumerable<[
    {offsets = [4], sizes = [4], placement = "rank:0"},
    {offsets = [0], sizes = [4], placement = "rank:1"} ]>>
}

// -----

// mesh-to-blocks: DTensor's blocks for every device. Nested S(0), S(0) on a
// 2x2 mesh with devices [3, 2, 1, 0]: 5 rows -> 3, 2 -> 2, 1, 1, 1.
// BLOCKS-LABEL: func.func private @nested
// BLOCKS-SAME: !shard.tensor<5x6xf32, #shard.enumerable<[{offsets = [0, 0], sizes = [2, 6], placement = "rank:3/cpu"}, {offsets = [2, 0], sizes = [1, 6], placement = "rank:2/cpu"}, {offsets = [3, 0], sizes = [1, 6], placement = "rank:1/cpu"}, {offsets = [4, 0], sizes = [1, 6], placement = "rank:0/cpu"}]>>
func.func private @nested(!shard.tensor<5x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2], devices = [3, 2, 1, 0]>, placements = [S(0), S(0)]>>)

// -----

// A 3-D mesh over a 3-D tensor, uneven, on cuda: (S(2), S(0), S(1)).
// BLOCKS-LABEL: func.func private @mesh3d
// BLOCKS-SAME: {offsets = [0, 0, 0], sizes = [2, 2, 3], placement = "rank:0/cuda"}, {offsets = [0, 2, 0], sizes = [2, 1, 3], placement = "rank:1/cuda"}, {offsets = [2, 0, 0], sizes = [1, 2, 3], placement = "rank:2/cuda"}, {offsets = [2, 2, 0], sizes = [1, 1, 3], placement = "rank:3/cuda"}, {offsets = [0, 0, 3], sizes = [2, 2, 2], placement = "rank:4/cuda"}
func.func private @mesh3d(!shard.tensor<3x3x5xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2, 2], device = "cuda">, placements = [S(2), S(0), S(1)]>>)

// -----

// And back: blocks-to-mesh recognizes those blocks as a grid, with one mesh
// axis per cut dim in dim order, so the device ids come permuted.
// MESH-LABEL: func.func private @grid3d
// MESH-SAME: #layout_S0_S1_S2
func.func private @grid3d(!shard.tensor<3x3x5xf32, #shard.enumerable<[{offsets = [0, 0, 0], sizes = [2, 2, 3], placement = "rank:0/cuda"}, {offsets = [0, 2, 0], sizes = [2, 1, 3], placement = "rank:1/cuda"}, {offsets = [2, 0, 0], sizes = [1, 2, 3], placement = "rank:2/cuda"}, {offsets = [2, 2, 0], sizes = [1, 1, 3], placement = "rank:3/cuda"}, {offsets = [0, 0, 3], sizes = [2, 2, 2], placement = "rank:4/cuda"}, {offsets = [0, 2, 3], sizes = [2, 1, 2], placement = "rank:5/cuda"}, {offsets = [2, 0, 3], sizes = [1, 2, 2], placement = "rank:6/cuda"}, {offsets = [2, 2, 3], sizes = [1, 1, 2], placement = "rank:7/cuda"}]>>)

// -----

// Replicated axes have no explicit blocks: the spec stays.
// BLOCKS-LABEL: func.func private @replicated
// BLOCKS-SAME: #layout_R
func.func private @replicated(!shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>)
