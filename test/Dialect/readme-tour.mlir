// The README's tour of the IR (its two mlir blocks) in programs that parse,
// verify and print back: test/tools/docs-blocks.test checks that each line
// the README shows is here, in order (its `<!-- check: excerpt -->`).
// RUN: shard-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: shard-opt %s -split-input-file | shard-opt -split-input-file -verify-diagnostics | FileCheck %s

#device = #shard.device<"rank:0/cuda:0">
#block = #shard.block<offsets = [0, 5], sizes = [6, 5], placement = "rank:1/cpu">
#chunk = #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>
#enumerable = #shard.enumerable<[{offsets = [0, 0], sizes = [5, 10], placement = "rank:0/cuda:0"},
                   {offsets = [5, 0], sizes = [5, 10], placement = "rank:1/cuda:1"} ]>
#mesh = #shard.mesh<shape = [2, 2], devices = [0, 2, 1, 3], axes = ["dp", "tp"], device = "cuda">
// CHECK-LABEL: shard.mesh @mesh = #mesh_dp_tp
shard.mesh @mesh = #mesh
// CHECK: func.func private @tour_attributes(!shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu", "rank:2/cpu", "rank:3/cpu"]>>, !shard.tensor<10x10xf32, #shard.enumerable<[{offsets = [0, 0], sizes = [5, 10], placement = "rank:0/cuda:0"}, {offsets = [5, 0], sizes = [5, 10], placement = "rank:1/cuda:1"}]>>, tensor<8x6xf32> {shard.layout = #layout_S0_R}, !shard.tensor<6x10xf32, #shard.device_placement<"rank:0/cuda:0">>)
// CHECK-SAME: attributes {block = #shard.block<offsets = [0, 5], sizes = [6, 5], placement = "rank:1/cpu">, device = #shard.device<"rank:0/cuda:0">, rank1 = #shard.device<"rank:1/cpu">}
func.func private @tour_attributes(!shard.tensor<6x10xf32, #chunk>, !shard.tensor<10x10xf32, #enumerable>,
    tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(0), R]>},
    !shard.tensor<6x10xf32, #shard.device_placement<"rank:0/cuda:0">>)
    attributes {device = #device, block = #block, rank1 = #shard.device<"rank:1">}

// -----

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
!other = !shard.tensor<6x10xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
#mesh = #shard.mesh<shape = [2, 2], devices = [0, 2, 1, 3], axes = ["dp", "tp"], device = "cuda">
// CHECK-LABEL: func.func @tour_global_ops
// CHECK: shard.distribute %arg0 from rank 0
// CHECK: shard.redistribute
// CHECK: shard.all_gather
// CHECK: shard.gather {{.*}} to rank 0
// CHECK: shard.local_shards
// CHECK: shard.from_local_shards
func.func @tour_global_ops(%t: tensor<6x10xf32>) -> (!other, tensor<6x10xf32>, tensor<6x10xf32>, !s) {
  %s = shard.distribute %t from rank 0 : tensor<6x10xf32> -> !s
  %r = shard.redistribute %s : !s -> !other
  %g = shard.all_gather %s : !s -> tensor<6x10xf32>
  %o = shard.gather %s to rank 0 : !s -> tensor<6x10xf32>
  %l = shard.local_shards %s : !s -> tensor<6x?xf32>
  %f = shard.from_local_shards %l : tensor<6x?xf32> -> !s
  return %r, %g, %o, %f : !other, tensor<6x10xf32>, tensor<6x10xf32>, !s
}
// CHECK-LABEL: func.func private @mlp(tensor<16x10xf32> {shard.layout = #layout_R_S1})
func.func private @mlp(%w: tensor<16x10xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [R, S(1)]>})
// CHECK-LABEL: func.func @tour_constraint
// CHECK: shard.constraint %arg0 layout #shard.chunk<dim = 0, placements = ["rank:0/cpu", "rank:1/cpu"]> : tensor<8x4xf32>
func.func @tour_constraint(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %y = shard.constraint %x layout #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]> : tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// The SPMD collectives after -shard-plan-redistribute.
!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
#m = #shard.mesh<shape = [2, 2]>
!p_s1 = !shard.tensor<8x6xf32, #shard.placements<mesh = #m, placements = [P(sum), S(1)]>>
!s0_s1 = !shard.tensor<8x6xf32, #shard.placements<mesh = #m, placements = [S(0), S(1)]>>
!s0_r = !shard.tensor<8x6xf32, #shard.placements<mesh = #m, placements = [S(0), R]>>
// CHECK-LABEL: func.func @tour_spmd
// CHECK: shard.spmd.scatter %arg0 over world root 0
// CHECK: shard.spmd.all_gather {{.*}} over world from
// CHECK: shard.spmd.reduce_scatter %arg1 over axes [0] dim 0 reduce sum
// CHECK: shard.spmd.all_gather {{.*}} over axes [1] dim 1
func.func @tour_spmd(%t: tensor<6x10xf32>, %p: tensor<8x3xf32>) -> (tensor<6x10xf32>, tensor<4x6xf32>) {
  %l = shard.spmd.scatter %t over world root 0 to !s : tensor<6x10xf32> -> tensor<6x?xf32>
  %g = shard.spmd.all_gather %l over world from !s : tensor<6x?xf32> -> tensor<6x10xf32>
  %r = shard.spmd.reduce_scatter %p over axes [0] dim 0 reduce sum from !p_s1 to !s0_s1
      : tensor<8x3xf32> -> tensor<4x3xf32>
  %c = shard.spmd.all_gather %r over axes [1] dim 1 from !s0_s1 to !s0_r
      : tensor<4x3xf32> -> tensor<4x6xf32>
  return %g, %c : tensor<6x10xf32>, tensor<4x6xf32>
}
