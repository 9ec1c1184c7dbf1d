// f32[@N@] on 2 ranks (shard-run-memory-np2.test).
#m = #shard.mesh<shape = [2]>
func.func @main(%a: tensor<@N@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<@N@xf32> {
  %b = math.exp %a : tensor<@N@xf32>
  return %b : tensor<@N@xf32>
}
