// tensor.gather, which nothing upstream bufferizes, runs through
// --shard-to-llvm as -shard-decompose-aggregates' linalg.generic: checked
// here against values worked out by hand (shard-run's --check compares a
// partitioned program with the same lowering, so it cannot see a wrong
// decomposition). The table holds 10*row + column.
// REQUIRES: mpi
// RUN: shard-opt %s --shard-to-llvm | %mlir-run | FileCheck %s
// Rows 3, 0, 2 of the table, kept as a dim of size 1 and dropped.
// CHECK: data =
// CHECK-NEXT: [30,   31,   32,   33]
// CHECK-NEXT: [0,   1,   2,   3]
// CHECK-NEXT: [20,   21,   22,   23]
// CHECK: data =
// CHECK-NEXT: {{\[}}[30,   31,   32,   33]],
// CHECK-NEXT: {{\[}}[0,   1,   2,   3]],
// CHECK-NEXT: {{\[}}[20,   21,   22,   23]]]
// Elements (1, 2) and (3, 0) gathered along both dims, from i32 indices.
// CHECK: data =
// CHECK-NEXT: [12,  30]
func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %t = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [10.0, 11.0, 12.0, 13.0], [20.0, 21.0, 22.0, 23.0], [30.0, 31.0, 32.0, 33.0]]> : tensor<4x4xf32>
  %i = arith.constant dense<[[3], [0], [2]]> : tensor<3x1xindex>
  %a = tensor.gather %t[%i] gather_dims([0]) : (tensor<4x4xf32>, tensor<3x1xindex>) -> tensor<3x4xf32>
  %b = tensor.gather %t[%i] gather_dims([0]) : (tensor<4x4xf32>, tensor<3x1xindex>) -> tensor<3x1x4xf32>
  %j = arith.constant dense<[[1, 2], [3, 0]]> : tensor<2x2xi32>
  %c = tensor.gather %t[%j] gather_dims([0, 1]) : (tensor<4x4xf32>, tensor<2x2xi32>) -> tensor<2xf32>
  %am = bufferization.to_buffer %a : tensor<3x4xf32> to memref<3x4xf32>
  %au = memref.cast %am : memref<3x4xf32> to memref<*xf32>
  call @printMemrefF32(%au) : (memref<*xf32>) -> ()
  %bm = bufferization.to_buffer %b : tensor<3x1x4xf32> to memref<3x1x4xf32>
  %bu = memref.cast %bm : memref<3x1x4xf32> to memref<*xf32>
  call @printMemrefF32(%bu) : (memref<*xf32>) -> ()
  %cm = bufferization.to_buffer %c : tensor<2xf32> to memref<2xf32>
  %cu = memref.cast %cm : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%cu) : (memref<*xf32>) -> ()
  return
}
