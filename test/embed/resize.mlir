// tosa.resize under the rule everything-opt gives it: images cut on 2 ranks
// stay cut, each rank resizes its own 2, nothing moves. A cut of the image
// rows is gathered first (the rule needs each image whole).
#mesh = #shard.mesh<shape = [2]>
func.func @images(%x: tensor<4x4x4x3xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(0)]>})
    -> (tensor<4x8x8x3xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(0)]>}) {
  %scale = tosa.const_shape {values = dense<[4, 2, 4, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %offset = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %border = tosa.const_shape {values = dense<2> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.resize %x, %scale, %offset, %border {mode = NEAREST_NEIGHBOR} : (tensor<4x4x4x3xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<4x8x8x3xf32>
  return %0 : tensor<4x8x8x3xf32>
}
func.func @rows(%x: tensor<4x4x4x3xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(1)]>})
    -> (tensor<4x8x8x3xf32> {shard.layout = #shard.placements<mesh = #mesh, placements = [S(0)]>}) {
  %scale = tosa.const_shape {values = dense<[4, 2, 4, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %offset = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %border = tosa.const_shape {values = dense<2> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.resize %x, %scale, %offset, %border {mode = NEAREST_NEIGHBOR} : (tensor<4x4x4x3xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<4x8x8x3xf32>
  return %0 : tensor<4x8x8x3xf32>
}
