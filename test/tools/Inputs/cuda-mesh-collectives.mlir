// A program on a 1-D CUDA mesh of @N@ ranks: an elementwise op on row
// blocks gathered to every rank, and a matmul whose contraction dim is split
// (partial sums scattered by columns). For shard-run-cuda-sim.test.
#m = #shard.mesh<shape = [@N@], device = "cuda">
!a = tensor<12x6xf32>
func.func @f(%a: !a {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
             %x: tensor<12x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
             %y: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (!a {shard.layout = #shard.placements<mesh = #m, placements = [R]>}, !a {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %one = arith.constant dense<1.0> : !a
  %b = arith.addf %a, %one : !a
  %z = arith.constant dense<0.0> : !a
  %p = linalg.matmul ins(%x, %y : tensor<12x8xf32>, tensor<8x6xf32>) outs(%z : !a) -> !a
  return %b, %p : !a, !a
}
