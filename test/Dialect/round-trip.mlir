// Every attribute, type and op prints, parses back, and prints the same:
// with the aliases shard-opt prints (#mesh, #layout_S0_R), read back and
// printed in full (-mlir-print-local-scope), which the checks below spell.
// RUN: shard-opt %s | shard-opt -mlir-print-local-scope | FileCheck %s
// RUN: shard-opt %s -mlir-print-op-generic | shard-opt -mlir-print-local-scope | FileCheck %s
// RUN: shard-opt %s | FileCheck %s --check-prefix=ALIAS
// ALIAS-DAG: #mesh_dp_tp = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
// ALIAS-DAG: #layout_S0_S1 = #shard.placements<mesh = #mesh_dp_tp, placements = [S(0), S(1)]>
// ALIAS-DAG: #layout_S1__S0x2 = #shard.placements<mesh = #mesh{{[0-9]*}}, placements = [S(1), _S(0, 2)]>
// ALIAS-DAG: #layout_R_Pavg_Sm1 = #shard.placements<mesh = #mesh{{[0-9]*}}, placements = [R, P(avg), S(-1)]>

// CHECK-LABEL: func.func @attributes
// CHECK-SAME: shard.block = #shard.block<offsets = [0, 5], sizes = [6, 5], placement = "rank:1/cpu">
// CHECK-SAME: shard.chunk = #shard.chunk<dim = -1, placements = ["rank:0/cpu", "rank:1/cpu"]>
// CHECK-SAME: shard.device = #shard.device<"rank:0/cuda:0">
// CHECK-SAME: shard.enumerable = #shard.enumerable<[{offsets = [0, 0], sizes = [5, 10], placement = "rank:0/cuda:0"}, {offsets = [5, 0], sizes = [5, 10], placement = "rank:1/cuda:1"}]>
func.func @attributes() attributes {
  shard.device = #shard.device<"rank:0/cuda:0">,
  shard.block = #shard.block<offsets = [0, 5], sizes = [6, 5], placement = "rank:1">,
  shard.chunk = #shard.chunk<dim = -1, placements = ["rank:0", "rank:1/cpu"]>,
  shard.enumerable = #shard.enumerable<[
    {offsets = [0, 0], sizes = [5, 10], placement = "rank:0/cuda:0"},
    {offsets = [5, 0], sizes = [5, 10], placement = "rank:1/cuda:1"} ]>
} {
  return
}

// CHECK-LABEL: func.func @types
// CHECK-SAME: !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu", "rank:2/cpu", "rank:3/cpu"]>>
// Uneven chunks with an empty last one: 5 over 4 is 2, 2, 1, 0.
// CHECK-SAME: !shard.tensor<5x3xbf16, #shard.chunk<dim = -2, placements = ["rank:0/cpu", "rank:1/cpu", "rank:2/cpu", "rank:3/cpu"]>>
// An enumerable 2x2 grid.
// CHECK-SAME: !shard.tensor<4x4xi8, #shard.enumerable<[{offsets = [0, 0], sizes = [2, 2], placement = "rank:0/cpu"}, {offsets = [0, 2], sizes = [2, 2], placement = "rank:1/cpu"}, {offsets = [2, 0], sizes = [2, 2], placement = "rank:2/cpu"}, {offsets = [2, 2], sizes = [2, 2], placement = "rank:3/cpu"}]>>
// An empty block past the end holds nothing and is accepted.
// CHECK-SAME: !shard.tensor<4xf64, #shard.enumerable<[{offsets = [0], sizes = [4], placement = "rank:0/cpu"}, {offsets = [6], sizes = [0], placement = "rank:1/cpu"}, {offsets = [9223372036854775807], sizes = [0], placement = "rank:2/cpu"}]>>
// A rank-0 tensor on one device.
// CHECK-SAME: !shard.tensor<i64, #shard.enumerable<[{offsets = [], sizes = [], placement = "cuda:0"}]>>
// A dynamic dim that the layout leaves whole.
// CHECK-SAME: !shard.tensor<?x6xf32, #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu"]>>
func.func @types(
    %a: !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>,
    %b: !shard.tensor<5x3xbf16, #shard.chunk<dim = -2, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>,
    %c: !shard.tensor<4x4xi8, #shard.enumerable<[
      {offsets = [0, 0], sizes = [2, 2], placement = "rank:0"},
      {offsets = [0, 2], sizes = [2, 2], placement = "rank:1"},
      {offsets = [2, 0], sizes = [2, 2], placement = "rank:2"},
      {offsets = [2, 2], sizes = [2, 2], placement = "rank:3"} ]>>,
    %d: !shard.tensor<4xf64, #shard.enumerable<[
      {offsets = [0], sizes = [4], placement = "rank:0"},
      {offsets = [6], sizes = [0], placement = "rank:1"},
      {offsets = [9223372036854775807], sizes = [0], placement = "rank:2"} ]>>,
    %e: !shard.tensor<i64, #shard.enumerable<[{offsets = [], sizes = [], placement = "cuda:0"} ]>>,
    %f: !shard.tensor<?x6xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>) {
  return
}

// Meshes and DTensor placements; several axes may shard one dim.
// CHECK-LABEL: func.func private @meshes
// CHECK-SAME: !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>, placements = [S(0), S(1)]>>
// CHECK-SAME: !shard.tensor<5x6xbf16, #shard.placements<mesh = #shard.mesh<shape = [2, 2], devices = [3, 2, 1, 0], device = "cuda">, placements = [S(0), S(0)]>>
// CHECK-SAME: !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 1, 2]>, placements = [R, P(avg), S(-1)]>>
// CHECK-SAME: !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [P(product)]>>
// Strided shards: heads of a [B*H] dim on every batch (DTensor's _StridedShard).
// CHECK-SAME: !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(1), _S(0, 2)]>>
// A split that does not divide the piece: torch.chunk's groups, as PyTorch.
// CHECK-SAME: !shard.tensor<9x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), _S(0, 2)]>>
// PyTorch's DevicePlacementSpec.
// CHECK-SAME: !shard.tensor<8x6xf32, #shard.device_placement<"rank:3/cuda:1">>
// Several blocks on one rank (LocalShardsWrapper): 16 and 9 on rank 0.
// CHECK-SAME: !shard.tensor<25xf32, #shard.enumerable<[{offsets = [0], sizes = [16], placement = "rank:0/cpu"}, {offsets = [16], sizes = [9], placement = "rank:0/cpu"}]>>
#dp_tp = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
func.func private @meshes(
    !shard.tensor<8x6xf32, #shard.placements<mesh = #dp_tp, placements = [S(0), S(1)]>>,
    !shard.tensor<5x6xbf16, #shard.placements<mesh = #shard.mesh<shape = [2, 2], devices = [3, 2, 1, 0], device = "cuda">, placements = [S(0), S(0)]>>,
    !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 1, 2], device = "cpu">, placements = [R, P(avg), S(-1)]>>,
    !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [P(product)]>>,
    !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(1), _S(0, 2)]>>,
    !shard.tensor<9x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), _S(0, 2)]>>,
    !shard.tensor<8x6xf32, #shard.device_placement<"rank:3/cuda:1">>,
    !shard.tensor<25xf32, #shard.enumerable<[
      {offsets = [0], sizes = [16], placement = "rank:0"},
      {offsets = [16], sizes = [9], placement = "rank:0"} ]>>)

!chunk4 = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
!chunk2 = !shard.tensor<6x10xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>

// CHECK-LABEL: func.func @ops
func.func @ops(%t: tensor<6x10xf32>, %l: tensor<6x?xf32>) -> tensor<6x10xf32> {
  // CHECK: %[[S:.*]] = shard.distribute %{{.*}} from rank 2 : tensor<6x10xf32> -> !shard.tensor<6x10xf32, #shard.chunk<dim = 1,
  %s = shard.distribute %t from rank 2 : tensor<6x10xf32> -> !chunk4
  // CHECK: %[[R:.*]] = shard.redistribute %[[S]] : !shard.tensor<6x10xf32, #shard.chunk<dim = 1, {{.*}}>> -> !shard.tensor<6x10xf32, #shard.chunk<dim = 0,
  %r = shard.redistribute %s : !chunk4 -> !chunk2
  // CHECK: shard.all_gather %[[R]] : !shard.tensor<6x10xf32, #shard.chunk<dim = 0, {{.*}}>> -> tensor<6x10xf32>
  %g = shard.all_gather %r : !chunk2 -> tensor<6x10xf32>
  // CHECK: shard.gather %[[R]] to rank 1 : !shard.tensor<6x10xf32, #shard.chunk<dim = 0, {{.*}}>> -> tensor<6x10xf32>
  %one = shard.gather %r to rank 1 : !chunk2 -> tensor<6x10xf32>
  // CHECK: shard.local_shards %[[S]] : !shard.tensor<{{.*}}> -> tensor<6x?xf32>
  %mine = shard.local_shards %s : !chunk4 -> tensor<6x?xf32>
  // A fully dynamic local type fits any spec.
  // CHECK: shard.local_shards %[[S]] : !shard.tensor<{{.*}}> -> tensor<?x?xf32>
  %any = shard.local_shards %s : !chunk4 -> tensor<?x?xf32>
  // CHECK: shard.from_local_shards %{{.*}} : tensor<6x?xf32> -> !shard.tensor<6x10xf32, #shard.chunk<dim = 1,
  %f = shard.from_local_shards %l : tensor<6x?xf32> -> !chunk4
  // CHECK: shard.spmd.scatter %{{.*}} over world root 0 to !shard.tensor<6x10xf32, #shard.chunk<dim = 1, {{.*}}>> : tensor<6x10xf32> -> tensor<6x?xf32>
  %sl = shard.spmd.scatter %t over world root 0 to !chunk4 : tensor<6x10xf32> -> tensor<6x?xf32>
  // CHECK: shard.spmd.all_gather %{{.*}} over world from !shard.tensor<6x10xf32, #shard.chunk<dim = 1, {{.*}}>> : tensor<6x?xf32> -> tensor<6x10xf32>
  %sg = shard.spmd.all_gather %sl over world from !chunk4 : tensor<6x?xf32> -> tensor<6x10xf32>
  // CHECK: shard.spmd.exchange %{{.*}} from !shard.tensor<6x10xf32, #shard.chunk<dim = 1, {{.*}}>> to !shard.tensor<6x10xf32, #shard.chunk<dim = 0, {{.*}}>> : tensor<6x?xf32> -> tensor<3x10xf32>
  %sr = shard.spmd.exchange %sl from !chunk4 to !chunk2 : tensor<6x?xf32> -> tensor<3x10xf32>
  // CHECK: shard.spmd.exchange %{{.*}} from !shard.tensor<6x10xf32, #shard.chunk<dim = 1, {{.*}}>> to world : tensor<6x?xf32> -> tensor<6x10xf32>
  %sw = shard.spmd.exchange %sl from !chunk4 to world : tensor<6x?xf32> -> tensor<6x10xf32>
  return %g : tensor<6x10xf32>
}

// The named collectives of a plan's steps, uneven sizes included: 10 rows
// over 4 devices are 3, 3, 3, 1.
#m22 = #shard.mesh<shape = [2, 2]>
#m4 = #shard.mesh<shape = [4]>
!ss = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), S(0)]>>
!sr = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), R]>>
!p4 = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [P(max)]>>
!s4 = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [S(0)]>>
!t4 = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [S(1)]>>
!r4 = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [R]>>
!on1 = !shard.tensor<10x6xf32, #shard.device_placement<"rank:1">>
!all = !shard.tensor<10x6xf32, #shard.placements<mesh = #shard.mesh<shape = [3]>, placements = [R]>>
// CHECK-LABEL: func.func @collectives
func.func @collectives(%ss: tensor<?x6xf32>, %p: tensor<10x6xf32>,
                       %s: tensor<?x6xf32>, %w: tensor<10x6xf32>) {
  // CHECK: shard.spmd.all_gather %{{.*}} over axes [1] dim 0 from !shard.tensor<10x6xf32, #shard.placements<{{.*}}[S(0), S(0)]>> to !shard.tensor<10x6xf32, #shard.placements<{{.*}}[S(0), R]>> : tensor<?x6xf32> -> tensor<?x6xf32>
  %0 = shard.spmd.all_gather %ss over axes [1] dim 0 from !ss to !sr : tensor<?x6xf32> -> tensor<?x6xf32>
  // CHECK: shard.spmd.reduce_scatter %{{.*}} over axes [0] dim 0 reduce max from {{.*}} : tensor<10x6xf32> -> tensor<?x6xf32>
  %1 = shard.spmd.reduce_scatter %p over axes [0] dim 0 reduce max from !p4 to !s4 : tensor<10x6xf32> -> tensor<?x6xf32>
  // CHECK: shard.spmd.all_reduce %{{.*}} over axes [0] reduce max from {{.*}} : tensor<10x6xf32> -> tensor<10x6xf32>
  %2 = shard.spmd.all_reduce %p over axes [0] reduce max from !p4 to !r4 : tensor<10x6xf32> -> tensor<10x6xf32>
  // CHECK: shard.spmd.all_to_all %{{.*}} over axes [0] split 1 concat 0 from {{.*}} : tensor<?x6xf32> -> tensor<10x?xf32>
  %3 = shard.spmd.all_to_all %s over axes [0] split 1 concat 0 from !s4 to !t4 : tensor<?x6xf32> -> tensor<10x?xf32>
  // CHECK: shard.spmd.broadcast %{{.*}} over ranks [0, 1, 2] root 1 from {{.*}} : tensor<10x6xf32> -> tensor<10x6xf32>
  %4 = shard.spmd.broadcast %w over ranks [0, 1, 2] root 1 from !on1 to !all : tensor<10x6xf32> -> tensor<10x6xf32>
  // CHECK: shard.spmd.gather %{{.*}} over ranks [0, 1, 2, 3] root 1 from {{.*}} : tensor<?x6xf32> -> tensor<10x6xf32>
  %5 = shard.spmd.gather %s over ranks [0, 1, 2, 3] root 1 from !s4 to !on1 : tensor<?x6xf32> -> tensor<10x6xf32>
  return
}

// A named mesh.
// CHECK: shard.mesh @dp_tp = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
// CHECK: shard.mesh @ring = #shard.mesh<shape = [4], devices = [3, 2, 1, 0], device = "cuda">
shard.mesh @dp_tp = #dp_tp
shard.mesh @ring = #shard.mesh<shape = [4], devices = [3, 2, 1, 0], device = "cuda">

// The mesh's optional keys parse in any order and print in one (devices,
// axes, device), the defaults left out; a 0-D tensor's type has no dims.
// CHECK: shard.mesh @any_order = #shard.mesh<shape = [2], devices = [1, 0], axes = ["x"], device = "cuda">
// CHECK: shard.mesh @defaults = #shard.mesh<shape = [3]>
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: !shard.tensor<f32, #shard.device_placement<"rank:1/cpu">>
shard.mesh @any_order = #shard.mesh<shape = [2], device = "cuda", axes = ["x"], devices = [1, 0]>
shard.mesh @defaults = #shard.mesh<shape = [3], device = "cpu">
func.func @scalar(%a: !shard.tensor<f32, #shard.device_placement<"rank:1">>) {
  return
}

// Layouts of ordinary tensors: shard.layout on function arguments and
// results, shard.constraint on values (inline specs and aliases, with and
// without other attributes).
#ch = #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>
// CHECK-LABEL: func.func @layouts(
// CHECK-SAME: %{{.*}}: tensor<16x10xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>, placements = [R, S(1)]>}
// CHECK-SAME: -> (tensor<8x4xf32> {shard.layout = #shard.chunk<dim = 0, placements = ["rank:0/cpu", "rank:1/cpu"]>})
func.func @layouts(%w: tensor<16x10xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>, placements = [R, S(1)]>},
                   %x: tensor<8x4xf32>) -> (tensor<8x4xf32> {shard.layout = #ch}) {
  // CHECK: %[[Y:.*]] = shard.constraint %{{.*}} layout #shard.chunk<dim = 0, placements = ["rank:0/cpu", "rank:1/cpu"]> : tensor<8x4xf32>
  %y = shard.constraint %x layout #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]> : tensor<8x4xf32>
  // CHECK: %[[Z:.*]] = shard.constraint %[[Y]] layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(1)]> {note = "pinned"} : tensor<8x4xf32>
  %z = shard.constraint %y layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(1)]> {note = "pinned"} : tensor<8x4xf32>
  // CHECK: shard.constraint %[[Z]] layout #shard.chunk<dim = 0, {{.*}}> : tensor<8x4xf32>
  %r = shard.constraint %z layout #ch : tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// An op's sharding (shard.sharding): the loop each mesh axis cuts, or none.
// CHECK-LABEL: func.func @op_sharding(
// CHECK: linalg.matmul {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>, loops = [d0, -]>}
// CHECK: math.tanh %{{.*}} {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4]>, loops = [d1]>}
// CHECK: tensor.extract_slice %{{.*}} {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4]>, loops = [-], reads = {{\[}}#shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(1)]>]>}
// A strided cut: the batch loop over [B*H] in B = 2 groups on tp.
// CHECK: linalg.batch_matmul {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2, 2]>, loops = [-, d0 strided 2]>}
func.func @op_sharding(%a: tensor<8x12xf32>, %b: tensor<12x6xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %m = linalg.matmul {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>, loops = [d0, -]>} ins(%a, %b : tensor<8x12xf32>, tensor<12x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  %t = math.tanh %m {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4]>, loops = [d1]>} : tensor<8x6xf32>
  %s = tensor.extract_slice %t[0, 1] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4]>, loops = [-], reads = [#shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(1)]>]>} : tensor<8x6xf32> to tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4x4xf32>
  %q = tensor.empty() : tensor<8x4x2xf32>
  %k = tensor.empty() : tensor<8x2x4xf32>
  %bm = linalg.batch_matmul {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2, 2]>, loops = [-, d0 strided 2]>} ins(%q, %k : tensor<8x4x2xf32>, tensor<8x2x4xf32>) outs(%e : tensor<8x4x4xf32>) -> tensor<8x4x4xf32>
  return %t : tensor<8x6xf32>
}

// An op's sharding rule (#shard.rule): every part, printed in its one
// order whatever order it was written in; windows only where a dim has one.
// CHECK-LABEL: func.func @sharding_rule(
// CHECK: {a = #shard.rule<([d0, d2], [d2, d1], [d0, d1]) -> ([d0, d1]) {d0=8, d1=16, d2=4} reduction={d2} combiners=[sum] inits=[2] linear={{\[\[}}0, 2], [1, 2{{\]\]}}>,
// CHECK-SAME: b = #shard.rule<([_, d1], [], [_, _]) -> ([d0, d1], [_]) {d0=8, d1=12} combiners=[none, max] unshardable={d0: "a \22quoted\22 why"} folds={d1*4} windows={0: [d0, _]} inits=[none, 0]>,
// CHECK-SAME: c = #shard.rule<() -> () {}>,
// CHECK-SAME: d = #shard.rule<([d0, d1]) -> ([d0]) {d0=2, d1=4} folds={d0*4} strided={d1: r0[0] x2}>,
// CHECK-SAME: e = #shard.rule<([d0, _]) -> ([d0]) {d0=6, d1=4} reduction={d1} unstrided={d0: "the payload reads its index", d1: "rows by data"}>}
func.func @sharding_rule() attributes {
    a = #shard.rule<([d0, d2], [d2, d1], [d0, d1]) -> ([d0, d1]) {d0=8, d1=16, d2=4} linear=[[0, 2], [1, 2]] inits=[2] combiners=[sum] reduction={d2}>,
    b = #shard.rule<([_, d1], [], [_, _]) -> ([d0, d1], [_]) {d0 = 8, d1 = 12} windows={2: [_, _], 0: [d0, _]} folds={d1*4} unshardable={d0: "a \"quoted\" why"} inits=[none, 0] combiners=[none, max]>,
    d = #shard.rule<([d0, d1]) -> ([d0]) {d0=2, d1=4} strided={d1: r0[0] x2} folds={d0*4}>,
    c = #shard.rule<() -> () {}>,
    e = #shard.rule<([d0, _]) -> ([d0]) {d0=6, d1=4} unstrided={d1: "rows by data", d0: "the payload reads its index"} reduction={d1}>} {
  return
}

// A mesh layout cutting a dynamic dim, and the run-time extents the ops
// that move such a tensor take (one per dynamic dim).
// CHECK-LABEL: func.func @cut_dynamic(
// CHECK: shard.from_local_shards %{{.*}} extents(%{{.*}}) : tensor<?x4xf32> -> !shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>
// CHECK: shard.spmd.all_gather %{{.*}} extents(%{{.*}}) over axes [0] dim 0 from
// CHECK: shard.spmd.exchange %{{.*}} extents(%{{.*}}) from
func.func @cut_dynamic(%l: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %s = shard.from_local_shards %l extents(%n) : tensor<?x4xf32> -> !shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>
  %g = shard.spmd.all_gather %l extents(%n) over axes [0] dim 0 from !shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>> to !shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>> : tensor<?x4xf32> -> tensor<?x4xf32>
  %e = shard.spmd.exchange %g extents(%n) from !shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>> to !shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>> : tensor<?x4xf32> -> tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}
