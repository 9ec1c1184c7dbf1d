// llvm/lighthouse's weight-stationary feed-forward layer (its mlp-mpi
// example: act @ W_in, tosa.sigmoid, @ W_out, each matmul into a
// tensor.empty filled with 0), written here with shardc's layouts where
// lighthouse writes upstream's shard.sharding ops (issue 26, item 3).
// M = 8 tokens, K = 16 features, N = @NN@ hidden (10: uneven over 4).
//
// 1-D, weight stationary over p ranks: the activations replicated, W_in
// cut by columns and W_out by rows (each rank keeps its hidden slice of
// both), the result replicated. The cheapest plan, by hand: the first
// matmul and the sigmoid are local, the second leaves the [8 x 16] f32
// result (512 B) partial, and one all-reduce makes it whole: each rank
// receives 2 (p - 1) / p x 512 B = 768 B on 4 ranks, 512 B on 2.
//
// 2-D on a 2 x 2 mesh (dp, tp): the activations' rows cut over dp, the
// weights cut over tp as in 1-D and replicated over dp, the result's rows
// cut over dp. Cheapest: each dp group all-reduces its [4 x 16] partial
// result (256 B) over tp's 2 ranks: 256 B per rank, nothing else.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g; s/@NN@/10/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry ffn_1d,ffn_2d --check > %t.run1 2>&1
// RUN: not grep "error:" %t.run1
// RUN: %entry-lines ffn_1d %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=remark: --check-prefix=NP4
// RUN: %entry-lines ffn_2d %t.run1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=remark: --check-prefix=MESH
// RUN: sed -e 's/@N@/2/g; s/@NN@/32/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry ffn_1d --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=remark: --check-prefix=NP2
// NP4: shard-run: rank 0: OK, 128 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 1: OK, 128 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 2: OK, 128 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 3: OK, 128 elements checked, received 768 bytes
// MESH: shard-run: rank 0: OK, 64 elements checked, received 256 bytes
// MESH-NEXT: shard-run: rank 1: OK, 64 elements checked, received 256 bytes
// MESH-NEXT: shard-run: rank 2: OK, 64 elements checked, received 256 bytes
// MESH-NEXT: shard-run: rank 3: OK, 64 elements checked, received 256 bytes
// NP2: shard-run: rank 0: OK, 128 elements checked, received 512 bytes
// NP2-NEXT: shard-run: rank 1: OK, 128 elements checked, received 512 bytes

#grid = #shard.mesh<shape = [@N@]>
#act = #shard.placements<mesh = #grid, placements = [R]>
#win = #shard.placements<mesh = #grid, placements = [S(1)]>
#wout = #shard.placements<mesh = #grid, placements = [S(0)]>
func.func @ffn_1d(%arg0: tensor<8x16xf32> {shard.layout = #act},
                  %arg1: tensor<16x@NN@xf32> {shard.layout = #win},
                  %arg2: tensor<@NN@x16xf32> {shard.layout = #wout})
    -> (tensor<8x16xf32> {shard.layout = #act}) {
  %0 = tensor.empty() : tensor<8x@NN@xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x@NN@xf32>) -> tensor<8x@NN@xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x@NN@xf32>) outs(%1 : tensor<8x@NN@xf32>) -> tensor<8x@NN@xf32>
  %3 = tosa.sigmoid %2 : (tensor<8x@NN@xf32>) -> tensor<8x@NN@xf32>
  %4 = tensor.empty() : tensor<8x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %6 = linalg.matmul ins(%3, %arg2 : tensor<8x@NN@xf32>, tensor<@NN@x16xf32>) outs(%5 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %6 : tensor<8x16xf32>
}

#grid2 = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
#act2 = #shard.placements<mesh = #grid2, placements = [S(0), R]>
#win2 = #shard.placements<mesh = #grid2, placements = [R, S(1)]>
#wout2 = #shard.placements<mesh = #grid2, placements = [R, S(0)]>
func.func @ffn_2d(%arg0: tensor<8x16xf32> {shard.layout = #act2},
                  %arg1: tensor<16x@NN@xf32> {shard.layout = #win2},
                  %arg2: tensor<@NN@x16xf32> {shard.layout = #wout2})
    -> (tensor<8x16xf32> {shard.layout = #act2}) {
  %0 = tensor.empty() : tensor<8x@NN@xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x@NN@xf32>) -> tensor<8x@NN@xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x@NN@xf32>) outs(%1 : tensor<8x@NN@xf32>) -> tensor<8x@NN@xf32>
  %3 = tosa.sigmoid %2 : (tensor<8x@NN@xf32>) -> tensor<8x@NN@xf32>
  %4 = tensor.empty() : tensor<8x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %6 = linalg.matmul ins(%3, %arg2 : tensor<8x@NN@xf32>, tensor<@NN@x16xf32>) outs(%5 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %6 : tensor<8x16xf32>
}
