// A callee with layouts of its own, searched before its caller (its free
// argument chosen without it), for shard-propagate-proofs.mlir: @helper's
// argument ties at 6.001 us between [R] and [S(1)]; with [R], @main is proven
// at 6.001 us over its own choices, where [S(1)] would give it 4 us. Made by
// test/e2e/Inputs/make_random_program.py 2 4.
#m = #shard.mesh<shape = [4]>
func.func @main(%a0: tensor<5x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<5x5xi1>, tensor<5x5xi1> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, tensor<5x5xf32>, tensor<5x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}, tensor<5x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %v1 = func.call @helper(%a0) : (tensor<5x5xf32>) -> (tensor<5x5xf32>)
  %e2 = tensor.empty() : tensor<5x5xi1>
  %m2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a0, %v1 : tensor<5x5xf32>, tensor<5x5xf32>) outs(%e2 : tensor<5x5xi1>) {
    ^bb0(%p: f32, %q: f32, %o: i1):
      %c = arith.cmpf ogt, %p, %q : f32
      linalg.yield %c : i1
    } -> tensor<5x5xi1>
  %mc3 = arith.constant dense<[[false, false, false, true, false, false, true], [false, false, false, false, false, false, false], [false, false, true, false, true, false, false], [false, false, false, false, true, false, false], [true, false, true, true, true, true, true], [false, true, true, true, false, true, true], [true, false, true, true, false, false, true]]> : tensor<7x7xi1>
  %m3 = tensor.extract_slice %mc3[0, 2] [5, 5] [1, 1] : tensor<7x7xi1> to tensor<5x5xi1>
  %m3p = shard.constraint %m3 layout #shard.placements<mesh = #m, placements = [S(0)]> : tensor<5x5xi1>
  %c4 = arith.constant dense<3.0> : tensor<5x5xf32>
  %v4 = arith.addf %a0, %c4 : tensor<5x5xf32>
  return %m2, %m3p, %v4, %v1, %a0 : tensor<5x5xi1>, tensor<5x5xi1>, tensor<5x5xf32>, tensor<5x5xf32>, tensor<5x5xf32>
}
func.func private @helper(%x0: tensor<5x5xf32>) -> (tensor<5x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %h0r = tensor.extract_slice %x0[3, 0] [1, 5] [1, 1] : tensor<5x5xf32> to tensor<5xf32>
  %h0 = tensor.insert_slice %h0r into %x0[4, 0] [1, 5] [1, 1] : tensor<5xf32> into tensor<5x5xf32>
  %h1r = tensor.extract_slice %h0[2, 0] [1, 5] [1, 1] : tensor<5x5xf32> to tensor<5xf32>
  %h1 = tensor.insert_slice %h1r into %h0[0, 0] [1, 5] [1, 1] : tensor<5xf32> into tensor<5x5xf32>
  %h2 = shard.constraint %x0 layout #shard.placements<mesh = #m, placements = [S(1)]> : tensor<5x5xf32>
  return %h2 : tensor<5x5xf32>
}
