// The decision is IR (issue 42, item 1): -shard-propagate writes each op's
// sharding on the op (shard.sharding: the loop each mesh axis cuts), which
// -shard-spmd-partition reads; a user may pin it, and both searches honour
// it (its tensors move to it) or say why they cannot.
// RUN: shard-opt %s -shard-propagate=search=greedy -split-input-file -verify-diagnostics | FileCheck %s
// RUN: shard-opt %s -shard-propagate=search=whole -split-input-file -verify-diagnostics | FileCheck %s
// Partitioned, the decisions are read and gone:
// RUN: shard-opt %s -shard-propagate -shard-spmd-partition -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=PART

// C = A x B, A's rows cut, B whole: op by op keeps the rows (d0). Pinned
// to the contracted loop (d2), A moves to columns and B to rows, and C is
// partial, reduced where it is returned whole. The ops without a pin get
// the sharding chosen for them written.
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @pinned
// CHECK: tensor.empty() {shard.sharding = #shard.sharding<mesh = #mesh, loops = [-]>}
// CHECK: %[[A:.*]] = shard.constraint %arg0 layout {{[^}]*}}#layout_S1
// CHECK-NEXT: %[[B:.*]] = shard.constraint %arg1 layout {{[^}]*}}#layout_S0
// CHECK-NEXT: %[[C:.*]] = linalg.matmul {shard.sharding = #shard.sharding<mesh = #mesh, loops = [d2]>} ins(%[[A]], %[[B]] :
// CHECK-NEXT: %[[P:.*]] = shard.constraint %[[C]] layout {{[^}]*}}#layout_Psum
// CHECK-NEXT: %[[R:.*]] = shard.constraint %[[P]] layout {{[^}]*}}#layout_R
// CHECK-NEXT: return %[[R]]
// PART-LABEL: func.func @pinned
// PART-NOT: shard.sharding
// PART: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x3xf32>, tensor<3x6xf32>)
// PART: shard.spmd.all_reduce
func.func @pinned(%a: tensor<8x12xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                  %b: tensor<12x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %e = tensor.empty() : tensor<8x6xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %c = linalg.matmul {shard.sharding = #shard.sharding<mesh = #m, loops = [d2]>}
      ins(%a, %b : tensor<8x12xf32>, tensor<12x6xf32>) outs(%f : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %c : tensor<8x6xf32>
}

// -----

// A pin alone gives a function without layouts its mesh: the op is cut as
// pinned, and its free argument and result take the layouts that follow.
// CHECK-LABEL: func.func @pin_only
// CHECK-SAME: %arg0: tensor<4x6xf32> {shard.layout = #layout_S1}
// CHECK-NEXT: math.tanh %arg0 {shard.sharding = #shard.sharding<mesh = #mesh, loops = [d1]>}
func.func @pin_only(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %t = math.tanh %x {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d1]>} : tensor<4x6xf32>
  return %t : tensor<4x6xf32>
}

// -----

// A pin the op's rule does not have is refused.
#m = #shard.mesh<shape = [2]>
func.func @no_such_loop(%x: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4x6xf32> {
  // expected-error @+1 {{'math.tanh' op has the sharding #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d5]>, which -shard-propagate cannot give it: its rule's loops are d0 to d1, not d5}}
  %t = math.tanh %x {shard.sharding = #shard.sharding<mesh = #m, loops = [d5]>} : tensor<4x6xf32>
  return %t : tensor<4x6xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @not_a_sharding(%x: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4x6xf32> {
  // expected-error @+1 {{'math.tanh' op has shard.sharding = "d0", which is not a #shard.sharding}}
  %t = math.tanh %x {shard.sharding = "d0"} : tensor<4x6xf32>
  return %t : tensor<4x6xf32>
}

// -----

// 3 heads of 16 (a dim of 48) on 2 ranks: torch.chunk cuts the 48 rows
// 24/24, between the heads' steps (2/1), so the head loop may not be cut.
#m = #shard.mesh<shape = [2]>
func.func @misaligned(%x: tensor<48x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) -> tensor<3x16x4xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op has the sharding #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d0]>, which -shard-propagate cannot give it: d0 (3 steps of 16 elements of a folded dim of 48) is not sharded on axis 0: torch.chunk cuts the folded dim between its steps}}
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [3, 16, 4] {shard.sharding = #shard.sharding<mesh = #m, loops = [d0]>} : tensor<48x4xf32> into tensor<3x16x4xf32>
  return %e : tensor<3x16x4xf32>
}

// -----

// An op without a sharding rule has no loops to pin.
#m = #shard.mesh<shape = [2]>
func.func @no_rule(%x: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4x6xf32> {
  // expected-error @+1 {{'func.call' op has shard.sharding but no sharding rule to cut its loops by}}
  %r = func.call @id(%x) {shard.sharding = #shard.sharding<mesh = #m, loops = [d0]>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func private @id(tensor<4x6xf32>) -> tensor<4x6xf32>

// -----

// A slice of columns cut as the source is: the decision says the source is
// read as it is, cut along the sliced dim (reads), not gathered; partition
// reads that and moves only the slice's parts.
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @window_read
// CHECK: tensor.extract_slice %arg0[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #mesh, loops = [{{.*}}], reads = {{\[}}#layout_S1]>}
// PART-LABEL: func.func @window_read
// PART: %[[PART:.*]] = tensor.extract_slice %arg0[0, 0] [8, %{{.*}}] [1, 1] : tensor<8x2xf32> to tensor<8x?xf32>
// PART: shard.spmd.exchange %[[PART]]
func.func @window_read(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] : tensor<8x8xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// A pinned read is honoured: the whole source moves to the layout the
// decision reads it in.
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @pinned_read
// CHECK: %[[X:.*]] = shard.constraint %arg0 layout #layout_S1 : tensor<8x8xf32>
// CHECK-NEXT: tensor.extract_slice %[[X]][0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #mesh, loops = [-], reads = {{\[}}#layout_S1]>}
func.func @pinned_read(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#shard.placements<mesh = #m, placements = [S(1)]>]>} : tensor<8x8xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// A pinned read the op's rule does not allow is refused: the rows are the
// result's own loop, not a window.
#m = #shard.mesh<shape = [4]>
func.func @pinned_bad_read(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  // expected-error @+1 {{which -shard-propagate cannot give it: operand #0 may not be read in #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(0)]> under these loops (#shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [R]> is what they read it in)}}
  %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#shard.placements<mesh = #m, placements = [S(0)]>]>} : tensor<8x8xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// Partial reads (ShardingRule::linear) pinned: an add of two row-parallel
// products reads both P(sum) and its result is P(sum); each product's part
// moves nothing, and the sum is reduced once where it is returned whole.
#m = #shard.mesh<shape = [4]>
#p = #shard.placements<mesh = #m, placements = [P(sum)]>
// CHECK-LABEL: func.func @pinned_partial_reads
// CHECK: arith.addf {{.*}}reads = [#layout_Psum, #layout_Psum]>
// CHECK-NEXT: shard.constraint {{.*}} layout {{[^}]*}}#layout_Psum
// PART-LABEL: func.func @pinned_partial_reads
// PART: linalg.matmul
// PART-NOT: shard.spmd.all_reduce
// PART: linalg.matmul
// PART-NOT: shard.spmd.all_reduce
// PART: arith.addf
// PART: shard.spmd.all_reduce
// PART-NOT: shard.spmd.all_reduce
// PART: return
func.func @pinned_partial_reads(%a: tensor<8x12xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                                %b: tensor<12x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                                %c: tensor<12x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %x = linalg.matmul {shard.sharding = #shard.sharding<mesh = #m, loops = [d2]>} ins(%a, %b : tensor<8x12xf32>, tensor<12x6xf32>) outs(%z : tensor<8x6xf32>) -> tensor<8x6xf32>
  %y = linalg.matmul {shard.sharding = #shard.sharding<mesh = #m, loops = [d2]>} ins(%a, %c : tensor<8x12xf32>, tensor<12x6xf32>) outs(%z : tensor<8x6xf32>) -> tensor<8x6xf32>
  %s = arith.addf %x, %y {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#p, #p]>} : tensor<8x6xf32>
  return %s : tensor<8x6xf32>
}

// -----

// A Partial read needs an axis that shards no loop.
#m = #shard.mesh<shape = [4]>
#p = #shard.placements<mesh = #m, placements = [P(sum)]>
func.func @partial_read_cut_axis(%x: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  // expected-error @+1 {{which -shard-propagate cannot give it: it reads operands Partial on axis 0, which shards loop d0 (a Partial read needs an axis that shards no loop)}}
  %s = arith.addf %x, %x {shard.sharding = #shard.sharding<mesh = #m, loops = [d0], reads = [#p, #p]>} : tensor<8x6xf32>
  return %s : tensor<8x6xf32>
}

// -----

// Only P(sum) passes through a linear op.
#m = #shard.mesh<shape = [4]>
#p = #shard.placements<mesh = #m, placements = [P(max)]>
func.func @partial_read_max(%x: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  // expected-error @+1 {{which -shard-propagate cannot give it: it reads operand #0 P(max) on axis 0; only P(sum) passes through a linear op}}
  %s = arith.addf %x, %x {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#p, #p]>} : tensor<8x6xf32>
  return %s : tensor<8x6xf32>
}

// -----

// The operands read Partial must be one of the rule's linear groups: a
// sum is linear in both of its terms together, not in one alone.
#m = #shard.mesh<shape = [4]>
#p = #shard.placements<mesh = #m, placements = [P(sum)]>
func.func @partial_read_one_term(%x: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  // expected-error @+1 {{which -shard-propagate cannot give it: it reads operands #0 Partial on axis 0, which are not a group its results are linear in (its rule's: [#0, #1])}}
  %s = arith.addf %x, %x {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#p, unit]>} : tensor<8x6xf32>
  return %s : tensor<8x6xf32>
}

// -----

// tanh is linear in nothing.
#m = #shard.mesh<shape = [4]>
#p = #shard.placements<mesh = #m, placements = [P(sum)]>
func.func @partial_read_nonlinear(%x: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  // expected-error @+1 {{which -shard-propagate cannot give it: it reads operands #0 Partial on axis 0, which are not a group its results are linear in (its rule has none)}}
  %s = math.tanh %x {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#p]>} : tensor<8x6xf32>
  return %s : tensor<8x6xf32>
}

// -----

// A reshape folding a dim of run-time size with the heads is fused into
// the linalg ops beside it before the search (their loops then run over
// [B?, H]), but never into an op carrying a pinned sharding: the pinned
// batch_matmul stays as written, with its pin, and its fold with it; the
// exp beside the other fold, pinned nowhere, is fused.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @pinned_beside_dynamic_fold
// CHECK: tensor.collapse_shape
// CHECK: linalg.batch_matmul {shard.sharding = #shard.sharding<mesh = #mesh, loops = [d0]>}
// CHECK-NOT: math.exp
// CHECK: linalg.generic
// CHECK: math.exp
// PART-LABEL: func.func @pinned_beside_dynamic_fold
func.func @pinned_beside_dynamic_fold(%q: tensor<?x4x2x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %k: tensor<?x4x8x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<?x4x2x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %q, %c0 : tensor<?x4x2x8xf32>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<?x4x2x8xf32> into tensor<?x2x8xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<?x4x8x3xf32> into tensor<?x8x3xf32>
  %bh = tensor.dim %qc, %c0 : tensor<?x2x8xf32>
  %e = tensor.empty(%bh) : tensor<?x2x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2x3xf32>) -> tensor<?x2x3xf32>
  %s = linalg.batch_matmul {shard.sharding = #shard.sharding<mesh = #m, loops = [d0]>} ins(%qc, %kc : tensor<?x2x8xf32>, tensor<?x8x3xf32>) outs(%f : tensor<?x2x3xf32>) -> tensor<?x2x3xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [%b, 4, 2, 3] : tensor<?x2x3xf32> into tensor<?x4x2x3xf32>
  %sc = tensor.collapse_shape %s4 [[0, 1], [2], [3]] : tensor<?x4x2x3xf32> into tensor<?x2x3xf32>
  %p = math.exp %sc : tensor<?x2x3xf32>
  %r = tensor.expand_shape %p [[0, 1], [2], [3]] output_shape [%b, 4, 2, 3] : tensor<?x2x3xf32> into tensor<?x4x2x3xf32>
  return %r : tensor<?x4x2x3xf32>
}
