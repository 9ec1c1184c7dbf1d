// The linear layer pair of model-torch-mlir-dynamic-batch.mlir, in the form
// torch-mlir's TorchToLinalg emits it with a dynamic batch, under data x
// tensor parallelism on a 2x2 mesh: the batch cut on dp (torch.chunk of its
// run-time size), Megatron's ColwiseParallel / RowwiseParallel on tp. Each
// rank sizes its blocks from its own block of the batch; the one move of
// data is the all_reduce over tp of each rank's [rows, 16] partial: per
// rank 2 (n - 1) / n x rows x 64 bytes with n = 2, the all-reduce bound (a
// batch of 5: 3 and 2 rows, 192 and 128 bytes; 1: 1 and 0 rows, 64 and 0).
// Its block tables name every rank's rows, so the batch's extent is summed
// once over dp first (one i64 all-reduced over each dp pair by a ring: each
// rank of a pair receives it once, 8 bytes).
// Every element of every rank's result is checked.
// REQUIRES: mpi
// RUN: %mpirun -np 4 %shard-run %s --entry forward --check --dynamic-size 5 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=B5
// RUN: %mpirun -np 4 %shard-run %s --entry forward --check --dynamic-size 1 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=B1
// RUN: shard-opt %s -shard-propagate -shard-spmd-partition 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=PART

// B5: shard-run: rank 0: OK, 48 elements checked, received 200 bytes
// B5-NEXT: shard-run: rank 1: OK, 48 elements checked, received 200 bytes
// B5-NEXT: shard-run: rank 2: OK, 32 elements checked, received 136 bytes
// B5-NEXT: shard-run: rank 3: OK, 32 elements checked, received 136 bytes
// B1: shard-run: rank 0: OK, 16 elements checked, received 72 bytes
// B1-NEXT: shard-run: rank 1: OK, 16 elements checked, received 72 bytes
// B1-NEXT: shard-run: rank 2: OK, 0 elements checked, received 8 bytes
// B1-NEXT: shard-run: rank 3: OK, 0 elements checked, received 8 bytes
// The extent summed once, at the entry; every block sized from %arg0's.
// PART: %[[SUM:.*]] = shard.spmd.all_reduce %{{.*}} over axes [0] reduce sum {{.*}} : tensor<1xi64> -> tensor<1xi64>
// PART: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// PART-NOT: shard.spmd.
// PART: shard.spmd.all_reduce {{.*}} extents(%[[N]]) over axes [1] reduce sum {{.*}} : tensor<?x16xf32> -> tensor<?x16xf32>
// PART-NOT: shard.spmd.

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#m = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
module attributes {torch.debug_module_name = "MLP"} {
  func.func @forward(%arg0: tensor<?x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>},
                     %w1: tensor<40x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>},
                     %b1: tensor<40xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(0)]>},
                     %w2: tensor<16x40xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(1)]>})
      -> (tensor<?x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cst = arith.constant 0.000000e+00 : f32
    // w1^T, as torch-mlir lowers aten.t.
    %0 = tensor.empty() : tensor<16x40xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%w1 : tensor<40x16xf32>) outs(%0 : tensor<16x40xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<16x40xf32>
    %dim = tensor.dim %arg0, %c0 : tensor<?x16xf32>
    %dim_1 = tensor.dim %arg0, %c1 : tensor<?x16xf32>
    %c16 = arith.constant 16 : index
    %2 = arith.cmpi eq, %dim_1, %c16 : index
    cf.assert %2, "mismatching contracting dimension for torch.aten.mm"
    %3 = tensor.empty(%dim) : tensor<?x40xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<?x40xf32>) -> tensor<?x40xf32>
    %5 = linalg.matmul ins(%arg0, %1 : tensor<?x16xf32>, tensor<16x40xf32>) outs(%4 : tensor<?x40xf32>) -> tensor<?x40xf32>
    // + bias (broadcast along the batch), then ReLU.
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %b1 : tensor<?x40xf32>, tensor<40xf32>) outs(%3 : tensor<?x40xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %a = arith.addf %in, %in_2 : f32
      %r = arith.maximumf %a, %cst : f32
      linalg.yield %r : f32
    } -> tensor<?x40xf32>
    %7 = tensor.empty() : tensor<40x16xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%w2 : tensor<16x40xf32>) outs(%7 : tensor<40x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<40x16xf32>
    %9 = tensor.empty(%dim) : tensor<?x16xf32>
    %10 = linalg.fill ins(%cst : f32) outs(%9 : tensor<?x16xf32>) -> tensor<?x16xf32>
    %11 = linalg.matmul ins(%6, %8 : tensor<?x40xf32>, tensor<40x16xf32>) outs(%10 : tensor<?x16xf32>) -> tensor<?x16xf32>
    %cast = tensor.cast %11 : tensor<?x16xf32> to tensor<?x16xf32>
    return %cast : tensor<?x16xf32>
  }
}
