// tensor.bitcast (torch-mlir's aten.view.dtype) is elementwise: each rank
// reinterprets its own block, nothing moves (@rows: rows cut, 8 over 2, 3
// and 4 ranks, 3/3/2 on 3; @dynamic: a batch of run-time size cut, 5 and 1
// rows). It is not linear (the bits of a sum are not the sum of the bits):
// a matmul's partial sums (contraction cut, @partial) are summed (a
// reduce_scatter, the bitcast on each rank's rows, then an all_gather)
// before the bitcast, never reinterpreted as they are. Every element checked;
// the program as written reinterprets the same bits.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @rows
// IR-NOT: shard.spmd.
// IR: tensor.bitcast %{{.*}} : tensor<2x4xi32> to tensor<2x4xf32>
// IR-LABEL: func.func @partial
// IR: linalg.matmul
// IR: shard.spmd.{{all_reduce|reduce_scatter}} {{.*}} reduce sum
// IR: tensor.bitcast
// RUN: for n in 2 3 4; do %mpirun -np $n shard-run %t.$n.mlir --entry rows,partial --check; done 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=OK
// OK-COUNT-18: OK
// RUN: %mpirun -np 2 shard-run %t.2.mlir --entry dynamic --check --dynamic-size 5 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DYN5
// DYN5: rank 0: OK, 12 elements checked, received 0 bytes
// DYN5-NEXT: rank 1: OK, 8 elements checked, received 0 bytes
// RUN: %mpirun -np 2 shard-run %t.2.mlir --entry dynamic --check --dynamic-size 1 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DYN1
// DYN1: rank 0: OK, 4 elements checked, received 0 bytes
// DYN1-NEXT: rank 1: OK, 0 elements checked, received 0 bytes
#m = #shard.mesh<shape = [@N@]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
#R = #shard.placements<mesh = #m, placements = [R]>
func.func @rows(%x: tensor<8x4xi32> {shard.layout = #S0}) -> (tensor<8x4xi32> {shard.layout = #S0}) {
  %f = tensor.bitcast %x : tensor<8x4xi32> to tensor<8x4xf32>
  %g = arith.addf %f, %f : tensor<8x4xf32>
  %r = tensor.bitcast %g : tensor<8x4xf32> to tensor<8x4xi32>
  return %r : tensor<8x4xi32>
}
func.func @partial(%a: tensor<4x8xf32> {shard.layout = #S1}, %b: tensor<8x3xf32> {shard.layout = #S0})
    -> (tensor<4x3xi32> {shard.layout = #R}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%f : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = tensor.bitcast %m : tensor<4x3xf32> to tensor<4x3xi32>
  return %r : tensor<4x3xi32>
}
func.func @dynamic(%x: tensor<?x4xi32> {shard.layout = #S0}) -> (tensor<?x4xi32> {shard.layout = #S0}) {
  %f = tensor.bitcast %x : tensor<?x4xi32> to tensor<?x4xf32>
  %g = arith.mulf %f, %f : tensor<?x4xf32>
  %r = tensor.bitcast %g : tensor<?x4xf32> to tensor<?x4xi32>
  return %r : tensor<?x4xi32>
}
