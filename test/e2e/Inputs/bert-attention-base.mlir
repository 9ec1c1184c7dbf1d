// BERT-base self-attention (batch 2, 128 tokens, 12 heads of 64) in the
// form of model-bert-attention.mlir, at realistic sizes (@N@: the ranks).
#m = #shard.mesh<shape = [@N@]>
func.func @bert(%x: tensor<2x128x768xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                %wq: tensor<768x768xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                %wk: tensor<768x768xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                %wv: tensor<768x768xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                %wo: tensor<768x768xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<2x128x768xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x128x768xf32> into tensor<256x768xf32>
  %e = tensor.empty() : tensor<256x768xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256x768xf32>) -> tensor<256x768xf32>
  %q = linalg.matmul ins(%x2, %wq : tensor<256x768xf32>, tensor<768x768xf32>) outs(%z : tensor<256x768xf32>) -> tensor<256x768xf32>
  %k = linalg.matmul ins(%x2, %wk : tensor<256x768xf32>, tensor<768x768xf32>) outs(%z : tensor<256x768xf32>) -> tensor<256x768xf32>
  %v = linalg.matmul ins(%x2, %wv : tensor<256x768xf32>, tensor<768x768xf32>) outs(%z : tensor<256x768xf32>) -> tensor<256x768xf32>
  // [B*S, H*D] -> [B, S, H, D] -> [B, H, S, D] -> [B*H, S, D]
  %q4 = tensor.expand_shape %q [[0, 1], [2, 3]] output_shape [2, 128, 12, 64] : tensor<256x768xf32> into tensor<2x128x12x64xf32>
  %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [2, 128, 12, 64] : tensor<256x768xf32> into tensor<2x128x12x64xf32>
  %v4 = tensor.expand_shape %v [[0, 1], [2, 3]] output_shape [2, 128, 12, 64] : tensor<256x768xf32> into tensor<2x128x12x64xf32>
  %et = tensor.empty() : tensor<2x128x12x64xf32>
  %eh = tensor.empty() : tensor<2x12x128x64xf32>
  %qt = linalg.transpose ins(%q4 : tensor<2x128x12x64xf32>) outs(%eh : tensor<2x12x128x64xf32>) permutation = [0, 2, 1, 3]
  %vt = linalg.transpose ins(%v4 : tensor<2x128x12x64xf32>) outs(%eh : tensor<2x12x128x64xf32>) permutation = [0, 2, 1, 3]
  %ekt = tensor.empty() : tensor<2x12x64x128xf32>
  %kt = linalg.transpose ins(%k4 : tensor<2x128x12x64xf32>) outs(%ekt : tensor<2x12x64x128xf32>) permutation = [0, 2, 3, 1]
  %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<2x12x128x64xf32> into tensor<24x128x64xf32>
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x12x64x128xf32> into tensor<24x64x128xf32>
  %es = tensor.empty() : tensor<24x128x128xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %s = linalg.batch_matmul ins(%q3, %k3 : tensor<24x128x64xf32>, tensor<24x64x128xf32>) outs(%zs : tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<24x128x128xf32>) outs(%es : tensor<24x128x128xf32>) -> tensor<24x128x128xf32>
  %eo = tensor.empty() : tensor<24x128x64xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  %o = linalg.batch_matmul ins(%p, %v3 : tensor<24x128x128xf32>, tensor<24x128x64xf32>) outs(%zo : tensor<24x128x64xf32>) -> tensor<24x128x64xf32>
  // [B*H, S, D] -> [B, H, S, D] -> [B, S, H, D] -> [B*S, H*D]
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 12, 128, 64] : tensor<24x128x64xf32> into tensor<2x12x128x64xf32>
  %ot = linalg.transpose ins(%o4 : tensor<2x12x128x64xf32>) outs(%et : tensor<2x128x12x64xf32>) permutation = [0, 2, 1, 3]
  %o2 = tensor.collapse_shape %ot [[0, 1], [2, 3]] : tensor<2x128x12x64xf32> into tensor<256x768xf32>
  %y = linalg.matmul ins(%o2, %wo : tensor<256x768xf32>, tensor<768x768xf32>) outs(%z : tensor<256x768xf32>) -> tensor<256x768xf32>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [2, 128, 768] : tensor<256x768xf32> into tensor<2x128x768xf32>
  return %y3 : tensor<2x128x768xf32>
}

