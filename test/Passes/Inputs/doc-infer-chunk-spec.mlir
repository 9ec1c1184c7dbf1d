// The example of -shard-infer-chunk-spec's description (Passes.td): its
// "before" block is an excerpt of this file, its "after" block what the
// pass prints for it (test/tools/docs-blocks.test).
func.func private @f(!shard.tensor<11xf32, #shard.enumerable<[
  {offsets = [3], sizes = [3], placement = "rank:1/cpu"},
  {offsets = [0], sizes = [3], placement = "rank:0/cpu"},
  {offsets = [9], sizes = [2], placement = "rank:3/cpu"},
  {offsets = [6], sizes = [3], placement = "rank:2/cpu"} ]>>)
