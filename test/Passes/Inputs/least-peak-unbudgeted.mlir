// shard-propagate-memory.mlir: nothing fits memory-budget=1; the optimum
// without the budget holds 1664 bytes at its peak, the choice holding least
// summed over the function 2048.
#m = #shard.mesh<shape = [4]>
func.func @main(%x: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                %w: tensor<16x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}, tensor<8x16xf32>) {
  %c = arith.constant dense<2.0> : tensor<8x16xf32>
  %z = arith.constant 0.0 : f32
  %a = arith.addf %x, %c : tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y2 = linalg.matmul ins(%y, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = arith.mulf %y2, %c : tensor<8x16xf32>
  %d = arith.subf %y, %c : tensor<8x16xf32>
  return %b, %d : tensor<8x16xf32>, tensor<8x16xf32>
}
