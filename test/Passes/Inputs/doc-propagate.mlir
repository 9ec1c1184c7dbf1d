// The example of -shard-propagate's description (Passes.td): its "before"
// block is an excerpt of this file, its "after" block what the pass prints
// for it (test/tools/docs-blocks.test).
#m = #shard.mesh<shape = [2]>
func.func @mlp(%x: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
               %w: tensor<16x12xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> tensor<8x12xf32> {
  %e = tensor.empty() : tensor<8x12xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x12xf32>) outs(%e : tensor<8x12xf32>) -> tensor<8x12xf32>
  return %y : tensor<8x12xf32>
}
