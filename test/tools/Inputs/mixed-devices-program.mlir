// A value moved from a layout with a cuda block to a cpu one: no collective
// does that (cuda-layouts-np2.test).
func.func @main(%a: tensor<4x6xf32> {shard.layout = #shard.chunk<dim = 0, placements = ["rank:0/cpu", "rank:1/cuda:1"]>}) -> (tensor<4x6xf32> {shard.layout = #shard.chunk<dim = 0, placements = ["rank:1/cpu", "rank:0/cpu"]>}) {
  return %a : tensor<4x6xf32>
}
