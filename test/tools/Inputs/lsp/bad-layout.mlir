#m = #shard.mesh<shape = [2]>
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = shard.constraint %x layout #shard.placements<mesh = #m, placements = [S(3)]> : tensor<8xf32>
  return %y : tensor<8xf32>
}
