// Lookups with a dynamic batch (issue 43 item 6): an embedding whose ids
// have a run-time batch cut on dp looks up its own rows on each rank
// (nothing moves: every loop of a payload reading a table was kept whole
// where dynamic, so the ids were gathered and the rows exchanged back),
// and a vocab-parallel table on tp moves only the looked-up rows' sum, as
// at a static batch. A generic reading a dynamic and a static operand
// (its loop's size is the static one's: the rule took the dynamic
// stand-in, 64, and was refused as inconsistent) runs under both searches,
// the dynamic operand never cut strided (the greedy search gave it a
// pinned _S layout: an invalid type). Every element checked, at several
// batch sizes, 0 included.
// REQUIRES: mpi
// RUN: %mpirun -np 2 %shard-run %s --entry emb_dp --check --dynamic-size 5 2>&1 | FileCheck %s --check-prefix=FREE --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 2 %shard-run %s --entry emb_dp --check --dynamic-size 1 2>&1 | FileCheck %s --check-prefix=FREE --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 2 %shard-run %s --entry emb_dp --check --dynamic-size 5 --propagate=search=greedy 2>&1 | FileCheck %s --check-prefix=FREE --implicit-check-not=error: --implicit-check-not=MISMATCH
// FREE-COUNT-2: OK, {{[0-9]+}} elements checked, received 0 bytes
// RUN: %mpirun -np 4 %shard-run %s --entry emb_vp --check --dynamic-size 5 2>&1 | FileCheck %s --check-prefix=VOCAB --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 4 %shard-run %s --entry emb_vp --check --dynamic-size 0 2>&1 | FileCheck %s --check-prefix=OK4 --implicit-check-not=error: --implicit-check-not=MISMATCH
// Each rank receives its partner's sums of its 4 x 3 rows per batch row
// (an all_reduce over tp of 5 x 4 x 3 floats, halves by dp: 60 bytes).
// VOCAB-COUNT-4: OK, {{[0-9]+}} elements checked, received 60 bytes
// OK4-COUNT-4: OK, {{[0-9]+}} elements checked
// RUN: %mpirun -np 4 %shard-run %s --entry mix --check --dynamic-size 9 2>&1 | FileCheck %s --check-prefix=OK4 --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 4 %shard-run %s --entry mix --check --dynamic-size 9 --propagate=search=greedy 2>&1 | FileCheck %s --check-prefix=OK4 --implicit-check-not=error: --implicit-check-not=MISMATCH
// A payload reading a dynamic loop's index (a position added to a looked-up
// value; a table read at i + j) is cut too, the index shifted by the rank's
// offset computed at run time (the loop stayed whole: ids gathered, rows
// exchanged back).
// RUN: %mpirun -np 4 %shard-run %s --entry posval,pos2 --check --dynamic-size 7 2>&1 | FileCheck %s --check-prefix=POS --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 4 %shard-run %s --entry posval,pos2 --check --dynamic-size 5 --propagate=search=greedy 2>&1 | FileCheck %s --check-prefix=POS --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 4 %shard-run %s --entry posval --check --dynamic-size 2 2>&1 | FileCheck %s --check-prefix=POS1 --implicit-check-not=error: --implicit-check-not=MISMATCH
// POS-COUNT-8: OK, {{[0-9]+}} elements checked
// POS1-COUNT-4: OK, {{[0-9]+}} elements checked
// RUN: shard-opt %s -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// LOCAL-LABEL: func.func @posval(
// LOCAL-NOT: shard.spmd.all_gather
// LOCAL-NOT: shard.spmd.exchange
// LOCAL: return
// torch-mlir's per-sample nll_loss over a run-time batch, the logits'
// classes cut on tp: a lookup of the classes the labels select (masked by
// the offsets of the static class dim; the logits' dynamic batch is read
// as its loop's), every element right at batch 0, 1, 5, 7 under both
// searches (it was read whole: logits gathered).
// RUN: %mpirun -np 4 %shard-run %s --entry nll --check --dynamic-size 5 2>&1 | FileCheck %s --check-prefix=OK4 --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 4 %shard-run %s --entry nll --check --dynamic-size 7 --propagate=search=greedy 2>&1 | FileCheck %s --check-prefix=OK4 --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 4 %shard-run %s --entry nll --check --dynamic-size 1 2>&1 | FileCheck %s --check-prefix=OK4 --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 4 %shard-run %s --entry nll --check --dynamic-size 0 --propagate=search=greedy 2>&1 | FileCheck %s --check-prefix=OK4 --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: shard-opt %s -shard-print-sharding-rules | FileCheck %s --check-prefix=NLL
// NLL: ins(%{{.*}} : tensor<?xi64>) outs(%{{.*}} : tensor<?xf32>) attrs =  {shard.sharding_rule = #shard.rule<([d0], [d0], [_, d1]) -> ([d0]) {d0=64, d1=10} reduction={d1} combiners=[sum]
// NLL: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] {{.*}}: tensor<?x10xf32>
// RUN: shard-opt %s -shard-print-sharding-rules | FileCheck %s --check-prefix=RULE
// RULE: ins(%arg0, %arg1 : tensor<?x4xf32>, tensor<9x4xf32>){{.*}}shard.sharding_rule = #shard.rule<([d0, d1], [d0, d1], [d0, d1]) -> ([d0, d1]) {d0=9, d1=4} unstrided={d0: "it indexes dim 0 of operand #0, which is dynamic (cut, never strided)"}

#dp = #shard.mesh<shape = [2], axes = ["dp"]>
#m = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
#fsdp = #shard.placements<mesh = #m, placements = [_S(0, 2), S(0)]>

func.func @emb_dp(%ids: tensor<?x4xi64> {shard.layout = #shard.placements<mesh = #dp, placements = [S(0)]>}, %table: tensor<10x3xf32>)
    -> (tensor<?x4x3xf32> {shard.layout = #shard.placements<mesh = #dp, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %ids, %c0 : tensor<?x4xi64>
  %e = tensor.empty(%b) : tensor<?x4x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<?x4xi64>) outs(%e : tensor<?x4x3xf32>) {
  ^bb0(%id: i64, %o: f32):
    // shard-run's inputs lie in [-6, 6]: a row of the table from each.
    %ten = arith.constant 10 : i64
    %abs = math.absi %id : i64
    %m = arith.remsi %abs, %ten : i64
    %row = arith.index_cast %m : i64 to index
    %col = linalg.index 2 : index
    %v = tensor.extract %table[%row, %col] : tensor<10x3xf32>
    linalg.yield %v : f32
  } -> tensor<?x4x3xf32>
  return %r : tensor<?x4x3xf32>
}

func.func @emb_vp(%ids: tensor<?x4xi64> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>}, %table: tensor<10x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>})
    -> (tensor<?x4x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>}) {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %ids, %c0 : tensor<?x4xi64>
  %e = tensor.empty(%b) : tensor<?x4x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<?x4xi64>) outs(%e : tensor<?x4x3xf32>) {
  ^bb0(%id: i64, %o: f32):
    %ten = arith.constant 10 : i64
    %abs = math.absi %id : i64
    %m = arith.remsi %abs, %ten : i64
    %row = arith.index_cast %m : i64 to index
    %col = linalg.index 2 : index
    %v = tensor.extract %table[%row, %col] : tensor<10x3xf32>
    linalg.yield %v : f32
  } -> tensor<?x4x3xf32>
  return %r : tensor<?x4x3xf32>
}

func.func @mix(%x: tensor<?x4xf32>, %b: tensor<9x4xf32> {shard.layout = #fsdp}) -> (tensor<9x4xf32> {shard.layout = #fsdp}) {
  %e = tensor.empty() : tensor<9x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<?x4xf32>, tensor<9x4xf32>) outs(%e : tensor<9x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.subf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<9x4xf32>
  return %y : tensor<9x4xf32>
}

#m4 = #shard.mesh<shape = [4], axes = ["x"]>

func.func @posval(%ids: tensor<?xi64> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>}, %table: tensor<10xf32>)
    -> (tensor<?xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %ids, %c0 : tensor<?xi64>
  %e = tensor.empty(%b) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%ids : tensor<?xi64>) outs(%e : tensor<?xf32>) {
  ^bb0(%id: i64, %o: f32):
    %ten = arith.constant 10 : i64
    %abs = math.absi %id : i64
    %mm = arith.remsi %abs, %ten : i64
    %row = arith.index_cast %mm : i64 to index
    %v = tensor.extract %table[%row] : tensor<10xf32>
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %s = arith.addf %v, %f : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// Run at sizes up to 8 (i + j < 16).
func.func @pos2(%x: tensor<?x?xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}, %table: tensor<16xf32>)
    -> (tensor<?x?xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %row = arith.addi %i, %j : index
    %v = tensor.extract %table[%row] : tensor<16xf32>
    %s = arith.addf %o, %v : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @nll(%logits: tensor<?x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(1)]>},
               %labels: tensor<?xi64> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>})
    -> (tensor<?xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>}) {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %labels, %c0 : tensor<?xi64>
  %e = tensor.empty(%b) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b) -> (b)>, affine_map<(b) -> (b)>], iterator_types = ["parallel"]} ins(%labels : tensor<?xi64>) outs(%e : tensor<?xf32>) {
  ^bb0(%t: i64, %o: f32):
    %v10 = arith.constant 10 : i64
    %a = math.absi %t : i64
    %label = arith.remsi %a, %v10 : i64
    %ignore = arith.constant 3 : i64
    %keep = arith.cmpi ne, %label, %ignore : i64
    %z0 = arith.constant 0.0 : f32
    %row = linalg.index 0 : index
    %col = arith.index_cast %label : i64 to index
    %x = tensor.extract %logits[%row, %col] : tensor<?x10xf32>
    %n = arith.negf %x : f32
    %s = arith.select %keep, %n, %z0 : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
