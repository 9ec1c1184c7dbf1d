// The examples of the dialect's reference (the ```mlir blocks of the op,
// attribute and type descriptions in include/shardc/Dialect/*.td, copied
// into docs/generated/ShardDialect.md) in programs that parse, verify and
// print back: test/tools/docs-blocks.test checks that each line an example
// shows is here, in order (its `<!-- check: excerpt -->`).
// RUN: shard-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: shard-opt %s -split-input-file | shard-opt -split-input-file -verify-diagnostics | FileCheck %s
// The rule #shard.rule's example shows is the matmul's own (the pass
// rejects a written rule that is not):
// RUN: shard-opt %s -split-input-file -shard-print-sharding-rules -verify-diagnostics | FileCheck %s --check-prefix=RULE

// shard.mesh
#dp_tp = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
// CHECK: shard.mesh @dp_tp = #mesh_dp_tp
shard.mesh @dp_tp = #dp_tp

// -----

// shard.distribute, shard.all_gather, shard.gather, shard.local_shards and
// shard.from_local_shards: 10 columns over 4 ranks, as torch.chunk cuts
// them (3, 3, 3, 1).
!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
// CHECK-LABEL: func.func @distribute
// CHECK: shard.distribute %arg0 from rank 0 : tensor<6x10xf32> -> !shard.tensor<6x10xf32, #shard.chunk<dim = 1,
func.func @distribute(%t: tensor<6x10xf32>) -> !s {
  %s = shard.distribute %t from rank 0
      : tensor<6x10xf32> -> !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
  return %s : !s
}
// CHECK-LABEL: func.func @all_gather
// CHECK: shard.all_gather %arg0 : !shard.tensor<6x10xf32, {{.*}}> -> tensor<6x10xf32>
func.func @all_gather(%s: !s) -> tensor<6x10xf32> {
  %t = shard.all_gather %s : !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>> -> tensor<6x10xf32>
  return %t : tensor<6x10xf32>
}
// CHECK-LABEL: func.func @gather
// CHECK: shard.gather %arg0 to rank 0 : !shard.tensor<6x10xf32, {{.*}}> -> tensor<6x10xf32>
func.func @gather(%s: !s) -> tensor<6x10xf32> {
  %t = shard.gather %s to rank 0 : !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>> -> tensor<6x10xf32>
  return %t : tensor<6x10xf32>
}
// CHECK-LABEL: func.func @local_shards
// CHECK: shard.local_shards %arg0 : {{.*}} -> tensor<6x?xf32>
// CHECK: shard.from_local_shards %{{.*}} : tensor<6x?xf32> -> !shard.tensor<6x10xf32,
func.func @local_shards(%s: !s) -> !s {
  %l = shard.local_shards %s : !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>> -> tensor<6x?xf32>
  %t = shard.from_local_shards %l : tensor<6x?xf32> -> !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
  return %t : !s
}
// shard.from_local_shards (its example names the block %l, the result %s).
// CHECK-LABEL: func.func @from_local_shards
func.func @from_local_shards(%l: tensor<6x?xf32>) -> !s {
  %s = shard.from_local_shards %l : tensor<6x?xf32> -> !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
  return %s : !s
}

// -----

// shard.constraint: an argument's layout, and a value's pinned.
#m = #shard.mesh<shape = [2, 2]>
// CHECK-LABEL: func.func @f
// CHECK-SAME: {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [R, S(1)]>}
// CHECK: shard.constraint %arg1 layout #shard.chunk<dim = 0, placements = ["rank:0/cpu", "rank:1/cpu"]> : tensor<8x4xf32>
func.func @f(%w: tensor<16x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(1)]>}, %x: tensor<8x4xf32>) {
  %y = shard.constraint %x layout #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]> : tensor<8x4xf32>
  return
}

// -----

// shard.redistribute: rows to columns.
#A = #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>
#B = #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>
// CHECK-LABEL: func.func @redistribute
// CHECK: shard.redistribute %arg0 : !shard.tensor<8x8xf32, #shard.chunk<dim = 0, {{.*}}>> -> !shard.tensor<8x8xf32, #shard.chunk<dim = 1,
func.func @redistribute(%a: !shard.tensor<8x8xf32, #A>) -> !shard.tensor<8x8xf32, #B> {
  %b = shard.redistribute %a : !shard.tensor<8x8xf32, #A> -> !shard.tensor<8x8xf32, #B>
  return %b : !shard.tensor<8x8xf32, #B>
}

// -----

// shard.spmd.rank: a block's size, read by rank (10 over 4 ranks, as
// -shard-spmd-partition reads it: a fifth entry for ranks past them).
// CHECK-LABEL: func.func @rank
// CHECK: %[[RANK:.*]] = shard.spmd.rank : index
// CHECK: %[[I:.*]] = arith.minui %[[RANK]], %{{.*}} : index
// CHECK: tensor.extract %{{.*}}[%[[I]]] : tensor<5xindex>
func.func @rank() -> index {
  %c4 = arith.constant 4 : index
  %rank = shard.spmd.rank : index
  %sizes = arith.constant dense<[3, 3, 3, 1, 0]> : tensor<5xindex>
  %i = arith.minui %rank, %c4 : index
  %n = tensor.extract %sizes[%i] : tensor<5xindex>
  return %n : index
}

// -----

// shard.spmd.all_gather: over the world, and over a mesh axis (axis 1 of
// a 2x2 mesh gathers the rows it cut).
#m = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<4x3xf32, #shard.placements<mesh = #m, placements = [R, S(0)]>>
!b = !shard.tensor<4x3xf32, #shard.placements<mesh = #m, placements = [R, R]>>
// CHECK-LABEL: func.func @spmd_all_gather
// CHECK: shard.spmd.all_gather %arg0 over world from !shard.tensor<6x10xf32, #shard.chunk<dim = 1, {{.*}}>> : tensor<6x?xf32> -> tensor<6x10xf32>
// CHECK: shard.spmd.all_gather %arg1 over axes [1] dim 0 from !shard.tensor<4x3xf32, #layout_R_S0> to !shard.tensor<4x3xf32, #layout_R_R> : tensor<2x3xf32> -> tensor<4x3xf32>
func.func @spmd_all_gather(%l: tensor<6x?xf32>, %r: tensor<2x3xf32>) -> (tensor<6x10xf32>, tensor<4x3xf32>) {
  %full = shard.spmd.all_gather %l over world from !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
      : tensor<6x?xf32> -> tensor<6x10xf32>
  %rows = shard.spmd.all_gather %r over axes [1] dim 0 from !a to !b
      : tensor<2x3xf32> -> tensor<4x3xf32>
  return %full, %rows : tensor<6x10xf32>, tensor<4x3xf32>
}

// -----

// shard.spmd.reduce_scatter: partial sums over a mesh axis of 2 into rows.
#m = #shard.mesh<shape = [2]>
!p = !shard.tensor<4x4xf32, #shard.placements<mesh = #m, placements = [P(sum)]>>
!s = !shard.tensor<4x4xf32, #shard.placements<mesh = #m, placements = [S(0)]>>
// CHECK-LABEL: func.func @reduce_scatter
// CHECK: shard.spmd.reduce_scatter %arg0 over axes [0] dim 0 reduce sum from !shard.tensor<4x4xf32, #layout_Psum> to !shard.tensor<4x4xf32, #layout_S0> : tensor<4x4xf32> -> tensor<2x4xf32>
func.func @reduce_scatter(%p: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %s = shard.spmd.reduce_scatter %p over axes [0] dim 0 reduce sum from !p to !s
      : tensor<4x4xf32> -> tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

// -----

// shard.spmd.all_reduce: partial maxima over both axes of a 2x2 mesh.
#m = #shard.mesh<shape = [2, 2]>
!p = !shard.tensor<4x4xf32, #shard.placements<mesh = #m, placements = [P(max), P(max)]>>
!r = !shard.tensor<4x4xf32, #shard.placements<mesh = #m, placements = [R, R]>>
// CHECK-LABEL: func.func @all_reduce
// CHECK: shard.spmd.all_reduce %arg0 over axes [0, 1] reduce max from !shard.tensor<4x4xf32, #layout_Pmax_Pmax> to !shard.tensor<4x4xf32, #layout_R_R> : tensor<4x4xf32> -> tensor<4x4xf32>
func.func @all_reduce(%p: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = shard.spmd.all_reduce %p over axes [0, 1] reduce max from !p to !r
      : tensor<4x4xf32> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// shard.spmd.all_to_all: rows to columns on axis 1 of a 2x2 mesh.
#m = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<4x8xf32, #shard.placements<mesh = #m, placements = [R, S(0)]>>
!b = !shard.tensor<4x8xf32, #shard.placements<mesh = #m, placements = [R, S(1)]>>
// CHECK-LABEL: func.func @all_to_all
// CHECK: shard.spmd.all_to_all %arg0 over axes [1] split 1 concat 0 from !shard.tensor<4x8xf32, #layout_R_S0> to !shard.tensor<4x8xf32, #layout_R_S1> : tensor<2x8xf32> -> tensor<4x4xf32>
func.func @all_to_all(%l: tensor<2x8xf32>) -> tensor<4x4xf32> {
  %t = shard.spmd.all_to_all %l over axes [1] split 1 concat 0 from !a to !b
      : tensor<2x8xf32> -> tensor<4x4xf32>
  return %t : tensor<4x4xf32>
}

// -----

// shard.spmd.broadcast: rank 2's tensor to ranks 0, 1 and 2.
#m = #shard.mesh<shape = [3]>
!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:2">>
!all = !shard.tensor<4x4xf32, #shard.placements<mesh = #m, placements = [R]>>
// CHECK-LABEL: func.func @broadcast
// CHECK: shard.spmd.broadcast %arg0 over ranks [0, 1, 2] root 2 from !shard.tensor<4x4xf32, #shard.device_placement<"rank:2/cpu">> to !shard.tensor<4x4xf32, #layout_R> : tensor<4x4xf32> -> tensor<4x4xf32>
func.func @broadcast(%l: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = shard.spmd.broadcast %l over ranks [0, 1, 2] root 2 from !one to !all
      : tensor<4x4xf32> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// shard.spmd.gather: the rows of ranks 0 and 1 to rank 0.
!rows = !shard.tensor<4x4xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!whole = !shard.tensor<4x4xf32, #shard.device_placement<"rank:0">>
// CHECK-LABEL: func.func @spmd_gather
// CHECK: shard.spmd.gather %arg0 over ranks [0, 1] root 0 from !shard.tensor<4x4xf32, #shard.chunk<dim = 0, {{.*}}>> to !shard.tensor<4x4xf32, #shard.device_placement<"rank:0/cpu">> : tensor<?x4xf32> -> tensor<4x4xf32>
func.func @spmd_gather(%l: tensor<?x4xf32>) -> tensor<4x4xf32> {
  %w = shard.spmd.gather %l over ranks [0, 1] root 0 from !rows to !whole
      : tensor<?x4xf32> -> tensor<4x4xf32>
  return %w : tensor<4x4xf32>
}

// -----

// shard.spmd.scatter: rank 0's tensor, 10 columns over 4 ranks.
// CHECK-LABEL: func.func @scatter
// CHECK: shard.spmd.scatter %arg0 over world root 0 to !shard.tensor<6x10xf32, #shard.chunk<dim = 1, {{.*}}>> : tensor<6x10xf32> -> tensor<6x?xf32>
func.func @scatter(%t: tensor<6x10xf32>) -> tensor<6x?xf32> {
  %l = shard.spmd.scatter %t over world root 0 to !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
      : tensor<6x10xf32> -> tensor<6x?xf32>
  return %l : tensor<6x?xf32>
}

// -----

// shard.spmd.exchange: rows to columns over 4 ranks, and rows replicated
// on a 2x2 mesh to the whole tensor everywhere.
#m = #shard.mesh<shape = [2, 2]>
// CHECK-LABEL: func.func @exchange
// CHECK: shard.spmd.exchange %arg0 from !shard.tensor<6x10xf32, #shard.chunk<dim = 0, {{.*}}>> to !shard.tensor<6x10xf32, #shard.chunk<dim = 1, {{.*}}>> : tensor<?x10xf32> -> tensor<6x?xf32>
// CHECK: shard.spmd.exchange %arg1 from !shard.tensor<4x4xf32, #layout_S0_R> to world : tensor<2x4xf32> -> tensor<4x4xf32>
func.func @exchange(%a: tensor<?x10xf32>, %r: tensor<2x4xf32>) -> (tensor<6x?xf32>, tensor<4x4xf32>) {
  %b = shard.spmd.exchange %a from !shard.tensor<6x10xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
      to !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
      : tensor<?x10xf32> -> tensor<6x?xf32>
  %w = shard.spmd.exchange %r from !shard.tensor<4x4xf32, #shard.placements<mesh = #m, placements = [S(0), R]>>
      to world : tensor<2x4xf32> -> tensor<4x4xf32>
  return %b, %w : tensor<6x?xf32>, tensor<4x4xf32>
}

// -----

// The attributes: #shard.device, #shard.block, #shard.chunk,
// #shard.enumerable, #shard.device_placement, #shard.mesh and
// #shard.placements.
#e = #shard.enumerable<[
  {offsets = [0, 0], sizes = [5, 10], placement = "rank:0/cuda:0"},
  {offsets = [5, 0], sizes = [5, 10], placement = "rank:1/cuda:1"} ]>
#mesh = #shard.mesh<shape = [2, 2], devices = [0, 2, 1, 3], axes = ["dp", "tp"], device = "cuda">
// CHECK-LABEL: func.func private @attributes
// CHECK-SAME: block = #shard.block<offsets = [0, 5], sizes = [6, 5], placement = "rank:1/cpu">
// CHECK-SAME: chunk = #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu"]>
// CHECK-SAME: device = #shard.device<"rank:0/cuda:0">
// CHECK-SAME: device_placement = #shard.device_placement<"rank:0/cuda:0">
// CHECK-SAME: enumerable = #shard.enumerable<[{offsets = [0, 0], sizes = [5, 10], placement = "rank:0/cuda:0"}, {offsets = [5, 0], sizes = [5, 10], placement = "rank:1/cuda:1"}]>
// CHECK-SAME: mesh = #mesh_dp_tp
// CHECK-SAME: replicated = #layout_S0_R
// CHECK-SAME: strided = #layout_S0__S0x2
func.func private @attributes() attributes {
  device = #shard.device<"rank:0/cuda:0">,
  block = #shard.block<offsets = [0, 5], sizes = [6, 5], placement = "rank:1/cpu">,
  chunk = #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu"]>,
  enumerable = #e,
  device_placement = #shard.device_placement<"rank:0/cuda:0">,
  mesh = #mesh,
  replicated = #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), R]>,
  strided = #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), _S(0, 2)]>
}

// -----

// #shard.sharding: a matmul's rows cut on axis 0 of a 2x2 mesh, its
// contracted dim on axis 1. #shard.rule: the rule of the same matmul.
#m = #shard.mesh<shape = [2, 2]>
// CHECK-LABEL: func.func @sharding
// CHECK: linalg.matmul {shard.sharding = #shard.sharding<mesh = #mesh, loops = [d0, d2]>}
// RULE-LABEL: func.func @sharding
// RULE: linalg.matmul {shard.sharding = {{.*}}, shard.sharding_rule = #shard.rule<([d0, d2], [d2, d1], [d0, d1]) -> ([d0, d1]) {d0=8, d1=4, d2=16} reduction={d2} combiners=[sum] inits=[2] linear={{\[\[}}0, 2], [1, 2]]>}
// RULE: linalg.matmul {shard.sharding_rule = #shard.rule<([d0, d2], [d2, d1], [d0, d1]) -> ([d0, d1]) {d0=8, d1=4, d2=16} reduction={d2} combiners=[sum] inits=[2] linear={{\[\[}}0, 2], [1, 2]]>}
// CHECK: linalg.matmul {shard.sharding_rule = #shard.rule<([d0, d2], [d2, d1], [d0, d1]) -> ([d0, d1]) {d0=8, d1=4, d2=16} reduction={d2} combiners=[sum] inits=[2] linear={{\[\[}}0, 2], [1, 2]]>}
func.func @sharding(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %e: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %c = linalg.matmul {shard.sharding = #shard.sharding<mesh = #m, loops = [d0, d2]>}
      ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.matmul {shard.sharding_rule = #shard.rule<([d0, d2], [d2, d1], [d0, d1]) -> ([d0, d1]) {d0=8, d1=4, d2=16} reduction={d2} combiners=[sum] inits=[2] linear=[[0, 2], [1, 2]]>}
      ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %c, %r : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// #shard.sharding with `reads`: a slice of columns 2 to 5 of a tensor cut
// in columns over a mesh axis of 2, read in that layout.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @sharding_reads
// CHECK: tensor.extract_slice %arg0[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #mesh, loops = [-], reads = [#layout_S1]>} : tensor<8x8xf32> to tensor<8x4xf32>
func.func @sharding_reads(%x: tensor<8x8xf32>) -> tensor<8x4xf32> {
  %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#shard.placements<mesh = #m, placements = [S(1)]>]>}
      : tensor<8x8xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// The sharded tensor type: a dynamic dim where the spec leaves it whole.
// CHECK-LABEL: func.func private @types
// CHECK-SAME: !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu"]>>
// CHECK-SAME: !shard.tensor<?x10xf32, #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu"]>>
func.func private @types(
    !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>,
    !shard.tensor<?x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>)
