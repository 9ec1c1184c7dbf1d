// -shard-propagate with memory-budget: search=whole keeps the bytes each
// rank holds at its peak (at each op, the values live there: each one's
// largest block and every copy of it its ops need; arguments throughout)
// within the budget, at least modelled time; an error names the least
// found when nothing fits.
// RUN: shard-opt %s -shard-propagate="auto=true memory-budget=65536" -split-input-file -verify-diagnostics | FileCheck %s
// RUN: not shard-opt %s -shard-propagate="auto=true memory-budget=65536 explain=true" -split-input-file --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN
// Without a budget, the weights stay whole on every rank (nothing moves):
// RUN: shard-opt %s -shard-propagate="auto=true explain=true" -split-input-file --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=FREE
// Past exact-ops (local search from the choice that holds least): within
// the budget too. (`not`: @big, below, fails.)
// RUN: not shard-opt %s -shard-propagate="auto=true memory-budget=65536 exact-ops=0 explain=true" -split-input-file --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=LOCAL
// Past exact-ops, nothing within the budget is not proven: the error says
// the search found none (@big, below).
// RUN: not shard-opt %s -shard-propagate="auto=true memory-budget=65536 exact-ops=0" -split-input-file --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=FOUND
// FOUND: error: 'func.func' op holds more than memory-budget=65536 bytes per rank at some point under every sharding of its ops the search found: the least held found is 131328 bytes per rank at its peak
// The least held an error names is the least peak found, and a budget of it
// holds (it named the peak of the choice holding least summed over the
// function: 232 bytes, where 224 fit; issue 41, item 4):
// RUN: not shard-opt %S/Inputs/least-peak.mlir -shard-propagate="auto=true memory-budget=223" 2>&1 | FileCheck %s --check-prefix=LEAST
// LEAST: error: 'func.func' op holds more than memory-budget=223 bytes per rank at some point under every sharding of its ops (proven): the least held found is 224 bytes per rank at its peak
// RUN: shard-opt %S/Inputs/least-peak.mlir -shard-propagate="auto=true memory-budget=224 explain=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=LEASTFITS
// LEASTFITS: proven optimal: {{.*}}; each rank holds 224 bytes of memory-budget=224
// The optimum without the budget is one of the choices found (its peak,
// 1664 bytes, was not named: 2048, the peak of the choice holding least
// summed; found by a review), and a budget of it holds:
// RUN: not shard-opt %S/Inputs/least-peak-unbudgeted.mlir -shard-propagate="memory-budget=1" 2>&1 | FileCheck %s --check-prefix=UNBUDGETED
// UNBUDGETED: error: 'func.func' op holds more than memory-budget=1 bytes per rank at some point under every sharding of its ops (proven): the least held found is 1664 bytes per rank at its peak
// RUN: shard-opt %S/Inputs/least-peak-unbudgeted.mlir -shard-propagate="memory-budget=1664 explain=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=UNBUDGETEDFITS
// UNBUDGETEDFITS: proven optimal, within the memory budget: {{.*}}; each rank holds 1664 bytes of memory-budget=1664
// A callee searched with its call holds what the call passes and returns
// once (Inputs/memory-call.mlir; counted twice, @one's 32 KiB were 48 KiB
// at least and @two's 36 KiB 64 KiB: refused, "proven"):
// RUN: shard-opt %S/Inputs/memory-call.mlir -shard-propagate="memory-budget=36864 explain=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=CALLS
// CALLS: remark: search=whole chose the shardings of 2 ops {{.*}}; each rank holds 32768 bytes of memory-budget=36864
// CALLS: remark: search=whole chose the shardings of 4 ops {{.*}}; each rank holds 36864 bytes of memory-budget=36864
// RUN: not shard-opt %S/Inputs/memory-call.mlir -shard-propagate="memory-budget=36863" 2>&1 >/dev/null | FileCheck %s --check-prefix=CALLSLEAST
// CALLSLEAST: error: 'func.func' op holds more than memory-budget=36863 bytes per rank at some point under every sharding of its ops (proven): the least held found is 36864 bytes per rank at its peak

// An MLP, x [8x64] cut on its batch rows, W1 [64x256] and W2 [256x64] f32
// (64 KiB each) on 4 ranks: within 64 KiB, both weights are cut as
// Megatron cuts them (W1's columns, W2's rows), x is gathered and the
// output reduced.
#m = #shard.mesh<shape = [4], axes = ["tp"]>
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: %arg1: tensor<64x256xf32> {shard.layout = {{[^}]*}}#layout_S1}
// CHECK-SAME: %arg2: tensor<256x64xf32> {shard.layout = {{[^}]*}}#layout_S0}
// EXPLAIN: remark: search=whole chose the shardings of 7 ops and the layouts of 4 free arguments and results (33 options) by integer program (CBC; copies made from copies{{(, or relayed)?}}), proven optimal: modelled 12.02 us (moves 12.02 us, compute {{.*}} us); each rank holds 41472 bytes of memory-budget=65536
// EXPLAIN: remark: argument #1: kept [S(1)] (moves nothing); best rejected: [R] (+0 us: moves nothing; over memory-budget: each rank would hold 107008 bytes)
// FREE: remark: search=whole chose {{.*}} proven optimal: modelled {{[0-9.e-]+}} us (moves 0 us, compute {{.*}}); each rank holds 137728 bytes
// FREE: remark: argument #1: kept [R] (moves nothing)
// FREE: remark: argument #2: kept [R] (moves nothing)
// LOCAL: remark: search=whole chose {{.*}} by local search {{.*}}, past exact-ops (0) ops, not proven optimal: modelled {{.*}}; each rank holds {{[1-5][0-9][0-9][0-9][0-9]|6[0-4][0-9][0-9][0-9]|65[0-4][0-9][0-9]|655[0-2][0-9]|6553[0-6]}} bytes of memory-budget=65536
func.func @mlp(%x: tensor<8x64xf32> {shard.batch = 0 : i64}, %w1: tensor<64x256xf32>, %w2: tensor<256x64xf32>) -> tensor<8x64xf32>
    attributes {shard.mesh = #m} {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x256xf32>
  %f1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<8x256xf32>) -> tensor<8x256xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x64xf32>, tensor<64x256xf32>) outs(%f1 : tensor<8x256xf32>) -> tensor<8x256xf32>
  %a = arith.maximumf %h, %f1 : tensor<8x256xf32>
  %e2 = tensor.empty() : tensor<8x64xf32>
  %f2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<8x256xf32>, tensor<256x64xf32>) outs(%f2 : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// A pinned replicated tensor of 128 KiB (unused, but held): no sharding
// of the rest fits 64 KiB; the least is x's 131072 bytes and 128 bytes
// each of y's and t's quarter.
#m = #shard.mesh<shape = [4]>
// expected-error @+1 {{'func.func' op holds more than memory-budget=65536 bytes per rank at some point under every sharding of its ops (proven): the least held found is 131328 bytes per rank at its peak (the values live there: each one's block and every copy its ops need)}}
func.func @big(%x: tensor<128x256xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}, %y: tensor<128xf32>) -> tensor<128xf32> {
  %t = math.tanh %y : tensor<128xf32>
  return %t : tensor<128xf32>
}

// -----

// Six tanh in a row on a replicated 16 KiB tensor: each value is dead
// after the next op, so a rank holds at most three at once (x, held
// throughout, and two in flight: 48 KiB), not the seven summed (112 KiB);
// within 64 KiB nothing moves. Within 48 KiB - 1 the chain is cut (x
// sliced for free, gathered at the end: 6 us). (`not`: @big, above, fails.)
// RUN: not shard-opt %s -shard-propagate="memory-budget=65536 explain=true" -split-input-file --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=CHAIN
// RUN: not shard-opt %s -shard-propagate="memory-budget=49151 explain=true" -split-input-file --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=CUT
// CHAIN: remark: search=whole chose the shardings of 6 ops {{.*}} proven optimal, within the memory budget: modelled {{.*}} (moves 0 us, {{.*}}); each rank holds 49152 bytes of memory-budget=65536
// CUT: remark: search=whole chose the shardings of 6 ops {{.*}} proven optimal: modelled 6.082 us (moves 6.082 us, {{.*}}); each rank holds 45056 bytes of memory-budget=49151
#m = #shard.mesh<shape = [4]>
func.func @chain(%x: tensor<64x64xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<64x64xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %t1 = math.tanh %x : tensor<64x64xf32>
  %t2 = math.tanh %t1 : tensor<64x64xf32>
  %t3 = math.tanh %t2 : tensor<64x64xf32>
  %t4 = math.tanh %t3 : tensor<64x64xf32>
  %t5 = math.tanh %t4 : tensor<64x64xf32>
  %t6 = math.tanh %t5 : tensor<64x64xf32>
  return %t6 : tensor<64x64xf32>
}
