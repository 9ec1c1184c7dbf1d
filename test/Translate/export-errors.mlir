// Export fails, with an error and exit status 1, when there is nothing to
// export or the element type has no PyTorch dtype.
// Lines are counted from each split's start.
// RUN: not shard-translate --export-sharded-metadata --split-input-file %s 2>&1 | FileCheck %s --implicit-check-not=error:

// CHECK: error: no function argument of sharded tensor type (!shard.tensor) to export
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// CHECK: :4:1: error: element type 'index' has no PyTorch dtype; cannot write it as sharded tensor metadata
func.func private @g(!shard.tensor<4xindex, #shard.chunk<dim = 0, placements = ["rank:0"]>>)

// -----

// CHECK: :4:1: error: element type 'i4' has no PyTorch dtype
func.func private @h(!shard.tensor<4xi4, #shard.chunk<dim = 0, placements = ["rank:0"]>>)

// -----

// Invalid IR: the verifier's error, and nothing written.
// CHECK: error: invalid sharding of tensor [10]: block #0 (offsets [0], sizes [6]) and block #1 (offsets [5], sizes [5]) overlap in (offsets [5], sizes [1])
func.func private @i(!shard.tensor<10xf32, #shard.enumerable<[
    {offsets = [0], sizes = [6], placement = "rank:0"},
    {offsets = [5], sizes = [5], placement = "rank:1"} ]>>)
