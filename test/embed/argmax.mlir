// tosa.argmax under the rule everything-opt gives it: rows cut on 2 ranks
// stay cut, each rank's argmax on its rows, nothing moves. A cut of the
// argmax axis itself is gathered first (the rule needs it whole).
#mesh = #shard.mesh<shape = [2]>
func.func @rows(%x: tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(0)]>})
    -> (tensor<4xi32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(0)]>}) {
  %0 = tosa.argmax %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
func.func @axis(%x: tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(1)]>})
    -> (tensor<4xi32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(0)]>}) {
  %0 = tosa.argmax %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
