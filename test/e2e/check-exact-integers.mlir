// shard-run --check compares integers bit for bit and reduces a Partial
// integer result's copies exactly, wrapping in the element type as the
// program's arithmetic does. Before, every element went through a double:
// an i64 near 2^63 (2^10 times a double's spacing there) planted one off
// on a rank still read OK (a check that could not fail), and the copies of
// a Partial(sum) i8 or i64 result were summed without wrapping, a
// mismatch reported where the program was right. Found reading the
// checker after an adversarial sweep named it. On 2 and 3 ranks:
// - @big64: x * (2^60 + 3), wrapping, gathered;
// - @partial64: a Partial(sum) result of an i64 matmul of such values;
// - @partial8: a Partial(sum) result of an i8 matmul (its sums wrap).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry big64,partial64 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry partial8 --check --int-range=-100:100 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=I8-2
// RUN: not %mpirun -np 2 %shard-run %t.2.mlir --entry big64 --check --corrupt-rank=1 2>&1 | sort | FileCheck %s --check-prefix=BAD-BIG
// RUN: not %mpirun -np 2 %shard-run %t.2.mlir --entry partial64 --check --corrupt-rank=0 2>&1 | sort | FileCheck %s --check-prefix=BAD-PARTIAL
// A rank that holds nothing of result #0 (rank 2 of 3, the mesh of 2)
// has nothing to corrupt: said, and every rank fails (it read OK before).
// RUN: not %mpirun -np 3 %shard-run %t.2.mlir --entry big64 --check --corrupt-rank=2 2>&1 | FileCheck %s --check-prefix=NOTHING
// NOTHING: error: shard-run: --corrupt-rank=2: rank 2 holds no element of result #0 to corrupt
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry big64,partial64 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry partial8 --check --int-range=-100:100 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=I8-3
// NP2: shard-run: @big64: rank 0: OK, 8 elements checked
// NP2-NEXT: shard-run: @big64: rank 1: OK, 8 elements checked
// NP2-NEXT: shard-run: @partial64: rank 0: OK, 12 elements checked
// NP2-NEXT: shard-run: @partial64: rank 1: OK, 12 elements checked
// I8-2: shard-run: rank 0: OK, 12 elements checked
// I8-2-NEXT: shard-run: rank 1: OK, 12 elements checked
// BAD-BIG: shard-run: rank 0: OK
// BAD-BIG: shard-run: rank 1: MISMATCH, 1 of 8 elements differ; first: result #0 element [0]: partitioned -6917529027641081873, unpartitioned -6917529027641081874
// BAD-PARTIAL: shard-run: rank 0: MISMATCH, 1 of 12 elements differ; first: result #0 element [0, 0]: partitioned -4611686018427388011, unpartitioned -4611686018427388012
// BAD-PARTIAL: shard-run: rank 1: MISMATCH, 1 of 12 elements differ
// NP3: shard-run: @big64: rank 0: OK, 8 elements checked
// NP3-NEXT: shard-run: @big64: rank 1: OK, 8 elements checked
// NP3-NEXT: shard-run: @big64: rank 2: OK, 8 elements checked
// NP3-NEXT: shard-run: @partial64: rank 0: OK, 12 elements checked
// NP3-NEXT: shard-run: @partial64: rank 1: OK, 12 elements checked
// NP3-NEXT: shard-run: @partial64: rank 2: OK, 12 elements checked
// I8-3: shard-run: rank 0: OK, 12 elements checked
// I8-3-NEXT: shard-run: rank 1: OK, 12 elements checked
// I8-3-NEXT: shard-run: rank 2: OK, 12 elements checked

#m = #shard.mesh<shape = [@N@]>
#s0 = #shard.placements<mesh = #m, placements = [S(0)]>
#s1 = #shard.placements<mesh = #m, placements = [S(1)]>
#r = #shard.placements<mesh = #m, placements = [R]>
#p = #shard.placements<mesh = #m, placements = [P(sum)]>
#map = affine_map<(d0) -> (d0)>
// x * (2^60 + 3) (wrapping): values near 2^63, 2^10 times a double's
// spacing there; gathered.
func.func @big64(%x: tensor<8xi64> {shard.layout = #s0}) -> (tensor<8xi64> {shard.layout = #r}) {
  %e = tensor.empty() : tensor<8xi64>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<8xi64>) outs(%e : tensor<8xi64>) {
    ^bb0(%in: i64, %o: i64):
      %k = arith.constant 1152921504606846979 : i64
      %v = arith.muli %in, %k : i64
      linalg.yield %v : i64
  } -> tensor<8xi64>
  return %y : tensor<8xi64>
}
// A Partial(sum) result of an i64 matmul of such values: its copies
// summed (wrapping) stand for it.
func.func @partial64(%a: tensor<4x6xi64> {shard.layout = #s1}, %b: tensor<6x3xi64> {shard.layout = #s0})
    -> (tensor<4x3xi64> {shard.layout = #p}) {
  %k = arith.constant 1152921504606846979 : i64
  %ea = tensor.empty() : tensor<4x6xi64>
  %big = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x6xi64>) outs(%ea : tensor<4x6xi64>) {
    ^bb0(%in: i64, %o: i64):
      %v = arith.muli %in, %k : i64
      linalg.yield %v : i64
  } -> tensor<4x6xi64>
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<4x3xi64>
  %z = linalg.fill ins(%zero : i64) outs(%e : tensor<4x3xi64>) -> tensor<4x3xi64>
  %c = linalg.matmul ins(%big, %b : tensor<4x6xi64>, tensor<6x3xi64>) outs(%z : tensor<4x3xi64>) -> tensor<4x3xi64>
  return %c : tensor<4x3xi64>
}
// A Partial(sum) result of an i8 matmul: its copies' sum wraps in i8.
func.func @partial8(%a: tensor<4x6xi8> {shard.layout = #s1}, %b: tensor<6x3xi8> {shard.layout = #s0})
    -> (tensor<4x3xi8> {shard.layout = #p}) {
  %zero = arith.constant 0 : i8
  %e = tensor.empty() : tensor<4x3xi8>
  %z = linalg.fill ins(%zero : i8) outs(%e : tensor<4x3xi8>) -> tensor<4x3xi8>
  %c = linalg.matmul ins(%a, %b : tensor<4x6xi8>, tensor<6x3xi8>) outs(%z : tensor<4x3xi8>) -> tensor<4x3xi8>
  return %c : tensor<4x3xi8>
}
