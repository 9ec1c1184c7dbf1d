// A linear layer pair in the form torch-mlir's TorchToLinalg emits it with
// a dynamic batch (`tensor<?x16xf32>`, aten.t as a transposing
// linalg.generic, tensor.dim + cf.assert on the contracting dim,
// tensor.empty of the dynamic batch, the bias broadcast and ReLU in one
// generic, a trailing tensor.cast), under Megatron's tensor parallelism:
// w1 and b1 cut on the hidden features, w2 on its input features (PyTorch's
// ColwiseParallel then RowwiseParallel). The batch is never cut; the one
// move is the all_reduce of each rank's [batch, 16] partial, at the
// all-reduce bound: 2 (n - 1) / n x batch x 64 bytes per rank (480 for a
// batch of 5 on 4 ranks, 512 for 6 on 3). Hidden 40 is uneven over 3 ranks
// (14, 14, 12). Every element of every rank's result is checked.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry forward --check --dynamic-size 5 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=NP4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry forward --check --dynamic-size 0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=EMPTY
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry forward --check --dynamic-size 6 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=NP3
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry forward --check --dynamic-size 7 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=NP2
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=PART

// NP4: shard-run: rank 0: OK, 80 elements checked, received 480 bytes
// NP4-NEXT: shard-run: rank 1: OK, 80 elements checked, received 480 bytes
// NP4-NEXT: shard-run: rank 2: OK, 80 elements checked, received 480 bytes
// NP4-NEXT: shard-run: rank 3: OK, 80 elements checked, received 480 bytes
// EMPTY-COUNT-4: OK, 0 elements checked, received 0 bytes
// NP3: shard-run: rank 0: OK, 96 elements checked, received 512 bytes
// NP3-NEXT: shard-run: rank 1: OK, 96 elements checked, received 512 bytes
// NP3-NEXT: shard-run: rank 2: OK, 96 elements checked, received 512 bytes
// NP2: shard-run: rank 0: OK, 112 elements checked, received 448 bytes
// NP2-NEXT: shard-run: rank 1: OK, 112 elements checked, received 448 bytes
// PART-NOT: shard.spmd.all_gather
// PART: shard.spmd.all_reduce {{.*}} : tensor<?x16xf32> -> tensor<?x16xf32>
// PART-NOT: shard.spmd.all_gather

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#m = #shard.mesh<shape = [@N@], axes = ["tp"]>
module attributes {torch.debug_module_name = "MLP"} {
  func.func @forward(%arg0: tensor<?x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                     %w1: tensor<40x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                     %b1: tensor<40xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                     %w2: tensor<16x40xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
      -> (tensor<?x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
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
