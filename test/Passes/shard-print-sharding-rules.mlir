// RUN: shard-opt %s -shard-print-sharding-rules -split-input-file -verify-diagnostics | FileCheck %s
//
// Each op's sharding rule (rules/), spelled as -shard-print-sharding-rules
// attaches it: per tensor operand and per result the loop that indexes
// each dim ("_": none alone; "-": not a tensor), the loops' sizes, the
// reduction loops and combiners, the loops that may not be sharded and why,
// and the operand that holds each result's initial value. Scalar ops (a
// payload's, a scalar constant) have none.

// CHECK-LABEL: func.func @matmul_chain
// CHECK: arith.constant 0.0{{.*}} : f32
// CHECK-NOT: sharding_rule
// CHECK: tensor.empty() {shard.sharding_rule = "() -> ([i, j]) {i=8, j=16}"}
// CHECK: linalg.fill {{.*}}shard.sharding_rule = "(-, [i, j]) -> ([i, j]) {i=8, j=16} inits=[1]"
// CHECK: linalg.matmul {{.*}}shard.sharding_rule = "([i, k], [k, j], [i, j]) -> ([i, j]) {i=8, j=16, k=4} reduction={k} combiners=[sum] inits=[2]"
// CHECK: arith.addf {{.*}}{shard.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=8, j=16}"}
// CHECK: arith.select {{.*}}{shard.sharding_rule = "(-, [i, j], [i, j]) -> ([i, j]) {i=8, j=16}"}
// CHECK: arith.constant {shard.sharding_rule = "() -> ([i]) {i=8}"} dense<1.0
// CHECK: linalg.generic {{.*}}shard.sharding_rule = "([i, j], [i]) -> ([i]) {i=8, j=16} reduction={j} combiners=[max] inits=[1]"
// CHECK-NOT: sharding_rule
// CHECK: arith.maximumf
// CHECK-NOT: sharding_rule
// CHECK: linalg.yield
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @matmul_chain(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: i1) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = arith.addf %m, %m : tensor<8x16xf32>
  %sel = arith.select %c, %s, %m : tensor<8x16xf32>
  %ones = arith.constant dense<1.0> : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sel : tensor<8x16xf32>) outs(%ones : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %mx = arith.maximumf %in, %out : f32
    linalg.yield %mx : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A convolution's window loops index the input through sums: they may not
// be sharded, nor may the output dims they are summed with.
// CHECK-LABEL: func.func @conv
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}}shard.sharding_rule = "([i, _, _, o], [m, n, o, l], [i, j, k, l]) -> ([i, j, k, l]) {i=1, j=4, k=4, l=5, m=3, n=3, o=3} reduction={m, n, o} combiners=[sum] unshardable={j: operand #0 is indexed by d1 + d4; k: operand #0 is indexed by d2 + d5; m: operand #0 is indexed by d1 + d4; n: operand #0 is indexed by d2 + d5} inits=[2]"
func.func @conv(%x: tensor<1x6x6x3xf32>, %w: tensor<3x3x3x5xf32>, %o: tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32> {
  %c = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x6x6x3xf32>, tensor<3x3x3x5xf32>) outs(%o : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  return %c : tensor<1x4x4x5xf32>
}

// -----

// A reduction whose payload is no known combiner may not be sharded; a
// broadcast operand's missing dim is indexed by no loop of its own.
// CHECK-LABEL: func.func @unknown_combiner
// CHECK: linalg.generic {{.*}}shard.sharding_rule = "([i, j], [i]) -> ([i]) {i=8, j=16} reduction={j} unshardable={j: result #0 is not combined by add, mul, max or min} inits=[1]"
// CHECK: linalg.generic {{.*}}shard.sharding_rule = "([j], [i, j]) -> ([i, j]) {i=8, j=16} inits=[1]"
// CHECK: linalg.generic {{.*}}shard.sharding_rule = "([_, j], [i, j]) -> ([i, j]) {i=8, j=16} inits=[1]"
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#col2 = affine_map<(d0, d1) -> (d1)>
#first = affine_map<(d0, d1) -> (0, d1)>
func.func @unknown_combiner(%x: tensor<8x16xf32>, %init: tensor<8xf32>, %b: tensor<16xf32>, %one: tensor<1x16xf32>) -> (tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %r = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.subf %out, %in : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  %bc = linalg.generic {indexing_maps = [#col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<16xf32>) outs(%x : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x16xf32>
  %row = linalg.generic {indexing_maps = [#first, #id2], iterator_types = ["parallel", "parallel"]} ins(%one : tensor<1x16xf32>) outs(%x : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x16xf32>
  return %r, %bc, %row : tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// Reshapes: one loop per expanded dim; a folded dim is indexed by its
// group's outermost loop of more than one step, with the inner product as
// its factor (j*4: each head step covers 4 features); the other loops of
// the group, unit ones included, may not be sharded, nor may those of a
// collapse to rank 0.
// CHECK-LABEL: func.func @reshapes
// CHECK: tensor.expand_shape {{.*}}shard.sharding_rule = "([i, j]) -> ([i, j, k]) {i=2, j=3, k=4} unshardable={k: it is not the outer factor of the folded dim 1 of the reshape's collapsed tensor} folds={j*4}"
// CHECK: tensor.collapse_shape {{.*}}shard.sharding_rule = "([i, j]) -> ([]) {i=1, j=1} unshardable={i: the reshape's collapsed tensor has no dims; j: the reshape's collapsed tensor has no dims}"
// CHECK: tensor.collapse_shape {{.*}}shard.sharding_rule = "([i, j, k]) -> ([i, j]) {i=8, j=4, k=1} unshardable={k: it is not the outer factor of the folded dim 1 of the reshape's collapsed tensor}"
// CHECK: tensor.expand_shape {{.*}}shard.sharding_rule = "([j, k]) -> ([i, j, k]) {i=1, j=2, k=12} unshardable={i: it is not the outer factor of the folded dim 0 of the reshape's collapsed tensor}"
// CHECK: tensor.collapse_shape {{.*}}shard.sharding_rule = "([i, j, k]) -> ([i, j]) {i=1, j=2, k=12} unshardable={k: it is not the outer factor of the folded dim 1 of the reshape's collapsed tensor} folds={j*12}"
func.func @reshapes(%a: tensor<2x12xf32>, %b: tensor<1x1xf32>, %c: tensor<8x4x1xf32>) -> (tensor<2x3x4xf32>, tensor<f32>, tensor<8x4xf32>, tensor<1x24xf32>) {
  %e = tensor.expand_shape %a [[0], [1, 2]] output_shape [2, 3, 4] : tensor<2x12xf32> into tensor<2x3x4xf32>
  %s = tensor.collapse_shape %b [] : tensor<1x1xf32> into tensor<f32>
  %u = tensor.collapse_shape %c [[0], [1, 2]] : tensor<8x4x1xf32> into tensor<8x4xf32>
  %f = tensor.expand_shape %a [[0, 1], [2]] output_shape [1, 2, 12] : tensor<2x12xf32> into tensor<1x2x12xf32>
  %g = tensor.collapse_shape %f [[0], [1, 2]] : tensor<1x2x12xf32> into tensor<1x24xf32>
  return %e, %s, %u, %g : tensor<2x3x4xf32>, tensor<f32>, tensor<8x4xf32>, tensor<1x24xf32>
}

// -----

// A reshape of a dynamic shape has no rule.
func.func @dynamic_reshape(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'tensor.collapse_shape' op has a tensor of dynamic shape 'tensor<?x4xf32>'; sharding needs static shapes}}
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  return %c : tensor<?xf32>
}

// -----

// TOSA: constants take any layout; elementwise ops index equal dims by the
// result's loops, and a broadcast (size-1) dim or another rank's operand
// (tosa.mul's shift) by none; tosa.matmul sums over its reduction loop.
// CHECK-LABEL: func.func @tosa
// CHECK: "tosa.const"() {{.*}}shard.sharding_rule = "() -> ([i]) {i=1}"
// CHECK: "tosa.const"() {{.*}}shard.sharding_rule = "() -> ([i]) {i=1}"
// CHECK: tosa.add {{.*}}shard.sharding_rule = "([i, j], [_, j]) -> ([i, j]) {i=8, j=10}"
// CHECK: tosa.sigmoid {{.*}}shard.sharding_rule = "([i, j]) -> ([i, j]) {i=8, j=10}"
// CHECK: tosa.mul {{.*}}shard.sharding_rule = "([i, j], [i, j], [_]) -> ([i, j]) {i=8, j=10}"
// CHECK: tosa.matmul {{.*}}shard.sharding_rule = "([i, j, l], [i, l, k], [_], [_]) -> ([i, j, k]) {i=2, j=8, k=6, l=12} reduction={l} combiners=[sum]"
func.func @tosa(%x: tensor<8x10xf32>, %b: tensor<1x10xf32>, %a: tensor<2x8x12xf32>, %w: tensor<2x12x6xf32>) -> (tensor<8x10xf32>, tensor<2x8x6xf32>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %h = tosa.add %x, %b : (tensor<8x10xf32>, tensor<1x10xf32>) -> tensor<8x10xf32>
  %s = tosa.sigmoid %h : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %m = tosa.mul %h, %s, %shift : (tensor<8x10xf32>, tensor<8x10xf32>, tensor<1xi8>) -> tensor<8x10xf32>
  %c = tosa.matmul %a, %w, %zp, %zp : (tensor<2x8x12xf32>, tensor<2x12x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x6xf32>
  return %m, %c : tensor<8x10xf32>, tensor<2x8x6xf32>
}

// -----

// tensor.extract_slice: a source dim taken whole is indexed by its result
// dim's loop; a sliced, strided or dropped one by none. A sliced or strided
// one is the window of its result dim's loop (kept cut when it is, for the
// hook to move only the window); a dropped one is no window.
// CHECK-LABEL: func.func @slices
// CHECK: tensor.extract_slice {{.*}}shard.sharding_rule = "([i, _]) -> ([i, j]) {i=10, j=6} windows={#0 [_, j]}"
// CHECK: tensor.extract_slice {{.*}}shard.sharding_rule = "([_, i]) -> ([i]) {i=16}"
// CHECK: tensor.extract_slice {{.*}}shard.sharding_rule = "([_, _]) -> ([i, j]) {i=5, j=8} windows={#0 [i, j]}"
func.func @slices(%x: tensor<10x16xf32>) -> (tensor<10x6xf32>, tensor<16xf32>, tensor<5x8xf32>) {
  %a = tensor.extract_slice %x[0, 3] [10, 6] [1, 1] : tensor<10x16xf32> to tensor<10x6xf32>
  %d = tensor.extract_slice %x[2, 0] [1, 16] [1, 1] : tensor<10x16xf32> to tensor<16xf32>
  %s = tensor.extract_slice %x[0, 0] [5, 8] [2, 2] : tensor<10x16xf32> to tensor<5x8xf32>
  return %a, %d, %s : tensor<10x6xf32>, tensor<16xf32>, tensor<5x8xf32>
}

// -----

// bufferization.materialize_in_destination into a tensor: source,
// destination and result alike; into a memref: no rule.
// CHECK-LABEL: func.func @materialize
// CHECK: bufferization.materialize_in_destination {{.*}}shard.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=10, j=4}"
func.func @materialize(%x: tensor<10x4xf32>, %out: tensor<10x4xf32>) -> tensor<10x4xf32> {
  %r = bufferization.materialize_in_destination %x in %out : (tensor<10x4xf32>, tensor<10x4xf32>) -> tensor<10x4xf32>
  return %r : tensor<10x4xf32>
}

// -----

func.func @materialize_into_memref(%x: tensor<10x4xf32>, %out: memref<10x4xf32>) {
  // expected-error @+1 {{'bufferization.materialize_in_destination' op writes into 'memref<10x4xf32>'; a sharding rule needs a tensor destination}}
  bufferization.materialize_in_destination %x in restrict writable %out : (tensor<10x4xf32>, memref<10x4xf32>) -> ()
  return
}

// -----

// An op whose rule cannot be made: its error, and the pass fails.
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'arith.negf' op has a result of dynamic shape 'tensor<?x4xf32>'; sharding needs static shapes}}
  %n = arith.negf %x : tensor<?x4xf32>
  return %n : tensor<?x4xf32>
}

// -----

// tensor.pad, tensor.insert_slice, tensor.concat: a dim left as it is
// (unpadded, inserted whole, not concatenated) is indexed by its loop in
// every tensor; a dim placed into by none in the placed tensor, whose dim
// is the window of the result dim's loop.
// tensor.cast: the shape either side names. tensor.extract / tensor.insert
// of a scalar: no loop, the tensor whole.
// CHECK-LABEL: func.func @place
// CHECK: } {shard.sharding_rule = "([i, _]) -> ([i, j]) {i=10, j=21} windows={#0 [_, j]}"}
// CHECK: } {shard.sharding_rule = "([i, j]) -> ([i, j]) {i=10, j=16} unshardable={i: its padding value depends on the index; j: its padding value depends on the index}"}
// CHECK: tensor.insert_slice {{.*}}shard.sharding_rule = "([_, j], [i, j]) -> ([i, j]) {i=12, j=16} windows={#0 [i, _]} inits=[1]"
// CHECK: tensor.insert_slice {{.*}}shard.sharding_rule = "([j], [i, j]) -> ([i, j]) {i=12, j=16} inits=[1]"
// CHECK: tensor.concat {{.*}}shard.sharding_rule = "([_, j], [_, j]) -> ([i, j]) {i=13, j=16} windows={#0 [i, _]; #1 [i, _]}"
// CHECK: tensor.concat {{.*}}shard.sharding_rule = "([i, _], [i, _]) -> ([i, j]) {i=10, j=32} windows={#0 [_, j]; #1 [_, j]}"
// CHECK: tensor.cast {{.*}}shard.sharding_rule = "([i, j]) -> ([i, j]) {i=10, j=16}"
// CHECK: tensor.extract {{.*}}shard.sharding_rule = "([_, _], -, -) -> (-) {}"}
// CHECK: tensor.insert {{.*}}shard.sharding_rule = "(-, [_, _], -, -) -> ([_, _]) {} inits=[1]"}
func.func @place(%x: tensor<10x16xf32>, %y: tensor<3x16xf32>, %s: tensor<5x16xf32>, %big: tensor<12x16xf32>, %row: tensor<16xf32>, %i: index, %j: index)
    -> (tensor<10x21xf32>, tensor<10x16xf32>, tensor<12x16xf32>, tensor<12x16xf32>, tensor<13x16xf32>, tensor<10x32xf32>, tensor<10x16xf32>) {
  %cst = arith.constant 0.5 : f32
  %p = tensor.pad %x low[0, 2] high[0, 3] {
  ^bb0(%a: index, %b: index):
    tensor.yield %cst : f32
  } : tensor<10x16xf32> to tensor<10x21xf32>
  %q = tensor.pad %x low[0, 0] high[0, 0] {
  ^bb0(%a: index, %b: index):
    %f = arith.index_cast %a : index to i32
    %g = arith.sitofp %f : i32 to f32
    tensor.yield %g : f32
  } : tensor<10x16xf32> to tensor<10x16xf32>
  %i1 = tensor.insert_slice %s into %big[1, 0] [5, 16] [2, 1] : tensor<5x16xf32> into tensor<12x16xf32>
  %i2 = tensor.insert_slice %row into %big[3, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<12x16xf32>
  %c1 = tensor.concat dim(0) %x, %y : (tensor<10x16xf32>, tensor<3x16xf32>) -> tensor<13x16xf32>
  %c2 = tensor.concat dim(1) %x, %x : (tensor<10x16xf32>, tensor<10x16xf32>) -> tensor<10x32xf32>
  %k = tensor.cast %x : tensor<10x16xf32> to tensor<10x16xf32>
  %e = tensor.extract %x[%i, %j] : tensor<10x16xf32>
  %n = tensor.insert %e into %k[%i, %j] : tensor<10x16xf32>
  return %p, %q, %i1, %i2, %c1, %c2, %n : tensor<10x21xf32>, tensor<10x16xf32>, tensor<12x16xf32>, tensor<12x16xf32>, tensor<13x16xf32>, tensor<10x32xf32>, tensor<10x16xf32>
}

// -----

func.func @dynamic_insert_slice(%s: tensor<5x16xf32>, %big: tensor<12x16xf32>, %i: index) -> tensor<12x16xf32> {
  // expected-error @+1 {{'tensor.insert_slice' op has dynamic shapes, offsets, sizes or strides; sharding needs them static}}
  %r = tensor.insert_slice %s into %big[%i, 0] [5, 16] [2, 1] : tensor<5x16xf32> into tensor<12x16xf32>
  return %r : tensor<12x16xf32>
}

// -----

func.func @dynamic_pad(%x: tensor<10x16xf32>, %l: index) -> tensor<?x16xf32> {
  %cst = arith.constant 0.5 : f32
  // expected-error @+1 {{'tensor.pad' op has dynamic shapes or padding; sharding needs them static}}
  %p = tensor.pad %x low[%l, 0] high[0, 0] {
  ^bb0(%a: index, %b: index):
    tensor.yield %cst : f32
  } : tensor<10x16xf32> to tensor<?x16xf32>
  return %p : tensor<?x16xf32>
}

// -----

func.func @dynamic_concat(%x: tensor<?x16xf32>, %y: tensor<3x16xf32>) -> tensor<?x16xf32> {
  // expected-error @+1 {{'tensor.concat' op has tensors of dynamic shape; sharding needs static shapes}}
  %c = tensor.concat dim(0) %x, %y : (tensor<?x16xf32>, tensor<3x16xf32>) -> tensor<?x16xf32>
  return %c : tensor<?x16xf32>
}

// -----

func.func @dynamic_cast(%x: tensor<?x16xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tensor.cast' op leaves dim 0 dynamic on both sides ('tensor<?x16xf32>' to 'tensor<?x?xf32>'); sharding needs static shapes}}
  %c = tensor.cast %x : tensor<?x16xf32> to tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

func.func @unranked_cast(%x: tensor<10x16xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'tensor.cast' op casts an unranked tensor; sharding needs static shapes}}
  %c = tensor.cast %x : tensor<10x16xf32> to tensor<*xf32>
  return %c : tensor<*xf32>
}

// -----

func.func @dynamic_softmax(%x: tensor<?x6xf32>, %e: tensor<?x6xf32>) -> tensor<?x6xf32> {
  // expected-error @+1 {{'linalg.softmax' op has an input of dynamic shape 'tensor<?x6xf32>'; sharding needs static shapes}}
  %s = linalg.softmax dimension(1) ins(%x : tensor<?x6xf32>) outs(%e : tensor<?x6xf32>) -> tensor<?x6xf32>
  return %s : tensor<?x6xf32>
}

// -----

// tensor.dim: the tensor in any layout. A pad whose value is read from a
// tensor outside it: that tensor needed whole (the rule adds what an op's
// regions read from outside it when the op's own rule does not list it).
// CHECK-LABEL: func.func @dim_and_captured_pad
// CHECK: tensor.dim {{.*}}shard.sharding_rule = "([i, j], -) -> (-) {i=5, j=3}"
// CHECK: } {shard.sharding_rule = "([_, j], -, -; captures [_, _]) -> ([i, j]) {i=8, j=3} windows={#0 [i, _]}"}
func.func @dim_and_captured_pad(%b: tensor<5x3xf32>, %t: tensor<3x3xf32>) -> (index, tensor<8x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = tensor.dim %b, %c0 : tensor<5x3xf32>
  %q = tensor.pad %b low[%c1, 0] high[%c2, 0] {
  ^bb0(%i: index, %j: index):
    %v = tensor.extract %t[%c1, %c1] : tensor<3x3xf32>
    tensor.yield %v : f32
  } : tensor<5x3xf32> to tensor<8x3xf32>
  return %d, %q : index, tensor<8x3xf32>
}

// -----

// TOSA's shape ops: tosa.transpose (the input's dims follow the
// permutation), tosa.reduce_* (the axis a reduction with its combiner, the
// kept unit dim indexed by none), tosa.reshape (a split or fold: the rule
// of expand_shape / collapse_shape; any other: every dim whole).
// CHECK-LABEL: func.func @tosa_shapes
// CHECK: tosa.reshape {{.*}}shard.sharding_rule = "([i, j], -) -> ([i, j, k]) {i=8, j=4, k=4} unshardable={k: it is not the outer factor of the folded dim 1 of the reshape's collapsed tensor} folds={j*4}"
// CHECK: tosa.transpose {{.*}}shard.sharding_rule = "([j, i, k]) -> ([i, j, k]) {i=4, j=8, k=4}"
// CHECK: tosa.reduce_sum {{.*}}shard.sharding_rule = "([i, j, k]) -> ([i, _, k]) {i=4, j=8, k=4} reduction={j} combiners=[sum]"
// CHECK: tosa.reduce_max {{.*}}shard.sharding_rule = "([i, j]) -> ([_, j]) {i=6, j=10} reduction={i} combiners=[max]"
// CHECK: tosa.reshape {{.*}}shard.sharding_rule = "([_, _], -) -> ([i, j]) {i=10, j=6} unshardable={i: the reshape neither folds nor splits dims; j: the reshape neither folds nor splits dims}"
func.func @tosa_shapes(%x: tensor<8x16xf32>, %y: tensor<6x10xf32>) -> (tensor<4x1x4xf32>, tensor<1x10xf32>, tensor<10x6xf32>) {
  %s3 = tosa.const_shape {values = dense<[8, 4, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %h = tosa.reshape %x, %s3 : (tensor<8x16xf32>, !tosa.shape<3>) -> tensor<8x4x4xf32>
  %t = tosa.transpose %h {perms = array<i32: 1, 0, 2>} : (tensor<8x4x4xf32>) -> tensor<4x8x4xf32>
  %r = tosa.reduce_sum %t {axis = 1 : i32} : (tensor<4x8x4xf32>) -> tensor<4x1x4xf32>
  %m = tosa.reduce_max %y {axis = 0 : i32} : (tensor<6x10xf32>) -> tensor<1x10xf32>
  %s2 = tosa.const_shape {values = dense<[10, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %q = tosa.reshape %y, %s2 : (tensor<6x10xf32>, !tosa.shape<2>) -> tensor<10x6xf32>
  return %r, %m, %q : tensor<4x1x4xf32>, tensor<1x10xf32>, tensor<10x6xf32>
}

// -----

// tosa.gather: loops n, w, c and the picked rows k, summed.
// CHECK-LABEL: func.func @tosa_gather
// CHECK: tosa.gather {{.*}}shard.sharding_rule = "([i, l, k], [i, j]) -> ([i, j, k]) {i=1, j=16, k=8, l=100} reduction={l} combiners=[sum]"
func.func @tosa_gather(%t: tensor<1x100x8xf32>, %x: tensor<1x16xi32>) -> tensor<1x16x8xf32> {
  %e = tosa.gather %t, %x : (tensor<1x100x8xf32>, tensor<1x16xi32>) -> tensor<1x16x8xf32>
  return %e : tensor<1x16x8xf32>
}

// -----

// Rules need static shapes: each rule names what it found dynamic.
func.func @dynamic_materialize(%x: tensor<?x4xf32>, %out: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'bufferization.materialize_in_destination' op has a destination of dynamic shape 'tensor<?x4xf32>'; sharding needs static shapes}}
  %r = bufferization.materialize_in_destination %x in %out : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

func.func @dynamic_empty(%n: index) -> tensor<?x4xf32> {
  // expected-error @+1 {{'tensor.empty' op has a result of dynamic shape 'tensor<?x4xf32>'; sharding needs static shapes}}
  %e = tensor.empty(%n) : tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}

// -----

func.func @dynamic_dim(%x: tensor<?x4xf32>) -> index {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tensor.dim' op reads a size of 'tensor<?x4xf32>'; sharding needs static shapes}}
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  return %d : index
}

// -----

func.func @tosa_dynamic_result(%x: tensor<?x10xf32>, %b: tensor<1x10xf32>) -> tensor<?x10xf32> {
  // expected-error @+1 {{'tosa.add' op has a result of type 'tensor<?x10xf32>'; sharding needs a static shape}}
  %h = tosa.add %x, %b : (tensor<?x10xf32>, tensor<1x10xf32>) -> tensor<?x10xf32>
  return %h : tensor<?x10xf32>
}

// -----

func.func @tosa_dynamic_operand(%x: tensor<?x10xf32>, %b: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'tosa.add' op has an operand of type 'tensor<?x10xf32>'; sharding needs static shapes}}
  %h = tosa.add %x, %b : (tensor<?x10xf32>, tensor<8x10xf32>) -> tensor<8x10xf32>
  return %h : tensor<8x10xf32>
}

// -----

func.func @tosa_dynamic_matmul(%a: tensor<2x?x12xf32>, %w: tensor<2x12x6xf32>) -> tensor<2x?x6xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-error @+1 {{'tosa.matmul' op has a tensor of dynamic shape; sharding needs static shapes}}
  %c = tosa.matmul %a, %w, %zp, %zp : (tensor<2x?x12xf32>, tensor<2x12x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x?x6xf32>
  return %c : tensor<2x?x6xf32>
}

// -----

func.func @tosa_dynamic_transpose(%x: tensor<?x4xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{'tosa.transpose' op has a result of type 'tensor<4x?xf32>'; sharding needs a static shape}}
  %t = tosa.transpose %x {perms = array<i32: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
  return %t : tensor<4x?xf32>
}

// -----

func.func @tosa_dynamic_reduce(%x: tensor<?x4xf32>) -> tensor<?x1xf32> {
  // expected-error @+1 {{'tosa.reduce_sum' op has an input of type 'tensor<?x4xf32>'; sharding needs a static shape}}
  %r = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<?x4xf32>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}

// -----

func.func @tosa_dynamic_reshape(%x: tensor<?x16xf32>) -> tensor<?x4x4xf32> {
  %s3 = tosa.const_shape {values = dense<[-1, 4, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  // expected-error @+1 {{'tosa.reshape' op reshapes 'tensor<?x16xf32>' to 'tensor<?x4x4xf32>'; sharding needs static shapes}}
  %h = tosa.reshape %x, %s3 : (tensor<?x16xf32>, !tosa.shape<3>) -> tensor<?x4x4xf32>
  return %h : tensor<?x4x4xf32>
}

// -----

func.func @tosa_dynamic_gather(%t: tensor<1x?x8xf32>, %x: tensor<1x16xi32>) -> tensor<1x16x8xf32> {
  // expected-error @+1 {{'tosa.gather' op gathers from 'tensor<1x?x8xf32>' at 'tensor<1x16xi32>'; sharding needs static shapes}}
  %e = tosa.gather %t, %x : (tensor<1x?x8xf32>, tensor<1x16xi32>) -> tensor<1x16x8xf32>
  return %e : tensor<1x16x8xf32>
}
