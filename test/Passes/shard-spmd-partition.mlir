// RUN: shard-opt %s -shard-spmd-partition -split-input-file -verify-diagnostics | FileCheck %s
// The cost model's options reach the planning it runs:
// RUN: not shard-opt %s -shard-spmd-partition="beta-gbps=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=COST
// A chain of 40 attention-shaped blocks with a dynamic batch cut on dp
// (bench/partition_scale.py --dynamic-batch): the extents summed and then
// read by nothing are erased with the ops that sum them, whatever reads
// what (a use-after-free crashed it at 20 blocks).
// RUN: %python %S/Inputs/bench_chain.py %S/../../bench/partition_scale.py transformer 40 dynamic > %t.dyn.mlir
// RUN: shard-opt %t.dyn.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=DYNCHAIN
// DYNCHAIN-LABEL: func.func @blocks(
// DYNCHAIN-COUNT-40: tensor.collapse_shape
// DYNCHAIN: return
// COST: beta-gbps: expected a bandwidth in GB/s from 1e-12 to 1e+12, got 0

// The inputs are what -shard-propagate writes: each op's sharding on it
// (shard.sharding), read here, never derived again.

// The Megatron MLP with hidden size 10 over 4 ranks: local blocks of
// torch.chunk's sizes (3, 3, 3, 1), read by rank; one all_reduce.
#tp = #shard.mesh<shape = [4], axes = ["tp"]>
#R = #shard.placements<mesh = #tp, placements = [R]>
#S0 = #shard.placements<mesh = #tp, placements = [S(0)]>
#S1 = #shard.placements<mesh = #tp, placements = [S(1)]>
#P = #shard.placements<mesh = #tp, placements = [P(sum)]>
// CHECK-LABEL: func.func @megatron
// CHECK-SAME: %arg1: tensor<16x?xf32> {shard.global = !shard.tensor<16x10xf32, {{[^}]*}}placements = [S(1)]>>}
// CHECK-SAME: -> (tensor<8x16xf32> {shard.global = !shard.tensor<8x16xf32, {{[^}]*}}#layout_R>})
// CHECK: %[[RANK:.*]] = shard.spmd.rank : index
// CHECK: %[[SIZES:.*]] = arith.constant dense<[3, 3, 3, 1, 0]> : tensor<5xindex>
// CHECK: %[[I:.*]] = arith.minui %[[RANK]], %c4
// CHECK: %[[N:.*]] = tensor.extract %[[SIZES]][%[[I]]]
// CHECK: tensor.empty(%[[N]]) : tensor<8x?xf32>
// CHECK: linalg.matmul {{.*}}ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x?xf32>) outs(%{{.*}} : tensor<8x?xf32>)
// CHECK: math.tanh %{{.*}} : tensor<8x?xf32>
// CHECK-NOT: arith.select
// CHECK: %[[Y:.*]] = linalg.matmul {{.*}}ins(%{{.*}}, %arg2 : tensor<8x?xf32>, tensor<?x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK-NEXT: %[[R:.*]] = shard.spmd.all_reduce %[[Y]] over axes [0] reduce sum
// CHECK-NEXT: return %[[R]]
func.func @megatron(%x: tensor<8x16xf32> {shard.layout = #R}, %w1: tensor<16x10xf32> {shard.layout = #S1},
                    %w2: tensor<10x16xf32> {shard.layout = #S0}) -> (tensor<8x16xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %0 = tensor.empty() {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [d1]>} : tensor<8x10xf32>
  %1 = shard.constraint %0 layout #S1 : tensor<8x10xf32>
  %2 = linalg.fill {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [d1]>} ins(%zero : f32) outs(%1 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %3 = shard.constraint %2 layout #S1 : tensor<8x10xf32>
  %4 = linalg.matmul {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [d1]>} ins(%x, %w1 : tensor<8x16xf32>, tensor<16x10xf32>) outs(%3 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %5 = shard.constraint %4 layout #S1 : tensor<8x10xf32>
  %6 = math.tanh %5 {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [d1]>} : tensor<8x10xf32>
  %7 = shard.constraint %6 layout #S1 : tensor<8x10xf32>
  %8 = tensor.empty() {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [-]>} : tensor<8x16xf32>
  %9 = shard.constraint %8 layout #R : tensor<8x16xf32>
  %10 = linalg.fill {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [-]>} ins(%zero : f32) outs(%9 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %11 = shard.constraint %10 layout #R : tensor<8x16xf32>
  %12 = linalg.matmul {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [d2]>} ins(%7, %w2 : tensor<8x10xf32>, tensor<10x16xf32>) outs(%11 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %13 = shard.constraint %12 layout #P : tensor<8x16xf32>
  %14 = shard.constraint %13 layout #R : tensor<8x16xf32>
  return %14 : tensor<8x16xf32>
}

// A row-wise sum over a sharded dim whose init is not the identity: the
// init's value on the first copy of the Partial result, 0 elsewhere.
// CHECK-LABEL: func.func @row_sum
// CHECK: %[[FIRST:.*]] = arith.constant dense<[true, false]> : tensor<2xi1>
// CHECK: %[[KEEP:.*]] = tensor.extract %[[FIRST]]
// CHECK: %[[ZEROS:.*]] = linalg.fill {{.*}}ins(%{{.*}} : f32)
// CHECK: %[[INIT:.*]] = arith.select %[[KEEP]], %arg1, %[[ZEROS]] : tensor<6xf32>
// CHECK: linalg.reduce {{.*}}ins(%arg0 : tensor<6x?xf32>) outs(%[[INIT]] : tensor<6xf32>)
// CHECK: shard.spmd.all_reduce
func.func @row_sum(%a: tensor<6x10xf32> {shard.layout = #S1}, %init: tensor<6xf32> {shard.layout = #R})
    -> (tensor<6xf32> {shard.layout = #R}) {
  %r = linalg.reduce ins(%a : tensor<6x10xf32>) outs(%init : tensor<6xf32>) dimensions = [1] {shard.sharding = #shard.sharding<mesh = #tp, loops = [d1]>}
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %0 = shard.constraint %r layout #P : tensor<6xf32>
  %1 = shard.constraint %0 layout #R : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// A non-splat constant: each rank slices its block (at its offset, read
// by rank); a splat one is built at the local shape.
// CHECK-LABEL: func.func @constants
// CHECK: %[[C:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> : tensor<8xf32>
// CHECK: %[[OFFSETS:.*]] = arith.constant dense<[0, 2, 4, 6, 0]> : tensor<5xindex>
// CHECK: %[[O:.*]] = tensor.extract %[[OFFSETS]]
// CHECK: tensor.extract_slice %[[C]][%[[O]]] [2] [1] : tensor<8xf32> to tensor<2xf32>
// CHECK: arith.constant dense<1.000000e+00> : tensor<2xf32>
func.func @constants() -> (tensor<8xf32> {shard.layout = #S0}) {
  %c = arith.constant {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [d0]>} dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %0 = shard.constraint %c layout #S0 : tensor<8xf32>
  %o = arith.constant {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [d0]>} dense<1.0> : tensor<8xf32>
  %1 = shard.constraint %o layout #S0 : tensor<8xf32>
  %s = arith.addf %0, %1 {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [d0]>} : tensor<8xf32>
  %2 = shard.constraint %s layout #S0 : tensor<8xf32>
  return %2 : tensor<8xf32>
}

// A whole value made partial without moving: for sum, the first copy holds
// it and the others 0; for max every copy holds it.
// CHECK-LABEL: func.func @make_partial
// CHECK: %[[FIRST:.*]] = arith.constant dense<[true, false]> : tensor<2xi1>
// CHECK: %[[K:.*]] = tensor.extract %[[FIRST]]
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[S:.*]] = arith.select %[[K]], %arg0, %[[Z]] : tensor<6xf32>
// CHECK: shard.spmd.all_reduce %[[S]] over axes [0] reduce sum
// CHECK: shard.spmd.all_reduce %arg0 over axes [0] reduce max
#Pmax = #shard.placements<mesh = #tp, placements = [P(max)]>
func.func @make_partial(%a: tensor<6xf32> {shard.layout = #R}) -> (tensor<6xf32> {shard.layout = #R}, tensor<6xf32> {shard.layout = #R}) {
  %p = shard.constraint %a layout #P : tensor<6xf32>
  %r = shard.constraint %p layout #R : tensor<6xf32>
  %m = shard.constraint %a layout #Pmax : tensor<6xf32>
  %n = shard.constraint %m layout #R : tensor<6xf32>
  return %r, %n : tensor<6xf32>, tensor<6xf32>
}

// Loops carry local blocks.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %arg0) -> (tensor<?xf32>)
// CHECK: arith.addf {{.*}} : tensor<?xf32>
func.func @loop(%a: tensor<10xf32> {shard.layout = #S0}, %n: index) -> (tensor<10xf32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<10xf32>) {
    %0 = shard.constraint %acc layout #S0 : tensor<10xf32>
    %d = arith.addf %0, %0 {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4], axes = ["tp"]>, loops = [d0]>} : tensor<10xf32>
    %1 = shard.constraint %d layout #S0 : tensor<10xf32>
    scf.yield %1 : tensor<10xf32>
  }
  return %r : tensor<10xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
// expected-error @+1 {{'func.func' op argument #1 ('tensor<4xf32>') has no layout; run -shard-propagate first}}
func.func @unpropagated(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                        %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.addf %a, %b {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d0]>} : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @mismatch(%a: tensor<4x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                    %b: tensor<4x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  // expected-error @+1 {{'arith.addf' op operand #1 has layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(1)]>, but the op's sharding (d0 on axis 0) needs #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>; run -shard-propagate first}}
  %c = arith.addf %a, %b {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d0]>} : tensor<4x2xf32>
  return
}

// -----

#m = #shard.mesh<shape = [2, 2]>
func.func @to_partial(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, R]>}) {
  // expected-error @+1 {{'shard.constraint' op redistribution to '!shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [P(sum), P(max)]>>' keeps partial values reduced with different operations, which is not supported yet}}
  %b = shard.constraint %a layout #shard.placements<mesh = #m, placements = [P(sum), P(max)]> : tensor<4xf32>
  return
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @no_rule(%a: tensor<4x2x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  // expected-error @+1 {{'tosa.rfft2d' op has no sharding rule, and its function gets layouts}}
  %r, %i = tosa.rfft2d %a : (tensor<4x2x8xf32>) -> (tensor<4x2x5xf32>, tensor<4x2x5xf32>)
  return
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @dynamic(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  // expected-error @+1 {{'tensor.cast' op has no sharding (shard.sharding); run -shard-propagate first, or write one}}
  %b = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  return
}

// -----

// expected-error @+1 {{'func.func' op has 2 blocks; -shard-spmd-partition handles functions of one block}}
func.func @blocks(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>}, %p: i1) {
  cf.cond_br %p, ^bb1, ^bb1
^bb1:
  return
}

// -----

func.func @no_mesh() -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.empty' op has no sharding (shard.sharding); run -shard-propagate first, or write one}}
  %e = tensor.empty() : tensor<4xf32>
  %b = shard.constraint %e layout #shard.enumerable<[{offsets = [0], sizes = [3], placement = "rank:0"}, {offsets = [3], sizes = [1], placement = "rank:1"}]> : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func private @g() -> tensor<4xf32>
func.func @no_layout(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  // expected-error @+1 {{'func.call' op has a tensor value without a layout ('tensor<4xf32>'); run -shard-propagate first}}
  %r = func.call @g() : () -> tensor<4xf32>
  return
}

// -----

// A redistribution the planner cannot make, reported where it is asked for.
#m = #shard.mesh<shape = [2, 2]>
func.func @mixed_partial(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [P(sum), P(max)]>})
    -> (tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, R]>}) {
  // expected-error @+1 {{reduces its Partial axes with different operations, which is not supported yet}}
  %b = shard.constraint %a layout #shard.placements<mesh = #m, placements = [R, R]> : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

func.func @device_kinds(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2], device = "cuda">, placements = [S(0)]>})
    -> (tensor<4xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>}) {
  // expected-error @+1 {{'shard.constraint' op moves a value between devices of different kinds}}
  %b = shard.constraint %a layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]> : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @in_forall(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  scf.forall (%i) in (2) {
    // expected-error @+1 {{'shard.constraint' op pins a layout inside 'scf.forall', whose regions -shard-spmd-partition leaves as written (the op's sharding rule covers them); remove it}}
    %b = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(0)]> : tensor<8xf32>
  }
  return
}

// -----

// A sharding pinned there likewise (run alone on propagated IR).
#m = #shard.mesh<shape = [2]>
func.func @sharding_in_forall(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %r = scf.forall (%i) in (2) shared_outs(%o = %a) -> (tensor<8xf32>) {
    // expected-error @+1 {{'arith.negf' op pins a sharding (shard.sharding) inside 'scf.forall', whose regions -shard-spmd-partition leaves as written (the op's sharding rule covers them); remove it}}
    %b = arith.negf %o {shard.sharding = #shard.sharding<mesh = #m, loops = [-]>} : tensor<8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %b into %o[0] [8] [1] : tensor<8xf32> into tensor<8xf32>
    }
  } {shard.sharding = #shard.sharding<mesh = #m, loops = [-]>}
  return
}

// -----

// Nor into scf.parallel, which has no rule (its iterations may run at
// once: a partitioned body's collectives would be issued concurrently).
#m = #shard.mesh<shape = [2]>
func.func @in_parallel(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    // expected-error @+1 {{'shard.constraint' op uses tensors inside 'scf.parallel', whose regions -shard-spmd-partition does not enter (it enters those whose values RegionBranchOpInterface says it forwards, as scf.for's and affine.for's), and its function gets layouts}}
    %b = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(0)]> : tensor<8xf32>
  }
  return
}

// -----

// Values passed on keep their layouts: what is returned, yielded or passed
// to a call must have the layout expected there (-shard-propagate moves
// them, with a constraint).
#a = #shard.placements<mesh = #shard.mesh<shape = [2], devices = [0, 1]>, placements = [S(0)]>
#b = #shard.placements<mesh = #shard.mesh<shape = [2], devices = [1, 0]>, placements = [S(0)]>
func.func @returned(%a: tensor<8xf32> {shard.layout = #a}) -> (tensor<8xf32> {shard.layout = #b}) {
  // expected-error @+1 {{'func.return' op passes result #0 with layout #shard.placements<mesh = #shard.mesh<shape = [2], devices = [0, 1]>, placements = [S(0)]> where layout #shard.placements<mesh = #shard.mesh<shape = [2], devices = [1, 0]>, placements = [S(0)]> is expected; run -shard-propagate first (it moves the value between them)}}
  return %a : tensor<8xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func private @g(tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
func.func @passed(%a: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  // expected-error @+1 {{'func.call' op passes argument #0 with layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]> where layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(1)]> is expected}}
  func.call @g(%a) : (tensor<8x4xf32>) -> ()
  return
}

// -----

#m = #shard.mesh<shape = [2]>
func.func private @whole(tensor<8xf32>)
func.func @to_unannotated(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  // expected-error @+1 {{'func.call' op passes a tensor with a layout to @whole, which has no layouts; run -shard-propagate first}}
  func.call @whole(%a) : (tensor<8xf32>) -> ()
  return
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @carried(%a: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%x = %a) -> tensor<8x4xf32> {
    %y = shard.constraint %x layout #shard.placements<mesh = #m, placements = [S(1)]> : tensor<8x4xf32>
    // expected-error @+1 {{'scf.yield' op passes loop-carried value #0 with layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(1)]> where layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]> is expected}}
    scf.yield %y : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @branches(%a: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %p: i1) -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %r = scf.if %p -> tensor<8x4xf32> {
    scf.yield %a : tensor<8x4xf32>
  } else {
    %y = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(1)]> : tensor<8x4xf32>
    // expected-error @+1 {{'scf.yield' op passes result (as another branch yields it) #0 with layout}}
    scf.yield %y : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

// Each rank's part is read from tables indexed by rank: a layout on ranks
// of 2^20 and more is diagnosed (before, tables of 2^31 entries ran out of
// memory).
#m = #shard.mesh<shape = [2], devices = [0, 2147483647]>
// expected-error @+1 {{'func.func' op has a layout on devices up to rank 2147483647; -shard-spmd-partition reads each rank's part from tables indexed by rank, which it makes for ranks below 1048576}}
func.func @huge_rank(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %b = math.exp %a {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2], devices = [0, 2147483647]>, loops = [d0]>} : tensor<8xf32>
  %c = shard.constraint %b layout #shard.placements<mesh = #m, placements = [S(0)]> : tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

#m = #shard.mesh<shape = [2]>
func.func @complex_partial(%a: tensor<4xcomplex<f32>> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) -> (tensor<4xcomplex<f32>> {shard.layout = #shard.placements<mesh = #m, placements = [P(sum)]>}) {
  // expected-error @+1 {{'shard.constraint' op asks for the Partial layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]> of elements of type 'complex<f32>', whose reduction identity -shard-spmd-partition cannot make (floats, integers and index only)}}
  %c = shard.constraint %a layout #shard.placements<mesh = #m, placements = [P(sum)]> : tensor<4xcomplex<f32>>
  return %c : tensor<4xcomplex<f32>>
}

// -----

// A constant without elements (a dim of size 0) whose other dim is split
// unevenly (3 rows over 2): every rank's block is empty, and nothing is
// sliced (before: a tensor.extract_slice at offset 0 of the dim of size 0,
// invalid IR: "offset 1 is out-of-bounds: 0 >= 0").
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @empty_constant(
func.func @empty_constant(%a: tensor<3x0xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<3x0xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  // CHECK-NOT: tensor.extract_slice
  // CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x0xf32>
  // CHECK-NOT: tensor.extract_slice
  // CHECK: arith.addf %{{.*}}, %[[E]] : tensor<?x0xf32>
  %c = arith.constant {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d0]>} dense<1.0> : tensor<3x0xf32>
  %cc = shard.constraint %c layout #shard.placements<mesh = #m, placements = [S(0)]> : tensor<3x0xf32>
  %b = arith.addf %a, %cc {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d0]>} : tensor<3x0xf32>
  return %b : tensor<3x0xf32>
}

// -----

// A layout reaches a return whose function result has none.
#m = #shard.mesh<shape = [2]>
func.func @unannotated_result(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4xf32> {
  // expected-error @+1 {{'func.return' op passes result #0 ('tensor<4xf32>') with a layout where none is expected; run -shard-propagate first}}
  return %a : tensor<4xf32>
}

// -----

// shard.layout accepts a tensor with an encoding; its local blocks would
// lose it, so an argument of one is diagnosed.
#m = #shard.mesh<shape = [2]>
// expected-error @+1 {{'func.func' op has a tensor of type 'tensor<4xf32, "enc">' in a function that gets layouts; sharding needs tensors without encodings}}
func.func @encoded_argument(%a: tensor<4xf32, "enc"> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  return
}

// -----

// A reshape of local blocks: 7 heads of 2 over 4 ranks, the 14 features cut
// 4, 4, 4, 2 and the heads 2, 2, 2, 1 (aligned): each rank expands and
// collapses its own block, its head count read from the rank's table.
// CHECK-LABEL: func.func @reshape_heads
// CHECK-SAME: (%[[A:.*]]: tensor<8x?xf32>
// CHECK: %[[T:.*]] = arith.constant dense<[2, 2, 2, 1, 0]> : tensor<5xindex>
// CHECK: %[[H:.*]] = tensor.extract %[[T]]
// CHECK: %[[E:.*]] = tensor.expand_shape %[[A]] {{\[}}[0], [1, 2]] output_shape [8, %[[H]], 2] : tensor<8x?xf32> into tensor<8x?x2xf32>
// CHECK: %[[N:.*]] = arith.negf %[[E]] : tensor<8x?x2xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[N]] {{\[}}[0], [1, 2]] : tensor<8x?x2xf32> into tensor<8x?xf32>
// CHECK: return %[[C]]

  func.func @reshape_heads(%arg0: tensor<8x14xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(1)]>}) -> (tensor<8x14xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(1)]>}) {
    %expanded = tensor.expand_shape %arg0 [[0], [1, 2]] output_shape [8, 7, 2] {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4]>, loops = [d1]>} : tensor<8x14xf32> into tensor<8x7x2xf32>
    %0 = shard.constraint %expanded layout #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(1)]> : tensor<8x7x2xf32>
    %1 = arith.negf %0 {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4]>, loops = [d1]>} : tensor<8x7x2xf32>
    %2 = shard.constraint %1 layout #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(1)]> : tensor<8x7x2xf32>
    %collapsed = tensor.collapse_shape %2 [[0], [1, 2]] {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4]>, loops = [d1]>} : tensor<8x7x2xf32> into tensor<8x14xf32>
    %3 = shard.constraint %collapsed layout #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(1)]> : tensor<8x14xf32>
    return %3 : tensor<8x14xf32>
  }


// -----

// A strided slice of a replicated table into a sharded result (10 rows over
// 4 ranks: 3, 3, 3, 1): each rank slices only its rows, from row 3 + 2 x
// its first one, nothing moved.
// CHECK-LABEL: func.func @strided_slice
// CHECK: %[[FIRSTS:.*]] = arith.constant dense<[0, 3, 6, 9, 0]> : tensor<5xindex>
// CHECK: %[[FIRST:.*]] = tensor.extract %[[FIRSTS]]
// CHECK: %[[ROWS:.*]] = tensor.extract
// CHECK: %[[TWICE:.*]] = arith.muli %[[FIRST]], %c2
// CHECK: %[[SUM:.*]] = arith.addi %[[TWICE]], %c3
// (An empty part, torch.chunk's last, would start past the end: kept within
// it.)
// CHECK: %[[AT:.*]] = arith.minsi %[[SUM]], %c32
// CHECK: tensor.extract_slice %arg0[%[[AT]], 1] [%[[ROWS]], 10] [2, 1] : tensor<32x32xf32> to tensor<?x10xf32>
// CHECK-NOT: shard.spmd
#m4 = #shard.mesh<shape = [4]>
func.func @strided_slice(%t: tensor<32x32xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [R]>})
    -> (tensor<10x10xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>}) {
  %c = tensor.extract_slice %t[3, 1] [10, 10] [2, 1] {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4]>, loops = [d0]>} : tensor<32x32xf32> to tensor<10x10xf32>
  %p = shard.constraint %c layout #shard.placements<mesh = #m4, placements = [S(0)]> : tensor<10x10xf32>
  return %p : tensor<10x10xf32>
}

// -----

// A table a payload reads from outside the op is an operand of the op too:
// one cut where the op's rule needs it whole (its columns, which the
// lookup indexes by linalg.index) is diagnosed like any operand.
#m = #shard.mesh<shape = [2]>
func.func @captured_table(%ids: tensor<4xi64> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                          %table: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %e = tensor.empty() {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [-]>} : tensor<4x6xf32>
  %ee = shard.constraint %e layout #shard.placements<mesh = #m, placements = [R]> : tensor<4x6xf32>
  // expected-error @+1 {{'linalg.generic' op the tensor its region reads from outside it (#0) has layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(1)]>, but the op's sharding (nothing sharded) needs #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>; run -shard-propagate first}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"], shard.sharding = #shard.sharding<mesh = #m, loops = [-]>} ins(%ids : tensor<4xi64>) outs(%ee : tensor<4x6xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<10x6xf32>
    linalg.yield %v : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Rows 0-2 of an argument laid out in two blocks on each of ranks 0-2
// (rank 3 holds none), into S(0) over 4 ranks: rank 3's part is empty (its
// entry 0 in every table), not the block the other ranks share. The
// decision reads the argument as it is (reads).
#m = #shard.mesh<shape = [4]>
#e = #shard.enumerable<[{offsets = [0, 0], sizes = [1, 6], placement = "rank:0"}, {offsets = [3, 0], sizes = [1, 6], placement = "rank:0"}, {offsets = [1, 0], sizes = [1, 6], placement = "rank:1"}, {offsets = [4, 0], sizes = [1, 6], placement = "rank:1"}, {offsets = [2, 0], sizes = [1, 6], placement = "rank:2"}, {offsets = [5, 0], sizes = [1, 6], placement = "rank:2"}]>
// CHECK-LABEL: func.func @fewer_ranks
// CHECK: arith.constant dense<[6, 6, 6, 0, 0]> : tensor<5xindex>
// CHECK: tensor.extract_slice %arg0[0] [%{{.*}}] [1] : tensor<12xf32> to tensor<?xf32>
func.func @fewer_ranks(%a: tensor<6x6xf32> {shard.layout = #e}) -> (tensor<3x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %s = tensor.extract_slice %a[0, 0] [3, 6] [1, 1] {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [4]>, loops = [d0], reads = [#e]>} : tensor<6x6xf32> to tensor<3x6xf32>
  %r = shard.constraint %s layout #shard.placements<mesh = #m, placements = [S(0)]> : tensor<3x6xf32>
  return %r : tensor<3x6xf32>
}

// -----

// An empty tensor (0x5) from replicated to cut: no rank holds an element
// in either, but each rank's block changes shape (0x5 to 0x3 and 0x2), so
// the move is planned (it moves nothing), not a cast of the 0x5 block.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @empty_cut
// CHECK: %[[M:.*]] = shard.spmd.exchange %arg0 from {{.*}} : tensor<0x5xf32> -> tensor<0x?xf32>
// CHECK-NEXT: return %[[M]]
func.func @empty_cut(%x: tensor<0x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) -> (tensor<0x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %r = shard.constraint %x layout #shard.placements<mesh = #m, placements = [S(1)]> : tensor<0x5xf32>
  return %r : tensor<0x5xf32>
}

// -----

// tensor.dim at a constant index past the tensor's rank (valid IR, whose
// value is undefined) has no global size to become.
#m = #shard.mesh<shape = [2]>
func.func @dim_out_of_range(%x: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> index {
  %c5 = arith.constant 5 : index
  // expected-error @+1 {{'tensor.dim' op reads dim 5 of a tensor of 2 dims}}
  %d = tensor.dim {shard.sharding = #shard.sharding<mesh = #m, loops = [d0]>} %x, %c5 : tensor<8x4xf32>
  return %d : index
}

// -----

// An op's sharding is read from the op (shard.sharding, as -shard-propagate
// writes it or a user pins it), not derived again: hand-written decisions
// without propagation. The matmul cuts its contracted loop d2 (its operands
// are cut to match), so its result is partial; the tanh cuts its columns.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @decided
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x6xf32>, tensor<6x4xf32>) outs(%{{.*}} : tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK: shard.spmd.reduce_scatter %[[M]] over axes [0] dim 1 reduce sum
// CHECK: math.tanh %{{.*}} : tensor<8x2xf32>
// CHECK-NOT: shard.sharding
func.func @decided(%a: tensor<8x12xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                   %b: tensor<12x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                   %c: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %p = linalg.matmul {shard.sharding = #shard.sharding<mesh = #m, loops = [d2]>} ins(%a, %b : tensor<8x12xf32>, tensor<12x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  %q = shard.constraint %p layout #shard.placements<mesh = #m, placements = [P(sum)]> : tensor<8x4xf32>
  %r = shard.constraint %q layout #shard.placements<mesh = #m, placements = [S(1)]> : tensor<8x4xf32>
  %t = math.tanh %r {shard.sharding = #shard.sharding<mesh = #m, loops = [d1]>} : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

// A decision the operands' layouts do not meet is refused, not re-derived
// (the rows, d0, where the operand is whole):
#m = #shard.mesh<shape = [2]>
func.func @decided_apart(%a: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  // expected-error @+1 {{'math.tanh' op operand #0 has layout #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>, but the op's sharding (d0 on axis 0) needs #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>; run -shard-propagate first}}
  %t = math.tanh %a {shard.sharding = #shard.sharding<mesh = #m, loops = [d0]>} : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

// ... and so is one the op's rule does not have.
#m = #shard.mesh<shape = [2]>
func.func @decided_wrong(%a: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  // expected-error @+1 {{'math.tanh' op has the sharding #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d2]>, which -shard-spmd-partition cannot give it: its rule's loops are d0 to d1, not d2}}
  %t = math.tanh %a {shard.sharding = #shard.sharding<mesh = #m, loops = [d2]>} : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

// A decision that reads its operand in a layout of its own (reads): the
// source stays cut along the sliced dim (columns 2-5 of 8 cut 2 each: ranks
// 1 and 2 hold them), each rank slices the part its block holds, and the
// parts move to the result's layout. Without propagation.
#m = #shard.mesh<shape = [4]>
// CHECK-LABEL: func.func @decided_window
// CHECK: arith.constant dense<[0, 2, 2, 0, 0]> : tensor<5xindex>
// CHECK: %[[PART:.*]] = tensor.extract_slice %arg0[0, 0] [8, %{{.*}}] [1, 1] : tensor<8x2xf32> to tensor<8x?xf32>
// CHECK: shard.spmd.exchange %[[PART]] from !shard.tensor<8x4xf32, #shard.enumerable<[{offsets = [0, 0], sizes = [8, 0], placement = "rank:0/cpu"}, {offsets = [0, 0], sizes = [8, 2], placement = "rank:1/cpu"}, {offsets = [0, 2], sizes = [8, 2], placement = "rank:2/cpu"}, {offsets = [0, 4], sizes = [8, 0], placement = "rank:3/cpu"}]>> to !shard.tensor<8x4xf32, #layout_R>
// CHECK-NOT: shard.sharding
func.func @decided_window(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#shard.placements<mesh = #m, placements = [S(1)]>]>} : tensor<8x8xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// The same operand without reads in the decision: the decision reads it
// whole, and partition does not derive the window from the operand.
#m = #shard.mesh<shape = [4]>
func.func @decided_no_window(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  // expected-error @+1 {{'tensor.extract_slice' op operand #0 has layout #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(1)]>, but the op's sharding (nothing sharded) needs #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [R]>; run -shard-propagate first}}
  %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #m, loops = [-]>} : tensor<8x8xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// A layout the op's rule may not read its operand in: the rows are not a
// window of the slice (its rows are its result's, loop d0, not cut here).
#m = #shard.mesh<shape = [4]>
func.func @decided_bad_read(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  // expected-error @+1 {{'tensor.extract_slice' op has the sharding #shard.sharding<mesh = #shard.mesh<shape = [4]>, loops = [-], reads = [#shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(0)]>]>, which -shard-spmd-partition cannot give it: operand #0 may not be read in #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(0)]> under these loops (#shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [R]> is what they read it in)}}
  %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#shard.placements<mesh = #m, placements = [S(0)]>]>} : tensor<8x8xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// Reads of another count than the rule's operands.
#m = #shard.mesh<shape = [4]>
func.func @decided_reads_count(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  // expected-error @+1 {{which -shard-spmd-partition cannot give it: it reads 2 operands; its rule has 1}}
  %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#shard.placements<mesh = #m, placements = [S(1)]>, unit]>} : tensor<8x8xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// A read that is no layout of the operand (S(5) of a matrix) is refused
// with the layout's own problem (it crashed the layout arithmetic once).
#m = #shard.mesh<shape = [2]>
func.func @decided_read_out_of_range(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  // expected-error @+1 {{which -shard-spmd-partition cannot give it: operand #0 cannot be read in #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(5)]>: S(5) on mesh axis 0 is out of range for a tensor of rank 2}}
  %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#shard.placements<mesh = #m, placements = [S(5)]>]>} : tensor<8x8xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// A read of an operand that is not a tensor (linalg.fill's scalar).
#m = #shard.mesh<shape = [2]>
func.func @decided_read_scalar(%x: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{which -shard-spmd-partition cannot give it: operand #0 is not a tensor of static shape to read in a layout}}
  %f = linalg.fill {shard.sharding = #shard.sharding<mesh = #m, loops = [d0], reads = [#shard.placements<mesh = #m, placements = [R]>, unit]>} ins(%z : f32) outs(%x : tensor<8xf32>) -> tensor<8xf32>
  return %f : tensor<8xf32>
}

// -----

// A decided strided cut of a loop that linalg.index reads: a rank's rows of
// several groups have no one offset that makes the index global (the rule
// says so: ShardingRule::whyNotStrided, which the verifier of decided
// shardings reads).
#m = #shard.mesh<shape = [2]>
func.func @strided_index(%x: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [_S(0, 2)]>})
    -> (tensor<8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [_S(0, 2)]>}) {
  // expected-error @+1 {{'linalg.generic' op has the sharding #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d0 strided 2]>, which -shard-spmd-partition cannot give it: d0 is not cut strided on axis 0: the payload reads its index (linalg.index), made global by one offset per rank}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"], shard.sharding = #shard.sharding<mesh = #m, loops = [d0 strided 2]>} outs(%x : tensor<8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A decided strided cut of a batched op's loop: each rank's heads of both
// batches (_S(0, 2) on every operand), the same op on local rows.
// CHECK-LABEL: func.func @strided_batch
// CHECK-SAME: tensor<4x4x2xf32>
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<4x4x2xf32>, tensor<4x2x4xf32>) outs(%{{.*}} : tensor<4x4x4xf32>)
#m = #shard.mesh<shape = [2]>
func.func @strided_batch(%q: tensor<8x4x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [_S(0, 2)]>},
                         %k: tensor<8x2x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [_S(0, 2)]>},
                         %e: tensor<8x4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [_S(0, 2)]>})
    -> (tensor<8x4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [_S(0, 2)]>}) {
  %s = linalg.batch_matmul {shard.sharding = #shard.sharding<mesh = #m, loops = [d0 strided 2]>} ins(%q, %k : tensor<8x4x2xf32>, tensor<8x2x4xf32>) outs(%e : tensor<8x4x4xf32>) -> tensor<8x4x4xf32>
  return %s : tensor<8x4x4xf32>
}

// -----

// Tensors with dynamic dims held on different ranks: a rank that holds no
// block of one would not know its extent.
#m = #shard.mesh<shape = [2], axes = ["x"]>
// expected-error @+1 {{'func.func' op has '!shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2], axes = ["x"]>, placements = [R]>>', held on ranks [0, 1], and '!shard.tensor<?x4xf32, #shard.device_placement<"rank:0/cpu">>', held on ranks [0], in one function; tensors with dynamic dims must all be held on the same ranks (a rank knows a dynamic dim's extent only from a block it holds)}}
func.func @dynamic_held_on_others(%x: tensor<?x4xf32> {shard.layout = #shard.device_placement<"rank:0">},
                                  %y: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  return
}

// -----

// A function with tensors with dynamic dims runs only on the ranks holding
// their blocks (a rank reads a dynamic dim's extent from its block); the
// dynamic dim stays dynamic locally.
// CHECK-LABEL: func.func @dynamic_entry(
// CHECK-SAME: %arg0: tensor<?x2xf32> {shard.global = !shard.tensor<?x4xf32, #layout_S1>}
// CHECK: %[[RANK:.*]] = shard.spmd.rank : index
// CHECK: %[[HOLDS:.*]] = arith.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK: %[[AT:.*]] = tensor.extract %[[HOLDS]]
// CHECK: cf.assert %[[AT]], "shardc: this rank holds no block of {{.*}} a tensor with dynamic dims, whose extents only the ranks holding a block know; run the program on exactly ranks [0, 1]"
// CHECK: math.tanh %arg0 : tensor<?x2xf32>
#m = #shard.mesh<shape = [2], axes = ["x"]>
func.func @dynamic_entry(%x: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %y = math.tanh %x {shard.sharding = #shard.sharding<mesh = #m, loops = [d1]>} : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// Several blocks of a tensor with dynamic dims on one rank: packed, their
// sizes are not known before it runs.
// expected-error @+1 {{'func.func' op has argument #0 of type '!shard.tensor<?x4xf32, #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:0/cpu"]>>', of which a rank holds several blocks: packed, their sizes in a dynamic dim are not known before it runs}}
func.func @dynamic_packed(%x: tensor<?x4xf32> {shard.layout = #shard.chunk<dim = 1, placements = ["rank:0", "rank:0"]>}) {
  return
}
