// tensor.concat and tensor.insert_slice over dims of run-time size, as
// torch-mlir emits them for a dynamic batch or sequence (both were refused,
// even with every layout R: "sharding needs static shapes", found by a
// sweep of dynamic-shape programs). A dim other than the concatenated axis
// is cut alike in every tensor; an axis of run-time extent stays whole
// (each rank concatenates its blocks: a KV cache grown along its sequence);
// an insert_slice writing a dim whole at a size of its extent (tensor.dim
// of the batch, through the loop that carries the buffer) is cut alike, and
// a part of run-time size is placed by each rank at its block's offsets.
// Run at sizes 5, 1 and 0 (ranks with empty blocks) on 2, 3 and 4 ranks,
// every element checked: nothing moves where every layout cuts alike.
// REQUIRES: mpi
// RUN: for n in 2 3 4; do sed -e "s/@N@/$n/g" %s > %t.$n.mlir; done
// RUN: for n in 2 3 4; do for b in 5 1 0; do %mpirun -np $n %shard-run %t.$n.mlir --entry cat_features,kv_cache,steps,seq,hidden,carried --check --dynamic-size $b; done; done 2>&1 | FileCheck %s --check-prefix=ZERO --implicit-check-not=error --implicit-check-not=MISMATCH
// ZERO-COUNT-162: OK, {{[0-9]+}} elements checked, received 0 bytes
// RUN: for n in 2 3 4; do for b in 5 1 0; do %mpirun -np $n %shard-run %t.$n.mlir --entry kv_cache_rows,prefix,cat_all_r --check --dynamic-size $b; done; done 2>&1 | FileCheck %s --check-prefix=MOVES --implicit-check-not=error --implicit-check-not=MISMATCH
// MOVES-COUNT-81: OK, {{[0-9]+}} elements checked

#m = #shard.mesh<shape = [@N@]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
#S2 = #shard.placements<mesh = #m, placements = [S(2)]>
#R = #shard.placements<mesh = #m, placements = [R]>

// torch.cat of a dynamic batch's features (dim 1): the batch cut, 0 B.
func.func @cat_features(%x: tensor<?x8xf32> {shard.layout = #S0}, %y: tensor<?x4xf32> {shard.layout = #S0}) -> (tensor<?x12xf32> {shard.layout = #S0}) {
  %c = tensor.concat dim(1) %x, %y : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x12xf32>
  return %c : tensor<?x12xf32>
}

// A KV cache grown by one step along its sequence of run-time length,
// hidden dim cut: the sequence whole on every rank, 0 B.
func.func @kv_cache(%past: tensor<?x8xf32> {shard.layout = #S1}, %new: tensor<1x8xf32> {shard.layout = #S1}) -> (tensor<?x8xf32> {shard.layout = #S1}) {
  %c = tensor.concat dim(0) %past, %new : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// The same with the sequence cut: gathered before, cut again after.
func.func @kv_cache_rows(%past: tensor<?x8xf32> {shard.layout = #S0}, %new: tensor<2x8xf32> {shard.layout = #S0}) -> (tensor<?x8xf32> {shard.layout = #S0}) {
  %c = tensor.concat dim(0) %past, %new : (tensor<?x8xf32>, tensor<2x8xf32>) -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// Every layout R.
func.func @cat_all_r(%x: tensor<?x8xf32> {shard.layout = #R}, %y: tensor<?x4xf32> {shard.layout = #R}) -> (tensor<?x12xf32> {shard.layout = #R}) {
  %c = tensor.concat dim(1) %x, %y : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x12xf32>
  return %c : tensor<?x12xf32>
}

// An RNN-like loop writing each step of every row into a [B?, 4, 8]
// buffer: the batch cut, 0 B.
func.func @steps(%x: tensor<?x4x8xf32> {shard.layout = #S0}) -> (tensor<?x4x8xf32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x8xf32>
  %e = tensor.empty(%n) : tensor<?x4x8xf32>
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%buf = %e) -> (tensor<?x4x8xf32>) {
    %s = tensor.extract_slice %x[0, %t, 0] [%n, 1, 8] [1, 1, 1] : tensor<?x4x8xf32> to tensor<?x8xf32>
    %y = arith.mulf %s, %s : tensor<?x8xf32>
    %w = tensor.insert_slice %y into %buf[0, %t, 0] [%n, 1, 8] [1, 1, 1] : tensor<?x8xf32> into tensor<?x4x8xf32>
    scf.yield %w : tensor<?x4x8xf32>
  }
  return %r : tensor<?x4x8xf32>
}

// The sequence of run-time length too ([B?, S?, 8], S = B here): 0 B.
func.func @seq(%x: tensor<?x?x8xf32> {shard.layout = #S0}) -> (tensor<?x?x8xf32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?x8xf32>
  %l = tensor.dim %x, %c1 : tensor<?x?x8xf32>
  %e = tensor.empty(%n, %l) : tensor<?x?x8xf32>
  %r = scf.for %t = %c0 to %l step %c1 iter_args(%buf = %e) -> (tensor<?x?x8xf32>) {
    %s = tensor.extract_slice %x[0, %t, 0] [%n, 1, 8] [1, 1, 1] : tensor<?x?x8xf32> to tensor<?x8xf32>
    %y = arith.addf %s, %s : tensor<?x8xf32>
    %w = tensor.insert_slice %y into %buf[0, %t, 0] [%n, 1, 8] [1, 1, 1] : tensor<?x8xf32> into tensor<?x?x8xf32>
    scf.yield %w : tensor<?x?x8xf32>
  }
  return %r : tensor<?x?x8xf32>
}

// The hidden dim cut, the batch whole: 0 B.
func.func @hidden(%x: tensor<?x4x8xf32> {shard.layout = #S2}) -> (tensor<?x4x8xf32> {shard.layout = #S2}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x8xf32>
  %e = tensor.empty(%n) : tensor<?x4x8xf32>
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%buf = %e) -> (tensor<?x4x8xf32>) {
    %s = tensor.extract_slice %x[0, %t, 0] [%n, 1, 8] [1, 1, 1] : tensor<?x4x8xf32> to tensor<?x8xf32>
    %y = arith.mulf %s, %s : tensor<?x8xf32>
    %w = tensor.insert_slice %y into %buf[0, %t, 0] [%n, 1, 8] [1, 1, 1] : tensor<?x8xf32> into tensor<?x4x8xf32>
    scf.yield %w : tensor<?x4x8xf32>
  }
  return %r : tensor<?x4x8xf32>
}

// A prefix of run-time length (half the rows) written at the end of a
// buffer (at a run-time offset too), rows cut: the part gathered, each rank
// placing what lands in its block.
func.func @prefix(%x: tensor<?x8xf32> {shard.layout = #S0}, %d: tensor<?x8xf32> {shard.layout = #S0}) -> (tensor<?x8xf32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %h = arith.floordivsi %n, %c2 : index
  %at = arith.subi %n, %h : index
  %s = tensor.extract_slice %x[0, 0] [%h, 8] [1, 1] : tensor<?x8xf32> to tensor<?x8xf32>
  %w = tensor.insert_slice %s into %d[%at, 0] [%h, 8] [1, 1] : tensor<?x8xf32> into tensor<?x8xf32>
  return %w : tensor<?x8xf32>
}

// A loop whose body sizes its result by tensor.dim of its own carried
// value: tracing the extent back through the loop met that tensor.dim
// again and recursed until the stack overflowed (review); it stops at the
// carried value. The batch cut, 0 B.
func.func @carried(%h0: tensor<?x4xf32> {shard.layout = #S0}) -> (tensor<?x4xf32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%h = %h0) -> (tensor<?x4xf32>) {
    %n = tensor.dim %h, %c0 : tensor<?x4xf32>
    %e = tensor.empty(%n) : tensor<?x4xf32>
    %y = linalg.exp ins(%h : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
    scf.yield %y : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}
