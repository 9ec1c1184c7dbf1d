// A callee without layouts of its own takes them from each call (issue 43,
// item 4): each call gets a callee of its own, whose argument and result
// layouts are chosen with its caller's (search=whole) and whose body is
// then searched with them; copies that come out equal are merged, one
// callee per distinct layout. Before, one callee took the first call's
// layouts and every other call moved its tensors there and back (two
// all_to_all per call), and a caller with such a call was left to op-by-op
// propagation.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: shard-opt %t.4.mlir -shard-propagate | FileCheck %s --check-prefix=PROP
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry two_layouts,same_layouts,nested,slice_of_result --check > %t.run1 2>&1
// RUN: %entry-lines two_layouts %t.run1 | FileCheck %s --check-prefix=ZERO4
// RUN: %entry-lines same_layouts %t.run1 | FileCheck %s --check-prefix=ZERO4
// RUN: %entry-lines nested %t.run1 | FileCheck %s --check-prefix=ZERO4
// RUN: %entry-lines slice_of_result %t.run1 | FileCheck %s --check-prefix=SLICE4
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry two_layouts,nested,slice_of_result,dynamic_callee --check > %t.run2 2>&1
// RUN: %entry-lines two_layouts %t.run2 | FileCheck %s --check-prefix=ZERO3
// RUN: %entry-lines nested %t.run2 | FileCheck %s --check-prefix=ZERO3
// RUN: %entry-lines slice_of_result %t.run2 | FileCheck %s --check-prefix=SLICE3
// RUN: %entry-lines dynamic_callee %t.run2 | FileCheck %s --check-prefix=ZERO3
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry two_layouts,slice_of_result --check > %t.run3 2>&1
// RUN: %entry-lines two_layouts %t.run3 | FileCheck %s --check-prefix=ZERO2
// RUN: %entry-lines slice_of_result %t.run3 | FileCheck %s --check-prefix=SLICE2

// Each call's callee has the layouts of its call: rows for one, columns
// for the other; the two calls with rows share one callee.
// PROP-LABEL: func.func private @square(
// PROP-SAME: #layout_S0{{(_?[0-9]+)?}}
// PROP-NEXT: tensor.empty
// PROP-LABEL: func.func private @square_4(
// PROP-SAME: #layout_S1{{(_?[0-9]+)?}}
// PROP-NOT: func.func private @square
// PROP-LABEL: func.func @two_layouts
// PROP: call @square(
// PROP: call @square_4(
// PROP-LABEL: func.func @same_layouts
// PROP: call @square(
// PROP: call @square(
// PROP-LABEL: func.func private @twice(
// PROP-SAME: #layout_S1{{(_?[0-9]+)?}}
// PROP: call @square_4(
// PROP-LABEL: func.func @slice_of_result
// PROP: call @square(
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR-LABEL: func.func @slice_of_result
// ZERO2: rank 0: OK, {{.*}} received 0 bytes
// ZERO2-NEXT: rank 1: OK, {{.*}} received 0 bytes
// ZERO3: rank 0: OK, {{.*}} received 0 bytes
// ZERO3-NEXT: rank 1: OK, {{.*}} received 0 bytes
// ZERO3-NEXT: rank 2: OK, {{.*}} received 0 bytes
// ZERO4: rank 0: OK, {{.*}} received 0 bytes
// ZERO4-NEXT: rank 1: OK, {{.*}} received 0 bytes
// ZERO4-NEXT: rank 2: OK, {{.*}} received 0 bytes
// ZERO4-NEXT: rank 3: OK, {{.*}} received 0 bytes
// The slice (rows 0-1 of the call's result, held by rank 0 alone) is all
// that moves: 2 x 6 f32 = 48 B to every other rank.
// SLICE2: rank 0: OK, {{.*}} received 0 bytes
// SLICE2-NEXT: rank 1: OK, {{.*}} received 48 bytes
// SLICE3: rank 0: OK, {{.*}} received 0 bytes
// SLICE3-NEXT: rank 1: OK, {{.*}} received 48 bytes
// SLICE3-NEXT: rank 2: OK, {{.*}} received 48 bytes
// SLICE4: rank 0: OK, {{.*}} received 0 bytes
// SLICE4-NEXT: rank 1: OK, {{.*}} received 48 bytes
// SLICE4-NEXT: rank 2: OK, {{.*}} received 48 bytes
// SLICE4-NEXT: rank 3: OK, {{.*}} received 48 bytes

#m = #shard.mesh<shape = [@N@]>
#id = affine_map<(i, j) -> (i, j)>
!t = tensor<8x6xf32>

func.func private @square(%x: !t) -> !t {
  %e = tensor.empty() : !t
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !t) outs(%e : !t) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> !t
  return %g : !t
}

func.func @two_layouts(%x: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                       %y: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        !t {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %a = func.call @square(%x) : (!t) -> !t
  %b = func.call @square(%y) : (!t) -> !t
  return %a, %b : !t, !t
}

func.func @same_layouts(%x: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                        %y: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %a = func.call @square(%x) : (!t) -> !t
  %b = func.call @square(%y) : (!t) -> !t
  return %a, %b : !t, !t
}

// A callee calling another, neither with layouts of its own.
func.func private @twice(%x: !t) -> !t {
  %a = func.call @square(%x) : (!t) -> !t
  %b = arith.addf %a, %x : !t
  return %b : !t
}

func.func @nested(%x: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %a = func.call @twice(%x) : (!t) -> !t
  return %a : !t
}

func.func @slice_of_result(%x: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<2x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %a = func.call @square(%x) : (!t) -> !t
  %s = tensor.extract_slice %a[0, 0] [2, 6] [1, 1] : !t to tensor<2x6xf32>
  return %s : tensor<2x6xf32>
}

// A callee in torch-mlir's form, its tensors cast to dynamic shapes and
// back: refined to static shapes as a function with layouts is (before,
// "sharding needs static shapes" at its tensor.dim).
func.func private @square_dynamic(%x: !t) -> !t {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.cast %x : !t to tensor<?x?xf32>
  %d0 = tensor.dim %d, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %d, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %r = tensor.cast %g : tensor<?x?xf32> to !t
  return %r : !t
}

func.func @dynamic_callee(%x: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %a = func.call @square_dynamic(%x) : (!t) -> !t
  return %a : !t
}
