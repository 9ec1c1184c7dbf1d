// The plans themselves (one exchange per redistribution):
// RUN: shard-opt %s -shard-plan-redistribute=plans=direct -split-input-file -verify-diagnostics --allow-unregistered-dialect | FileCheck %s
// The choice among candidate plans under the cost model (the CHOICE cases
// at the end):
// RUN: shard-opt %s -shard-plan-redistribute -split-input-file -verify-diagnostics --allow-unregistered-dialect | FileCheck %s --check-prefix=CHOICE
// RUN: shard-opt %s -shard-plan-redistribute="topology=%S/Inputs/topology-ib-nvlink.json" -split-input-file -verify-diagnostics --allow-unregistered-dialect | FileCheck %s --check-prefix=IBNV
// RUN: not shard-opt %s -shard-plan-redistribute=plans=best -split-input-file 2>&1 | FileCheck %s --check-prefix=PLANS
// PLANS: for the --plans option: 'best' is not a plan set: cheapest or direct

// all_gather of a chunk spec over 4 ranks with uneven sizes (3, 3, 3, 1):
// the argument becomes this rank's block, dynamic in the chunked dim.
!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
// CHECK-LABEL: func.func @all_gather(
// CHECK-SAME: %[[L:.*]]: tensor<6x?xf32>) -> tensor<6x10xf32>
func.func @all_gather(%s: !s) -> tensor<6x10xf32> {
  // CHECK: %[[G:.*]] = shard.spmd.all_gather %[[L]] over world from !shard.tensor<6x10xf32, #shard.chunk<dim = 1, {{.*}}>> : tensor<6x?xf32> -> tensor<6x10xf32>
  // Ops of unregistered dialects pass through untouched.
  // CHECK: "test.op"() : () -> ()
  // CHECK: return %[[G]]
  %t = shard.all_gather %s : !s -> tensor<6x10xf32>
  "test.op"() : () -> ()
  return %t : tensor<6x10xf32>
}

// -----

// Even chunks keep a static local type; distribute becomes a scatter.
!s = !shard.tensor<8x6xi32, #shard.chunk<dim = 0, placements = ["rank:1", "rank:0"]>>
// CHECK-LABEL: func.func @distribute(
// CHECK-SAME: %[[T:.*]]: tensor<8x6xi32>)
func.func @distribute(%t: tensor<8x6xi32>) -> tensor<8x6xi32> {
  // CHECK: %[[L:.*]] = shard.spmd.scatter %[[T]] over world root 1 to !shard.tensor<8x6xi32, {{.*}}> : tensor<8x6xi32> -> tensor<4x6xi32>
  // CHECK: %[[G:.*]] = shard.spmd.all_gather %[[L]] over world from {{.*}} : tensor<4x6xi32> -> tensor<8x6xi32>
  %s = shard.distribute %t from rank 1 : tensor<8x6xi32> -> !s
  %g = shard.all_gather %s : !s -> tensor<8x6xi32>
  return %g : tensor<8x6xi32>
}

// -----

// local_shards and from_local_shards are views: casts at most. A
// redistribute between equal specs moves nothing.
!s = !shard.tensor<5x3xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
// CHECK-LABEL: func.func @views(
// CHECK-SAME: %[[L:.*]]: tensor<?x3xf32>) -> tensor<?x?xf32>
func.func @views(%l: tensor<?x3xf32>) -> tensor<?x?xf32> {
  // CHECK-NOT: shard.
  // CHECK: %[[C:.*]] = tensor.cast %[[L]] : tensor<?x3xf32> to tensor<?x?xf32>
  // CHECK: return %[[C]]
  %s = shard.from_local_shards %l : tensor<?x3xf32> -> !s
  %r = shard.redistribute %s : !s -> !s
  %m = shard.local_shards %r : !s -> tensor<?x?xf32>
  return %m : tensor<?x?xf32>
}

// -----

// all_gather of a layout with replicas: the exchange to the whole tensor on
// every rank of the world (a replica's holder receives only the other half),
// not an all_gather, which would send it its own block again.
!s = !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), R]>>
// CHECK-LABEL: func.func @all_gather_replicas(
// CHECK-SAME: %[[L:.*]]: tensor<4x6xf32>)
func.func @all_gather_replicas(%s: !s) -> tensor<8x6xf32> {
  // CHECK: %[[G:.*]] = shard.spmd.exchange %[[L]] from !shard.tensor<8x6xf32, #layout_S0_R{{(_?[0-9]+)?}}> to world : tensor<4x6xf32> -> tensor<8x6xf32>
  // CHECK-NOT: shard.spmd.all_gather
  // CHECK: return %[[G]]
  %g = shard.all_gather %s : !s -> tensor<8x6xf32>
  return %g : tensor<8x6xf32>
}

// -----

// Calls and returns of sharded values are converted with the signatures.
!s = !shard.tensor<4x4xf64, #shard.enumerable<[
  {offsets = [0, 0], sizes = [4, 1], placement = "rank:0"},
  {offsets = [0, 1], sizes = [4, 3], placement = "rank:1"} ]>>
// CHECK-LABEL: func.func private @make() -> tensor<4x?xf64>
func.func private @make() -> !s
// CHECK-LABEL: func.func @caller() -> tensor<4x4xf64>
func.func @caller() -> tensor<4x4xf64> {
  // CHECK: %[[L:.*]] = call @make() : () -> tensor<4x?xf64>
  // CHECK: shard.spmd.all_gather %[[L]]
  %s = func.call @make() : () -> !s
  %g = shard.all_gather %s : !s -> tensor<4x4xf64>
  return %g : tensor<4x4xf64>
}

// -----

// A redistribution between different specs: one exchange that receives
// exactly what each rank lacks (here chunk dim 0 -> dim 1, an all_to_all).
!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
!b = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:3", "rank:2", "rank:1", "rank:0"]>>
// CHECK-LABEL: func.func @redistribute(
// CHECK-SAME: %[[A:.*]]: tensor<?x10xf32>) -> tensor<6x?xf32>
func.func @redistribute(%a: !a) -> !b {
  // CHECK: %[[B:.*]] = shard.spmd.exchange %[[A]] from !shard.tensor<6x10xf32, #shard.chunk<dim = 0, {{.*}}>> to !shard.tensor<6x10xf32, #shard.chunk<dim = 1, {{.*}}>> : tensor<?x10xf32> -> tensor<6x?xf32>
  // CHECK: return %[[B]]
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}

// -----

// Several blocks on one rank: the local view packs them (1-D); distribute
// is the exchange from the whole tensor on the source rank, all_gather an
// exchange to the first owner then an all_gather of that one block.
!s = !shard.tensor<5x5xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [3, 5], placement = "rank:0"},
  {offsets = [3, 0], sizes = [2, 5], placement = "rank:0"} ]>>
// CHECK-LABEL: func.func @two_blocks_one_rank(
// CHECK-SAME: %[[T:.*]]: tensor<5x5xf32>) -> tensor<5x5xf32>
// CHECK: %[[S:.*]] = shard.spmd.exchange %[[T]] from !shard.tensor<5x5xf32, #shard.device_placement<"rank:1/cpu">> to !shard.tensor<5x5xf32, #shard.enumerable<{{.*}}>> : tensor<5x5xf32> -> tensor<25xf32>
// CHECK: %[[W:.*]] = shard.spmd.exchange %[[S]] from !shard.tensor<5x5xf32, #shard.enumerable<{{.*}}>> to !shard.tensor<5x5xf32, #shard.device_placement<"rank:0/cpu">> : tensor<25xf32> -> tensor<5x5xf32>
// CHECK: %[[G:.*]] = shard.spmd.all_gather %[[W]] over world from !shard.tensor<5x5xf32, #shard.device_placement<"rank:0/cpu">> : tensor<5x5xf32> -> tensor<5x5xf32>
// CHECK: return %[[G]]
func.func @two_blocks_one_rank(%t: tensor<5x5xf32>) -> tensor<5x5xf32> {
  %s = shard.distribute %t from rank 1 : tensor<5x5xf32> -> !s
  %g = shard.all_gather %s : !s -> tensor<5x5xf32>
  return %g : tensor<5x5xf32>
}

// -----

!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["cuda:0", "cuda:1"]>>
func.func @no_rank(%t: tensor<8xf32>) {
  // expected-error @+1 {{cannot plan '!shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["cuda:0", "cuda:1"]>>': block #0 is placed on "cuda:0", which names no rank}}
  %s = shard.distribute %t from rank 0 : tensor<8xf32> -> !s
  return
}

// -----

!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func @unsupported_op(%s: !s, %c: i1) -> !s {
  // expected-error @+1 {{'arith.select' with sharded tensor values cannot be planned yet; only shard ops, func.func, func.call and func.return may carry them}}
  %r = arith.select %c, %s, %s : !s
  return %r : !s
}

// -----

// Sharded tensors nested in other types are not planned.
!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func private @g(!s) -> tensor<8xf32>
func.func @nested_type() {
  // expected-error @+1 {{cannot plan '(!shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0/cpu", "rank:1/cpu"]>>) -> tensor<8xf32>': sharded tensors nested in other types are not supported}}
  %f = func.constant @g : (!s) -> tensor<8xf32>
  return
}

// -----

// Partial values need a reduction (a later version's planner).
!s = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]>>
func.func @partial(%s: !s) -> tensor<8xf32> {
  // expected-error @+1 {{'shard.all_gather' of '!shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]>>' needs a reduction of its Partial placements, which is not supported yet}}
  %t = shard.all_gather %s : !s -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// A mesh spec with a replicated axis: every device has a local view.
!s = !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [R, S(0)]>>
// CHECK-LABEL: func.func @replicated(
// CHECK-SAME: %{{.*}}: tensor<8x6xf32>) -> tensor<4x6xf32>
func.func @replicated(%t: tensor<8x6xf32>) -> !s {
  // CHECK: shard.spmd.scatter %{{.*}} over world root 0 to {{.*}} : tensor<8x6xf32> -> tensor<4x6xf32>
  %s = shard.distribute %t from rank 0 : tensor<8x6xf32> -> !s
  return %s : !s
}

// -----

// Partial sources reduce into the destination (all_reduce, reduce_scatter).
!p = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]>>
!r = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
// CHECK-LABEL: func.func @partial_source(
func.func @partial_source(%p: !p) -> !r {
  // CHECK: shard.spmd.all_reduce %{{.*}} over axes [0] reduce sum from !shard.tensor<8xf32, #layout_Psum{{(_?[0-9]+)?}}> to !shard.tensor<8xf32, #layout_R{{(_?[0-9]+)?}}> : tensor<8xf32> -> tensor<8xf32>
  %r = shard.redistribute %p : !p -> !r
  return %r : !r
}

// -----

// A Partial destination (planning::decideMove): moved whole where its
// Partial axes are, then the copies made where they lie, moving nothing.
// max, min, avg: every copy holds the value.
!p = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]>>
!q = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(max)]>>
// CHECK-LABEL: func.func @partial_destination(
// CHECK-SAME: %[[P:.*]]: tensor<8xf32>) -> tensor<8xf32>
func.func @partial_destination(%p: !p) -> !q {
  // CHECK: %[[R:.*]] = shard.spmd.all_reduce %[[P]] over axes [0] reduce sum
  // CHECK-NOT: arith.select
  // CHECK: return %[[R]]
  %q = shard.redistribute %p : !p -> !q
  return %q : !q
}

// -----

// sum (and product): the first copy of each group keeps the value, the
// others hold the identity: on a [2, 2] mesh, P(sum) on axis 0 and rows cut
// on axis 1, the ranks of axis-0 index 0 (ranks 0 and 1) keep it.
!s = !shard.tensor<8x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(1), S(0)]>>
!q = !shard.tensor<8x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [P(sum), S(0)]>>
// CHECK-LABEL: func.func @sum_destination(
// CHECK-SAME: %[[S:.*]]: tensor<4x2xf32>) -> tensor<4x4xf32>
func.func @sum_destination(%s: !s) -> !q {
  // CHECK: %[[W:.*]] = shard.spmd.all_gather %[[S]] over axes [0] dim 1
  // CHECK-DAG: %[[TABLE:.*]] = arith.constant dense<[true, true, false]> : tensor<3xi1>
  // CHECK-DAG: %[[RANK:.*]] = shard.spmd.rank : index
  // CHECK-DAG: %[[LAST:.*]] = arith.constant 2 : index
  // CHECK: %[[AT:.*]] = arith.minui %[[RANK]], %[[LAST]] : index
  // CHECK: %[[KEEP:.*]] = tensor.extract %[[TABLE]][%[[AT]]] : tensor<3xi1>
  // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK: %[[FILLED:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4x4xf32>)
  // CHECK: %[[OUT:.*]] = arith.select %[[KEEP]], %[[W]], %[[FILLED]] : tensor<4x4xf32>
  // CHECK: return %[[OUT]]
  %q = shard.redistribute %s : !s -> !q
  return %q : !q
}

// -----

!r = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [R, R]>>
!q = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [P(sum), P(max)]>>
func.func @destination_reduced_two_ways(%r: !r) -> !q {
  // expected-error @+1 {{redistribution to '!shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [P(sum), P(max)]>>' keeps partial values reduced with different operations, which is not supported yet}}
  %q = shard.redistribute %r : !r -> !q
  return %q : !q
}

// -----

// Ranks few and far apart (a mesh naming rank 2^31 - 1): the rank is
// compared with each first copy's, not read from a table of 2^31 entries.
!r = !shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2], devices = [2147483647, 0]>, placements = [R]>>
!q = !shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2], devices = [2147483647, 0]>, placements = [P(sum)]>>
// CHECK-LABEL: func.func @far_ranks(
func.func @far_ranks(%r: !r) -> !q {
  // CHECK-NOT: dense<
  // CHECK: %[[RANK:.*]] = shard.spmd.rank : index
  // CHECK: %[[FAR:.*]] = arith.constant 2147483647 : index
  // CHECK: %[[IS:.*]] = arith.cmpi eq, %[[RANK]], %[[FAR]] : index
  // CHECK: %[[KEEP:.*]] = arith.ori %{{.*}}, %[[IS]] : i1
  // CHECK: arith.select %[[KEEP]]
  %q = shard.redistribute %r : !r -> !q
  return %q : !q
}

// -----

// A layout reduced two ways is refused even kept as it is: nothing makes
// one, and nothing could run it.
!q = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [P(sum), P(max)]>>
func.func @reduced_two_ways_kept(%q: !q) -> !q {
  // expected-error @+1 {{redistribution from '!shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [P(sum), P(max)]>>' reduces its Partial axes with different operations, which is not supported yet}}
  %k = shard.redistribute %q : !q -> !q
  return %k : !q
}

// -----

// Partial copies are numbers: a complex value is refused (it once wrote an
// invalid constant), and so is an unsigned integer reduced by sum (its
// identity, an arith constant, must be signless); max is fine.
!r = !shard.tensor<4xcomplex<f32>, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
!q = !shard.tensor<4xcomplex<f32>, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]>>
func.func @complex_destination(%r: !r) -> !q {
  // expected-error @+1 {{keeps partial values of element type 'complex<f32>', which no reduction here supports (integers and floats only)}}
  %q = shard.redistribute %r : !r -> !q
  return %q : !q
}

// -----

// Partial i1 values could not be reduced: the runtime moves i1 as bytes.
!r = !shard.tensor<4xi1, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
!q = !shard.tensor<4xi1, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(max)]>>
func.func @i1_partial_destination(%r: !r) -> !q {
  // expected-error @+1 {{keeps partial values, which could not be reduced: the runtime moves i1 as bytes and does not reduce it}}
  %q = shard.redistribute %r : !r -> !q
  return %q : !q
}

// -----

!r = !shard.tensor<4xui8, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
!q = !shard.tensor<4xui8, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]>>
func.func @unsigned_sum_destination(%r: !r) -> !q {
  // expected-error @+1 {{keeps partial values of element type 'ui8' reduced by sum, which is not supported yet for signed or unsigned integer types (use a signless one, or max, min or avg)}}
  %q = shard.redistribute %r : !r -> !q
  return %q : !q
}

// -----

!r = !shard.tensor<4xui8, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
!q = !shard.tensor<4xui8, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(max)]>>
// CHECK-LABEL: func.func @unsigned_max_destination(
// CHECK-SAME: %[[R:.*]]: tensor<4xui8>) -> tensor<4xui8>
// CHECK-NEXT: return %[[R]]
func.func @unsigned_max_destination(%r: !r) -> !q {
  %q = shard.redistribute %r : !r -> !q
  return %q : !q
}

// -----

!p = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [P(sum), P(max)]>>
!r = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [R, R]>>
func.func @mixed_reductions(%p: !p) -> !r {
  // expected-error @+1 {{reduces its Partial axes with different operations, which is not supported yet}}
  %r = shard.redistribute %p : !p -> !r
  return %r : !r
}

// -----

// gather to one rank: a redistribution to the whole tensor on that rank.
!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
// CHECK-LABEL: func.func @gather(
// CHECK-SAME: %[[L:.*]]: tensor<6x?xf32>) -> tensor<6x10xf32>
func.func @gather(%s: !s) -> tensor<6x10xf32> {
  // CHECK: %[[T:.*]] = shard.spmd.gather %[[L]] over ranks [0, 1, 2, 3] root 2 from !shard.tensor<6x10xf32, #shard.chunk<{{.*}}>> to !shard.tensor<6x10xf32, #shard.device_placement<"rank:2/cpu">> : tensor<6x?xf32> -> tensor<6x10xf32>
  // CHECK: return %[[T]]
  %t = shard.gather %s to rank 2 : !s -> tensor<6x10xf32>
  return %t : tensor<6x10xf32>
}

// -----

// A dim change of a large tensor: bandwidth dominates, and the direct
// exchange (an all_to_all) receives a quarter of what an all_gather would.
!a = !shard.tensor<1024x1024xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
!b = !shard.tensor<1024x1024xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
// CHOICE-LABEL: func.func @dim_change_large(
// CHOICE-NEXT: %[[B:.*]] = shard.spmd.exchange %{{.*}} from !shard.tensor<1024x1024xf32, #shard.chunk<dim = 0, {{.*}}>> to !shard.tensor<1024x1024xf32, #shard.chunk<dim = 1, {{.*}}>>
// CHOICE-NEXT: return %[[B]]
func.func @dim_change_large(%a: !a) -> !b {
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}

// -----

// The same dim change of a tiny tensor: an all_gather then a local slice
// costs as many messages as the exchange (the runtime sends an all_gather as
// one message from every owner to every rank) and 4x the bytes, so the
// exchange wins: near-ties go to the plan with less traffic.
!a = !shard.tensor<4x4xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
!b = !shard.tensor<4x4xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
// CHOICE-LABEL: func.func @dim_change_small(
// CHOICE-NEXT: %[[B:.*]] = shard.spmd.exchange %{{.*}} from !shard.tensor<4x4xf32, #shard.chunk<dim = 0, {{.*}}>> to !shard.tensor<4x4xf32, #shard.chunk<dim = 1, {{.*}}>> : tensor<1x4xf32> -> tensor<4x1xf32>
// CHOICE-NEXT: return %[[B]]
func.func @dim_change_small(%a: !a) -> !b {
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}

// -----

// Partial -> Replicate over 8 ranks: the native all_reduce, which receives
// what a reduce_scatter then an all_gather would (2 * 7/8 of the tensor per
// rank, the lower bound) in one call; a direct reduction would receive 7
// copies per rank.
#m8 = #shard.mesh<shape = [8]>
!p = !shard.tensor<1024x512xf32, #shard.placements<mesh = #m8, placements = [P(sum)]>>
!r = !shard.tensor<1024x512xf32, #shard.placements<mesh = #m8, placements = [R]>>
// CHOICE-LABEL: func.func @all_reduce(
// CHOICE-NEXT: %[[R:.*]] = shard.spmd.all_reduce %{{.*}} over axes [0] reduce sum from !shard.tensor<1024x512xf32, #layout_Psum{{(_?[0-9]+)?}}> to !shard.tensor<1024x512xf32, #layout_R{{(_?[0-9]+)?}}> : tensor<1024x512xf32> -> tensor<1024x512xf32>
// CHOICE-NEXT: return %[[R]]
func.func @all_reduce(%p: !p) -> !r {
  %r = shard.redistribute %p : !p -> !r
  return %r : !r
}

// -----

// (S0, S1) -> (R, R) on a 2x4 mesh whose axis 0 is InfiniBand and axis 1
// NVLink: one mesh axis at a time, the fast axis first, so that each rank
// sends one message over the slow link instead of four. With one link for
// everything, one axis at a time is still cheapest: 1 + 3 messages per rank
// against 7 for one exchange or one all_gather, the same bytes (the orders
// tie, and the first, ascending, wins).
#m24 = #shard.mesh<shape = [2, 4]>
!a = !shard.tensor<256x256xf32, #shard.placements<mesh = #m24, placements = [S(0), S(1)]>>
!b = !shard.tensor<256x256xf32, #shard.placements<mesh = #m24, placements = [R, R]>>
// IBNV-LABEL: func.func @per_axis(
// IBNV-NEXT: %[[H:.*]] = shard.spmd.all_gather %{{.*}} over axes [1] dim 1 from {{.*}}#layout_S0_S1{{(_?[0-9]+)?}}> to {{.*}}#layout_S0_R{{(_?[0-9]+)?}}>
// IBNV-NEXT: %[[W:.*]] = shard.spmd.all_gather %[[H]] over axes [0] dim 0 from {{.*}}#layout_S0_R{{(_?[0-9]+)?}}> to {{.*}}#layout_R_R{{(_?[0-9]+)?}}>
// IBNV-NEXT: return %[[W]]
// CHOICE-LABEL: func.func @per_axis(
// CHOICE-NEXT: %[[H:.*]] = shard.spmd.all_gather %{{.*}} over axes [0] dim 0 from {{.*}}#layout_S0_S1{{(_?[0-9]+)?}}> to {{.*}}#layout_R_S1{{(_?[0-9]+)?}}>
// CHOICE-NEXT: %[[W:.*]] = shard.spmd.all_gather %[[H]] over axes [1] dim 1 from {{.*}}#layout_R_S1{{(_?[0-9]+)?}}> to {{.*}}#layout_R_R{{(_?[0-9]+)?}}>
// CHOICE-NEXT: return %[[W]]
func.func @per_axis(%a: !a) -> !b {
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}

// -----

// A gather of 16 MiB from 4 ranks to rank 0: the direct plan receives the
// 12 MiB rank 0 lacks (the lower bound). An all_gather then a slice costs the
// same 3 messages per rank in the model (as the runtime sends it) but
// receives 48 MiB: a near-tie goes to the plan with less traffic.
!a = !shard.tensor<2048x2048xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
// CHOICE-LABEL: func.func @gather_large(
// CHOICE-NEXT: %[[G:.*]] = shard.spmd.gather %{{.*}} over ranks [0, 1, 2, 3] root 0 from !shard.tensor<2048x2048xf32, #shard.chunk<dim = 0, {{.*}}>> to !shard.tensor<2048x2048xf32, #shard.device_placement<"rank:0/cpu">> : tensor<512x2048xf32> -> tensor<2048x2048xf32>
// CHOICE-NOT: all_gather
// CHOICE: return
func.func @gather_large(%a: !a) -> tensor<2048x2048xf32> {
  %g = shard.gather %a to rank 0 : !a -> tensor<2048x2048xf32>
  return %g : tensor<2048x2048xf32>
}

// -----

// Each step is emitted as the collective it is: the whole tensor on one rank
// to a replica on every rank of a mesh is a broadcast over those ranks; a
// chunk dim change on one mesh axis is an all_to_all (uneven: 6 columns over
// 4 ranks are 2, 2, 2, 0).
!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:1">>
!all = !shard.tensor<4x4xf32, #shard.placements<mesh = #shard.mesh<shape = [3]>, placements = [R]>>
!s0 = !shard.tensor<12x6xf32, #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(0)]>>
!s1 = !shard.tensor<12x6xf32, #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(1)]>>
// CHECK-LABEL: func.func @broadcast(
// CHECK: shard.spmd.broadcast %{{.*}} over ranks [0, 1, 2] root 1 from !shard.tensor<4x4xf32, #shard.device_placement<"rank:1/cpu">> to !shard.tensor<4x4xf32, #layout_R{{(_?[0-9]+)?}}> : tensor<4x4xf32> -> tensor<4x4xf32>
func.func @broadcast(%a: !one) -> !all {
  %b = shard.redistribute %a : !one -> !all
  return %b : !all
}
// CHECK-LABEL: func.func @all_to_all(
// CHECK: shard.spmd.all_to_all %{{.*}} over axes [0] split 1 concat 0 from {{.*}}#layout_S0{{(_?[0-9]+)?}}> to {{.*}}#layout_S1{{(_?[0-9]+)?}}> : tensor<3x6xf32> -> tensor<12x?xf32>
func.func @all_to_all(%a: !s0) -> !s1 {
  %b = shard.redistribute %a : !s0 -> !s1
  return %b : !s1
}

// -----

// Strided shards with uneven groups (shardc's cut: torch.chunk of each
// group). A per-axis chain through (_S(0, 4), _S(0, 3)) is no layout: once
// axis 0 holds 2 or 1 rows of each of 4 groups, its 8- and 4-row pieces are
// not 3 groups; the planner skips that chain (it built its blocks from
// unchecked placements and crashed).
!ps = !shard.tensor<12x8xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [P(sum), _S(0, 3)]>>
!sr = !shard.tensor<12x8xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [_S(0, 4), R]>>
// CHOICE-LABEL: func.func @strided_uneven_groups(
// CHOICE: shard.spmd.
// CHOICE: return
func.func @strided_uneven_groups(%a: !ps) -> !sr {
  %b = shard.redistribute %a : !ps -> !sr
  return %b : !sr
}

// -----

// A move of a tensor whose layout cuts a dynamic dim, where nothing in the
// program gives its run-time extent (a function argument of the global
// view): refused.
!s0 = !shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>
!r = !shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
func.func @dynamic_extent_unknown(%a: !s0) -> !r {
  // expected-error @+1 {{cannot plan a move of '!shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>': a layout cuts a dynamic dim, and its run-time extent is not known here (a shard.from_local_shards with `extents` gives it)}}
  %b = shard.redistribute %a : !s0 -> !r
  return %b : !r
}
