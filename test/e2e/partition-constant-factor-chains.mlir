// Products of a P(sum) value by constants, one after another: each op's
// rule is its own, so a bound on each factor above 1 was none on their
// product. Six products by 1e7 (each within the 2^24 allowed before)
// scale parts of mixed signs by 1e42: +inf and -inf, NaN, where the sum
// is an infinity or finite (found by an adversarial sweep: a MISMATCH on
// 2, 3, 4 and 8 ranks, in each function below but @shrink). A product now
// passes the parts only by a factor of magnitude 1 or less, a quotient
// only by a divisor of 1 or more: no chain of them makes a part larger
// than it was. (Sums still grow parts as they grow the sum's terms, as
// DTensor's Partial does: x + x doubles them; docs/partition.md.) A product by 2 reduces first (@grow); one by 0.5 passes (@shrink).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: shard-opt %t.2.mlir -shard-print-sharding-rules | FileCheck %s --check-prefix=RULE
// RUN: for n in 2 3 4; do %mpirun -np $n %shard-run %t.$n.mlir --entry chain,chain_finite,quotients,payload_chain,grow,shrink --check; done 2>&1 | FileCheck %s --check-prefix=RAN --implicit-check-not=MISMATCH --implicit-check-not=error
// RULE-LABEL: func.func @chain
// RULE-COUNT-6: arith.mulf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=2, d1=3}>}
// RULE-LABEL: func.func @chain_finite
// RULE-COUNT-6: arith.mulf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=2, d1=3}>}
// RULE-LABEL: func.func @quotients
// RULE-COUNT-6: arith.divf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=2, d1=3}>}
// RULE-LABEL: func.func @payload_chain
// RULE: linalg.generic {{.*}}{d0=2, d1=3} inits=[2]>}
// RULE-LABEL: func.func @grow
// RULE: arith.mulf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=2, d1=3}>}
// RULE-LABEL: func.func @shrink
// RULE-COUNT-2: arith.mulf {{.*}}linear={{\[\[}}0], [1{{\]\]}}>
// RAN-COUNT-54: OK,

#m = #shard.mesh<shape = [@N@]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
#R = #shard.placements<mesh = #m, placements = [R]>
#id = affine_map<(i, j) -> (i, j)>

// p1 * 1e7 * 1e7 * 1e7 * 1e7 * 1e7 * 1e7 + p2: row-parallel matmuls give
// the P(sum) values.
func.func @chain(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = arith.constant dense<1.0e7> : tensor<2x3xf32>
  %s1 = arith.mulf %p1, %c : tensor<2x3xf32>
  %s2 = arith.mulf %s1, %c : tensor<2x3xf32>
  %s3 = arith.mulf %s2, %c : tensor<2x3xf32>
  %s4 = arith.mulf %s3, %c : tensor<2x3xf32>
  %s5 = arith.mulf %s4, %c : tensor<2x3xf32>
  %s6 = arith.mulf %s5, %c : tensor<2x3xf32>
  %r = arith.addf %s6, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// The last factor 1e3: the whole result is finite (0 where the sum is), the
// parts' +-inf were NaN.
func.func @chain_finite(%x: tensor<2x64xf32> {shard.layout = #S1}, %w1: tensor<64x3xf32> {shard.layout = #S0}, %w2: tensor<64x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x64xf32>, tensor<64x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x64xf32>, tensor<64x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = arith.constant dense<1.0e7> : tensor<2x3xf32>
  %k = arith.constant dense<1.0e3> : tensor<2x3xf32>
  %s1 = arith.mulf %p1, %c : tensor<2x3xf32>
  %s2 = arith.mulf %s1, %c : tensor<2x3xf32>
  %s3 = arith.mulf %s2, %c : tensor<2x3xf32>
  %s4 = arith.mulf %s3, %c : tensor<2x3xf32>
  %s5 = arith.mulf %s4, %c : tensor<2x3xf32>
  %s6 = arith.mulf %s5, %k : tensor<2x3xf32>
  %r = arith.addf %s6, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// Six quotients by 1e-7 (each divisor at least 2^-24).
func.func @quotients(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = arith.constant dense<1.0e-7> : tensor<2x3xf32>
  %s1 = arith.divf %p1, %c : tensor<2x3xf32>
  %s2 = arith.divf %s1, %c : tensor<2x3xf32>
  %s3 = arith.divf %s2, %c : tensor<2x3xf32>
  %s4 = arith.divf %s3, %c : tensor<2x3xf32>
  %s5 = arith.divf %s4, %c : tensor<2x3xf32>
  %s6 = arith.divf %s5, %c : tensor<2x3xf32>
  %r = arith.addf %s6, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// The chain inside one payload, its factor a scalar from outside.
func.func @payload_chain(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = arith.constant 1.0e7 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p1, %p2 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %d: f32, %o: f32):
    %a1 = arith.mulf %a, %c : f32
    %a2 = arith.mulf %a1, %c : f32
    %a3 = arith.mulf %a2, %c : f32
    %a4 = arith.mulf %a3, %c : f32
    %a5 = arith.mulf %a4, %c : f32
    %a6 = arith.mulf %a5, %c : f32
    %t = arith.addf %a6, %d : f32
    linalg.yield %t : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// A product by 2: reduced first.
func.func @grow(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = arith.constant dense<2.0> : tensor<2x3xf32>
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// Two products by -0.5 and 0.25 (a mean's, an attention scale's): the
// parts pass on, one reduction.
func.func @shrink(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = arith.constant dense<-0.5> : tensor<2x3xf32>
  %k = arith.constant dense<0.25> : tensor<2x3xf32>
  %s1 = arith.mulf %p1, %c : tensor<2x3xf32>
  %s2 = arith.mulf %s1, %k : tensor<2x3xf32>
  %r = arith.addf %s2, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
