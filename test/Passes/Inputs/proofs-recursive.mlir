// A recursive function, for shard-propagate-proofs.mlir: its proof is of its own choices, with no callee searched apart.
#m = #shard.mesh<shape = [2]>
func.func @rec(%a: tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %n: i1) -> (tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %r = scf.if %n -> tensor<4x4xf32> {
    %f = arith.constant false
    %x = func.call @rec(%a, %f) : (tensor<4x4xf32>, i1) -> tensor<4x4xf32>
    scf.yield %x : tensor<4x4xf32>
  } else {
    %y = arith.addf %a, %a : tensor<4x4xf32>
    scf.yield %y : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
