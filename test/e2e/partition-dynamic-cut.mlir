// Dynamic dims a layout cuts (issue 43 item 6): a batch of run-time size
// cut by a mesh layout's Shard placements, each rank holding its
// torch.chunk of the extent (uneven, empty where the batch is smaller than
// the mesh). The programs are compiled once with the batch dynamic and run
// at several sizes (--dynamic-size), every element of every rank checked
// against the program as written.
// - @mlp, data parallelism: the batch cut, the weights replicated; each
//   rank sizes its blocks from its own (tensor.dim of its block of %x):
//   nothing moves, not even the extent.
// - @gather (S(0) -> R: an all_gather of uneven chunks), @swap (S(0) ->
//   S(1): an all_to_all), @split (R -> S(0): each rank keeps its chunk),
//   @grad (a data-parallel weight gradient: x^T dy contracted over the cut
//   batch, then all-reduced).
// - On a 2x2 mesh: @nested (S(0) on both axes -> S(0) on the first: an
//   all_gather along the second), @flat (the nested cut to a flat 4-way one:
//   alike at the nominal 64 rows, unlike at 5: 2, 1, 1, 1 against 2, 2, 1,
//   0, so the planner's blocks prove nothing and one exchange of the
//   run-time tables moves them), @mixed (S(0), S(1) -> S(0), S(0)),
//   @rowpar (data x tensor parallelism: a row-parallel matmul accumulating
//   into a batch-cut residual, the residual made partial where it is and
//   all-reduced), @window (a slice of the cut features of a batch-cut
//   tensor: no window read of a dynamic source, the features gathered).
// - @positions: a payload reading a static loop's index (linalg.index) of
//   a tensor whose dynamic batch is cut: the index made global with the
//   feature offset only.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry mlp --check --dynamic-size 0 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK3
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry mlp --check --dynamic-size 7 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK2
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry gather --check --dynamic-size 5 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=GATHER
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry gather --check --dynamic-size 0 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK2
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry swap --check --dynamic-size 7 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK3
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mlp,swap --check --dynamic-size 2 > %t.run2 2>&1
// RUN: not grep "error:" %t.run2
// RUN: %entry-lines mlp %t.run2 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=MLP2
// RUN: %entry-lines swap %t.run2 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry split --check --dynamic-size 6 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=SPLIT
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry split --check --dynamic-size 1 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK3
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry grad --check --dynamic-size 9 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=GRAD
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry grad --check --dynamic-size 1 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK2
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mixed --check --dynamic-size 7 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mlp,nested,flat,rowpar --check --dynamic-size 5 > %t.run1 2>&1
// RUN: not grep "error:" %t.run1
// RUN: %entry-lines mlp %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=MLP5
// RUN: %entry-lines nested %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %entry-lines flat %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %entry-lines rowpar %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry gather,rowpar --check --dynamic-size 1 > %t.run3 2>&1
// RUN: not grep "error:" %t.run3
// RUN: %entry-lines gather %t.run3 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %entry-lines rowpar %t.run3 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry grad,positions --check --dynamic-size 4 > %t.run4 2>&1
// RUN: not grep "error:" %t.run4
// RUN: %entry-lines grad %t.run4 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK3
// RUN: %entry-lines positions %t.run4 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK3
// Programs an adversarial generator found the search giving layouts the
// partition refuses, or crashing on: a partial row sum of a dynamic batch
// read by negf (a Partial read of a dynamic tensor), heads split out of a
// 6 x ? tensor (a strided cut of a tensor with a dynamic dim), a dynamic
// batch cast to 9 rows and folded (a strided cut of the dynamic dim).
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry flat,window,rowsum,heads --check --dynamic-size 3 > %t.run5 2>&1
// RUN: not grep "error:" %t.run5
// RUN: %entry-lines flat %t.run5 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %entry-lines window %t.run5 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %entry-lines rowsum %t.run5 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %entry-lines heads %t.run5 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK4
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry fold --check --dynamic-size 9 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=OK3
// Two whole-dim slices in a row, each sized by its own source's extent
// (canonicalization rewrites the second into the first source's, which
// the trace follows through the first slice): nothing moves.
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry twice --check --dynamic-size 5 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=TWICE
// TWICE: shard-run: rank 0: OK, 6 elements checked, received 0 bytes
// TWICE-NEXT: shard-run: rank 1: OK, 4 elements checked, received 0 bytes
// The partitioned programs.
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=PART

// With 5 rows on 4 ranks: 2, 2, 1, 0; nothing received.
// MLP5: shard-run: rank 0: OK, 32 elements checked, received 0 bytes
// MLP5-NEXT: shard-run: rank 1: OK, 32 elements checked, received 0 bytes
// MLP5-NEXT: shard-run: rank 2: OK, 16 elements checked, received 0 bytes
// MLP5-NEXT: shard-run: rank 3: OK, 0 elements checked, received 0 bytes
// 2 rows on 4 ranks: 1, 1, 0, 0.
// MLP2: shard-run: rank 0: OK, 16 elements checked, received 0 bytes
// MLP2-NEXT: shard-run: rank 1: OK, 16 elements checked, received 0 bytes
// MLP2-NEXT: shard-run: rank 2: OK, 0 elements checked, received 0 bytes
// MLP2-NEXT: shard-run: rank 3: OK, 0 elements checked, received 0 bytes
// 5 rows of 6 on 3 ranks (2, 2, 1): each receives the rows it lacks (24
// bytes each) and its part of the ring all_reduce of the summed extent (one
// i64 in chunks 1, 0, 0: ranks 0 and 1 receive it once, rank 2 twice, once
// in each phase).
// GATHER: shard-run: rank 0: OK, 30 elements checked, received 80 bytes
// GATHER-NEXT: shard-run: rank 1: OK, 30 elements checked, received 80 bytes
// GATHER-NEXT: shard-run: rank 2: OK, 30 elements checked, received 112 bytes
// R -> S(0): nothing moves (6 rows on 4 ranks: 2, 2, 2, 0).
// SPLIT: shard-run: rank 0: OK, 12 elements checked, received 0 bytes
// SPLIT-NEXT: shard-run: rank 1: OK, 12 elements checked, received 0 bytes
// SPLIT-NEXT: shard-run: rank 2: OK, 12 elements checked, received 0 bytes
// SPLIT-NEXT: shard-run: rank 3: OK, 0 elements checked, received 0 bytes
// The gradient's all_reduce: 6 x 4 floats, whatever the batch.
// GRAD: shard-run: rank 0: OK, 24 elements checked
// GRAD-NEXT: shard-run: rank 1: OK, 24 elements checked
// GRAD-NEXT: shard-run: rank 2: OK, 24 elements checked
// GRAD-NEXT: shard-run: rank 3: OK, 24 elements checked
// OK2-COUNT-2: OK
// OK3-COUNT-3: OK
// OK4-COUNT-4: OK

// PART-LABEL: func.func @mlp(
// PART-NOT: shard.spmd.{{[a-z_]+}} %
// PART: %[[ROWS:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x16xf32>
// PART-NEXT: tensor.empty(%[[ROWS]]) : tensor<?x32xf32>
// PART-NOT: shard.spmd.{{[a-z_]+}} %
// PART: return
// PART-LABEL: func.func @gather(
// PART: %[[N:.*]] = arith.index_cast {{.*}} : i64 to index
// PART: shard.spmd.all_gather %{{.*}} extents(%[[N]]) over axes [0] dim 0 from !shard.tensor<?x6xf32, #layout_S0> to !shard.tensor<?x6xf32, #layout_R>
// PART-LABEL: func.func @swap(
// PART: shard.spmd.all_to_all %{{.*}} extents(%{{.*}}) over axes [0] split 1 concat 0
// PART-LABEL: func.func @grad(
// PART-NOT: extents(
// PART: shard.spmd.all_reduce %{{.*}} over axes [0] reduce sum {{.*}} : tensor<6x4xf32> -> tensor<6x4xf32>
// PART-LABEL: func.func @flat(
// PART: shard.spmd.exchange %{{.*}} extents(%{{.*}}) from !shard.tensor<?x4xf32, #layout_S0_S0> to !shard.tensor<?x4xf32, #layout_S0_{{[0-9]+}}>

// A batch sized from the dim read at a run-time index: the rank's chunk of
// that size; the extent returned is the global one.
// PART-LABEL: func.func @dynamic_cut_extent(
// PART: %[[SUM:.*]] = shard.spmd.all_reduce %{{.*}} over axes [0] reduce sum
// PART: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// PART: %[[SIZES:.*]] = tensor.from_elements %[[N]], %{{.*}} : tensor<2xindex>
// PART: %[[AT:.*]] = tensor.extract %[[SIZES]][%arg1] : tensor<2xindex>
// PART: arith.ceildivui %[[AT]], %{{.*}} : index
// PART: return %{{.*}}, %[[AT]] : tensor<?x16xf32>, index

#m = #shard.mesh<shape = [@N@], axes = ["dp"]>
#m2 = #shard.mesh<shape = [2, 2], axes = ["a", "b"]>
#flat4 = #shard.mesh<shape = [4], axes = ["x"]>
func.func @mlp(%x: tensor<?x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
               %w1: tensor<16x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
               %w2: tensor<32x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<?x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %batch = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e1 = tensor.empty(%batch) : tensor<?x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<?x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %a = arith.maximumf %h, %f1 : tensor<?x32xf32>
  %e2 = tensor.empty(%batch) : tensor<?x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<?x32xf32>, tensor<32x16xf32>) outs(%f2 : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

func.func @gather(%x: tensor<?x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<?x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %y = arith.addf %x, %x : tensor<?x6xf32>
  return %y : tensor<?x6xf32>
}

func.func @swap(%x: tensor<?x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<?x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %y = arith.mulf %x, %x : tensor<?x6xf32>
  return %y : tensor<?x6xf32>
}

func.func @split(%x: tensor<?x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<?x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %y = arith.subf %x, %x : tensor<?x6xf32>
  %z = arith.addf %y, %x : tensor<?x6xf32>
  return %z : tensor<?x6xf32>
}

func.func @grad(%x: tensor<?x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                %dy: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(b, i, o) -> (b, i)>, affine_map<(b, i, o) -> (b, o)>, affine_map<(b, i, o) -> (i, o)>],
                       iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%x, %dy : tensor<?x6xf32>, tensor<?x4xf32>) outs(%f : tensor<6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<6x4xf32>
  return %g : tensor<6x4xf32>
}

func.func @nested(%x: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), S(0)]>})
    -> (tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), R]>}) {
  %y = arith.addf %x, %x : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

func.func @flat(%x: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), S(0)]>})
    -> (tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #flat4, placements = [S(0)]>}) {
  %y = arith.addf %x, %x : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

func.func @mixed(%x: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), S(1)]>})
    -> (tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), S(0)]>}) {
  %y = arith.addf %x, %x : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

func.func @rowpar(%x: tensor<?x8xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), S(1)]>},
                  %w: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [R, S(0)]>},
                  %res: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), R]>})
    -> (tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), R]>}) {
  %y = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x4xf32>) outs(%res : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

func.func @window(%x: tensor<?x24xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), S(1)]>})
    -> (tensor<?x8xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), R]>}) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x24xf32>
  %s = tensor.extract_slice %x[0, 8] [%d, 8] [1, 1] : tensor<?x24xf32> to tensor<?x8xf32>
  return %s : tensor<?x8xf32>
}

func.func @positions(%x: tensor<?x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<?x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %g = linalg.generic {indexing_maps = [affine_map<(b, i) -> (b, i)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%x : tensor<?x6xf32>) {
  ^bb0(%c: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %s = arith.addf %c, %f : f32
    linalg.yield %s : f32
  } -> tensor<?x6xf32>
  return %g : tensor<?x6xf32>
}

func.func @dynamic_cut_extent(%x: tensor<?x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %i: index)
    -> (tensor<?x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, index) {
  %n = tensor.dim %x, %i : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %y = arith.addf %f, %x : tensor<?x16xf32>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %y, %c0 : tensor<?x16xf32>
  return %y, %m : tensor<?x16xf32>, index
}

func.func @rowsum(%arg0: tensor<?x12xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1), S(0)]>})
    -> (tensor<?xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0), R]>}) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %d1 = tensor.dim %arg0, %c0 : tensor<?x12xf32>
  %e2 = tensor.empty(%d1) : tensor<?xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<?x12xf32>) outs(%f3 : tensor<?xf32>) {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %c, %a : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %v9 = arith.negf %v4 : tensor<?xf32>
  return %v9 : tensor<?xf32>
}

func.func @heads(%arg0: tensor<6x?xf32> {shard.layout = #shard.placements<mesh = #flat4, placements = [R]>})
    -> (tensor<3x2x?xf32> {shard.layout = #shard.placements<mesh = #flat4, placements = [S(1)]>}) {
  %c1 = arith.constant 1 : index
  %d = tensor.dim %arg0, %c1 : tensor<6x?xf32>
  %v = tensor.expand_shape %arg0 [[0, 1], [2]] output_shape [3, 2, %d] : tensor<6x?xf32> into tensor<3x2x?xf32>
  return %v : tensor<3x2x?xf32>
}

func.func @fold(%arg0: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<36xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %v1 = tensor.cast %arg0 : tensor<?x4xf32> to tensor<9x4xf32>
  %v5 = tensor.collapse_shape %v1 [[0, 1]] : tensor<9x4xf32> into tensor<36xf32>
  return %v5 : tensor<36xf32>
}

func.func @twice(%x: tensor<?x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<?x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x8xf32>
  %a = tensor.extract_slice %x[0, 2] [%d, 4] [1, 1] : tensor<?x8xf32> to tensor<?x4xf32>
  %e = tensor.dim %a, %c0 : tensor<?x4xf32>
  %b = tensor.extract_slice %a[0, 1] [%e, 2] [1, 1] : tensor<?x4xf32> to tensor<?x2xf32>
  return %b : tensor<?x2xf32>
}
