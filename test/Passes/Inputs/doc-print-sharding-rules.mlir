// The example of -shard-print-sharding-rules's description (Passes.td): its
// "before" block is an excerpt of this file, its "after" block what the
// pass prints for it (test/tools/docs-blocks.test).
func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>)
                     outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
