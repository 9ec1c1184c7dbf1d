// The example of -shard-lower-to-runtime's description (Passes.td): its
// "before" block is an excerpt of this file, its "after" block what the
// pass prints for it (test/tools/docs-blocks.test).
func.func @f(%l: tensor<6x?xf32>) -> tensor<6x10xf32> {
  %t = shard.spmd.all_gather %l over world from !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu", "rank:2/cpu", "rank:3/cpu"]>>
      : tensor<6x?xf32> -> tensor<6x10xf32>
  return %t : tensor<6x10xf32>
}
