// tosa.custom row_softmax under the rule everything-opt gives it: rows cut
// on 2 ranks stay cut, each rank computes its own 2, nothing moves. Cut
// columns are moved first (the rule reads each row whole).
#mesh = #shard.mesh<shape = [2]>
func.func @rows(%x: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(0)]>})
    -> (tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(0)]>}) {
  %0 = tosa.custom %x {domain_name = "example", operator_name = "row_softmax", implementation_attrs = ""} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
func.func @columns(%x: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(1)]>})
    -> (tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(0)]>}) {
  %0 = tosa.custom %x {domain_name = "example", operator_name = "row_softmax", implementation_attrs = ""} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
