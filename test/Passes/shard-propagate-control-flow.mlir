// search=whole through loops, branches and calls: what a loop carries (its
// init, region argument, yield and result share one layout) and what a
// branch yields are chosen with the ops; the moves and compute inside a
// loop count once per trip (its static trip count; loop-trips where it has
// none: scf.while, dynamic bounds), and a value used inside a loop is
// moved in its own block, before the loop, so once. A call passes and
// takes the layouts of its callee (searched first).
// RUN: shard-opt %s -shard-propagate="peak-gflops=1" -split-input-file | FileCheck %s
// RUN: shard-opt %s -shard-propagate="peak-gflops=1 explain=true" -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN --implicit-check-not="see current operation"
// RUN: shard-opt %s -shard-propagate="peak-gflops=1 loop-trips=1" -split-input-file | FileCheck %s --check-prefix=TRIPS1
// Idempotence: a second run changes nothing.
// RUN: shard-opt %s -shard-propagate="peak-gflops=1" -split-input-file > %t.1.mlir
// RUN: shard-opt %t.1.mlir -shard-propagate="peak-gflops=1" -split-input-file > %t.2.mlir
// RUN: shard-opt %t.1.mlir -split-input-file > %t.1n.mlir
// RUN: diff %t.1n.mlir %t.2.mlir
// The options are checked:
// RUN: not shard-opt %s -shard-propagate="loop-trips=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=OPTS
// RUN: not shard-opt %s -shard-propagate="loop-trips=1000000001" -split-input-file 2>&1 | FileCheck %s --check-prefix=OPTS
// OPTS: error: -shard-propagate: {{.*}} and loop-trips 1 to 10^9; got {{.*}}
// A chain of 5,000 functions, each calling the next: every one searched
// (callees first, each call's callee found through the module's symbol
// tables, in linear time), each result kept in rows, nothing moved: one
// constraint per tanh and per call result.
// RUN: %python %S/Inputs/call_chain.py 5000 > %t.chain.mlir
// RUN: shard-opt %t.chain.mlir -shard-propagate="explain=true" -o %t.chain.out.mlir 2>&1 | grep -c "remark: search=whole chose" | FileCheck %s --check-prefix=CHAIN
// RUN: grep -c "#layout_S0 : tensor<8xf32>" %t.chain.out.mlir | FileCheck %s --check-prefix=CHAINC
// RUN: not grep -q "placements = \[R\]" %t.chain.out.mlir
// CHAIN: {{^}}5000{{$}}
// CHAINC: {{^}}9999{{$}}

// h = tanh(h x W), 8 times, h [8x32] replicated in and out, W [32x32] rows
// cut, 4 ranks: W is gathered once, before the loop, the loop carries h's
// rows (each rank computes a quarter), and h is gathered once, after it.
// Per trip, the columns (d1: W moved once, by an all-to-all) would gather
// h every trip (8 x 3 KiB).
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @eight
// CHECK: %[[H:.*]] = shard.constraint %arg0 layout {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}
// CHECK-NEXT: %[[W:.*]] = shard.constraint %arg1 layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[H]])
// CHECK-NOT: placements = [R]
// CHECK: scf.yield
// CHECK: %[[C:.*]] = shard.constraint %[[R]] layout {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}
// CHECK-NEXT: %[[G:.*]] = shard.constraint %[[C]] layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: return %[[G]]
// EXPLAIN: remark: search=whole chose the shardings of 4 ops and the layouts of 0 free arguments and results and 1 values loops carry or branches yield (16 options) by dynamic programming {{.*}}, proven optimal
// EXPLAIN: remark: kept d0 on axis 0 (compute 32.77 us; %arg1 [S(0)] -> [R]: 12288 bytes, 6.02 us); best rejected: d2 on axis 0
// EXPLAIN: remark: result #0: kept [S(0)] (%0 [S(0)] -> [R]: 3072 bytes, 6.01 us); best rejected: [R] (+42.04 us: %4 [S(0)] -> [R]: 3072 bytes, 48 us)
func.func @eight(%h0: tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                 %w: tensor<32x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%h = %h0) -> tensor<8x32xf32> {
    %e = tensor.empty() : tensor<8x32xf32>
    %z = arith.constant 0.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
    %y = linalg.matmul ins(%h, %w : tensor<8x32xf32>, tensor<32x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
    %t = math.tanh %y : tensor<8x32xf32>
    scf.yield %t : tensor<8x32xf32>
  }
  return %r : tensor<8x32xf32>
}

// -----

// The same loop run once: the columns are cheaper (W moved by an
// all-to-all, h gathered once, inside the loop, as it is yielded).
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @once
// CHECK: %[[W:.*]] = shard.constraint %arg1 layout {{[^}]*}}#layout_S1{{(_?[0-9]+)?}}
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %arg0)
// CHECK: linalg.matmul {{.*}}ins(%{{.*}}, %[[W]] :
// CHECK: math.tanh
// CHECK-NEXT: %[[T:.*]] = shard.constraint {{.*}}#layout_S1{{(_?[0-9]+)?}}
// CHECK-NEXT: %[[Y:.*]] = shard.constraint %[[T]] layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: scf.yield %[[Y]]
// EXPLAIN: remark: kept d1 on axis 0 (compute 4.096 us; %arg1 [S(0)] -> [S(1)]: 3072 bytes, 6.01 us)
func.func @once(%h0: tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                %w: tensor<32x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%h = %h0) -> tensor<8x32xf32> {
    %e = tensor.empty() : tensor<8x32xf32>
    %z = arith.constant 0.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
    %y = linalg.matmul ins(%h, %w : tensor<8x32xf32>, tensor<32x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
    %t = math.tanh %y : tensor<8x32xf32>
    scf.yield %t : tensor<8x32xf32>
  }
  return %r : tensor<8x32xf32>
}

// -----

// Bounds not known: loop-trips (default 10) counts the trips; at
// loop-trips=1 this is @once, at 10 @eight.
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @dynamic
// CHECK: shard.constraint %arg1 layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: scf.for
// TRIPS1-LABEL: func.func @dynamic
// TRIPS1: shard.constraint %arg1 layout {{[^}]*}}#layout_S1{{(_?[0-9]+)?}}
// TRIPS1-NEXT: scf.for
// EXPLAIN: remark: kept d0 on axis 0 (compute 40.96 us; %arg1 [S(0)] -> [R]: 12288 bytes, 6.02 us)
func.func @dynamic(%h0: tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                   %w: tensor<32x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                   %n: index)
    -> (tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%h = %h0) -> tensor<8x32xf32> {
    %e = tensor.empty() : tensor<8x32xf32>
    %z = arith.constant 0.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
    %y = linalg.matmul ins(%h, %w : tensor<8x32xf32>, tensor<32x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
    %t = math.tanh %y : tensor<8x32xf32>
    scf.yield %t : tensor<8x32xf32>
  }
  return %r : tensor<8x32xf32>
}

// -----

// Nested loops multiply: tanh runs 2 x 3 = 6 times (4 of 8 elements per
// rank, at 1 GFLOP/s: 6 x 0.004 us).
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @nested
// EXPLAIN: remark: kept d0 on axis 0 (compute 0.024 us; moves nothing)
func.func @nested(%x: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %x) -> tensor<8xf32> {
    %s = scf.for %j = %c0 to %c3 step %c1 iter_args(%b = %a) -> tensor<8xf32> {
      %t = math.tanh %b : tensor<8xf32>
      scf.yield %t : tensor<8xf32>
    }
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// A branch: what it yields gets one layout, chosen with both branches (each
// counted as if it ran): the rows, as %x and the pinned result have them.
// The else branch reads %y in rows: %y is moved (an all-to-all) in its own
// block, before the branch, as a value used in a loop is moved before the
// loop; nothing else moves.
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @branch
// CHECK: %[[Y:.*]] = shard.constraint %arg2 layout {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}
// CHECK-NEXT: scf.if
// CHECK: math.tanh
// CHECK: } else {
// CHECK-NEXT: math.exp %[[Y]]
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: shard.constraint %{{.*}} layout {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}
// EXPLAIN: remark: search=whole chose the shardings of 3 ops and the layouts of 0 free arguments and results and 1 values loops carry or branches yield (12 options) {{.*}} proven optimal: modelled 6.097 us (moves 6.001 us
// EXPLAIN: remark: result #0: kept [S(0)] (moves nothing); best rejected: [R]
func.func @branch(%c: i1, %x: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                  %y: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %r = scf.if %c -> tensor<16x8xf32> {
    %t = math.tanh %x : tensor<16x8xf32>
    scf.yield %t : tensor<16x8xf32>
  } else {
    %t = math.exp %y : tensor<16x8xf32>
    scf.yield %t : tensor<16x8xf32>
  }
  %s = math.sin %r : tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}

// -----

// scf.while: what it carries and what it passes on are two choices; its
// trips are loop-trips. The weight is gathered once, before the loop.
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @iterate
// CHECK: shard.constraint %arg1 layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: scf.while
// EXPLAIN: remark: search=whole chose the shardings of 4 ops and the layouts of 0 free arguments and results and 2 values loops carry or branches yield
// EXPLAIN: remark: carried value #0: kept
// EXPLAIN: remark: result #0: kept
func.func @iterate(%t0: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                   %w: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %n: i32)
    -> (tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.while (%t = %t0, %i = %c0) : (tensor<16x8xf32>, i32) -> (tensor<16x8xf32>, i32) {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %t, %i : tensor<16x8xf32>, i32
  } do {
  ^bb0(%u: tensor<16x8xf32>, %j: i32):
    %e = tensor.empty() : tensor<16x8xf32>
    %z = arith.constant 0.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
    %y = linalg.matmul ins(%u, %w : tensor<16x8xf32>, tensor<8x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
    %v = math.tanh %y : tensor<16x8xf32>
    %k = arith.addi %j, %c1 : i32
    scf.yield %v, %k : tensor<16x8xf32>, i32
  }
  return %r#0 : tensor<16x8xf32>
}

// -----

// Calls: @callee is searched first (its free result: rows, as its pinned
// argument); @caller then passes and takes those layouts, and a function
// without a body (@ext) takes and gives whole tensors. A callee with no
// mesh of its own (@nomesh, public) gives its call a private copy
// (@nomesh_0), searched with its caller as if inlined at the call: nothing
// moves (before, it left its caller to op-by-op propagation), and @nomesh
// stays as it was. Each remark is one line at its op, not the whole
// function or loop it is about ("see current operation", issue 44).
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @callee
// CHECK-SAME: -> (tensor<16x8xf32> {shard.layout = {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}})
// CHECK-LABEL: func.func private @ext
// CHECK-SAME: (tensor<16x8xf32> {shard.layout = {{[^}]*}}#layout_R{{(_?[0-9]+)?}}}) -> (tensor<16x8xf32> {shard.layout = {{[^}]*}}#layout_R{{(_?[0-9]+)?}}})
// CHECK-LABEL: func.func @caller
// CHECK: %[[C:.*]] = call @callee(
// CHECK-NEXT: %[[CC:.*]] = shard.constraint %[[C]] layout {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}
// CHECK-NEXT: %[[R:.*]] = shard.constraint %[[CC]] layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: call @ext(%[[R]])
// EXPLAIN: remark: search=whole chose the shardings of 1 ops and the layouts of 1 free arguments and results (6 options)
// EXPLAIN: remark: search=whole chose the shardings of 2 ops and the layouts of 1 free arguments and results (9 options) {{.*}} proven optimal over its own choices only: @callee is searched apart, so the program as a whole may do better: modelled 12.07 us (moves 12 us
// EXPLAIN: remark: search=whole chose the shardings of 2 ops and the layouts of 3 free arguments and results (15 options) {{.*}} proven optimal: {{.*}} (moves 0 us
// A callee's values are named as its own printed body names them, and its
// argument and result are said at the callee.
// EXPLAIN: remark: kept d1 on axis 0 (compute {{.*}}); best rejected: nothing sharded (+{{.*}} us: %arg0 [S(1)] -> [R]
// EXPLAIN: .mlir:[[# @LINE + 19]]:1: remark: argument #0: kept [S(1)] (moves nothing)
// CHECK-LABEL: func.func @nomesh(
// CHECK-SAME: %arg0: tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK-LABEL: func.func private @nomesh_0(
// CHECK-SAME: #layout_S1{{(_?[0-9]+)?}}}) -> (tensor<16x8xf32> {shard.layout = #layout_S1{{(_?[0-9]+)?}}})
// CHECK-LABEL: func.func @caller2
// CHECK: call @nomesh_0(
func.func @callee(%a: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<16x8xf32> {
  %t = math.tanh %a : tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}
func.func private @ext(tensor<16x8xf32>) -> tensor<16x8xf32>
func.func @caller(%x: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> tensor<16x8xf32> {
  %e = math.exp %x : tensor<16x8xf32>
  %c = func.call @callee(%e) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %d = func.call @ext(%c) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %s = math.sin %d : tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}
func.func @nomesh(%a: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %t = math.tanh %a : tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}
func.func @caller2(%x: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> tensor<16x8xf32> {
  %e = math.exp %x : tensor<16x8xf32>
  %c = func.call @nomesh(%e) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

// -----

// An op of another dialect whose forwarded values RegionBranchOpInterface
// describes and whose trip count LoopLikeOpInterface gives (affine.for) is
// searched as scf.for is, with no code of its own (passes/ControlFlow.h):
// 8 trips choose as @eight, 1 trip as @once (affine.for gives no
// getStaticTripCount: its constant bounds and step count them).
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @eight_affine
// CHECK: %[[H:.*]] = shard.constraint %arg0 layout {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}
// CHECK-NEXT: %[[W:.*]] = shard.constraint %arg1 layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: %[[R:.*]] = affine.for {{.*}} = 0 to 8 iter_args(%{{.*}} = %[[H]])
// CHECK-NOT: placements = [R]
// CHECK: affine.yield
// CHECK: %[[C:.*]] = shard.constraint %[[R]] layout {{[^}]*}}#layout_S0{{(_?[0-9]+)?}}
// CHECK-NEXT: %[[G:.*]] = shard.constraint %[[C]] layout {{[^}]*}}#layout_R{{(_?[0-9]+)?}}
// CHECK-NEXT: return %[[G]]
// CHECK-LABEL: func.func @once_affine
// CHECK: %[[W1:.*]] = shard.constraint %arg1 layout {{[^}]*}}#layout_S1{{(_?[0-9]+)?}}
// CHECK-NEXT: affine.for {{.*}} = 0 to 1 iter_args(%{{.*}} = %arg0)
// CHECK: linalg.matmul {{.*}}ins(%{{.*}}, %[[W1]] :
func.func @eight_affine(%h0: tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                        %w: tensor<32x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %r = affine.for %i = 0 to 8 iter_args(%h = %h0) -> tensor<8x32xf32> {
    %e = tensor.empty() : tensor<8x32xf32>
    %z = arith.constant 0.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
    %y = linalg.matmul ins(%h, %w : tensor<8x32xf32>, tensor<32x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
    %t = math.tanh %y : tensor<8x32xf32>
    affine.yield %t : tensor<8x32xf32>
  }
  return %r : tensor<8x32xf32>
}
func.func @once_affine(%h0: tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                       %w: tensor<32x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %r = affine.for %i = 0 to 1 iter_args(%h = %h0) -> tensor<8x32xf32> {
    %e = tensor.empty() : tensor<8x32xf32>
    %z = arith.constant 0.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
    %y = linalg.matmul ins(%h, %w : tensor<8x32xf32>, tensor<32x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
    %t = math.tanh %y : tensor<8x32xf32>
    affine.yield %t : tensor<8x32xf32>
  }
  return %r : tensor<8x32xf32>
}
