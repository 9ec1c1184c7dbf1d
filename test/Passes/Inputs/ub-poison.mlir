// ub.poison, as recent MLIR writes it for values never read (a pad's or a
// transfer's padding), in a function with layouts: parsed, partitioned (a
// scalar, no rule asked), and lowered to LLVM's poison.
#m = #shard.mesh<shape = [2]>
#s0 = #shard.placements<mesh = #m, placements = [S(0)]>
func.func @poison(%a: tensor<8xf32> {shard.layout = #s0}) -> (tensor<8xf32> {shard.layout = #s0}, f32) {
  %p = ub.poison : f32
  %r = arith.addf %a, %a : tensor<8xf32>
  return %r, %p : tensor<8xf32>, f32
}
