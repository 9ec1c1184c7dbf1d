// A result that is the program's own constant (in the JIT-compiled module's
// memory): rank 0 runs the program as written and sends its results to the
// other ranks, so its module lives until they are copied.
#m = #shard.mesh<shape = [2]>
func.func @konst(%a: tensor<4x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<4x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}, tensor<4x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  return %c, %a : tensor<4x2xf32>, tensor<4x2xf32>
}
