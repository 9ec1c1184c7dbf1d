// linalg.pack and linalg.unpack under auto=true, for pack-unpack-run.mlir
// (@N@: the mesh's devices).
#m = #shard.mesh<shape = [@N@]>
func.func @pack_roundtrip(%a: tensor<7x10xf32>, %b: tensor<7x10xf32>) -> (tensor<2x4x4x3xf32>, tensor<7x10xf32>) attributes {shard.mesh = #m} {
  %pad = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<2x4x4x3xf32>
  %p = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %e : tensor<7x10xf32> -> tensor<2x4x4x3xf32>
  %eu = tensor.empty() : tensor<7x10xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %eu : tensor<2x4x4x3xf32> -> tensor<7x10xf32>
  %s = tensor.empty() : tensor<7x10xf32>
  %r = linalg.add ins(%u, %b : tensor<7x10xf32>, tensor<7x10xf32>) outs(%s : tensor<7x10xf32>) -> tensor<7x10xf32>
  return %p, %r : tensor<2x4x4x3xf32>, tensor<7x10xf32>
}
func.func @outer_perm(%a: tensor<8x6xf32>) -> tensor<3x2x4x2xf32> attributes {shard.mesh = #m} {
  %e = tensor.empty() : tensor<3x2x4x2xf32>
  %p = linalg.pack %a outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %e : tensor<8x6xf32> -> tensor<3x2x4x2xf32>
  return %p : tensor<3x2x4x2xf32>
}
