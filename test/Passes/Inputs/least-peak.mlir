// An MLP on a mesh of 1024 (shard-propagate-memory.mlir): at most 224 bytes per rank at its peak fit.
#m = #shard.mesh<shape = [1024], axes = ["tp"]>
func.func @mlp(%x: tensor<2x4xf32>, %w1: tensor<4x4096xf32>, %w2: tensor<4096x4xf32>) -> tensor<2x4xf32>
    attributes {shard.mesh = #m} {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x4096xf32>
  %f1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x4096xf32>) -> tensor<2x4096xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x4096xf32>) outs(%f1 : tensor<2x4096xf32>) -> tensor<2x4096xf32>
  %a = math.tanh %h : tensor<2x4096xf32>
  %e2 = tensor.empty() : tensor<2x4xf32>
  %f2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<2x4096xf32>, tensor<4096x4xf32>) outs(%f2 : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
