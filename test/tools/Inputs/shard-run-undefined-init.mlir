#m = #shard.mesh<shape = [2]>
func.func @accumulates_into_empty(%a: tensor<4x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %e = tensor.empty() : tensor<4x5xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<3x5xf32>) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}
func.func @filled(%a: tensor<4x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<3x5xf32>) outs(%f : tensor<4x5xf32>) -> tensor<4x5xf32>
  %n = linalg.negf ins(%r : tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %n : tensor<4x5xf32>
}
