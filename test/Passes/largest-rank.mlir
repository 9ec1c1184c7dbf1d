// Rank 2^31 - 1, the largest MPI rank, in a layout: the report covers ranks 0
// .. 2^31 - 1 and lists the two named (before: an int overflow of rank + 1,
// and per-rank tables of 2^31 entries: a crash or an out-of-memory abort).
// RUN: shard-opt %s -shard-plan-redistribute="report=%t.json" | FileCheck %s
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT
// RUN: shard-opt %s -shard-validate="world-size=2147483647" -verify-diagnostics

!a = !shard.tensor<8xf32, #shard.enumerable<[{offsets = [0], sizes = [4], placement = "rank:0"}, {offsets = [4], sizes = [4], placement = "rank:2147483647"}]>>
!b = !shard.tensor<8xf32, #shard.enumerable<[{offsets = [0], sizes = [4], placement = "rank:2147483647"}, {offsets = [4], sizes = [4], placement = "rank:0"}]>>
// CHECK-LABEL: func.func @swap
// CHECK: shard.spmd.exchange
func.func @swap(%a: !a) -> !b {
  // expected-error @+2 {{block #1 (offsets [4], sizes [4]) is placed on rank 2147483647 but the world has 2147483647 ranks}}
  // expected-error @+1 {{block #0 (offsets [0], sizes [4]) is placed on rank 2147483647 but the world has 2147483647 ranks}}
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}

// An all_gather to every rank of that world: each rank the layout does not
// name receives the whole tensor.
// CHECK-LABEL: func.func @gather
// CHECK: shard.spmd.all_gather
func.func @gather(%a: !a) -> tensor<8xf32> {
  %t = shard.all_gather %a : !a -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// REPORT: "bytes_per_rank": {
// REPORT-NEXT: "0": 16,
// REPORT-NEXT: "2147483647": 16,
// REPORT-NEXT: "other_ranks": 0
// REPORT: "bytes_per_rank": {
// REPORT-NEXT: "0": 16,
// REPORT-NEXT: "2147483647": 16,
// REPORT-NEXT: "other_ranks": 32
