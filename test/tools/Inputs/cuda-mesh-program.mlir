// A program on a CUDA mesh (cuda-layouts-np2.test).
#m = #shard.mesh<shape = [2], device = "cuda">
func.func @main(%a: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %b = math.exp %a : tensor<4x6xf32>
  return %b : tensor<4x6xf32>
}
