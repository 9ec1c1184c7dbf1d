// -shard-propagate's write-back (passes/PropagateWriteBack.cpp): each
// argument's and result's layout as shard.layout, each value's own layout
// as a constraint just after its definition, and each layout a use needs
// made once per value, just before the first op that needs it (not at the
// value's definition), shared by every later use; a second run writes
// nothing more.
// RUN: shard-opt %s -shard-propagate | FileCheck %s --check-prefix=WHOLE
// RUN: shard-opt %s -shard-propagate=search=greedy | FileCheck %s --check-prefix=GREEDY
// RUN: shard-opt %s -shard-propagate > %t.1.mlir
// RUN: shard-opt %t.1.mlir -shard-propagate > %t.2.mlir
// RUN: shard-opt %t.1.mlir > %t.1n.mlir
// RUN: diff %t.1n.mlir %t.2.mlir
// RUN: shard-opt %s -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=PARTITIONED

// The search gathers x once, after exp (the first op that needs it is
// tanh), for both tanh and sqrt; each result is then already R.
// WHOLE-LABEL: func.func @once
// WHOLE-SAME: %arg0: tensor<8x6xf32> {shard.layout = {{.*}}#layout_S0{{(_?[0-9]+)?}}}
// WHOLE-SAME: -> (tensor<8x6xf32> {shard.layout = {{.*}}#layout_R{{(_?[0-9]+)?}}}, tensor<8x6xf32> {shard.layout = {{.*}}#layout_R{{(_?[0-9]+)?}}})
// WHOLE-NEXT: %[[E:.*]] = math.exp %arg1
// WHOLE-NEXT: shard.constraint %[[E]] layout {{.*}}#layout_S0{{(_?[0-9]+)?}}
// WHOLE-NEXT: %[[X:.*]] = shard.constraint %arg0 layout {{.*}}#layout_R{{(_?[0-9]+)?}}
// WHOLE-NEXT: %[[T:.*]] = math.tanh %[[X]]
// WHOLE-NEXT: %[[TR:.*]] = shard.constraint %[[T]] layout {{.*}}#layout_R{{(_?[0-9]+)?}}
// WHOLE-NEXT: %[[S:.*]] = math.sqrt %[[X]]
// WHOLE-NEXT: %[[SR:.*]] = shard.constraint %[[S]] layout {{.*}}#layout_R{{(_?[0-9]+)?}}
// WHOLE-NEXT: return %[[TR]], %[[SR]]
// Op by op computes on the rows and gathers each result just before the
// return (the first op that needs it), once each.
// GREEDY-LABEL: func.func @once
// GREEDY: %[[T:.*]] = math.tanh %arg0
// GREEDY-NEXT: %[[TS:.*]] = shard.constraint %[[T]] layout {{.*}}#layout_S0{{(_?[0-9]+)?}}
// GREEDY-NEXT: %[[S:.*]] = math.sqrt %arg0
// GREEDY-NEXT: %[[SS:.*]] = shard.constraint %[[S]] layout {{.*}}#layout_S0{{(_?[0-9]+)?}}
// GREEDY-NEXT: %[[TR:.*]] = shard.constraint %[[TS]] layout {{.*}}#layout_R{{(_?[0-9]+)?}}
// GREEDY-NEXT: %[[SR:.*]] = shard.constraint %[[SS]] layout {{.*}}#layout_R{{(_?[0-9]+)?}}
// GREEDY-NEXT: return %[[TR]], %[[SR]]
#m = #shard.mesh<shape = [2]>
func.func @once(%x: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                %y: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
        tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %a = math.exp %y : tensor<8x6xf32>
  %b = math.tanh %x : tensor<8x6xf32>
  %c = math.sqrt %x : tensor<8x6xf32>
  return %b, %c : tensor<8x6xf32>, tensor<8x6xf32>
}

// A constant needed in two layouts is made in each (its sharding cuts its
// loops as the layout cuts its dims), where first needed: nothing moves it,
// and the constant as written, read by no one, goes.
// WHOLE-LABEL: func.func @constant_twice
// WHOLE-NEXT: %[[C0:.*]] = arith.constant {shard.sharding = #shard.sharding<mesh = #mesh{{[0-9]*}}, loops = [d0]>} dense<1.500000e+00> : tensor<8x8xf32>
// WHOLE-NEXT: %[[P0:.*]] = shard.constraint %[[C0]] layout {{.*}}#layout_S0{{(_?[0-9]+)?}}
// WHOLE-NEXT: arith.addf %arg0, %[[P0]]
// WHOLE: %[[C1:.*]] = arith.constant {shard.sharding = #shard.sharding<mesh = #mesh{{[0-9]*}}, loops = [d1]>} dense<1.500000e+00> : tensor<8x8xf32>
// WHOLE-NEXT: %[[P1:.*]] = shard.constraint %[[C1]] layout {{.*}}#layout_S1{{(_?[0-9]+)?}}
// WHOLE-NEXT: arith.mulf %arg1, %[[P1]]
// WHOLE-NOT: arith.constant
// WHOLE: return
#m4 = #shard.mesh<shape = [4]>
func.func @constant_twice(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>},
                          %y: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>})
    -> (tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>},
        tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %c = arith.constant dense<1.5> : tensor<8x8xf32>
  %a = arith.addf %x, %c : tensor<8x8xf32>
  %b = arith.mulf %y, %c : tensor<8x8xf32>
  return %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
}

// A value every rank makes alone that reads one constant twice (`addf %k,
// %k`, S(1) where it is returned) is made again where needed; erasing the
// op as written then looked at its second operand after the constant under
// it was gone (a crash, found by a random program).
// WHOLE-LABEL: func.func @constant_read_twice
// WHOLE: %[[K:.*]] = arith.constant {shard.sharding = #shard.sharding<mesh = #mesh{{[0-9]*}}, loops = [d1]>} dense<4.000000e+00> : tensor<2x4xf32>
// WHOLE-NEXT: %[[P:.*]] = shard.constraint %[[K]] layout {{.*}}#layout_S1{{(_?[0-9]+)?}}
// WHOLE-NEXT: %[[W:.*]] = arith.addf %[[P]], %[[P]] {shard.sharding = #shard.sharding<mesh = #mesh{{[0-9]*}}, loops = [d1]>}
// WHOLE: return
#m2 = #shard.mesh<shape = [2]>
func.func @constant_read_twice() -> (tensor<2x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1)]>}) {
  %k = arith.constant dense<4.0> : tensor<2x4xf32>
  %w = arith.addf %k, %k {shard.sharding = #shard.sharding<mesh = #m2, loops = [-]>} : tensor<2x4xf32>
  return %w : tensor<2x4xf32>
}

// A value every rank makes alone that a collapse_shape folds into 16 rows,
// needed S(0) on 3 ranks: rows of 4 cut 2, 2, 0 are not torch.chunk's 6, 6,
// 4 of the folded dim, so it is not made again under loops [d0] (which
// -shard-spmd-partition refused: "cannot give it"); it is made replicated,
// each rank keeping its part (an exchange from R: local copies only; found
// by a random program).
// WHOLE-LABEL: func.func @constant_folded
// WHOLE: tensor.collapse_shape {{.*}} {shard.sharding = #shard.sharding<mesh = #mesh{{[0-9]*}}, loops = [-]>}
// PARTITIONED-LABEL: func.func @constant_folded
// PARTITIONED: %[[C:.*]] = tensor.collapse_shape {{.*}} : tensor<4x4xf32> into tensor<16xf32>
// PARTITIONED-NEXT: shard.spmd.exchange %[[C]] from !shard.tensor<16xf32, #layout_R{{[0-9_]*}}> to
#m3 = #shard.mesh<shape = [3]>
func.func @constant_folded(%x: tensor<16xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>}) -> (tensor<16xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>}) {
  %k = arith.constant dense<1.0> : tensor<4x4xf32>
  %v = arith.addf %k, %k : tensor<4x4xf32>
  %c = tensor.collapse_shape %v [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  %r = arith.addf %x, %c : tensor<16xf32>
  return %r : tensor<16xf32>
}
