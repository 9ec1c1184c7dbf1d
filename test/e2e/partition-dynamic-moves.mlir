// Every kind of move of a tensor whose dynamic dim no layout cuts (issue 43
// item 6): all_to_all (S(1) -> S(2)), all_gather (S(2) -> R), a partial
// sum's reduce_scatter (P -> S(1)), reshapes, slices, and moves between the
// axes of a 2x2 mesh. The program is compiled once with the dim dynamic;
// shard-run runs it at several sizes of it (0 included) and checks every
// element on every rank; the cut dims are uneven (10 over 4: 3, 3, 3, 1).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry moves --check --dynamic-size 3 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry partial --check --dynamic-size 5 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK2
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry moves --check --dynamic-size 7 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry moves --check --dynamic-size 0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry partial --check --dynamic-size 2 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mesh2d,reshape --check --dynamic-size 3 > %t.run1 2>&1
// RUN: not grep "error:" %t.run1
// RUN: %entry-lines mesh2d %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %entry-lines reshape %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry slices --check --dynamic-size 5 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=SLICES4
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry partial --check --dynamic-size 1 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry reshape --check --dynamic-size 2 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry moves,slices --check --dynamic-size 4 > %t.run2 2>&1
// RUN: not grep "error:" %t.run2
// RUN: %entry-lines moves %t.run2 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK3
// RUN: %entry-lines slices %t.run2 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=SLICES3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry slices --check --dynamic-size 0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK3
// The collectives, their layouts and local types dynamic in the dim.
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=PART

// OK2: shard-run: rank 0: OK
// OK2-NEXT: shard-run: rank 1: OK
// OK3: shard-run: rank 0: OK
// OK3-NEXT: shard-run: rank 1: OK
// OK3-NEXT: shard-run: rank 2: OK
// OK4: shard-run: rank 0: OK
// OK4-NEXT: shard-run: rank 1: OK
// OK4-NEXT: shard-run: rank 2: OK
// OK4-NEXT: shard-run: rank 3: OK

// PART-LABEL: func.func @moves(
// PART: shard.spmd.all_to_all {{.*}} : tensor<?x?x6xf32> -> tensor<?x10x?xf32>
// PART: shard.spmd.all_gather {{.*}} : tensor<?x10x?xf32> -> tensor<?x10x6xf32>
// PART-LABEL: func.func @partial(
// PART: shard.spmd.reduce_scatter {{.*}} : tensor<?x10xf32> -> tensor<?x?xf32>
// A slice of q and v out of a fused q|k|v with a dynamic batch (its size
// the batch's own, as torch-mlir writes it): q cut on its columns (8 over
// 4: 2 each; over 3: 3, 3, 2), v replicated; each rank slices its part.
// SLICES4: shard-run: rank 0: OK, 50 elements checked, received 0 bytes
// SLICES4-NEXT: shard-run: rank 1: OK, 50 elements checked, received 0 bytes
// SLICES4-NEXT: shard-run: rank 2: OK, 50 elements checked, received 0 bytes
// SLICES4-NEXT: shard-run: rank 3: OK, 50 elements checked, received 0 bytes
// SLICES3: shard-run: rank 0: OK, 44 elements checked
// SLICES3-NEXT: shard-run: rank 1: OK, 44 elements checked
// SLICES3-NEXT: shard-run: rank 2: OK, 40 elements checked
// PART-LABEL: func.func @mesh2d(
// PART: shard.spmd.{{.*}} from !shard.tensor<?x10x6xf32, #layout_S1_R> to !shard.tensor<?x10x6xf32, #layout_R_S1> : tensor<?x5x6xf32> -> tensor<?x5x6xf32>
// Each rank slices its columns of q out of its copy of q|k|v: no move.
// PART-LABEL: func.func @slices(
// PART-NOT: shard.spmd.{{[a-z_]+}} %
// PART: tensor.extract_slice %{{.*}}[0, %{{.*}}] [%{{.*}}, 2] [1, 1] : tensor<?x24xf32> to tensor<?x2xf32>
// PART: tensor.extract_slice %{{.*}}[0, 16] [%{{.*}}, 8] [1, 1] : tensor<?x24xf32> to tensor<?x8xf32>
// PART-NOT: shard.spmd.{{[a-z_]+}} %

#m = #shard.mesh<shape = [@N@], axes = ["x"]>
func.func @moves(%a: tensor<?x10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<?x10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %b = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(2)]> : tensor<?x10x6xf32>
  %c = arith.negf %b : tensor<?x10x6xf32>
  return %c : tensor<?x10x6xf32>
}

// x cut on its columns, w on its rows: the product is a partial sum,
// reduce-scattered over its columns.
func.func @partial(%x: tensor<?x12xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                   %w: tensor<12x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<?x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x12xf32>
  %e = tensor.empty(%n) : tensor<?x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x10xf32>) -> tensor<?x10xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x12xf32>, tensor<12x10xf32>) outs(%f : tensor<?x10xf32>) -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}

// A 2x2 mesh: the dim cut by one axis, then the other, then both.
#m2 = #shard.mesh<shape = [2, 2], axes = ["a", "b"]>
func.func @mesh2d(%a: tensor<?x10x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1), R]>})
    -> (tensor<?x10x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(2), S(1)]>}) {
  %b = shard.constraint %a layout #shard.placements<mesh = #m2, placements = [R, S(1)]> : tensor<?x10x6xf32>
  %c = arith.negf %b : tensor<?x10x6xf32>
  return %c : tensor<?x10x6xf32>
}

// Reshapes: the heads of [?, 4, 8] folded into [?, 32] and back, cut on
// the heads (nothing moves); a group holding the dynamic dim ([?, 4] into
// [?]) stays whole, so the heads are gathered for it.
func.func @reshape(%a: tensor<?x4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<?x4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
        tensor<?x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %c = tensor.collapse_shape %a [[0], [1, 2]] : tensor<?x4x8xf32> into tensor<?x32xf32>
  %n = arith.negf %c : tensor<?x32xf32>
  %c0 = arith.constant 0 : index
  %b = tensor.dim %a, %c0 : tensor<?x4x8xf32>
  %e = tensor.expand_shape %n [[0], [1, 2]] output_shape [%b, 4, 8] : tensor<?x32xf32> into tensor<?x4x8xf32>
  %f = tensor.collapse_shape %a [[0, 1], [2]] : tensor<?x4x8xf32> into tensor<?x8xf32>
  return %e, %f : tensor<?x4x8xf32>, tensor<?x8xf32>
}

func.func @slices(%x: tensor<?x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                  %w: tensor<8x24xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<?x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
        tensor<?x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%b) : tensor<?x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x24xf32>) -> tensor<?x24xf32>
  %qkv = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x24xf32>) outs(%f : tensor<?x24xf32>) -> tensor<?x24xf32>
  %n = tensor.dim %qkv, %c0 : tensor<?x24xf32>
  %q = tensor.extract_slice %qkv[0, 0] [%n, 8] [1, 1] : tensor<?x24xf32> to tensor<?x8xf32>
  %v = tensor.extract_slice %qkv[0, 16] [%n, 8] [1, 1] : tensor<?x24xf32> to tensor<?x8xf32>
  return %q, %v : tensor<?x8xf32>, tensor<?x8xf32>
}
