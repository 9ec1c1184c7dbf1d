// Op-by-op propagation (search=greedy; the default, search=whole, has its
// tests in shard-propagate-search.mlir):
// RUN: shard-opt %s -shard-propagate=search=greedy -split-input-file -verify-diagnostics | FileCheck %s
// RUN: not shard-opt %s -shard-propagate="search=greedy explain=true" -split-input-file 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// Quantized elements in a function that gets layouts, op by op and by the
// search (whose own errors are otherwise in shard-propagate-search.mlir):
// RUN: shard-opt %S/Inputs/quantized-elements.mlir -shard-propagate=search=greedy -split-input-file -verify-diagnostics -o /dev/null
// RUN: shard-opt %S/Inputs/quantized-elements.mlir -shard-propagate=search=whole -split-input-file -verify-diagnostics -o /dev/null
// Idempotence: a second run changes nothing.
// RUN: shard-opt %s -shard-propagate=search=greedy -split-input-file -verify-diagnostics > %t.1.mlir
// RUN: shard-opt %t.1.mlir -shard-propagate=search=greedy -split-input-file > %t.2.mlir
// RUN: shard-opt %t.1.mlir -split-input-file > %t.1n.mlir
// RUN: diff %t.1n.mlir %t.2.mlir
// The cost model's options are read (the same as -shard-plan-redistribute's):
// RUN: not shard-opt %s -shard-propagate="alpha-us=nan" -split-input-file 2>&1 | FileCheck %s --check-prefix=COST
// COST: error: -shard-propagate: alpha-us: expected a latency in us from 0 to 1e+12, got nan

// The Megatron MLP (PyTorch's sharded linear pair): W1 column-wise, W2
// row-wise; the only redistribution is the reduction of the output.
#tp = #shard.mesh<shape = [4], axes = ["tp"]>
// CHECK-LABEL: func.func @megatron
// CHECK-SAME: %arg0: tensor<8x16xf32> {shard.layout = {{[^}]*}}#layout_R{{(_?[0-9]+)?}}}
// CHECK-SAME: -> (tensor<8x16xf32> {shard.layout = {{[^}]*}}#layout_R{{(_?[0-9]+)?}}})
// CHECK: linalg.matmul {{.*}}ins(%arg0, %arg1 :
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_S1{{(_?[0-9]+)?}}
// CHECK-NEXT: math.tanh
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_S1{{(_?[0-9]+)?}}
// CHECK: linalg.matmul
// CHECK-NEXT: %[[P:.*]] = shard.constraint {{[^}]*}}#layout_Psum{{(_?[0-9]+)?}}
// CHECK-NEXT: %[[R:.*]] = shard.constraint %[[P]] layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: return %[[R]]
func.func @megatron(%x: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #tp, placements = [R]>},
                    %w1: tensor<16x10xf32> {shard.layout = #shard.placements<mesh = #tp, placements = [S(1)]>},
                    %w2: tensor<10x16xf32> {shard.layout = #shard.placements<mesh = #tp, placements = [S(0)]>})
    -> (tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #tp, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x10xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x10xf32>) outs(%f1 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %a = math.tanh %h : tensor<8x10xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<8x10xf32>, tensor<10x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// FSDP + TP on a 2x2 mesh, more tokens than features: each weight is
// all-gathered over dp just before its matmul (cheaper than moving the
// activations), and nothing else moves but the TP reduction.
#dp_tp = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
// CHECK-LABEL: func.func @fsdp_tp
// CHECK: %[[W1:.*]] = shard.constraint %arg1 layout {{[^}]*}}#layout_R_S1{{(_?[0-9]+)?}}
// CHECK-NEXT: linalg.matmul {{.*}}ins(%arg0, %[[W1]] :
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_S0_S1{{(_?[0-9]+)?}}
// CHECK: %[[W2:.*]] = shard.constraint %arg2 layout {{[^}]*}}#layout_R_S0{{(_?[0-9]+)?}}
// CHECK-NEXT: linalg.matmul {{.*}}ins(%{{.*}}, %[[W2]] :
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_S0_Psum{{(_?[0-9]+)?}}
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_S0_R{{(_?[0-9]+)?}}
// CHECK-NEXT: return
// EXPLAIN: remark: its tensors ask for 2 different shardings; kept d0 on dp, d1 on tp (operand #1 {{.*}}placements = [S(0), S(1)]> -> {{.*}}placements = [R, S(1)]>: 384 bytes, {{.*}}); over d2 on dp, d1 on tp (operand #0 {{.*}}placements = [S(0), R]> -> {{.*}}placements = [S(1), R]>: 1024 bytes
// EXPLAIN: remark: its tensors ask for 2 different shardings; kept d0 on dp, d2 on tp (operand #1 {{.*}}: 384 bytes, {{.*}}; result #0 {{.*}}placements = [S(0), P(sum)]> -> {{.*}}placements = [S(0), R]>: {{[0-9]+}} bytes{{.*}}); over d1 on dp, d2 on tp (operand #0 {{.*}}: 1536 bytes
func.func @fsdp_tp(%x: tensor<32x8xf32> {shard.layout = #shard.placements<mesh = #dp_tp, placements = [S(0), R]>},
                   %w1: tensor<8x12xf32> {shard.layout = #shard.placements<mesh = #dp_tp, placements = [S(0), S(1)]>},
                   %w2: tensor<12x8xf32> {shard.layout = #shard.placements<mesh = #dp_tp, placements = [S(1), S(0)]>})
    -> (tensor<32x8xf32> {shard.layout = #shard.placements<mesh = #dp_tp, placements = [S(0), R]>}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x12xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x12xf32>) -> tensor<32x12xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x8xf32>, tensor<8x12xf32>) outs(%f1 : tensor<32x12xf32>) -> tensor<32x12xf32>
  %a = math.tanh %h : tensor<32x12xf32>
  %e2 = tensor.empty() : tensor<32x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x8xf32>) -> tensor<32x8xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<32x12xf32>, tensor<12x8xf32>) outs(%f2 : tensor<32x8xf32>) -> tensor<32x8xf32>
  return %y : tensor<32x8xf32>
}

// -----

#m = #shard.mesh<shape = [4]>
// A batched matmul with the batch sharded moves nothing.
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: %arg2: tensor<4x3x2xf32> {shard.layout = {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}}
// CHECK-NEXT: linalg.batch_matmul {{.*}}ins(%arg0, %arg1 : {{.*}}) outs(%arg2 :
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}
// CHECK-NEXT: return
func.func @batch_matmul(%a: tensor<4x3x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                        %b: tensor<4x5x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                        %c: tensor<4x3x2xf32>) -> tensor<4x3x2xf32> {
  %y = linalg.batch_matmul ins(%a, %b : tensor<4x3x5xf32>, tensor<4x5x2xf32>) outs(%c : tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
  return %y : tensor<4x3x2xf32>
}

// A matmul whose contraction dim is sharded: a Partial result, reduced
// where it is returned; the init stays whole.
// CHECK-LABEL: func.func @contraction
// CHECK-SAME: %arg2: tensor<6x4xf32> {shard.layout = {{[^}]*}}#layout_R{{(_?[0-9]+)?}}}
// CHECK: linalg.matmul
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_Psum{{(_?[0-9]+)?}}
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
func.func @contraction(%a: tensor<6x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                       %b: tensor<10x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                       %c: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<6x10xf32>, tensor<10x4xf32>) outs(%c : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// Row-wise reductions over a sharded dim: sum (linalg.reduce) and max
// (linalg.generic) give Partial values of their combiners.
// CHECK-LABEL: func.func @row_sum
// CHECK: linalg.reduce
// CHECK: shard.constraint {{[^}]*}}#layout_Psum{{(_?[0-9]+)?}}
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
func.func @row_sum(%a: tensor<6x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                   %init: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.reduce ins(%a : tensor<6x10xf32>) outs(%init : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<6xf32>
}

// CHECK-LABEL: func.func @row_max
// CHECK: linalg.generic
// CHECK: shard.constraint {{[^}]*}}#layout_Pmax{{(_?[0-9]+)?}}
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
func.func @row_max(%a: tensor<6x10xi32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                   %init: tensor<6xi32>) -> tensor<6xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<6x10xi32>) outs(%init : tensor<6xi32>) {
    ^bb0(%in: i32, %acc: i32):
      %s = arith.maxsi %acc, %in : i32
      linalg.yield %s : i32
    } -> tensor<6xi32>
  return %r : tensor<6xi32>
}

// A reduction whose combiner is not add, mul, max or min is never sharded:
// its input is gathered first.
// CHECK-LABEL: func.func @unknown_combiner
// CHECK: %[[G:.*]] = shard.constraint %arg0 layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[G]] :
func.func @unknown_combiner(%a: tensor<6x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                            %init: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<6x10xf32>) outs(%init : tensor<6xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %h = arith.mulf %acc, %acc : f32
      %s = arith.addf %h, %in : f32
      linalg.yield %s : f32
    } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// A transpose of a sharded tensor is a layout change, not a move.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: -> (tensor<10x6xf32> {shard.layout = {{[^}]*}}#layout_S1{{(_?[0-9]+)?}}})
// CHECK-NOT: #layout_R{{(_?[0-9]+)?}}
// CHECK: return
func.func @transpose(%a: tensor<6x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<10x6xf32> {
  %e = tensor.empty() : tensor<10x6xf32>
  %t = linalg.transpose ins(%a : tensor<6x10xf32>) outs(%e : tensor<10x6xf32>) permutation = [1, 0]
  return %t : tensor<10x6xf32>
}

// A broadcast: the new dim is whole, the kept one keeps its sharding.
// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.broadcast
// CHECK-NEXT: shard.constraint {{[^}]*}}#layout_S1{{(_?[0-9]+)?}}
func.func @broadcast(%a: tensor<10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<3x10xf32> {
  %e = tensor.empty() : tensor<3x10xf32>
  %b = linalg.broadcast ins(%a : tensor<10xf32>) outs(%e : tensor<3x10xf32>) dimensions = [0]
  return %b : tensor<3x10xf32>
}

// A convolution window is never sharded: its input is gathered.
// CHECK-LABEL: func.func @conv
// CHECK: %[[G:.*]] = shard.constraint %arg0 layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: linalg.conv_1d_nwc_wcf {{.*}} ins(%[[G]], %arg1
func.func @conv(%in: tensor<1x12x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                %f: tensor<3x3x2xf32>, %o: tensor<1x10x2xf32>) -> tensor<1x10x2xf32> {
  %r = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%in, %f : tensor<1x12x3xf32>, tensor<3x3x2xf32>) outs(%o : tensor<1x10x2xf32>) -> tensor<1x10x2xf32>
  return %r : tensor<1x10x2xf32>
}

// scf.for, scf.if and func.call carry layouts across; the callee gets them
// on its arguments and results.
// CHECK-LABEL: func.func @control_flow
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %arg0)
// CHECK-NEXT: shard.constraint %[[ACC]] layout {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}
// CHECK: scf.if
// CHECK: func.call @helper
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: {shard.layout = {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}}) -> (tensor<10xf32> {shard.layout = {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}})
func.func @control_flow(%a: tensor<10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                        %n: index, %p: i1) -> tensor<10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<10xf32>) {
    %d = arith.addf %acc, %acc : tensor<10xf32>
    scf.yield %d : tensor<10xf32>
  }
  %s = scf.if %p -> tensor<10xf32> {
    %q = func.call @helper(%r) : (tensor<10xf32>) -> tensor<10xf32>
    scf.yield %q : tensor<10xf32>
  } else {
    scf.yield %r : tensor<10xf32>
  }
  return %s : tensor<10xf32>
}
func.func private @helper(%a: tensor<10xf32>) -> tensor<10xf32> {
  %b = math.exp %a : tensor<10xf32>
  return %b : tensor<10xf32>
}

// A chunk spec over distinct ranks is a mesh layout: no move.
// CHECK-LABEL: func.func @chunked
// CHECK-NEXT: math.exp %arg0
// CHECK-NEXT: shard.constraint {{.*}}#layout_S0{{(_?[0-9]+)?}} :
func.func @chunked(%a: tensor<10xf32> {shard.layout = #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2"]>}) -> tensor<10xf32> {
  %b = math.exp %a : tensor<10xf32>
  return %b : tensor<10xf32>
}

// An op whose only tensor has an enumerable layout runs replicated on its
// function's mesh.
// CHECK-LABEL: func.func @enumerable_in_mesh_function
// CHECK: %[[R:.*]] = shard.constraint %arg0 layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: math.exp %[[R]]
func.func @enumerable_in_mesh_function(
    %a: tensor<4xf32> {shard.layout = #shard.enumerable<[{offsets = [0], sizes = [3], placement = "rank:0"},
                                                         {offsets = [3], sizes = [1], placement = "rank:1"}]>},
    %b: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4xf32> {
  %e = math.exp %a : tensor<4xf32>
  return %e : tensor<4xf32>
}

// A pinned Partial layout is made by the constraint, not asked of the
// argument it reads (which stays whole).
// CHECK-LABEL: func.func @partial_pin
// CHECK-SAME: %arg0: tensor<4xf32> {shard.layout = {{[^}]*}}#layout_R{{(_?[0-9]+)?}}}
func.func @partial_pin(%a: tensor<4xf32>) {
  %c = shard.constraint %a layout #shard.placements<mesh = #m, placements = [P(sum)]> : tensor<4xf32>
  return
}

// A function without a body takes and gives whole tensors: a sharded value
// is gathered for it.
// CHECK-LABEL: func.func @calls_external
// CHECK: %[[W:.*]] = shard.constraint %arg0 layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: call @external(%[[W]])
// CHECK: func.func private @external(tensor<8xf32> {shard.layout = {{[^}]*}}#layout_R{{(_?[0-9]+)?}}}) -> (tensor<8xf32> {shard.layout = {{[^}]*}}#layout_R{{(_?[0-9]+)?}}})
func.func @calls_external(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8xf32> {
  %r = func.call @external(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func private @external(tensor<8xf32>) -> tensor<8xf32>

// A loop that indexes two dims of one operand (a diagonal) is never
// sharded; a loop whose index the payload reads is (partition adds this
// rank's offset of the loop to the index), so @iota keeps its rows cut.
// CHECK-LABEL: func.func @diagonal
// CHECK: %[[G:.*]] = shard.constraint %arg0 layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[G]] :
func.func @diagonal(%a: tensor<6x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<6xf32> {
  %e = tensor.empty() : tensor<6xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i) -> (i, i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<6x6xf32>) outs(%e : tensor<6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<6xf32>
  return %d : tensor<6xf32>
}
// CHECK-LABEL: func.func @iota
// CHECK-SAME: -> (tensor<8xindex> {shard.layout = {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}})
func.func @iota(%a: tensor<8xindex> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8xindex> {
  %e = tensor.empty() : tensor<8xindex>
  %d = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xindex>) outs(%e : tensor<8xindex>) {
    ^bb0(%in: index, %out: index):
      %i = linalg.index 0 : index
      %s = arith.addi %in, %i : index
      linalg.yield %s : index
    } -> tensor<8xindex>
  return %d : tensor<8xindex>
}

// A function that no layout reaches is left alone.
// CHECK-LABEL: func.func @untouched(%arg0: tensor<10xf32>) -> tensor<10xf32>
// CHECK-NEXT: math.exp
// CHECK-NEXT: return
func.func @untouched(%a: tensor<10xf32>) -> tensor<10xf32> {
  %b = math.exp %a : tensor<10xf32>
  return %b : tensor<10xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @no_rule(%a: tensor<4x4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4x4x5xf32> {
  // expected-error @+1 {{'tosa.rfft2d' op has no sharding rule, and its function gets layouts; give it one (ShardingRuleOpInterface or a written shard.sharding_rule, docs/partition.md) or keep layouts out of this function}}
  %r, %i = tosa.rfft2d %a : (tensor<4x4x8xf32>) -> (tensor<4x4x5xf32>, tensor<4x4x5xf32>)
  return %r : tensor<4x4x5xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @dynamic(%a: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<?x6xf32> {
  // A cast to a dynamic dim keeps its cut (torch.chunk of the run-time
  // extent, which is 4): nothing moves.
  // CHECK-LABEL: func.func @dynamic(
  // CHECK-NOT: shard.constraint %arg0
  // CHECK: tensor.cast %arg0 {shard.sharding = #shard.sharding<mesh = #mesh, loops = [d0]>} : tensor<4x6xf32> to tensor<?x6xf32>
  // CHECK: shard.constraint %cast layout #layout_S0 : tensor<?x6xf32>
  %b = tensor.cast %a : tensor<4x6xf32> to tensor<?x6xf32>
  return %b : tensor<?x6xf32>
}

// -----

// A function of several blocks that no layout reaches is left alone.
func.func @unrelated(%p: i1) {
  cf.cond_br %p, ^bb1, ^bb1
^bb1:
  return
}

// expected-error @+1 {{'func.func' op has 2 blocks and gets layouts; -shard-propagate handles functions of one block}}
func.func @blocks(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>}, %p: i1) -> tensor<4xf32> {
  cf.cond_br %p, ^bb1, ^bb1
^bb1:
  return %a : tensor<4xf32>
}

// -----

func.func @enumerable(%a: tensor<4xf32> {shard.layout = #shard.enumerable<[
    {offsets = [0], sizes = [3], placement = "rank:0"},
    {offsets = [3], sizes = [1], placement = "rank:1"}]>}) -> tensor<4xf32> {
  // expected-error @+1 {{'math.exp' op cannot be sharded: none of its tensors has a mesh layout}}
  %b = math.exp %a : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
// A dynamic argument no op uses.
func.func @dynamic_argument(%a: tensor<?xf32>, %b: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4xf32> {
  %c = math.exp %b : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @encoding(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4xf32, "enc"> {
  // expected-error @+1 {{'tensor.cast' op has result #0 of type 'tensor<4xf32, "enc">' with an encoding; sharding needs tensors without encodings}}
  %b = tensor.cast %a : tensor<4xf32> to tensor<4xf32, "enc">
  return %b : tensor<4xf32, "enc">
}

// -----

// Layouts follow tensors through ops whose forwarded values
// RegionBranchOpInterface describes (scf.for, affine.for, ...: test/Passes/
// control-flow-interfaces.mlir); scf.forall has a rule of its own (run
// whole on every rank, its regions as written: e2e/partition-region-ops.mlir),
// so a layout pinned in its body is diagnosed in any function.
func.func @pinned_in_forall(%a: tensor<8xf32>) {
  scf.forall (%i) in (2) {
    // expected-error @+1 {{'shard.constraint' op pins a layout inside 'scf.forall', whose regions run as written, whole, on every rank: only an op of the function's own body is sharded; remove it}}
    %b = shard.constraint %a layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]> : tensor<8xf32>
  }
  return
}

// -----

// A call there passes whole tensors: its callee may not get layouts (its
// own here; a callee without layouts of its own that other calls give
// layouts is copied for them: e2e/partition-region-ops.mlir).
#m = #shard.mesh<shape = [2]>
func.func private @pinned_callee(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @call_in_forall(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (2) shared_outs(%o = %a) -> tensor<8xf32> {
    %s = tensor.extract_slice %o[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
    // expected-error @+1 {{'func.call' op calls @pinned_callee, which gets layouts (its own, a mesh it is searched on, or its other calls' where it cannot be copied for them: a recursion), from inside 'scf.forall', whose regions run as written, whole, on every rank, and so pass it whole values; keep layouts out of the callee, or call a function of its own there}}
    %c = func.call @pinned_callee(%s) : (tensor<4xf32>) -> tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %c into %o[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
    }
  }
  return %r : tensor<8xf32>
}

// -----

// Nor from a linalg payload (which computes each element where it is held).
#m = #shard.mesh<shape = [2]>
func.func private @pinned_helper(%t: tensor<2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<2xf32> {
  return %t : tensor<2xf32>
}
func.func @call_in_payload(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = tensor.from_elements %in, %in : tensor<2xf32>
    // expected-error @+1 {{'func.call' op calls @pinned_helper, which gets layouts (its own, a mesh it is searched on, or its other calls' where it cannot be copied for them: a recursion), from inside 'linalg.generic', whose regions compute each element where it is held, and so pass it whole values; keep layouts out of the callee, or call a function of its own there}}
    %r = func.call @pinned_helper(%t) : (tensor<2xf32>) -> tensor<2xf32>
    %v = tensor.extract %r[%c0] : tensor<2xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %g : tensor<8xf32>
}

// -----

// A tensor used in the regions of an op that has no rule and forwards
// nothing (scf.parallel): diagnosed where its function gets layouts.
#m = #shard.mesh<shape = [2]>
func.func @add_in_parallel(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    // expected-error @+1 {{'arith.addf' op uses tensors inside 'scf.parallel', whose regions -shard-propagate does not enter (layouts follow tensors through the regions of ops whose values RegionBranchOpInterface says they forward, as scf.for's and affine.for's, and through func.call), and its function gets layouts}}
    %b = arith.addf %a, %a : tensor<8xf32>
  }
  return %a : tensor<8xf32>
}

// -----

// Nor a layout pinned there: scf.parallel's iterations may run at once, so
// a partitioned body's collectives would be issued concurrently.
#m = #shard.mesh<shape = [2]>
func.func @in_parallel(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    // expected-error @+1 {{'shard.constraint' op uses tensors inside 'scf.parallel'}}
    %b = shard.constraint %a layout #shard.placements<mesh = #m, placements = [R]> : tensor<8xf32>
  }
  return
}

// -----

// Such regions without tensors inside, in a function with layouts, are
// left as they are.
// CHECK-LABEL: func.func @scalar_loop
// CHECK: affine.for
// CHECK-NEXT: arith.addi
#m = #shard.mesh<shape = [2]>
func.func @scalar_loop(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %n: index) -> tensor<8xf32> {
  affine.for %i = 0 to 3 {
    %j = arith.addi %i, %n : index
  }
  %b = math.exp %a : tensor<8xf32>
  return %b : tensor<8xf32>
}

// -----

// A call in a nested module finds its callee there.
// CHECK-LABEL: module @inner
// CHECK: func.func private @callee(%arg0: tensor<8xf32> {shard.layout = #layout_S0{{(_?[0-9]+)?}}})
module {
  func.func @top(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
  module @inner {
    func.func @caller(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>}) -> tensor<8xf32> {
      %r = func.call @callee(%a) : (tensor<8xf32>) -> tensor<8xf32>
      return %r : tensor<8xf32>
    }
    func.func private @callee(%a: tensor<8xf32>) -> tensor<8xf32> {
      %b = math.exp %a : tensor<8xf32>
      return %b : tensor<8xf32>
    }
  }
}

// -----

// A function that propagation leaves alone (several blocks) passes whole
// tensors to its callees: one that gets layouts is diagnosed at the call.
#m = #shard.mesh<shape = [2]>
func.func @sharded(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8xf32> {
  %r = func.call @helper(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func private @helper(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8xf32> {
  %b = math.exp %a : tensor<8xf32>
  return %b : tensor<8xf32>
}
func.func @branchy(%x: tensor<8xf32>, %p: i1) -> tensor<8xf32> {
  cf.cond_br %p, ^bb1, ^bb2
^bb1:
  // expected-error @+1 {{'func.call' op calls @helper, which gets layouts, from a function of 3 blocks that -shard-propagate leaves alone}}
  %y = func.call @helper(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
^bb2:
  return %x : tensor<8xf32>
}

// -----

// A callee without layouts of its own, called from such a function and from
// a function with layouts: the call with layouts gets a copy of its own, and
// the function stays as it was for the other (before: it took the layouts
// and the other call was an error).
// CHECK-LABEL: func.func private @plain(
// CHECK-SAME: %arg0: tensor<8xf32>) -> tensor<8xf32>
// CHECK-LABEL: func.func private @plain_0(
// CHECK-SAME: #layout_S0{{(_?[0-9]+)?}}
// CHECK-LABEL: func.func @uses_layouts
// CHECK: call @plain_0(
// CHECK-LABEL: func.func @branches
// CHECK: call @plain(%arg0)
#m = #shard.mesh<shape = [2]>
func.func private @plain(%a: tensor<8xf32>) -> tensor<8xf32> {
  %b = math.exp %a : tensor<8xf32>
  return %b : tensor<8xf32>
}
func.func @uses_layouts(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8xf32> {
  %r = func.call @plain(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @branches(%x: tensor<8xf32>, %p: i1) -> tensor<8xf32> {
  cf.cond_br %p, ^bb1, ^bb2
^bb1:
  %y = func.call @plain(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
^bb2:
  return %x : tensor<8xf32>
}

// -----

// A chunk spec on CUDA devices with indices is the S(0) layout of a 1-D
// cuda mesh of its ranks: a device is its rank and kind, the index is
// PyTorch's metadata (before: "none of its tensors has a mesh layout (...,
// or a chunk spec over distinct ranks)").
// CHECK-LABEL: func.func @cuda_chunk(
func.func @cuda_chunk(%a: tensor<4x6xf32> {shard.layout = #shard.chunk<dim = 0, placements = ["rank:0/cuda:0", "rank:1/cuda:1"]>}) -> tensor<4x6xf32> {
  %c = arith.constant dense<1.0> : tensor<4x6xf32>
  // CHECK: arith.addf
  // CHECK-NEXT: shard.constraint %{{.*}} layout #layout_S0{{(_?[0-9]+)?}}
  %b = arith.addf %a, %c : tensor<4x6xf32>
  return %b : tensor<4x6xf32>
}

// -----

// The sharding rules' own diagnostics, met once a layout reaches the op.
// An elementwise op of two results (sum and overflow) has no elementwise rule.
#m = #shard.mesh<shape = [2]>
func.func @two_results(%a: tensor<4xi32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4xi32> {
  // expected-error @+1 {{'arith.addui_extended' op has 2 results; an elementwise sharding rule needs one}}
  %s, %o = arith.addui_extended %a, %a : tensor<4xi32>, tensor<4xi1>
  return %s : tensor<4xi32>
}

// -----

// math.fpowi lets its operands' shapes differ in dynamic dims: a layout on
// the exponent reaches an op whose result has a dynamic shape.
#m = #shard.mesh<shape = [2]>
func.func @dynamic_result(%a: tensor<?xf32>, %e: tensor<4xi32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<?xf32> {
  // Its dim 0 stays whole: the exponent is gathered.
  %b = math.fpowi %a, %e : tensor<?xf32>, tensor<4xi32>
  return %b : tensor<?xf32>
}

// -----

// The same with a static result and a dynamic exponent: the shapes differ.
#m = #shard.mesh<shape = [2]>
func.func @dynamic_operand(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %e: tensor<?xi32>) -> tensor<4xf32> {
  %b = math.fpowi %a, %e : tensor<4xf32>, tensor<?xi32>
  return %b : tensor<4xf32>
}

// -----

// A linalg op whose loop d0 only indexes dynamic dims, reached by the
// layout of its static operand.
#m = #shard.mesh<shape = [2]>
func.func @dynamic_loop(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
  // The loop of the dynamic dim stays whole; the other takes %a's cut.
  // CHECK-LABEL: func.func @dynamic_loop(
  // CHECK-SAME: %arg1: tensor<?x4xf32> {shard.layout = #layout_S1}
  // CHECK: linalg.generic {{.*}} loops = [d1]
                        %b: tensor<?x4xf32>, %c: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<?x4xf32>) outs(%c : tensor<?x4xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// A layout pinned on a tensor with an encoding (its local blocks would lose
// it) is diagnosed (before: -shard-propagate crashed).
func.func @pin_encoded(%a: tensor<4xf32, "enc">) -> tensor<4xf32, "enc"> {
  // expected-error @+1 {{'shard.constraint' op pins a layout on a tensor of type 'tensor<4xf32, "enc">'; sharding needs ranked tensors without encodings}}
  %b = shard.constraint %a layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]> : tensor<4xf32, "enc">
  return %b : tensor<4xf32, "enc">
}

// -----

// So is a layout pinned on an argument with an encoding (before: ignored,
// the function passed unchanged).
// expected-error @+1 {{'func.func' op pins a layout on argument #0 of type 'tensor<4xf32, "enc">'; sharding needs ranked tensors without encodings}}
func.func @encoded_argument(%a: tensor<4xf32, "enc"> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>}) -> tensor<4xf32, "enc"> {
  return %a : tensor<4xf32, "enc">
}

// -----

// A function that gets layouts takes ranked tensors: an unranked argument
// has no blocks to cut.
// expected-error @+1 {{'func.func' op has argument #0 of type 'tensor<*xf32>' and gets layouts; sharding needs ranked tensors without encodings}}
func.func @unranked_argument(%u: tensor<*xf32>, %a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// A sharding pinned inside a payload (which computes each element where it
// is held) pins nothing: said, not ignored.
#m = #shard.mesh<shape = [2]>
func.func @pinned_in_payload(%x: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<6x4xf32> {
  %e = tensor.empty() : tensor<6x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    // expected-error @+1 {{'tensor.from_elements' op pins a sharding (shard.sharding) inside 'linalg.generic', whose regions compute each element where it is held: only an op of the function's own body is sharded; remove it}}
    %t = tensor.from_elements %a, %a {shard.sharding = #shard.sharding<mesh = #m, loops = [d0]>} : tensor<2xf32>
    %c1 = arith.constant 1 : index
    %v = tensor.extract %t[%c1] : tensor<2xf32>
    linalg.yield %v : f32
  } -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// -----

// A reshape keeps a sharded dim's sharding on its outermost factor where
// torch.chunk's cuts fall between the factor's steps: 16 features = 4
// heads of 4 over 4 ranks, and nested over a 2x2 mesh (16 -> 8 -> 4
// features, 4 -> 2 -> 1 heads). Nothing moves.
// CHECK-LABEL: func.func @reshape_aligned
// CHECK-SAME: -> (tensor<8x4x4xf32> {shard.layout = #layout_S1{{(_?[0-9]+)?}}}, tensor<8x4x4xf32> {shard.layout = #layout_S1_S1{{(_?[0-9]+)?}}})
// CHECK-NEXT: tensor.expand_shape %arg0
// CHECK-NEXT: shard.constraint %{{.*}} layout #layout_S1{{(_?[0-9]+)?}}
// CHECK-NEXT: tensor.expand_shape %arg1
// CHECK-NEXT: shard.constraint %{{.*}} layout #layout_S1_S1{{(_?[0-9]+)?}}
// CHECK-NEXT: return
#m4 = #shard.mesh<shape = [4]>
#m22 = #shard.mesh<shape = [2, 2]>
func.func @reshape_aligned(%a: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>},
                           %b: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m22, placements = [S(1), S(1)]>})
    -> (tensor<8x4x4xf32>, tensor<8x4x4xf32>) {
  %e = tensor.expand_shape %a [[0], [1, 2]] output_shape [8, 4, 4] : tensor<8x16xf32> into tensor<8x4x4xf32>
  %f = tensor.expand_shape %b [[0], [1, 2]] output_shape [8, 4, 4] : tensor<8x16xf32> into tensor<8x4x4xf32>
  return %e, %f : tensor<8x4x4xf32>, tensor<8x4x4xf32>
}

// -----

// 3 heads of 4 over 2 ranks: the 12 features are cut 6/6, the heads 2/1.
// The reshape says so, and its operand is gathered first (exactly).
// CHECK-LABEL: func.func @reshape_misaligned
// CHECK-NEXT: shard.constraint %arg0 layout #layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: tensor.expand_shape
#m2 = #shard.mesh<shape = [2]>
func.func @reshape_misaligned(%a: tensor<8x12xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1)]>})
    -> tensor<8x3x4xf32> {
  // expected-remark @+1 {{operand #0 asks for a sharding whose d1 (3 steps of 4 elements of a folded dim of 12) is not sharded on axis 0: torch.chunk cuts the folded dim between its steps; its tensors are moved instead (exactly)}}
  %e = tensor.expand_shape %a [[0], [1, 2]] output_shape [8, 3, 4] : tensor<8x12xf32> into tensor<8x3x4xf32>
  return %e : tensor<8x3x4xf32>
}

// -----

// A function with tensors of dynamic shape whose sizes casts and constants
// name is canonicalized first: static -> dynamic -> static casts, and
// tensor.empty of a tensor.dim, fold away, and the op between them gets a
// layout.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @cast_chain
// CHECK-NOT: tensor.cast
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<6x4xf32>)
// CHECK-NOT: tensor.cast
func.func @cast_chain(%x: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<6x4xf32> {
  %c0 = arith.constant 0 : index
  %c = tensor.cast %x : tensor<6x4xf32> to tensor<?x4xf32>
  %d = tensor.dim %c, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%d) : tensor<?x4xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<?x4xf32>
  %s = tensor.cast %n : tensor<?x4xf32> to tensor<6x4xf32>
  return %s : tensor<6x4xf32>
}

// -----

// What stays dynamic is diagnosed: a stride only the run time knows.
#m = #shard.mesh<shape = [2]>
func.func @stays_dynamic(%x: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %n: index) -> tensor<3x4xf32> {
  // expected-error @+1 {{'tensor.extract_slice' op has dynamic strides; sharding needs static ones}}
  %s = tensor.extract_slice %x[0, 0] [3, 4] [%n, 1] : tensor<6x4xf32> to tensor<3x4xf32>
  return %s : tensor<3x4xf32>
}

// -----

// A weight laid out in several blocks per rank (each rank's columns of q
// and of k) and a product of it read only through disjoint slices: each
// slice is computed from the slices of the operands (SliceProducers), and
// the slice of the weight keeps the weight's layout where its parts are
// one block per rank (layoutInPlace): here S(1) of each part, so the
// weight is not moved. A product read whole would move it.
#m = #shard.mesh<shape = [2]>
#W = #shard.enumerable<[{offsets = [0, 0], sizes = [3, 2], placement = "rank:0"}, {offsets = [0, 4], sizes = [3, 2], placement = "rank:0"}, {offsets = [0, 2], sizes = [3, 2], placement = "rank:1"}, {offsets = [0, 6], sizes = [3, 2], placement = "rank:1"}]>
// CHECK-LABEL: func.func @several_blocks
// CHECK-NOT: linalg.matmul {{.*}} -> tensor<5x8xf32>
// CHECK: %[[Q:.*]] = tensor.extract_slice %arg1[0, 0] [3, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #mesh{{[0-9]*}}, loops = [d1], reads = {{\[}}#shard.enumerable<[{offsets = [0, 0], sizes = [3, 2], placement = "rank:0/cpu"}, {offsets = [0, 4], sizes = [3, 2], placement = "rank:0/cpu"}, {offsets = [0, 2], sizes = [3, 2], placement = "rank:1/cpu"}, {offsets = [0, 6], sizes = [3, 2], placement = "rank:1/cpu"}]>]>} : tensor<3x8xf32> to tensor<3x4xf32>
// CHECK-NEXT: %[[QL:.*]] = shard.constraint %[[Q]] layout #layout_S1{{(_?[0-9]+)?}}
// CHECK: linalg.matmul {{.*}}ins(%{{.*}}, %[[QL]] : tensor<5x3xf32>, tensor<3x4xf32>)
// CHECK: %[[K:.*]] = tensor.extract_slice %arg1[0, 4] [3, 4] [1, 1] {{.*}}: tensor<3x8xf32> to tensor<3x4xf32>
// CHECK-NEXT: shard.constraint %[[K]] layout #layout_S1{{(_?[0-9]+)?}}
// CHECK-NOT: shard.constraint %arg1
func.func @several_blocks(%x: tensor<5x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                          %w: tensor<3x8xf32> {shard.layout = #W})
    -> (tensor<5x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %e = tensor.empty() : tensor<5x8xf32>
  %p = linalg.matmul ins(%x, %w : tensor<5x3xf32>, tensor<3x8xf32>) outs(%e : tensor<5x8xf32>) -> tensor<5x8xf32>
  %q = tensor.extract_slice %p[0, 0] [5, 4] [1, 1] : tensor<5x8xf32> to tensor<5x4xf32>
  %k = tensor.extract_slice %p[0, 4] [5, 4] [1, 1] : tensor<5x8xf32> to tensor<5x4xf32>
  %s = arith.addf %q, %k : tensor<5x4xf32>
  return %s : tensor<5x4xf32>
}

// -----

// A result pinned to partial values reduced with different operations on
// two axes (DTensor allows it) is a layout no move makes yet: said at the
// return, naming the result (the partition said it of the constraint the
// write-back made there). Passed through as it is, it holds.
#m = #shard.mesh<shape = [2, 2]>
#mixed = #shard.placements<mesh = #m, placements = [P(max), P(product)]>
func.func @made_mixed(%x: tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, R]>}) -> (tensor<4x4xf32> {shard.layout = #mixed}) {
  %y = arith.addf %x, %x : tensor<4x4xf32>
  // expected-error @+1 {{'func.return' op returns result #0 in #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [R, R]>, but its function pins it to #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [P(max), P(product)]>, whose Partial axes reduce with different operations: no move makes such a layout yet}}
  return %y : tensor<4x4xf32>
}

// -----

#m = #shard.mesh<shape = [2, 2]>
#mixed = #shard.placements<mesh = #m, placements = [P(max), P(product)]>
// CHECK-LABEL: func.func @passed_through_mixed
// CHECK-NEXT: return
func.func @passed_through_mixed(%x: tensor<4x4xf32> {shard.layout = #mixed}) -> (tensor<4x4xf32> {shard.layout = #mixed}) {
  return %x : tensor<4x4xf32>
}

// -----

// A quantized tensor (quantized TOSA's !quant.uniform, parsed: the quant
// dialect was loaded with tosa only) is refused naming its element type,
// not at parse.
#m = #shard.mesh<shape = [2]>
// expected-error @+1 {{'shard.layout' of argument #0: invalid element type '!quant.uniform<i8:f32, 1.000000e-01>' for a sharded tensor}}
func.func @quantized(%a: tensor<4x!quant.uniform<i8:f32, 0.1>> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4x!quant.uniform<i8:f32, 0.1>> {
  %r = tosa.abs %a : (tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  return %r : tensor<4x!quant.uniform<i8:f32, 0.1>>
}

// -----

// Shape computations (shape.shape_of, as TensorFlow's path through mhlo
// writes them) are parsed (the shape dialect was not registered): left as
// they are in a function without layouts, refused with the rule's words in
// one with layouts.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @shape_alone
// CHECK: shape.shape_of
func.func @shape_alone(%a: tensor<?x4xf32>) -> tensor<2xindex> {
  %s = shape.shape_of %a : tensor<?x4xf32> -> tensor<2xindex>
  return %s : tensor<2xindex>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @shape_laid_out(%a: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<2xindex> {
  // expected-error @+1 {{'shape.shape_of' op has no sharding rule, and its function gets layouts}}
  %s = shape.shape_of %a : tensor<8x4xf32> -> tensor<2xindex>
  return %s : tensor<2xindex>
}

// -----

// A tensor with a dynamic dim is never given a strided layout (its rows
// would be several blocks per rank, whose sizes the partition cannot know
// before it runs): the slice inserted into a strided tensor asked for
// one (the partition then refused the argument); the insert is cut plainly
// instead, as search=whole cuts it.
#m = #shard.mesh<shape = [2], axes = ["x"]>
// CHECK-LABEL: func.func @dynamic_not_strided
// CHECK-SAME: %arg1: tensor<8x?x4xf32> {shard.layout = #layout_S0{{[_0-9]*}}}
// CHECK: tensor.insert_slice {{.*}}shard.sharding = #shard.sharding<mesh = {{.*}}, loops = [d0]>
func.func @dynamic_not_strided(%t: tensor<8x16x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [_S(0, 2)]>}, %td: tensor<8x?x4xf32>, %idx: index, %sz: index) -> tensor<8x16x4xf32> {
  %r = tensor.insert_slice %td into %t[0, %idx, 0][8, %sz, 4][1, 1, 1] : tensor<8x?x4xf32> into tensor<8x16x4xf32>
  return %r : tensor<8x16x4xf32>
}

// -----

// A callee no value of which gets a layout runs whole on its callers' mesh;
// called from functions on two meshes (each getting its mesh through a call
// of a kernel), it would need a copy for each, which a function in a cycle
// of calls (a recursion) is not given: refused (before, its result was left
// without a layout, and -shard-spmd-partition said "run -shard-propagate
// first").
#m = #shard.mesh<shape = [2], axes = ["x"]>
#n = #shard.mesh<shape = [4], axes = ["y"]>
func.func @kernel_x(%a: tensor<6x9xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<6x9xf32> {
  return %a : tensor<6x9xf32>
}
func.func @kernel_y(%a: tensor<6x9xf32> {shard.layout = #shard.placements<mesh = #n, placements = [S(0)]>}) -> tensor<6x9xf32> {
  return %a : tensor<6x9xf32>
}
// expected-error @+1 {{'func.func' op has no layouts of its own and none of its values got one, and it is called from functions on two meshes (#shard.mesh<shape = [4], axes = ["y"]> and #shard.mesh<shape = [2], axes = ["x"]>), which cannot each have a copy of it (it is in a cycle of calls, or past the copies' limit); pin its layouts (shard.layout) or call it from one mesh}}
func.func @filled(%s: f32, %k: index) -> tensor<6x9xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = arith.cmpi eq, %k, %c0 : index
  %r = scf.if %done -> tensor<6x9xf32> {
    %e = tensor.empty() : tensor<6x9xf32>
    %o = linalg.fill ins(%s : f32) outs(%e : tensor<6x9xf32>) -> tensor<6x9xf32>
    scf.yield %o : tensor<6x9xf32>
  } else {
    %k1 = arith.subi %k, %c1 : index
    %o = func.call @filled(%s, %k1) : (f32, index) -> tensor<6x9xf32>
    scf.yield %o : tensor<6x9xf32>
  }
  return %r : tensor<6x9xf32>
}
func.func @on_x(%x: tensor<6x9xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %s = arith.constant 2.0 : f32
  %a = call @kernel_x(%x) : (tensor<6x9xf32>) -> tensor<6x9xf32>
  %f = call @filled(%s, %c0) : (f32, index) -> tensor<6x9xf32>
  %v = tensor.extract %f[%c0, %c0] : tensor<6x9xf32>
  return %v : f32
}
func.func @on_y(%x: tensor<6x9xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %s = arith.constant 2.0 : f32
  %a = call @kernel_y(%x) : (tensor<6x9xf32>) -> tensor<6x9xf32>
  %f = call @filled(%s, %c0) : (f32, index) -> tensor<6x9xf32>
  %v = tensor.extract %f[%c0, %c0] : tensor<6x9xf32>
  return %v : f32
}

// -----

// A destination whose elements its op never reads (UnreadDestinations.h)
// is given as an empty tensor of its type, so that nothing moves it into
// the op's layout (it was an all_to_all of %d into S(0) here): an
// elementwise op's init its payload does not read, a fill's and a
// transpose's init, an insert_slice's dest the slice fills, a pack's dest;
// of dynamic size, sized by tensor.dim. An init the payload reads, one
// pinned (shard.constraint), and ops inside an scf.forall (run whole, as
// written) keep theirs.
#m = #shard.mesh<shape = [2]>
#r = #shard.placements<mesh = #m, placements = [S(0)]>
#c = #shard.placements<mesh = #m, placements = [S(1)]>
// CHECK-LABEL: func.func @unread
// CHECK: %[[E1:.*]] = tensor.empty() {{.*}}: tensor<8x6xf32>
// CHECK-NEXT: %[[E1C:.*]] = shard.constraint %[[E1]]
// CHECK-NEXT: linalg.generic {{.*}} ins(%arg0 : tensor<8x6xf32>) outs(%[[E1C]] : tensor<8x6xf32>)
// CHECK: %[[D:.*]] = shard.constraint %arg1 layout #layout_R
// CHECK-NEXT: %[[DS:.*]] = shard.constraint %[[D]] layout #layout_S0
// CHECK-NEXT: linalg.generic {{.*}} ins(%arg0 : tensor<8x6xf32>) outs(%[[DS]] : tensor<8x6xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() {{.*}}: tensor<8x6xf32>
// CHECK-NEXT: %[[E2C:.*]] = shard.constraint %[[E2]]
// CHECK-NEXT: linalg.fill {{.*}}outs(%[[E2C]] : tensor<8x6xf32>)
// CHECK: %[[E3:.*]] = tensor.empty() {{.*}}: tensor<6x8xf32>
// CHECK-NEXT: %[[E3C:.*]] = shard.constraint %[[E3]]
// CHECK-NEXT: linalg.transpose ins(%arg0 : tensor<8x6xf32>) outs(%[[E3C]] : tensor<6x8xf32>)
// CHECK: %[[E4:.*]] = tensor.empty() {{.*}}: tensor<8x6xf32>
// CHECK-NEXT: %[[E4C:.*]] = shard.constraint %[[E4]]
// CHECK-NEXT: tensor.insert_slice %arg0 into %[[E4C]][0, 0] [8, 6] [1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %arg1[0, 0] [4, 6] [1, 1]
// CHECK: linalg.copy {{.*}}ins(%arg0 : tensor<8x6xf32>) outs(%[[DS]] : tensor<8x6xf32>)
// CHECK: %[[E5:.*]] = tensor.empty() {{.*}}: tensor<6x2x4xf32>
// CHECK-NEXT: %[[E5C:.*]] = shard.constraint %[[E5]]
// CHECK-NEXT: linalg.pack %arg2 {{.*}}into %[[E5C]]
// CHECK: scf.forall
// CHECK-NEXT: linalg.copy ins(%{{.*}} : tensor<8x6xf32>) outs(%[[D]] : tensor<8x6xf32>)
func.func @unread(%a: tensor<8x6xf32> {shard.layout = #r}, %d: tensor<8x6xf32> {shard.layout = #c}, %p: tensor<6x8xf32> {shard.layout = #r}, %pd: tensor<6x2x4xf32> {shard.layout = #c}) -> (tensor<8x6xf32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<6x8xf32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<6x2x4xf32>, tensor<8x6xf32>) {
  %exp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x6xf32>) outs(%d : tensor<8x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<8x6xf32>
  %acc = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x6xf32>) outs(%d : tensor<8x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = arith.addf %x, %o : f32
    linalg.yield %e : f32
  } -> tensor<8x6xf32>
  %one = arith.constant 1.0 : f32
  %fill = linalg.fill ins(%one : f32) outs(%d : tensor<8x6xf32>) -> tensor<8x6xf32>
  %t = linalg.transpose ins(%a : tensor<8x6xf32>) outs(%p : tensor<6x8xf32>) permutation = [1, 0]
  %whole = tensor.insert_slice %a into %d[0, 0] [8, 6] [1, 1] : tensor<8x6xf32> into tensor<8x6xf32>
  %top = tensor.extract_slice %a[0, 0] [4, 6] [1, 1] : tensor<8x6xf32> to tensor<4x6xf32>
  %part = tensor.insert_slice %top into %d[0, 0] [4, 6] [1, 1] : tensor<4x6xf32> into tensor<8x6xf32>
  %pinned = shard.constraint %d layout #r : tensor<8x6xf32>
  %copy = linalg.copy ins(%a : tensor<8x6xf32>) outs(%pinned : tensor<8x6xf32>) -> tensor<8x6xf32>
  %pk = linalg.pack %p inner_dims_pos = [1] inner_tiles = [4] into %pd : tensor<6x8xf32> -> tensor<6x2x4xf32>
  %f = scf.forall (%i) in (1) shared_outs(%s = %d) -> (tensor<8x6xf32>) {
    %c = linalg.copy ins(%a : tensor<8x6xf32>) outs(%d : tensor<8x6xf32>) -> tensor<8x6xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %c into %s[0, 0] [8, 6] [1, 1] : tensor<8x6xf32> into tensor<8x6xf32>
    }
  }
  return %exp, %acc, %fill, %t, %whole, %part, %copy, %pk, %f : tensor<8x6xf32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<6x8xf32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<6x2x4xf32>, tensor<8x6xf32>
}

// -----

// A scalar read or written at an index outside a payload is a slice of one
// element (ScalarSlices.h), so that only the element moves; a lookup in a
// payload (ruled with its op) and a tensor of rank 0 are left as they are.
#m = #shard.mesh<shape = [2]>
#r = #shard.placements<mesh = #m, placements = [S(0)]>
// CHECK-LABEL: func.func @scalars
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[1, 2] [1, 1] [1, 1] {{.*}}: tensor<6x4xf32> to tensor<1x1xf32>
// CHECK: tensor.collapse_shape %{{.*}} [] {{.*}}: tensor<1x1xf32> into tensor<f32>
// CHECK: tensor.extract %{{.*}}[] {{.*}}: tensor<f32>
// CHECK: tensor.from_elements %{{.*}} {{.*}}: tensor<1x1xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[3, 0] [1, 1] [1, 1] {{.*}}: tensor<1x1xf32> into tensor<6x4xf32>
// CHECK: tensor.extract %arg1[] {{.*}}: tensor<f32>
// CHECK: linalg.generic
// CHECK: tensor.extract %arg2[%{{.*}}] : tensor<6xf32>
// At an index only the run time knows: a lookup of no loops.
// CHECK: linalg.generic {indexing_maps = [#{{.*}}], iterator_types = []}
// CHECK-NEXT: ^bb0(%{{.*}}: f32):
// CHECK-NEXT: tensor.extract %{{.*}}[%{{.*}}, %c0] : tensor<6x4xf32>
// CHECK: tensor.extract %{{.*}}[] {{.*}}: tensor<f32>
func.func @scalars(%x: tensor<6x4xf32> {shard.layout = #r}, %s: tensor<f32>, %table: tensor<6xf32>, %ids: tensor<6xindex>) -> (tensor<6x4xf32> {shard.layout = #r}, tensor<6xf32>, f32) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c1, %c2] : tensor<6x4xf32>
  %w = tensor.insert %v into %x[%c3, %c0] : tensor<6x4xf32>
  %k = tensor.extract %s[] : tensor<f32>
  %e = tensor.empty() : tensor<6xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%ids : tensor<6xindex>) outs(%e : tensor<6xf32>) {
  ^bb0(%i: index, %o: f32):
    %t = tensor.extract %table[%i] : tensor<6xf32>
    %a = arith.addf %t, %k : f32
    linalg.yield %a : f32
  } -> tensor<6xf32>
  %at = tensor.extract %ids[%c1] : tensor<6xindex>
  %u = tensor.extract %w[%at, %c0] : tensor<6x4xf32>
  return %w, %l, %u : tensor<6x4xf32>, tensor<6xf32>, f32
}

// -----

// Partial values of i1 (which the runtime moves as bytes and cannot
// reduce) pinned on an argument or a result: refused at the function, as a
// constraint's are where the move there is planned (before: accepted here
// and refused only by the lowering, at the op reading them).
#m = #shard.mesh<shape = [2], axes = ["x"]>
// expected-error @+1 {{'func.func' op pins a layout of partial values on argument #0 of type 'tensor<8x6xi1>', which could not be reduced: the runtime moves i1 as bytes and does not reduce it}}
func.func @partial_i1_argument(%x: tensor<8x6xi1> {shard.layout = #shard.placements<mesh = #m, placements = [P(sum)]>}, %y: tensor<8x6xi1>) -> tensor<8x6xi1> {
  %r = arith.andi %x, %y : tensor<8x6xi1>
  return %r : tensor<8x6xi1>
}

// -----

#m = #shard.mesh<shape = [2], axes = ["x"]>
// expected-error @+1 {{'func.func' op pins a layout of partial values on result #0 of type 'tensor<4xi1>', which could not be reduced: the runtime moves i1 as bytes and does not reduce it}}
func.func @partial_i1_result(%x: tensor<4xi1>) -> (tensor<4xi1> {shard.layout = #shard.placements<mesh = #m, placements = [P(max)]>}) {
  return %x : tensor<4xi1>
}
