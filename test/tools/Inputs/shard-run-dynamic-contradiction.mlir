#m = #shard.mesh<shape = [2], axes = ["dp"]>
#rows = #shard.placements<mesh = #m, placements = [S(0)]>

// A run-time batch added to a static 8-row tensor: valid only where the
// batch is 8.
func.func @add_static(%a: tensor<?x4xf32> {shard.layout = #rows},
                      %b: tensor<8x4xf32> {shard.layout = #rows})
    -> (tensor<?x4xf32> {shard.layout = #rows}) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%d) : tensor<?x4xf32>
  %bc = tensor.cast %b : tensor<8x4xf32> to tensor<?x4xf32>
  %r = linalg.add ins(%a, %bc : tensor<?x4xf32>, tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// A run-time batch cast to 8 rows.
func.func @cast_static(%a: tensor<?x4xf32> {shard.layout = #rows})
    -> (tensor<8x4xf32> {shard.layout = #rows}) {
  %s = tensor.cast %a : tensor<?x4xf32> to tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %r = linalg.add ins(%s, %s : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// An elementwise op on tensors of run-time extents that differ (a select
// of the batch and the batch doubled): valid at no size but 0. MLIR checks
// no elementwise op's extents; shard-run checks each operand's against the
// first tensor's (it wrote past a buffer and hung before, found by an
// adversarial sweep).
func.func @select_sizes(%a: tensor<?x4xf32> {shard.layout = #rows})
    -> (tensor<?x4xf32> {shard.layout = #rows}) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x4xf32>
  %never = arith.cmpi slt, %d, %c0 : index
  %both = tensor.concat dim(0) %a, %a : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %r = arith.select %never, %a, %both : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
