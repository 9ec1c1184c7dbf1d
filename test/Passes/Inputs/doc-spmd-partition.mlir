// The example of -shard-spmd-partition's description (Passes.td): its
// "before" block is what -shard-propagate prints for this file, its "after"
// block what -shard-spmd-partition makes of that (test/tools/docs-blocks.test).
#m4 = #shard.mesh<shape = [4]>
func.func @f(%a: tensor<10xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>})
    -> (tensor<10xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [R]>}) {
  %e = math.exp %a : tensor<10xf32>
  return %e : tensor<10xf32>
}
