// shard-run stops a rank whose lookup reads past its table, naming the op
// (as MLIR's runtime op verification does for tensor.extract), whatever the
// plan and however the table is looked up:
// - @masked: a 13-row table cut on rows, looked up by 3 ids (the masked
//   lookup, each rank reading the rows it holds: an id past the table was
//   in no rank's rows, and the program returned 0 there, where the gathered
//   table's plan stopped);
// - @tosa: tosa.gather (TorchDynamo's TOSA embedding), the tokens cut;
// - @cols and @both: tensor.gather along dim 1 (4 columns; ids 0-3 pass,
//   4 stops) and along both dims (4 rows, 13 columns: row ids 0-3 and
//   column ids 9-12 pass, each index checked against its own dim; one past
//   stops).
// In bounds (the ids from 0 to the last row), every element is checked; one
// id past, each rank stops.
// REQUIRES: mpi
// RUN: %mpirun -np 2 shard-run %s --entry masked,tosa --check --propagate=alpha-us=0 --int-range=0:12 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=OK
// OK-DAG: @masked: rank 0: OK, 48 elements checked
// OK-DAG: @masked: rank 1: OK, 48 elements checked
// OK-DAG: @tosa: rank 0: OK, 12 elements checked
// OK-DAG: @tosa: rank 1: OK, 8 elements checked
// RUN: %mpirun -np 2 shard-run %s --entry masked --propagate=alpha-us=0 --int-range=0:12 --report %t.json
// RUN: FileCheck %s --check-prefix=MASKED-PLAN --input-file %t.json
// MASKED-PLAN: "kind": "all_reduce"
// RUN: not %mpirun -np 2 shard-run %s --entry masked --propagate=alpha-us=0 --int-range=13:13 > %t.past 2>&1
// RUN: FileCheck %s --check-prefix=MASKED --input-file %t.past
// RUN: not %mpirun -np 2 shard-run %s --entry masked --propagate=alpha-us=0 --int-range=-1:-1 > %t.below 2>&1
// RUN: FileCheck %s --check-prefix=MASKED --input-file %t.below
// MASKED-COUNT-2: ERROR: Runtime op verification failed
// MASKED: a lookup in a table cut along the dim it looks up (each rank reads the rows it holds)
// MASKED: ^ index out of bounds of the dim it looks up (13 in all)
// RUN: not %mpirun -np 2 shard-run %s --entry tosa --int-range=13:13 > %t.tosa 2>&1
// RUN: FileCheck %s --check-prefix=TOSA --input-file %t.tosa
// TOSA: ERROR: Runtime op verification failed
// TOSA: tosa.gather
// TOSA: ^ index out of bounds of the values' dim 1 (K)
// RUN: %mpirun -np 2 shard-run %s --entry cols,both --check --int-range=0:3 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=GATHER
// GATHER-DAG: @cols: rank 0: OK
// GATHER-DAG: @cols: rank 1: OK
// GATHER-DAG: @both: rank 0: OK
// GATHER-DAG: @both: rank 1: OK
// RUN: not %mpirun -np 2 shard-run %s --entry cols --int-range=4:4 > %t.cols 2>&1
// RUN: FileCheck %s --check-prefix=BOTH --input-file %t.cols
// RUN: not %mpirun -np 2 shard-run %s --entry both --int-range=0:4 > %t.both 2>&1
// RUN: FileCheck %s --check-prefix=BOTH --input-file %t.both
// BOTH: ERROR: Runtime op verification failed
// BOTH: tensor.gather
// BOTH: ^ index out of bounds of the dim it gathers along
// Indices of no rank (tosa.gather's verifier allows them) are not looped
// over: the program is refused as its lowering refuses it (the check's
// loops over a rank read from an unranked type grew until memory ran out).
// RUN: not timeout 120 shard-run %s --entry unranked --int-range=0:4 2>&1 | FileCheck %s --check-prefix=UNRANKED
// UNRANKED: error:
// UNRANKED-NOT: LLVM ERROR
#m = #shard.mesh<shape = [2]>
#Rows = #shard.placements<mesh = #m, placements = [S(0)]>
#R = #shard.placements<mesh = #m, placements = [R]>
#tok = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @masked(%ids: tensor<3xi64> {shard.layout = #R},
                  %table: tensor<13x16xf32> {shard.layout = #Rows})
    -> (tensor<3x16xf32> {shard.layout = #R}) {
  %e = tensor.empty() : tensor<3x16xf32>
  %r = linalg.generic {indexing_maps = [#tok, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<3xi64>) outs(%e : tensor<3x16xf32>) {
  ^bb0(%id: i64, %out: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    // MASKED: Location: loc("{{.*}}shard-run-gather-bounds.mlir":[[@LINE+1]]:10)
    %v = tensor.extract %table[%row, %col] : tensor<13x16xf32>
    linalg.yield %v : f32
  } -> tensor<3x16xf32>
  return %r : tensor<3x16xf32>
}
func.func @tosa(%table: tensor<1x13x4xf32> {shard.layout = #R},
                %ids: tensor<1x5xi32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<1x5x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  // TOSA: Location: loc("{{.*}}shard-run-gather-bounds.mlir":[[@LINE+1]]:8)
  %g = tosa.gather %table, %ids : (tensor<1x13x4xf32>, tensor<1x5xi32>) -> tensor<1x5x4xf32>
  return %g : tensor<1x5x4xf32>
}
func.func @cols(%t: tensor<13x4xf32> {shard.layout = #R}, %i: tensor<3x1xi64> {shard.layout = #R})
    -> (tensor<13x3xf32> {shard.layout = #R}) {
  %g = tensor.gather %t[%i] gather_dims([1]) : (tensor<13x4xf32>, tensor<3x1xi64>) -> tensor<3x13x1xf32>
  %c = tensor.collapse_shape %g [[0], [1, 2]] : tensor<3x13x1xf32> into tensor<3x13xf32>
  %e = tensor.empty() : tensor<13x3xf32>
  %t2 = linalg.transpose ins(%c : tensor<3x13xf32>) outs(%e : tensor<13x3xf32>) permutation = [1, 0]
  return %t2 : tensor<13x3xf32>
}
func.func @both(%t: tensor<4x13xf32> {shard.layout = #R}, %i: tensor<3x2xi32> {shard.layout = #R})
    -> (tensor<3x1x1xf32> {shard.layout = #R}) {
  // Rows 0-3 (of 4) and columns 9-12 (of 13) from ids 0-3.
  %off = arith.constant dense<[[0, 9], [0, 9], [0, 9]]> : tensor<3x2xi32>
  %k = arith.addi %i, %off : tensor<3x2xi32>
  %g = tensor.gather %t[%k] gather_dims([0, 1]) : (tensor<4x13xf32>, tensor<3x2xi32>) -> tensor<3x1x1xf32>
  return %g : tensor<3x1x1xf32>
}
func.func @unranked(%v: tensor<2x5x3xf32>, %i: tensor<2x4xi32>) -> tensor<2x4x3xf32> {
  %u = tensor.cast %i : tensor<2x4xi32> to tensor<*xi32>
  %g = tosa.gather %v, %u : (tensor<2x5x3xf32>, tensor<*xi32>) -> tensor<2x4x3xf32>
  return %g : tensor<2x4x3xf32>
}
