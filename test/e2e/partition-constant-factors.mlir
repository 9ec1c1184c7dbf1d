// A P(sum) value passes through a product only by a constant factor of
// magnitude 1 or less (never an infinite one), and through a quotient
// only by one of magnitude 1 or more (never 0), however the constant is held
// (docs/partition.md, "Partial through products"): a splat, dense
// elements, an operand of a linalg.generic (a block argument in its
// payload, as torch-mlir emits aten.mul.Tensor by a constant), or an
// element a payload extracts from a constant tensor; through reshapes,
// casts, slices, broadcasts, transposes, fills and splats of one; and one
// computed from constants alone by ops whose elements are not read (an
// extension, a truncation, a negation) passes nothing. Parts of mixed signs
// times inf give NaN where their sum times inf is an infinity, and times
// 1e38 overflow where their sum does not. Only a scalar or splat factor
// held by the op was seen before: each function below but @fits gave a
// MISMATCH (NaN for INF) on every rank of 2, 3 and 4 (found by an
// adversarial sweep). Two row-parallel matmuls each give P(sum); the
// default search, with nothing pinned between, chose to pass them on.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: shard-opt %t.2.mlir -shard-print-sharding-rules | FileCheck %s --check-prefix=RULE
// RUN: for n in 2 3 4; do %mpirun -np $n %shard-run %t.$n.mlir --entry ins_operand,dense_factor,resource_factor,extracted,divisor,fits,resource_fits,filled,broadcast,extended,scalar_truncated --check; done 2>&1 | FileCheck %s --check-prefix=RAN --implicit-check-not=MISMATCH --implicit-check-not=error
// The constants that may not scale parts: no group of the op is linear.
// RULE-LABEL: func.func @ins_operand
// RULE: linalg.generic {{.*}}{d0=4, d1=6} inits=[3]>}
// RULE-LABEL: func.func @dense_factor
// RULE: arith.mulf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=2, d1=3}>}
// RULE-LABEL: func.func @resource_factor
// RULE: arith.mulf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=2, d1=3}>}
// RULE-LABEL: func.func @extracted
// RULE: linalg.generic {{.*}}{d0=4, d1=6} inits=[2]>}
// RULE-LABEL: func.func @divisor
// RULE: arith.divf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=2, d1=3}>}
// A dense factor within 1 passes the parts on (linear in the product's
// first operand, in both products' sum).
// RULE-LABEL: func.func @filled
// RULE: linalg.generic {{.*}}{d0=4, d1=6} inits=[3]>}
// RULE-LABEL: func.func @broadcast
// RULE: arith.mulf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=4, d1=6}>}
// RULE-LABEL: func.func @extended
// RULE: arith.mulf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=2, d1=3}>}
// RULE-LABEL: func.func @scalar_truncated
// RULE: linalg.generic {{.*}}{d0=4, d1=6} inits=[2]>}
// RULE-LABEL: func.func @fits
// RULE: linalg.generic {{.*}}linear={{\[\[}}0, 2], [1, 2{{\]\]}}>
// RULE-LABEL: func.func @resource_fits
// RULE: arith.mulf {{.*}}linear={{\[\[}}0], [1{{\]\]}}>
// RAN-COUNT-99: OK,

#m = #shard.mesh<shape = [@N@]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
#R = #shard.placements<mesh = #m, placements = [R]>
#id = affine_map<(i, j) -> (i, j)>

// inf as a linalg.generic operand: p1 * inf + p2.
func.func @ins_operand(%x: tensor<4x8xf32> {shard.layout = #S1}, %w1: tensor<8x6xf32> {shard.layout = #S0}, %w2: tensor<8x6xf32> {shard.layout = #S0}) -> (tensor<4x6xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %c = arith.constant dense<0x7F800000> : tensor<4x6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p1, %c, %p2 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %b: f32, %d: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    %t = arith.addf %s, %d : f32
    linalg.yield %t : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// Dense elements (not a splat) with inf and 1e38, an elementwise product.
func.func @dense_factor(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = arith.constant dense<[[0x7F800000, 1.0, 2.0], [3.0, 0xFF800000, 1.0e38]]> : tensor<2x3xf32>
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// The same factor as a resource's blob (torch-mlir's weights), read.
func.func @resource_factor(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = arith.constant dense_resource<factors> : tensor<2x3xf32>
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// An element of a constant table read in the payload: p1 * table[j] + p2.
func.func @extracted(%x: tensor<4x8xf32> {shard.layout = #S1}, %w1: tensor<8x6xf32> {shard.layout = #S0}, %w2: tensor<8x6xf32> {shard.layout = #S0}) -> (tensor<4x6xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %table = arith.constant dense<[1.0e30, -1.0e38, 0x7F800000, 2.0, 1.0e35, 0xFF800000]> : tensor<6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p1, %p2 : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %d: f32, %o: f32):
    %j = linalg.index 1 : index
    %f = tensor.extract %table[%j] : tensor<6xf32>
    %s = arith.mulf %a, %f : f32
    %t = arith.addf %s, %d : f32
    linalg.yield %t : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// A quotient by dense elements holding 0 and 1e-30: p1 / c + p2.
func.func @divisor(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = arith.constant dense<[[0.0, 1.0, 2.0], [1.0e-30, 4.0, -0.0]]> : tensor<2x3xf32>
  %s = arith.divf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// A fill of inf given to a linalg.generic: p1 * inf + p2.
func.func @filled(%x: tensor<4x8xf32> {shard.layout = #S1}, %w1: tensor<8x6xf32> {shard.layout = #S0}, %w2: tensor<8x6xf32> {shard.layout = #S0}) -> (tensor<4x6xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %e0 = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %c = linalg.fill ins(%inf : f32) outs(%e0 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p1, %c, %p2 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %b: f32, %d: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    %t = arith.addf %s, %d : f32
    linalg.yield %t : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// A row of factors with -inf and 1e38 broadcast over the rows.
func.func @broadcast(%x: tensor<4x8xf32> {shard.layout = #S1}, %w1: tensor<8x6xf32> {shard.layout = #S0}, %w2: tensor<8x6xf32> {shard.layout = #S0}) -> (tensor<4x6xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %row = arith.constant dense<[1.0, 0xFF800000, 2.0, 1.0e38, 1.0, -3.0]> : tensor<6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %c = linalg.broadcast ins(%row : tensor<6xf32>) outs(%e : tensor<4x6xf32>) dimensions = [0]
  %s = arith.mulf %p1, %c : tensor<4x6xf32>
  %r = arith.addf %s, %p2 : tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// An f16 constant holding inf, extended to f32, on the left: c * p1 + p2.
func.func @extended(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %h = arith.constant dense<[[0x7C00, 1.0, 2.0], [3.0, 0xFC00, 1.0]]> : tensor<2x3xf16>
  %c = arith.extf %h : tensor<2x3xf16> to tensor<2x3xf32>
  %s = arith.mulf %c, %p1 : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// A scalar of 1e40 in f64 truncated to f32 (inf) in the payload, as
// torch-mlir lowers aten.mul.Scalar: p1 * t + p2.
func.func @scalar_truncated(%x: tensor<4x8xf32> {shard.layout = #S1}, %w1: tensor<8x6xf32> {shard.layout = #S0}, %w2: tensor<8x6xf32> {shard.layout = #S0}) -> (tensor<4x6xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %big = arith.constant 1.0e40 : f64
  %e0 = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p1, %p2 : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %d: f32, %o: f32):
    %t = arith.truncf %big : f64 to f32
    %s = arith.mulf %a, %t : f32
    %u = arith.addf %s, %d : f32
    linalg.yield %u : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// Dense factors within 1 (and 0): the parts pass on, one reduction.
func.func @fits(%x: tensor<4x8xf32> {shard.layout = #S1}, %w1: tensor<8x6xf32> {shard.layout = #S0}, %w2: tensor<8x6xf32> {shard.layout = #S0}) -> (tensor<4x6xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %c = arith.constant dense<[[0.5, -0.25, 0.0, 1.0, 0.75, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [-1.0, -1.0, -1.0, -1.0, -1.0, -1.0]]> : tensor<4x6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p1, %c, %p2 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %b: f32, %d: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    %t = arith.addf %s, %d : f32
    linalg.yield %t : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// A resource's factors within 1: read from its blob, the parts pass on.
func.func @resource_fits(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = arith.constant dense_resource<small> : tensor<2x3xf32>
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// factors: inf, 1, 2, 3, -inf, 1; small: 0.5, 1, 0.25, 0.75, -1, 0 (f32,
// little-endian, after the blob's alignment).
{-#
  dialect_resources: {
    builtin: {
      factors: "0x040000000000807F0000803F0000004000004040000080FF0000803F",
      small: "0x040000000000003F0000803F0000803E0000403F000080BF00000000"
    }
  }
#-}
