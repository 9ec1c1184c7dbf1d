// -shard-propagate=auto=true: a function that carries a mesh (shard.mesh)
// gets every layout chosen by search=whole; an argument's shard.batch cuts
// that dim on the mesh's first axis.
// RUN: shard-opt %s -shard-propagate=auto=true -split-input-file -verify-diagnostics | FileCheck %s

// Only a mesh and the batch dim: x's rows are cut on dp; the search picks
// the rest (here, with no memory budget, every op on the batch rows over
// both axes and the weight whole: nothing moves).
#m = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: %arg0: tensor<16x8xf32> {shard.batch = 0 : i64, shard.layout = #layout_S0_{{[A-Za-z0-9]*}}}
// CHECK-SAME: %arg1: tensor<8x4xf32> {shard.layout =
// CHECK-SAME: -> (tensor<16x4xf32> {shard.layout =
func.func @mlp(%x: tensor<16x8xf32> {shard.batch = 0 : i64}, %w: tensor<8x4xf32>) -> tensor<16x4xf32>
    attributes {shard.mesh = #m} {
  %e = tensor.empty() : tensor<16x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x8xf32>, tensor<8x4xf32>) outs(%e : tensor<16x4xf32>) -> tensor<16x4xf32>
  return %y : tensor<16x4xf32>
}

// -----

// A function without shard.mesh and without layouts is left alone.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: shard.layout
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.tanh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op has shard.mesh = 3 : i64, which is not a #shard.mesh}}
func.func @notmesh(%x: tensor<4xf32>) -> tensor<4xf32> attributes {shard.mesh = 3} {
  return %x : tensor<4xf32>
}

// -----

#a = #shard.mesh<shape = [2]>
#b = #shard.mesh<shape = [4]>
// expected-error @+1 {{'func.func' op has shard.mesh = #shard.mesh<shape = [4]> but its pinned layouts are on #shard.mesh<shape = [2]>}}
func.func @two(%x: tensor<4xf32> {shard.layout = #shard.placements<mesh = #a, placements = [S(0)]>}) -> tensor<4xf32> attributes {shard.mesh = #b} {
  return %x : tensor<4xf32>
}

// -----

#m = #shard.mesh<shape = [2, 2]>
// expected-error @+1 {{'func.func' op argument #0 has shard.batch = 0 : i64; it must name a dim of more than one element (0 to 1) for the first axis of a mesh whose first axis has more than one device}}
func.func @unit(%x: tensor<1x8xf32> {shard.batch = 0 : i64}) -> tensor<1x8xf32> attributes {shard.mesh = #m} {
  %y = math.tanh %x : tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// A dynamic batch is cut as hinted (torch.chunk of its run-time extent).
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @dynamic_batch(
// CHECK-SAME: tensor<?x8xf32> {shard.batch = 0 : i64, shard.layout = #layout_S0}) -> (tensor<?x8xf32> {shard.layout = #layout_S0})
func.func @dynamic_batch(%x: tensor<?x8xf32> {shard.batch = 0 : i64}) -> tensor<?x8xf32> attributes {shard.mesh = #m} {
  %y = math.tanh %x : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// A dynamic dim may be cut too: auto counts it as 64 rows (the nominal
// extent), more than the static dim's 8.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @dynamic_auto(
// CHECK-SAME: tensor<?x8xf32> {shard.layout = #layout_S0}
func.func @dynamic_auto(%x: tensor<?x8xf32>) -> tensor<?x8xf32> attributes {shard.mesh = #m} {
  %y = math.tanh %x : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// An op without a sharding rule that is the same op on whole tensors
// (tosa.rfft2d: no regions, no memory effects, static shapes): auto=true
// runs it whole on every rank and writes that rule on it (no loop, every
// tensor whole), read as any written rule; the rest is still sharded.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @ruleless
// CHECK: tosa.rfft2d {{.*}}shard.sharding_rule = #shard.rule<([_, _, _]) -> ([_, _, _], [_, _, _]) {}>
// CHECK: tosa.add {{.*}}shard.sharding = #shard.sharding<mesh = #mesh, loops = [d1]>
func.func @ruleless(%x: tensor<1x4x8xf32>, %y: tensor<1x4x5xf32>) -> tensor<1x4x5xf32> attributes {shard.mesh = #m} {
  // expected-warning @+1 {{'tosa.rfft2d' op has no sharding rule: auto=true runs it whole on every rank (its tensors gathered first) and writes that rule on it (shard.sharding_rule); give it a rule of its own to cut it (ShardingRuleOpInterface, docs/partition.md)}}
  %re, %im = tosa.rfft2d %x : (tensor<1x4x8xf32>) -> (tensor<1x4x5xf32>, tensor<1x4x5xf32>)
  %1 = tosa.add %re, %y : (tensor<1x4x5xf32>, tensor<1x4x5xf32>) -> tensor<1x4x5xf32>
  return %1 : tensor<1x4x5xf32>
}

// -----

// An op without a rule that is not the same op on whole tensors (one with
// regions: tosa.cond_if): auto=true leaves the function as written, every
// rank running all of it, and says so.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @branchy
// CHECK-NOT: shard.layout
// CHECK-NOT: shard.constraint
func.func @branchy(%x: tensor<4x6xf32>, %y: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {shard.mesh = #m} {
  %c = "tosa.const"() <{values = dense<true> : tensor<i1>}> : () -> tensor<i1>
  // expected-warning @+1 {{'tosa.cond_if' op has no sharding rule: auto=true leaves its function as written, every rank running all of it (give the op a rule: ShardingRuleOpInterface or a written shard.sharding_rule, docs/partition.md)}}
  %r = tosa.cond_if %c : tensor<i1> -> tensor<4x6xf32> {
    %s = tosa.add %x, %y : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    tosa.yield %s : tensor<4x6xf32>
  } else {
    %s = tosa.sub %x, %y : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    tosa.yield %s : tensor<4x6xf32>
  }
  return %r : tensor<4x6xf32>
}

// -----

// An op whose rule refuses it (a slice of a stride only the run time
// knows): the same, the refusal said as a warning, not an error.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @refused
// CHECK-NOT: shard.layout
// CHECK-NOT: shard.constraint
func.func @refused(%x: tensor<8x4xf32>, %i: index) -> tensor<2x4xf32> attributes {shard.mesh = #m} {
  %y = arith.addf %x, %x : tensor<8x4xf32>
  // expected-warning @+1 {{'tensor.extract_slice' op has dynamic strides; sharding needs static ones: auto=true leaves its function as written, every rank running all of it}}
  %s = tensor.extract_slice %y[0, 0] [2, 4] [%i, 1] : tensor<8x4xf32> to tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

// -----

// ... but not where it calls a function its own search shards: the call
// would pass its tensors in that function's layouts. An error, not a
// warning followed by one.
#m = #shard.mesh<shape = [2]>
func.func @helper(%a: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {shard.mesh = #m} {
  %r = math.exp %a : tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func @branchy_caller(%x: tensor<4x6xf32>, %y: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {shard.mesh = #m} {
  %c = "tosa.const"() <{values = dense<true> : tensor<i1>}> : () -> tensor<i1>
  // expected-error @+1 {{'tosa.cond_if' op has no sharding rule: auto=true cannot leave its function as written, which calls @helper, sharded by its own search (its tensors would reach the call in its layouts); give the op a rule, or take shard.mesh off @helper}}
  %r = tosa.cond_if %c : tensor<i1> -> tensor<4x6xf32> {
    %s = tosa.add %x, %y : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    tosa.yield %s : tensor<4x6xf32>
  } else {
    %s = tosa.sub %x, %y : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    tosa.yield %s : tensor<4x6xf32>
  }
  %h = func.call @helper(%r) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %h : tensor<4x6xf32>
}

// -----

// Both kinds in one function: the one with regions keeps the function as
// written (the warning names it, not the rfft2d), and no rule is written.
#m = #shard.mesh<shape = [2]>
// CHECK-LABEL: func.func @mixed
// CHECK-NOT: shard.sharding_rule
// CHECK-NOT: shard.layout
func.func @mixed(%values: tensor<1x4x8xf32>, %x: tensor<4x6xf32>) -> (tensor<1x4x5xf32>, tensor<4x6xf32>) attributes {shard.mesh = #m} {
  %0, %im = tosa.rfft2d %values : (tensor<1x4x8xf32>) -> (tensor<1x4x5xf32>, tensor<1x4x5xf32>)
  %c = "tosa.const"() <{values = dense<true> : tensor<i1>}> : () -> tensor<i1>
  // expected-warning @+1 {{'tosa.cond_if' op has no sharding rule: auto=true leaves its function as written}}
  %r = tosa.cond_if %c : tensor<i1> -> tensor<4x6xf32> {
    %s = tosa.add %x, %x : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    tosa.yield %s : tensor<4x6xf32>
  } else {
    tosa.yield %x : tensor<4x6xf32>
  }
  return %0, %r : tensor<1x4x5xf32>, tensor<4x6xf32>
}

// -----

// On a 128x128 mesh the search would plan 72 pairs of layouts listing
// 16,384 devices' blocks each (past 2^20 in all: seconds to hours): the
// function stays as written, and auto=true says so.
#big = #shard.mesh<shape = [128, 128]>
// CHECK-LABEL: func.func @hugeMesh
// CHECK-NOT: shard.layout
// expected-warning @+1 {{auto=true leaves this function as written, every rank running all of it: search=whole cannot search it (planning the moves between its values' layouts would list the blocks of its mesh's 16384 devices for 72 pairs of layouts (past 1048576 devices' blocks in all))}}
func.func @hugeMesh(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> attributes {shard.mesh = #big} {
  %0 = arith.addf %a, %b : tensor<256x256xf32>
  %1 = arith.mulf %0, %a : tensor<256x256xf32>
  return %1 : tensor<256x256xf32>
}

// -----

// An op without a rule inside a payload (a wrapped scalar reinterpreted)
// is the element's own: auto=true neither warns about it nor writes a rule
// on it, and the rows are cut as the generic's own rule allows.
#m = #shard.mesh<shape = [2], axes = ["x"]>
// CHECK-LABEL: func.func @payload_without_rule
// CHECK-SAME: shard.layout = #layout_S0
// CHECK-NOT: shard.sharding_rule
// CHECK: return
func.func @payload_without_rule(%x: tensor<6x4xi32> {shard.batch = 0 : i64}) -> tensor<6x4xi32> attributes {shard.mesh = #m} {
  %e1 = tensor.empty() : tensor<6x4xi32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<6x4xi32>) outs(%e1 : tensor<6x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %t = tensor.from_elements %a : tensor<1xi32>
    %b = tensor.bitcast %t : tensor<1xi32> to tensor<1xui32>
    %c0 = arith.constant 0 : index
    %v = tensor.extract %b[%c0] : tensor<1xui32>
    %w = builtin.unrealized_conversion_cast %v : ui32 to i32
    linalg.yield %w : i32
  } -> tensor<6x4xi32>
  return %y : tensor<6x4xi32>
}

// -----

// A function without a mesh that calls one with a mesh gets layouts through
// the call (its result's): its ops without a rule that are the same op on
// whole tensors run whole there too, with the same warning (before: refused,
// "'<op>' op has no sharding rule, and its function gets layouts", for a
// function that asked for nothing; tpp-mlir's Integration programs).
#m = #shard.mesh<shape = [4], axes = ["q"]>
func.func @meshed_callee(%a: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> attributes {shard.mesh = #m} {
  %b = tosa.add %a, %a : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %b : tensor<2x8x8xf32>
}
// CHECK-LABEL: func.func @plain_caller
// CHECK: tosa.rfft2d {{.*}}shard.sharding_rule = #shard.rule<([_, _, _]) -> ([_, _, _], [_, _, _]) {}>
func.func @plain_caller(%x: tensor<2x8x8xf32>) -> tensor<2x8x5xf32> {
  %1 = call @meshed_callee(%x) : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  // expected-warning @+1 {{'tosa.rfft2d' op has no sharding rule: auto=true runs it whole on every rank (its tensors gathered first) and writes that rule on it (shard.sharding_rule); give it a rule of its own to cut it (ShardingRuleOpInterface, docs/partition.md)}}
  %re, %im = tosa.rfft2d %1 : (tensor<2x8x8xf32>) -> (tensor<2x8x5xf32>, tensor<2x8x5xf32>)
  return %re : tensor<2x8x5xf32>
}

// -----

// Not where it also calls a function with neither mesh nor layouts (whose
// result would stay without a layout in a function that has them): the op
// is refused there, as before.
#m = #shard.mesh<shape = [4], axes = ["q"]>
func.func @meshed_callee(%a: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> attributes {shard.mesh = #m} {
  %b = tosa.add %a, %a : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %b : tensor<2x8x8xf32>
}
func.func @plain_callee(%s: f32) -> tensor<6x9xf32> {
  %b = tensor.empty() : tensor<6x9xf32>
  %o = linalg.fill ins(%s : f32) outs(%b : tensor<6x9xf32>) -> tensor<6x9xf32>
  return %o : tensor<6x9xf32>
}
func.func @mixed_caller(%x: tensor<2x8x8xf32>) -> (tensor<2x8x5xf32>, tensor<6x9xf32>) {
  %d = arith.constant -1.0 : f32
  %1 = call @meshed_callee(%x) : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  // expected-error @+1 {{'tosa.rfft2d' op has no sharding rule, and its function gets layouts; give it one (ShardingRuleOpInterface or a written shard.sharding_rule, docs/partition.md) or keep layouts out of this function}}
  %re, %im = tosa.rfft2d %1 : (tensor<2x8x8xf32>) -> (tensor<2x8x5xf32>, tensor<2x8x5xf32>)
  %2 = call @plain_callee(%d) : (f32) -> tensor<6x9xf32>
  return %re, %2 : tensor<2x8x5xf32>, tensor<6x9xf32>
}

// -----

// A free argument of quantized elements, which no sharded tensor holds:
// refused (before: a crash sizing its elements).
#m = #shard.mesh<shape = [2], axes = ["x"]>
// expected-error @+1 {{'func.func' op gets layouts and has argument #0 of type 'tensor<4x8x!quant.uniform<i8:f32, 1.000000e-02>>', whose elements no sharded tensor holds (integers, floats, index and complex numbers); keep layouts out of this function}}
func.func @quantized(%q: tensor<4x8x!quant.uniform<i8:f32, 0.01>>) -> tensor<4x8x!quant.uniform<i8:f32, 0.01>> attributes {shard.mesh = #m} {
  %c = tosa.clamp %q {min_val = 0 : i8, max_val = 1 : i8} : (tensor<4x8x!quant.uniform<i8:f32, 0.01>>) -> tensor<4x8x!quant.uniform<i8:f32, 0.01>>
  return %c : tensor<4x8x!quant.uniform<i8:f32, 0.01>>
}
