!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
func.func @gather(%s: !s) -> tensor<6x10xf32> {
  %t = shard.all_gather %s : !s -> tensor<6x10xf32>
  return %t : tensor<6x10xf32>
}
