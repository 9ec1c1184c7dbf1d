// PyTorch's remote-device strings parse and print canonically, as
// str(torch.distributed._remote_device(s)) does.
// RUN: shard-opt %s | FileCheck %s

// CHECK-LABEL: func.func @devices
func.func @devices() attributes {
  // CHECK-SAME: a = #shard.device<"rank:0/cuda:0">
  a = #shard.device<"rank:0/cuda:0">,
  // A lone rank means the cpu.
  // CHECK-SAME: b = #shard.device<"rank:1/cpu">
  b = #shard.device<"rank:1">,
  // CHECK-SAME: c = #shard.device<"cuda:0">
  c = #shard.device<"cuda:0">,
  // CHECK-SAME: d = #shard.device<"cpu">
  d = #shard.device<"cpu">,
  // CHECK-SAME: e = #shard.device<"rank:0/cpu">
  e = #shard.device<"rank:0/cpu">,
  // CHECK-SAME: f = #shard.device<"rank:12/cuda">
  f = #shard.device<"rank:12/cuda">,
  // CHECK-SAME: g = #shard.device<"cpu:0">
  g = #shard.device<"cpu:0">,
  // Ranks are printed without leading zeros, as int() reads them.
  // CHECK-SAME: h = #shard.device<"rank:7/cuda:127">
  h = #shard.device<"rank:007/cuda:127">
} {
  return
}
