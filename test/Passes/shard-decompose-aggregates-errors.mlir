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

// -----

// A linalg.pack of tiles of run-time size: upstream's lowering refuses it,
// and so the pass says.
func.func @pack_dynamic_tile(%a: tensor<8x6xf32>, %t: index, %n: index) -> tensor<?x3x?x2xf32> {
  %e = tensor.empty(%n, %t) : tensor<?x3x?x2xf32>
  // expected-error @+1 {{'linalg.pack' op could not be lowered to a pad, a reshape and a transpose (upstream's lowering refuses it: tiles of run-time size, say)}}
  %p = linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [%t, 2] into %e : tensor<8x6xf32> -> tensor<?x3x?x2xf32>
  return %p : tensor<?x3x?x2xf32>
}

// -----

// tensor.bitcast of signed or unsigned integers (valid: tensor.bitcast takes
// them) has no elementwise arith.bitcast: refused naming the types, not an
// invalid arith.bitcast built.
func.func @bitcast_unsigned(%x: tensor<10xi8>) -> tensor<10xui8> {
  // expected-error @+1 {{'tensor.bitcast' op could not be lowered: its element types must be signless integers or floats (arith.bitcast's), got 'i8' to 'ui8'}}
  %u = tensor.bitcast %x : tensor<10xi8> to tensor<10xui8>
  return %u : tensor<10xui8>
}
