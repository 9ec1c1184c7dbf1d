// Ops on a layout with several blocks per rank, emitted as two steps or as
// an exchange (shard-plan-report.mlir).
!s = !shard.tensor<10xf32, #shard.enumerable<[{offsets = [0], sizes = [3], placement = "rank:0"}, {offsets = [3], sizes = [4], placement = "rank:1"}, {offsets = [7], sizes = [3], placement = "rank:0"}]>>
func.func @main(%s: !s) -> tensor<10xf32> {
  %g = shard.all_gather %s : !s -> tensor<10xf32>
  return %g : tensor<10xf32>
}
func.func @dist(%t: tensor<10xf32>) -> !s {
  %s = shard.distribute %t from rank 1 : tensor<10xf32> -> !s
  return %s : !s
}
