// Whole-program sharding: PyTorch's sharded linear pair (the Megatron MLP)
// as an ordinary program with layouts on its arguments and result. x is
// replicated, W1 is sharded on its 10 output features over 4 ranks
// (torch.chunk: 3, 3, 3, 1), W2 on its 10 input features. -shard-propagate
// gives every value a layout, -shard-spmd-partition rewrites the function into
// what each rank runs; the only communication is one all_reduce of y.
//
//   shard-opt mlp_tensor_parallel.mlir -shard-propagate -shard-spmd-partition
//   mpirun -np 4 shard-run mlp_tensor_parallel.mlir --entry mlp --check
#tp = #shard.mesh<shape = [4], axes = ["tp"]>
func.func @mlp(%x: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #tp, placements = [R]>},
               %w1: tensor<16x10xf32> {shard.layout = #shard.placements<mesh = #tp, placements = [S(1)]>},
               %w2: tensor<10x16xf32> {shard.layout = #shard.placements<mesh = #tp, placements = [S(0)]>})
    -> (tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #tp, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x10xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x10xf32>) outs(%f1 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %a = arith.maximumf %h, %f1 : tensor<8x10xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<8x10xf32>, tensor<10x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
