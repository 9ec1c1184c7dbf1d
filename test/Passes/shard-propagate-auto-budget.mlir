// A mesh of CUDA devices without memory-budget: auto=true keeps each rank
// within an 80 GB GPU's memory (kDefaultDeviceMemory). Two 64 GiB weights
// cannot both be whole on a rank, as they would be without a budget (the
// batch rows cut, nothing moved), so they are cut; on a mesh of CPUs there
// is no default budget and they stay whole (128 GiB and more per rank).
// RUN: shard-opt %s -split-input-file -shard-propagate="auto=true explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: :[[@LINE+3]]:1: remark: search=whole chose {{.*}}; each rank holds {{[1-7]?[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]}} bytes of memory-budget=80000000000 (the CUDA default)
// BUDGET: :[[@LINE+15]]:1: remark: search=whole chose {{.*}}; each rank holds {{1[3-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]}} bytes{{$}}
#g = #shard.mesh<shape = [4], device = "cuda">
func.func @big_on_gpus(%x: tensor<64x131072xf32>, %w1: tensor<131072x131072xf32>, %w2: tensor<131072x131072xf32>) -> tensor<64x131072xf32>
    attributes {shard.mesh = #g} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x131072xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x131072xf32>) -> tensor<64x131072xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x131072xf32>, tensor<131072x131072xf32>) outs(%f : tensor<64x131072xf32>) -> tensor<64x131072xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<64x131072xf32>, tensor<131072x131072xf32>) outs(%f : tensor<64x131072xf32>) -> tensor<64x131072xf32>
  return %y : tensor<64x131072xf32>
}

// -----

#c = #shard.mesh<shape = [4]>
func.func @big_on_cpus(%x: tensor<64x131072xf32>, %w1: tensor<131072x131072xf32>, %w2: tensor<131072x131072xf32>) -> tensor<64x131072xf32>
    attributes {shard.mesh = #c} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x131072xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x131072xf32>) -> tensor<64x131072xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x131072xf32>, tensor<131072x131072xf32>) outs(%f : tensor<64x131072xf32>) -> tensor<64x131072xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<64x131072xf32>, tensor<131072x131072xf32>) outs(%f : tensor<64x131072xf32>) -> tensor<64x131072xf32>
  return %y : tensor<64x131072xf32>
}
