// Attention over a batch of run-time size in the form torch-mlir lowers a
// 4-D matmul to: the batch and heads folded into one dim
// (tensor.collapse_shape [B?, H, ...] -> [B? * H, ...]), linalg.batch_matmul
// on it, and the result expanded back. A folded dim holding one of run-time
// size stays whole (its groups would have run-time sizes), so the batch or
// the heads cut were gathered before each matmul (up to 8,368 B per rank on
// 4 ranks, found by a sweep of dynamic-shape models); -shard-propagate now
// folds such reshapes into the linalg ops beside them first (MLIR's fusion
// of reshapes by expansion: the ops run over the dims unfolded), and
// nothing moves but the batch's extent (an 8-byte sum, on the ranks that
// need it) where the batch is cut. Sizes 5, 1 and 0 on 2, 3 and 4 ranks,
// every element checked. An elementwise op on tensors beside such a fold
// (@exp_*: math.exp of the folded heads) is written as its linalg.generic
// first, the fold then fused into it alike. The inits are sized by tensor.dim of the folded
// tensor, as torch-mlir sizes a batch_matmul's: each becomes an empty of
// the unfolded sizes, and the fold goes with its last use.
// REQUIRES: mpi
// RUN: for n in 2 3 4; do sed -e "s/@N@/$n/g" %s > %t.$n.mlir; done
// RUN: for n in 2 3 4; do for b in 5 1 0; do %mpirun -np $n %shard-run %t.$n.mlir --entry heads_cut,exp_heads_cut --check --dynamic-size $b; done; done 2>&1 | FileCheck %s --check-prefix=HEADS --implicit-check-not=error --implicit-check-not=MISMATCH
// HEADS-COUNT-54: OK, {{[0-9]+}} elements checked, received 0 bytes
// RUN: for n in 2 3 4; do for b in 5 1 0; do %mpirun -np $n %shard-run %t.$n.mlir --entry batch_cut,exp_batch_cut --check --dynamic-size $b; done; done 2>&1 | FileCheck %s --check-prefix=BATCH --implicit-check-not=error --implicit-check-not=MISMATCH
// BATCH-COUNT-54: OK, {{[0-9]+}} elements checked, received {{0|16}} bytes
// The folds are gone before the search: the matmuls run over [B?, 4, ...].
// RUN: shard-opt %t.2.mlir -shard-propagate | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func private @attention(
// IR-NOT: tensor.collapse_shape
// IR: linalg.generic
// IR-SAME: ins(%arg0, %arg1 : tensor<?x4x2x8xf32>, tensor<?x4x3x8xf32>)
// IR-NOT: tensor.collapse_shape
// IR-NOT: tensor.expand_shape
// IR: return

#m = #shard.mesh<shape = [@N@]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>

func.func @heads_cut(%q: tensor<?x4x2x8xf32> {shard.layout = #S1}, %k: tensor<?x4x3x8xf32> {shard.layout = #S1}, %v: tensor<?x4x3x8xf32> {shard.layout = #S1}) -> (tensor<?x4x2x8xf32> {shard.layout = #S1}) {
  %r = func.call @attention(%q, %k, %v) : (tensor<?x4x2x8xf32>, tensor<?x4x3x8xf32>, tensor<?x4x3x8xf32>) -> tensor<?x4x2x8xf32>
  return %r : tensor<?x4x2x8xf32>
}

func.func @batch_cut(%q: tensor<?x4x2x8xf32> {shard.layout = #S0}, %k: tensor<?x4x3x8xf32> {shard.layout = #S0}, %v: tensor<?x4x3x8xf32> {shard.layout = #S0}) -> (tensor<?x4x2x8xf32> {shard.layout = #S0}) {
  %r = func.call @attention(%q, %k, %v) : (tensor<?x4x2x8xf32>, tensor<?x4x3x8xf32>, tensor<?x4x3x8xf32>) -> tensor<?x4x2x8xf32>
  return %r : tensor<?x4x2x8xf32>
}

// exp(q k^T) v per batch and head, the matmuls on [B * H, ...].
func.func private @attention(%q: tensor<?x4x2x8xf32>, %k: tensor<?x4x3x8xf32>, %v: tensor<?x4x3x8xf32>) -> tensor<?x4x2x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %q, %c0 : tensor<?x4x2x8xf32>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<?x4x2x8xf32> into tensor<?x2x8xf32>
  %kc = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<?x4x3x8xf32> into tensor<?x3x8xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<?x4x3x8xf32> into tensor<?x3x8xf32>
  %bh = tensor.dim %qc, %c0 : tensor<?x2x8xf32>
  %e = tensor.empty(%bh) : tensor<?x2x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2x3xf32>) -> tensor<?x2x3xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%qc, %kc : tensor<?x2x8xf32>, tensor<?x3x8xf32>) outs(%f : tensor<?x2x3xf32>) -> tensor<?x2x3xf32>
  %pe = tensor.empty(%bh) : tensor<?x2x3xf32>
  %p = linalg.exp ins(%s : tensor<?x2x3xf32>) outs(%pe : tensor<?x2x3xf32>) -> tensor<?x2x3xf32>
  %oe = tensor.empty(%bh) : tensor<?x2x8xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<?x2x8xf32>) -> tensor<?x2x8xf32>
  %o = linalg.batch_matmul ins(%p, %vc : tensor<?x2x3xf32>, tensor<?x3x8xf32>) outs(%of : tensor<?x2x8xf32>) -> tensor<?x2x8xf32>
  %r = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [%b, 4, 2, 8] : tensor<?x2x8xf32> into tensor<?x4x2x8xf32>
  return %r : tensor<?x4x2x8xf32>
}

// math.exp of the batch and heads folded, and the fold undone.
func.func @exp_heads_cut(%x: tensor<?x4x8xf32> {shard.layout = #S1}) -> (tensor<?x4x8xf32> {shard.layout = #S1}) {
  %r = func.call @folded_exp(%x) : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  return %r : tensor<?x4x8xf32>
}

func.func @exp_batch_cut(%x: tensor<?x4x8xf32> {shard.layout = #S0}) -> (tensor<?x4x8xf32> {shard.layout = #S0}) {
  %r = func.call @folded_exp(%x) : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  return %r : tensor<?x4x8xf32>
}

func.func private @folded_exp(%x: tensor<?x4x8xf32>) -> tensor<?x4x8xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x4x8xf32>
  %f = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x4x8xf32> into tensor<?x8xf32>
  %y = math.exp %f : tensor<?x8xf32>
  %r = tensor.expand_shape %y [[0, 1], [2]] output_shape [%b, 4, 8] : tensor<?x8xf32> into tensor<?x4x8xf32>
  return %r : tensor<?x4x8xf32>
}
