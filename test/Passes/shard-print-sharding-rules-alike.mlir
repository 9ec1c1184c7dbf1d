// RUN: shard-opt %s -shard-print-sharding-rules -split-input-file | FileCheck %s
// RuleMemo: a pass computes the rule of ops alike once. Each case has ops
// alike but for one thing that changes their rule; each must get its own.
// (Not read back as shard-print-sharding-rules.mlir's rules are: upstream
// prints and parses a named op's linalg.memoized_indexing_maps back as its
// default maps, so the written rule of @memoized_maps' first op would not
// be its own after the round trip.)

// Ops alike are given one rule, computed once (RuleMemo: equivalent linalg
// ops that read nothing from outside): each op below is alike the one
// before it but in its payload (its uses of its arguments, a constant in
// it) or a scalar it reads from outside, and gets its own rule. %mul2 is
// %mul's twin (its operands swapped, of one type): the same rule.
// CHECK-LABEL: func.func @alike_but_not
// CHECK: %[[ADD:.*]] = linalg.generic {{.*}}linear={{\[\[}}0, 1{{\]\]}}>
// CHECK: %[[MUL:.*]] = linalg.generic {{.*}}linear={{\[\[}}0], [1{{\]\]}}>
// CHECK: %[[SQUARE:.*]] = linalg.generic {{.*}}inits=[2]>}
// CHECK: %[[MUL2:.*]] = linalg.generic {{.*}}linear={{\[\[}}0], [1{{\]\]}}>
// CHECK: %[[SCALED:.*]] = linalg.generic {{.*}}inits=[1] linear={{\[\[}}0{{\]\]}}>
// CHECK: %[[INF:.*]] = linalg.generic {{.*}}inits=[1]>}
// CHECK: %[[OWN:.*]] = linalg.generic {{.*}}inits=[1]>}
// CHECK: %[[OWN2:.*]] = linalg.generic {{.*}}inits=[1] linear={{\[\[}}0{{\]\]}}>
#id = affine_map<(d0) -> (d0)>
func.func @alike_but_not(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %add = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %mul = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %square = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %mul2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%b, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %half = arith.constant 0.5 : f32
  %inf = arith.constant 0x7F800000 : f32
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %half : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %scaledInf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %inf : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %own = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %k = arith.constant 0x7F800000 : f32
    %r = arith.mulf %x, %k : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %own2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %k = arith.constant 0.5 : f32
    %r = arith.mulf %x, %k : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %add, %mul, %square, %mul2, %scaled, %scaledInf, %own, %own2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A discardable attribute another dialect reads as the op's own makes ops
// unalike: a named op's getIndexingMaps returns its
// linalg.memoized_indexing_maps, so the second matvec (its own maps) is
// not given the first's rule (its matrix read transposed).
// CHECK-LABEL: func.func @memoized_maps
// CHECK: linalg.matvec {{.*}}#shard.rule<([d1, d0], [d1], [d0]) -> ([d0])
// CHECK: linalg.matvec {{.*}}#shard.rule<([d0, d1], [d1], [d0]) -> ([d0])
func.func @memoized_maps(%a: tensor<8x8xf32>, %v: tensor<8xf32>, %o: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = linalg.matvec {linalg.memoized_indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>]} ins(%a, %v : tensor<8x8xf32>, tensor<8xf32>) outs(%o : tensor<8xf32>) -> tensor<8xf32>
  %1 = linalg.matvec ins(%a, %v : tensor<8x8xf32>, tensor<8xf32>) outs(%o : tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
