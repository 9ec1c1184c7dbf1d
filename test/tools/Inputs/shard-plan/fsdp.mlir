// The redistribution of mesh-s0-s1.json -> mesh-r-s1.json, as IR.
#mesh = #shard.mesh<shape = [2, 2], devices = [0, 1, 2, 3]>
!a = !shard.tensor<8x6xf32, #shard.placements<mesh = #mesh, placements = [S(0), S(1)]>>
!b = !shard.tensor<8x6xf32, #shard.placements<mesh = #mesh, placements = [R, S(1)]>>
func.func @redistribute(%a: !a) -> !b {
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}
