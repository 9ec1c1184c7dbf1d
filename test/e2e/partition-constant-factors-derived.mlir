// A P(sum) value passes through no product by a factor computed from
// constants alone, however it is computed (partition-constant-factors.mlir
// has the constants read directly): through an scf.if on a constant
// condition or a select on data between constants (one of its choices
// either way), a loop carrying a constant, a call of a function returning
// one, a pad by inf, a branch in a payload, five negations (the search once
// stopped after about 5 ops and read the rest as data) and a product of
// constants that overflows to inf. Each gave NaN for +-INF on every rank
// of 2, 3 and 4 (found by a review of the fix).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: for n in 2 3 4; do %mpirun -np $n %shard-run %t.$n.mlir --entry scf_if,scf_for,call,pad,pay_if,neg5,mul_chain,select_t --check; done 2>&1 | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=error
// CHECK-COUNT-72: OK,

#m = #shard.mesh<shape = [@N@]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
#R = #shard.placements<mesh = #m, placements = [R]>
#id = affine_map<(i, j) -> (i, j)>
func.func @scf_if(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = arith.constant true
  %c = scf.if %t -> tensor<2x3xf32> {
    %k = arith.constant dense<[[0x7F800000, 1.0, 2.0], [3.0, 0xFF800000, 1.0]]> : tensor<2x3xf32>
    scf.yield %k : tensor<2x3xf32>
  } else {
    %k = arith.constant dense<[[0x7F800000, 1.0, 2.0], [3.0, 0xFF800000, 1.0]]> : tensor<2x3xf32>
    scf.yield %k : tensor<2x3xf32>
  }
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @scf_for(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %k = arith.constant dense<[[0x7F800000, 1.0, 2.0], [3.0, 0xFF800000, 1.0]]> : tensor<2x3xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %k) -> tensor<2x3xf32> {
    scf.yield %a : tensor<2x3xf32>
  }
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @call(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = func.call @get_inf() : () -> tensor<2x3xf32>
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @get_inf() -> tensor<2x3xf32> {
  %k = arith.constant dense<[[0x7F800000, 1.0, 2.0], [3.0, 0xFF800000, 1.0]]> : tensor<2x3xf32>
  return %k : tensor<2x3xf32>
}
func.func @pad(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %k = arith.constant dense<1.0> : tensor<1x3xf32>
  %i = arith.constant 0x7F800000 : f32
  %c = tensor.pad %k low[0, 0] high[1, 0] {
  ^bb0(%a: index, %b2: index):
    tensor.yield %i : f32
  } : tensor<1x3xf32> to tensor<2x3xf32>
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @pay_if(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p1, %p2 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %d: f32, %o: f32):
    %t = arith.constant true
    %f = scf.if %t -> f32 {
      %i = arith.constant 0x7F800000 : f32
      scf.yield %i : f32
    } else {
      %i = arith.constant 0x7F800000 : f32
      scf.yield %i : f32
    }
    %s = arith.mulf %a, %f : f32
    %u = arith.addf %s, %d : f32
    linalg.yield %u : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @neg5(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %n0 = arith.constant dense<[[0x7F800000, 1.0, 2.0], [3.0, 0xFF800000, 1.0]]> : tensor<2x3xf32>
  %n1 = arith.negf %n0 : tensor<2x3xf32>
  %n2 = arith.negf %n1 : tensor<2x3xf32>
  %n3 = arith.negf %n2 : tensor<2x3xf32>
  %n4 = arith.negf %n3 : tensor<2x3xf32>
  %c = arith.negf %n4 : tensor<2x3xf32>
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @mul_chain(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = arith.constant 1.0e10 : f32
  %a2 = arith.mulf %a, %a : f32
  %a3 = arith.mulf %a2, %a2 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %c = linalg.fill ins(%a3 : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @select_t(%x: tensor<2x4xf32> {shard.layout = #S1}, %w1: tensor<4x3xf32> {shard.layout = #S0}, %w2: tensor<4x3xf32> {shard.layout = #S0}, %bt: tensor<i1>) -> (tensor<2x3xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %k = arith.constant dense<[[0x7F800000, 1.0, 2.0], [3.0, 0xFF800000, 1.0]]> : tensor<2x3xf32>
  %k2 = arith.constant dense<0x7F800000> : tensor<2x3xf32>
  %b = tensor.extract %bt[] : tensor<i1>
  %c = arith.select %b, %k, %k2 : tensor<2x3xf32>
  %s = arith.mulf %p1, %c : tensor<2x3xf32>
  %r = arith.addf %s, %p2 : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
