// shard-run --int-range=LO:HI: integer and index inputs take LO to HI (an
// embedding's token ids within its table), floats -6 to 6 as always. An
// aten.embedding as torch-mlir emits it (the table read with tensor.extract
// at the token's row), its 7 rows cut over the ranks (4, 3 on 2; 3, 3, 1
// on 3), 9 ids fed raw (0 to 6 then 0, 1: every row looked up; @consecutive
// asserts that an input takes consecutive values, whatever the span: a
// stride of 7 gave every id 0 at a span of 7): every element
// checked (the table, 112 B, is gathered: cheaper by the model than the
// masked lookup's all_reduce of 80 B in two messages). Without
// the option the ids run from -6 and the program's own bounds check stops
// it (a lookup past its table; e2e programs computed ids from the inputs
// instead).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 2 shard-run %t.2.mlir --entry embed,consecutive --check --int-range=0:6 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: %mpirun -np 3 shard-run %t.3.mlir --entry embed --check --int-range 0:6 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// NP2-DAG: @embed: rank 0: OK, 36 elements checked, received 48 bytes
// NP2-DAG: @embed: rank 1: OK, 36 elements checked, received 64 bytes
// NP2-DAG: @consecutive: rank 0: OK, 9 elements checked
// NP2-DAG: @consecutive: rank 1: OK, 9 elements checked
// NP3: rank 0: OK, 36 elements checked, received 64 bytes
// NP3-NEXT: rank 1: OK, 36 elements checked, received 64 bytes
// NP3-NEXT: rank 2: OK, 36 elements checked, received 96 bytes
// RUN: not %mpirun -np 2 shard-run %t.2.mlir --entry embed --check > %t.raw 2>&1
// RUN: FileCheck %s --check-prefix=RAW --input-file %t.raw
// RAW: ERROR: Runtime op verification failed
// A range out of order or past 32 bits is refused once, before any entry
// runs, naming no place in the program (it was refused per entry, at
// "FILE:0:0").
// RUN: not shard-run %t.2.mlir --entry embed,consecutive --int-range=6:0 2>&1 | FileCheck %s --check-prefix=BACKWARDS
// BACKWARDS: {{^}}shard-run: --int-range must be LO:HI, two integers with -2^31 <= LO <= HI < 2^31, got '6:0'
// BACKWARDS-NOT: int-range
// RUN: not shard-run %t.2.mlir --entry embed --int-range=0:2147483648 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: {{^}}shard-run: --int-range must be LO:HI, two integers with -2^31 <= LO <= HI < 2^31, got '0:2147483648'
// RUN: not shard-run %t.2.mlir --entry embed --int-range=0-6 2>&1 | FileCheck %s --check-prefix=FORM
// FORM: shard-run: --int-range must be LO:HI, two integers with -2^31 <= LO <= HI < 2^31, got '0-6'
// RUN: not shard-run %t.2.mlir --entry embed --int-range= 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: shard-run: --int-range must be LO:HI, two integers with -2^31 <= LO <= HI < 2^31, got ''
#m = #shard.mesh<shape = [@N@]>
#Rows = #shard.placements<mesh = #m, placements = [S(0)]>
#R = #shard.placements<mesh = #m, placements = [R]>
#tok = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @embed(%ids: tensor<9xi64> {shard.layout = #R},
                 %table: tensor<7x4xf32> {shard.layout = #Rows})
    -> (tensor<9x4xf32> {shard.layout = #R}) {
  %e = tensor.empty() : tensor<9x4xf32>
  %r = linalg.generic {indexing_maps = [#tok, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<9xi64>) outs(%e : tensor<9x4xf32>) {
  ^bb0(%id: i64, %out: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<7x4xf32>
    linalg.yield %v : f32
  } -> tensor<9x4xf32>
  return %r : tensor<9x4xf32>
}
func.func @consecutive(%ids: tensor<9xi64> {shard.layout = #R}) -> (tensor<9xi64> {shard.layout = #R}) {
  %e = tensor.empty() : tensor<9xi64>
  %c7 = arith.constant 7 : index
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%ids : tensor<9xi64>) outs(%e : tensor<9xi64>) {
  ^bb0(%id: i64, %out: i64):
    %i = linalg.index 0 : index
    %want = arith.remui %i, %c7 : index
    %got = arith.index_cast %id : i64 to index
    %ok = arith.cmpi eq, %got, %want : index
    cf.assert %ok, "the ids are not 0, 1, ..., 6, 0, 1"
    linalg.yield %id : i64
  } -> tensor<9xi64>
  return %r : tensor<9xi64>
}
