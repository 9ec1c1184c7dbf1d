// Two loops folded into one dim, cut by two mesh axes (model-bert-attention-dp-tp.mlir).
#m = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
func.func @two_folds(%a: tensor<2x2x2x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1), S(2)]>}) -> tensor<8x3xf32> {
  %c = tensor.collapse_shape %a [[0, 1, 2], [3]] : tensor<2x2x2x3xf32> into tensor<8x3xf32>
  return %c : tensor<8x3xf32>
}
