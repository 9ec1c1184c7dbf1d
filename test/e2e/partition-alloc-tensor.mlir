// bufferization.alloc_tensor (tpp-mlir's and IREE's tensor.empty before
// bufferization, as their tests write it) takes any layout, as tensor.empty
// does, and with a copy the copy's layout: remade at each rank's block
// shape (@dyn: a dynamic dim stays whole, its size the op's own operand).
// Before: "'bufferization.alloc_tensor' op has no sharding rule" (393
// refusals in a sweep over tpp-mlir). Every element checked on 2 and 3
// ranks (3: rows of 2, 2 and 0, torch.chunk's); nothing moves.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry mm --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry mm --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry dyn --dynamic-size=5 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DYN2
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry dyn --dynamic-size=5 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DYN3
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// NP2: shard-run: rank 0: OK, 16 elements checked, received 0 bytes
// NP2-NEXT: shard-run: rank 1: OK, 16 elements checked, received 0 bytes
// NP3: shard-run: rank 0: OK, 16 elements checked, received 0 bytes
// NP3-NEXT: shard-run: rank 1: OK, 16 elements checked, received 0 bytes
// NP3-NEXT: shard-run: rank 2: OK, 0 elements checked, received 0 bytes
// DYN2: shard-run: rank 0: OK, 10 elements checked, received 0 bytes
// DYN2-NEXT: shard-run: rank 1: OK, 10 elements checked, received 0 bytes
// DYN3: shard-run: rank 0: OK, 10 elements checked, received 0 bytes
// DYN3-NEXT: shard-run: rank 1: OK, 10 elements checked, received 0 bytes
// DYN3-NEXT: shard-run: rank 2: OK, 0 elements checked, received 0 bytes
// IR-LABEL: func.func @mm
// IR: bufferization.alloc_tensor() : tensor<2x8xf32>
// IR: bufferization.alloc_tensor() copy(%{{.*}}) : tensor<2x8xf32>
// IR-NOT: shard.spmd
// IR-LABEL: func.func @dyn
// IR: bufferization.alloc_tensor(%{{.*}}) : tensor<2x?xf32>

#m = #shard.mesh<shape = [@N@]>
func.func @mm(%a: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %b: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = bufferization.alloc_tensor() : tensor<4x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x6xf32>, tensor<6x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = bufferization.alloc_tensor() copy(%r) : tensor<4x8xf32>
  %s = arith.addf %c, %r : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
func.func @dyn(%a: tensor<4x?xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c1 : tensor<4x?xf32>
  %z = arith.constant 1.0 : f32
  %e = bufferization.alloc_tensor(%n) : tensor<4x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x?xf32>) -> tensor<4x?xf32>
  %s = arith.addf %f, %a : tensor<4x?xf32>
  return %s : tensor<4x?xf32>
}
