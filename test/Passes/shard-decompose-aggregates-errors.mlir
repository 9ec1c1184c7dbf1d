// RUN: shard-opt %s -split-input-file -verify-diagnostics -shard-decompose-aggregates

// An integer softmax crashed upstream's decomposition (a segfault: no float
// identity for its max), and a memref one left invalid IR: both are refused.
func.func @softmax_i32(%x: tensor<4x6xi32>) -> tensor<4x6xi32> {
  %e = tensor.empty() : tensor<4x6xi32>
  // expected-error @+1 {{could not be decomposed into linalg ops: its operands and results must be ranked tensors of floats}}
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x6xi32>) outs(%e : tensor<4x6xi32>) -> tensor<4x6xi32>
  return %s : tensor<4x6xi32>
}

// -----

func.func @softmax_memref(%x: memref<4x6xf32>, %o: memref<4x6xf32>) {
  // expected-error @+1 {{could not be decomposed into linalg ops: its operands and results must be ranked tensors of floats}}
  linalg.softmax dimension(1) ins(%x : memref<4x6xf32>) outs(%o : memref<4x6xf32>)
  return
}
