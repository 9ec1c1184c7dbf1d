// A scalar read or written at an index (tensor.extract, tensor.insert
// outside a payload) is a slice of one element (passes/ScalarSlices.cpp):
// the rank holding it broadcasts it (4 bytes to each other rank), and a
// written one is written by the rank holding its place alone; the rest of
// the tensor stays where it is. Before: the tensor was gathered whole on
// every rank first (7x5 f32 on 3 ranks: 84, 84 and 112 bytes) and, for
// an insert, sliced back. Every element checked on 2 and 3 ranks (5
// columns cut 3 and 2; 2, 2 and 1), run-time indices included; a P(sum)
// tensor's element (reduced first) is checked for its values. A read at
// indices only the run time knows is a lookup of no loops (a rank-0
// linalg.generic): each rank looks it up in its block, masked, and one
// element is all-reduced (4 and 8 bytes with alpha-us=0; at 7x5 the
// default model gathers the tensor, as before: 2 us a message).
// LOOKUP3: shard-run: rank 0: OK, 1 elements checked, received 4 bytes
// LOOKUP3-NEXT: shard-run: rank 1: OK, 1 elements checked, received 4 bytes
// LOOKUP3-NEXT: shard-run: rank 2: OK, 1 elements checked, received 8 bytes
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry scalar --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=READ2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry set,dynset --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=WRITE2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry partial,dynidx --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=OK2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry dynidx --check --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=LOOKUP3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry scalar --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=READ3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry set,dynset --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=WRITE3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry partial,dynidx --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=OK3
// READ2: shard-run: rank 0: OK, 1 elements checked, received 4 bytes
// READ2-NEXT: shard-run: rank 1: OK, 1 elements checked, received 0 bytes
// READ3: shard-run: rank 0: OK, 1 elements checked, received 4 bytes
// READ3-NEXT: shard-run: rank 1: OK, 1 elements checked, received 4 bytes
// READ3-NEXT: shard-run: rank 2: OK, 1 elements checked, received 0 bytes
// WRITE2-COUNT-4: OK, {{[0-9]+}} elements checked, received 0 bytes
// WRITE3-COUNT-6: OK, {{[0-9]+}} elements checked, received 0 bytes
// OK2-COUNT-4: OK, 1 elements checked
// OK3-COUNT-6: OK, 1 elements checked

#m = #shard.mesh<shape = [@N@], axes = ["x"]>
#c = #shard.placements<mesh = #m, placements = [S(1)]>
func.func @scalar(%x: tensor<7x5xf32> {shard.layout = #c}) -> tensor<1xf32> {
  %c6 = arith.constant 6 : index
  %c4 = arith.constant 4 : index
  %v = tensor.extract %x[%c6, %c4] : tensor<7x5xf32>
  %t = tensor.from_elements %v : tensor<1xf32>
  return %t : tensor<1xf32>
}
func.func @set(%x: tensor<7x5xf32> {shard.layout = #c}, %w: tensor<1xf32>) -> (tensor<7x5xf32> {shard.layout = #c}) {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %c4 = arith.constant 4 : index
  %v = tensor.extract %w[%c0] : tensor<1xf32>
  %r = tensor.insert %v into %x[%c6, %c4] : tensor<7x5xf32>
  return %r : tensor<7x5xf32>
}
func.func @dynidx(%x: tensor<7x5xf32> {shard.layout = #c}, %w: tensor<2xi32>) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.extract %w[%c0] : tensor<2xi32>
  %b = tensor.extract %w[%c1] : tensor<2xi32>
  %ai = arith.index_cast %a : i32 to index
  %bi = arith.index_cast %b : i32 to index
  %c7 = arith.constant 7 : index
  %c5 = arith.constant 5 : index
  %i = arith.remui %ai, %c7 : index
  %j = arith.remui %bi, %c5 : index
  %v = tensor.extract %x[%i, %j] : tensor<7x5xf32>
  %t = tensor.from_elements %v : tensor<1xf32>
  return %t : tensor<1xf32>
}
func.func @partial(%x: tensor<7x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [P(sum)]>}) -> tensor<1xf32> {
  %c6 = arith.constant 6 : index
  %c4 = arith.constant 4 : index
  %v = tensor.extract %x[%c6, %c4] : tensor<7x5xf32>
  %t = tensor.from_elements %v : tensor<1xf32>
  return %t : tensor<1xf32>
}
func.func @dynset(%x: tensor<7x5xf32> {shard.layout = #c}, %w: tensor<2xi32>) -> (tensor<7x5xf32> {shard.layout = #c}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.extract %w[%c0] : tensor<2xi32>
  %b = tensor.extract %w[%c1] : tensor<2xi32>
  %ai = arith.index_cast %a : i32 to index
  %bi = arith.index_cast %b : i32 to index
  %c7 = arith.constant 7 : index
  %c5 = arith.constant 5 : index
  %i = arith.remui %ai, %c7 : index
  %j = arith.remui %bi, %c5 : index
  %f = arith.sitofp %a : i32 to f32
  %r = tensor.insert %f into %x[%i, %j] : tensor<7x5xf32>
  return %r : tensor<7x5xf32>
}
