// Slices of a size only the run time knows (read from data, as IREE's and
// torch-mlir's programs slice a prefix of a length they compute): their
// dims are placed at run time, as a slice at a run-time offset's are
// (partition-run-time-offsets.mlir): a sliced dim is read whole, each rank
// slicing its part of the result there, the result's dim cut by torch.chunk
// of the run-time size; a dim the slice takes whole keeps its loop. Before,
// each was refused ("has dynamic sizes or strides"). Every element checked
// on 2, 3 and 4 ranks (shard-run's inputs make k = 5 in @prefix and
// @columns, 1 in @strided):
// - @prefix: 5 of 10 elements from 1, the source cut: it is gathered (each
//   rank receives what it lacks: 20 B on 2 ranks; 24, 24, 32 B on 3 (4, 4, 2
//   elements held); 28 B, and 36 B on the rank holding 1, on 4) and the
//   result cut 3/2, 2/2/1, 2/2/1/0;
// - @columns: rows cut, 5 of 10 columns: the rows stay cut, nothing moves;
// - @strided: rows at a run-time count with stride 2, the columns cut:
//   gathered (6 x 5 x 4 = 120 B each on 2 ranks; 144, 144, 192 B on 3;
//   168 B, and 216 B on the rank holding 1 column, on 4);
// - @replicated: every layout R (IREE's stream_reference_counting test's
//   tail): nothing moves.
// - @all_but_last: a dynamic source (7 elements) but its last: the size is
//   not its whole extent, so the source is read whole (gathered) and the
//   6 elements cut 3/3, 2/2/2, 2/2/2/0.
// REQUIRES: mpi
// RUN: for n in 2 3 4; do sed -e "s/@N@/$n/g" %s > %t.d$n.mlir; %mpirun -np $n %shard-run %t.d$n.mlir --entry all_but_last --check --dynamic-size 7 2>&1 | sort | sed -e "s/^/$n /"; done | FileCheck %s --check-prefix=DYN --implicit-check-not=error:
// DYN: 2 shard-run: rank 0: OK, 3 elements checked
// DYN-NEXT: 2 shard-run: rank 1: OK, 3 elements checked
// DYN-NEXT: 3 shard-run: rank 0: OK, 2 elements checked
// DYN-NEXT: 3 shard-run: rank 1: OK, 2 elements checked
// DYN-NEXT: 3 shard-run: rank 2: OK, 2 elements checked
// DYN-NEXT: 4 shard-run: rank 0: OK, 2 elements checked
// DYN-NEXT: 4 shard-run: rank 1: OK, 2 elements checked
// DYN-NEXT: 4 shard-run: rank 2: OK, 2 elements checked
// DYN-NEXT: 4 shard-run: rank 3: OK, 0 elements checked
// RUN: for n in 2 3 4; do sed -e "s/@N@/$n/g" %s > %t.$n.mlir; %mpirun -np $n %shard-run %t.$n.mlir --entry prefix,columns,strided,replicated --check --dynamic-size 1 2>&1 | sort | sed -e "s/^/$n /"; done | FileCheck %s --implicit-check-not=error:
// CHECK: 2 shard-run: @columns: rank 0: OK, 15 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @columns: rank 1: OK, 15 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @prefix: rank 0: OK, 3 elements checked, received 20 bytes
// CHECK-NEXT: 2 shard-run: @prefix: rank 1: OK, 2 elements checked, received 20 bytes
// CHECK-NEXT: 2 shard-run: @replicated: rank 0: OK, 5 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @replicated: rank 1: OK, 5 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @strided: rank 0: OK, 4 elements checked, received 120 bytes
// CHECK-NEXT: 2 shard-run: @strided: rank 1: OK, 0 elements checked, received 120 bytes
// CHECK-NEXT: 3 shard-run: @columns: rank 0: OK, 10 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @columns: rank 1: OK, 10 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @columns: rank 2: OK, 10 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @prefix: rank 0: OK, 2 elements checked, received 24 bytes
// CHECK-NEXT: 3 shard-run: @prefix: rank 1: OK, 2 elements checked, received 24 bytes
// CHECK-NEXT: 3 shard-run: @prefix: rank 2: OK, 1 elements checked, received 32 bytes
// CHECK-NEXT: 3 shard-run: @replicated: rank 0: OK, 5 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @replicated: rank 1: OK, 5 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @replicated: rank 2: OK, 5 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @strided: rank 0: OK, 4 elements checked, received 144 bytes
// CHECK-NEXT: 3 shard-run: @strided: rank 1: OK, 0 elements checked, received 144 bytes
// CHECK-NEXT: 3 shard-run: @strided: rank 2: OK, 0 elements checked, received 192 bytes
// CHECK-NEXT: 4 shard-run: @columns: rank 0: OK, 10 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @columns: rank 1: OK, 10 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @columns: rank 2: OK, 10 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @columns: rank 3: OK, 0 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @prefix: rank 0: OK, 2 elements checked, received 28 bytes
// CHECK-NEXT: 4 shard-run: @prefix: rank 1: OK, 2 elements checked, received 28 bytes
// CHECK-NEXT: 4 shard-run: @prefix: rank 2: OK, 1 elements checked, received 28 bytes
// CHECK-NEXT: 4 shard-run: @prefix: rank 3: OK, 0 elements checked, received 36 bytes
// CHECK-NEXT: 4 shard-run: @replicated: rank 0: OK, 5 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @replicated: rank 1: OK, 5 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @replicated: rank 2: OK, 5 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @replicated: rank 3: OK, 5 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @strided: rank 0: OK, 4 elements checked, received 168 bytes
// CHECK-NEXT: 4 shard-run: @strided: rank 1: OK, 0 elements checked, received 168 bytes
// CHECK-NEXT: 4 shard-run: @strided: rank 2: OK, 0 elements checked, received 168 bytes
// CHECK-NEXT: 4 shard-run: @strided: rank 3: OK, 0 elements checked, received 216 bytes
#m = #shard.mesh<shape = [@N@], axes = ["x"]>
#R = #shard.placements<mesh = #m, placements = [R]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
func.func @prefix(%a: tensor<10xi32> {shard.layout = #S0}, %n: tensor<i32> {shard.layout = #R}) -> (tensor<?xi32> {shard.layout = #S0}) {
  %e = tensor.extract %n[] : tensor<i32>
  %c6 = arith.constant 6 : i32
  %c9 = arith.constant 9 : i32
  %p = arith.addi %e, %c6 : i32
  %q = arith.minsi %p, %c9 : i32
  %k = arith.index_cast %q : i32 to index
  %s = tensor.extract_slice %a[1] [%k] [1] : tensor<10xi32> to tensor<?xi32>
  return %s : tensor<?xi32>
}
func.func @columns(%x: tensor<6x10xf32> {shard.layout = #S0}, %n: tensor<i32> {shard.layout = #R}) -> (tensor<6x?xf32> {shard.layout = #S0}) {
  %e = tensor.extract %n[] : tensor<i32>
  %c6 = arith.constant 6 : i32
  %c8 = arith.constant 8 : i32
  %p = arith.addi %e, %c6 : i32
  %q = arith.minsi %p, %c8 : i32
  %k = arith.index_cast %q : i32 to index
  %s = tensor.extract_slice %x[0, 1] [6, %k] [1, 1] : tensor<6x10xf32> to tensor<6x?xf32>
  return %s : tensor<6x?xf32>
}
func.func @strided(%x: tensor<6x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}, %n: tensor<i32> {shard.layout = #R}) -> (tensor<?x4xf32> {shard.layout = #S0}) {
  %e = tensor.extract %n[] : tensor<i32>
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %p = arith.addi %e, %c2 : i32
  %z = arith.constant 1 : i32
  %q0 = arith.maxsi %p, %z : i32
  %q = arith.minsi %q0, %c3 : i32
  %k = arith.index_cast %q : i32 to index
  %s = tensor.extract_slice %x[0, 1] [%k, 4] [2, 2] : tensor<6x10xf32> to tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}
func.func @replicated(%a: tensor<10xi32> {shard.layout = #R}, %n: tensor<i32> {shard.layout = #R}) -> (tensor<?xi32> {shard.layout = #R}) {
  %e = tensor.extract %n[] : tensor<i32>
  %c6 = arith.constant 6 : i32
  %p = arith.addi %e, %c6 : i32
  %k = arith.index_cast %p : i32 to index
  %s = tensor.extract_slice %a[0] [%k] [1] : tensor<10xi32> to tensor<?xi32>
  return %s : tensor<?xi32>
}
func.func @all_but_last(%a: tensor<?xi32> {shard.layout = #S0}) -> (tensor<?xi32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %a, %c0 : tensor<?xi32>
  %k = arith.subi %d, %c1 : index
  %s = tensor.extract_slice %a[0] [%k] [1] : tensor<?xi32> to tensor<?xi32>
  return %s : tensor<?xi32>
}
