// A valid shardc file: a matmul whose layouts and sharding are written out.
#m = #shard.mesh<shape = [2], axes = ["tp"]>
func.func @f(%x: tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8x4xf32> {
  %t = math.tanh %x {shard.sharding = #shard.sharding<mesh = #m, loops = [d0]>} : tensor<8x4xf32>
  %y = shard.constraint %t layout #shard.placements<mesh = #m, placements = [R]> : tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
