// The example of -shard-validate's description (Passes.td): its block is
// an excerpt of this file, and the error -shard-validate="world-size=2"
// gives for it is checked (test/tools/docs-blocks.test).
func.func private @f(!shard.tensor<8xf32, #shard.chunk<dim = 0,
    placements = ["rank:0", "rank:1", "rank:2"]>>)
