// A callee searched with its call (no mesh of its own, called once): its
// argument is the block the caller passes, and the call's result the block
// it returns; neither is held twice. 16 KiB tensors on 4 ranks. @one: %x
// (an argument, held throughout) and the ReLU's result, 32 KiB at the
// peak, as the same body written in @one holds (counted twice, 48 KiB at
// least: a budget of 40,000 was refused, proven). @two: %x, and the last
// ReLU's result cut (4 KiB) with the copy its return needs whole: 36 KiB.
#m = #shard.mesh<shape = [4]>
#R = #shard.placements<mesh = #m, placements = [R]>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @relu(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%p: f32, %out: f32):
    %r = arith.maximumf %p, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
func.func @one(%x: tensor<64x64xf32> {shard.layout = #R}) -> (tensor<64x64xf32> {shard.layout = #R}) {
  %y = func.call @relu(%x) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
func.func @two(%x: tensor<64x64xf32> {shard.layout = #R}) -> (tensor<64x64xf32> {shard.layout = #R}) {
  %y = func.call @relu(%x) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %z = func.call @relu(%y) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %z : tensor<64x64xf32>
}
