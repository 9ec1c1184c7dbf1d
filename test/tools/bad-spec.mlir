// shard-opt on an invalid spec exits non-zero with a diagnostic located at
// the offending type, and no crash.
// RUN: not shard-opt %s 2>&1 | FileCheck %s
// RUN: not shard-opt %s --shard-to-llvm 2>&1 | FileCheck %s

// CHECK: bad-spec.mlir:[[@LINE+2]]:{{[0-9]+}}: error: invalid sharding of tensor [10, 10]: block #0 (offsets [0, 0], sizes [6, 10]) and block #1 (offsets [5, 0], sizes [5, 10]) overlap in (offsets [5, 0], sizes [1, 10])
// CHECK-NOT: Stack dump
func.func @f(%a: !shard.tensor<10x10xf32, #shard.enumerable<[
    {offsets = [0, 0], sizes = [6, 10], placement = "rank:0/cuda:0"},
    {offsets = [5, 0], sizes = [5, 10], placement = "rank:1/cuda:1"} ]>>) {
  return
}
