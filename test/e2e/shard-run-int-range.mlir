// shard-run --int-range=LO:HI: integer and index inputs take LO to HI (an
// embedding's token ids within its table), floats -6 to 6 as always. An
// aten.embedding as torch-mlir emits it (the table read with tensor.extract
// at the token's row), its 7 rows cut over the ranks (4, 3 on 2; 3, 3, 1
// on 3), the ids fed raw (0 to 6, every row looked up): every element
// checked (the table, 112 B, is gathered: cheaper by the model than the
// masked lookup's all_reduce of 80 B in two messages). Without
// the option the ids run from -6 and the program's own bounds check stops
// it (a lookup past its table; e2e programs computed ids from the inputs
// instead).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 2 shard-run %t.2.mlir --entry embed --check --int-range=0:6 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: %mpirun -np 3 shard-run %t.3.mlir --entry embed --check --int-range 0:6 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// NP2: rank 0: OK, 20 elements checked, received 48 bytes
// NP2-NEXT: rank 1: OK, 20 elements checked, received 64 bytes
// NP3: rank 0: OK, 20 elements checked, received 64 bytes
// NP3-NEXT: rank 1: OK, 20 elements checked, received 64 bytes
// NP3-NEXT: rank 2: OK, 20 elements checked, received 96 bytes
// RUN: not %mpirun -np 2 shard-run %t.2.mlir --entry embed --check > %t.raw 2>&1
// RUN: FileCheck %s --check-prefix=RAW --input-file %t.raw
// RAW: ERROR: Runtime op verification failed
// RUN: not shard-run %t.2.mlir --entry embed --int-range=6:0 2>&1 | FileCheck %s --check-prefix=BACKWARDS
// BACKWARDS: shard-run: --int-range must be LO:HI with -2^31 <= LO <= HI < 2^31, got 6:0
// RUN: not shard-run %t.2.mlir --entry embed --int-range=0-6 2>&1 | FileCheck %s --check-prefix=FORM
// FORM: shard-run: --int-range must be LO:HI (two integers), got '0-6'
#m = #shard.mesh<shape = [@N@]>
#Rows = #shard.placements<mesh = #m, placements = [S(0)]>
#R = #shard.placements<mesh = #m, placements = [R]>
#tok = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @embed(%ids: tensor<5xi64> {shard.layout = #R},
                 %table: tensor<7x4xf32> {shard.layout = #Rows})
    -> (tensor<5x4xf32> {shard.layout = #R}) {
  %e = tensor.empty() : tensor<5x4xf32>
  %r = linalg.generic {indexing_maps = [#tok, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<5xi64>) outs(%e : tensor<5x4xf32>) {
  ^bb0(%id: i64, %out: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<7x4xf32>
    linalg.yield %v : f32
  } -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}
