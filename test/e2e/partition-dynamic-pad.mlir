// A padded convolution of a batch of run-time size, as torch-mlir emits
// nn.Conv2d(padding=1) for a dynamic batch: tensor.pad pads the spatial
// dims (static) and not the batch (dynamic). The pad was refused ("sharding
// needs static shapes", found by a sweep of real models' IR); a dim of
// run-time size padded by nothing is now a loop of its rule that may be
// cut: the batch cut on every rank (data parallelism) moves nothing, the
// batch whole (the output channels cut) moves nothing either. Run at
// batches of 5, 1 and 0 (ranks with empty blocks) on 2, 3 and 4 ranks,
// every element checked.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: for n in 2 3 4; do for b in 5 1 0; do %mpirun -np $n %shard-run %t.$n.mlir --entry batch_cut,channels_cut --check --dynamic-size $b; done; done 2>&1 | FileCheck %s --implicit-check-not=MISMATCH --implicit-check-not=error --implicit-check-not=warning
// CHECK-COUNT-54: OK, {{[0-9]+}} elements checked, received 0 bytes
// A padded dim of run-time size (a padded conv1d over a run-time sequence,
// refused before: "sharding needs a padded dim static") stays whole, each
// rank padding it: the batch or the channels cut move nothing; the
// sequence cut is gathered first.
// RUN: for n in 2 3 4; do for b in 5 1 0; do %mpirun -np $n %shard-run %t.$n.mlir --entry seq_padded,channels_of_padded_seq --check --dynamic-size $b; done; done 2>&1 | FileCheck %s --check-prefix=ZERO --implicit-check-not=MISMATCH --implicit-check-not=error --implicit-check-not=warning
// ZERO-COUNT-54: OK, {{[0-9]+}} elements checked, received 0 bytes
// RUN: for n in 2 3 4; do for b in 5 1 0; do %mpirun -np $n %shard-run %t.$n.mlir --entry seq_cut,padded_both --check --dynamic-size $b; done; done 2>&1 | FileCheck %s --check-prefix=MOVES --implicit-check-not=MISMATCH --implicit-check-not=error --implicit-check-not=warning
// MOVES-COUNT-54: OK, {{[0-9]+}} elements checked

#m = #shard.mesh<shape = [@N@]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#R = #shard.placements<mesh = #m, placements = [R]>

func.func @batch_cut(%x: tensor<?x3x6x6xf32> {shard.layout = #S0}, %w: tensor<4x3x3x3xf32> {shard.layout = #R}) -> (tensor<?x4x6x6xf32> {shard.layout = #S0}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x3x6x6xf32> to tensor<?x3x8x8xf32>
  %n = tensor.dim %x, %c0 : tensor<?x3x6x6xf32>
  %e = tensor.empty(%n) : tensor<?x4x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %w : tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%z : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %r = arith.maximumf %y, %z : tensor<?x4x6x6xf32>
  return %r : tensor<?x4x6x6xf32>
}

func.func @channels_cut(%x: tensor<?x3x6x6xf32> {shard.layout = #R}, %w: tensor<4x3x3x3xf32> {shard.layout = #S0}) -> (tensor<?x4x6x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x3x6x6xf32> to tensor<?x3x8x8xf32>
  %n = tensor.dim %x, %c0 : tensor<?x3x6x6xf32>
  %e = tensor.empty(%n) : tensor<?x4x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %w : tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%z : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %r = arith.maximumf %y, %z : tensor<?x4x6x6xf32>
  return %r : tensor<?x4x6x6xf32>
}

#S1 = #shard.placements<mesh = #m, placements = [S(1)]>

// [B?, C, L?]: the sequence padded, the batch cut.
func.func @seq_padded(%x: tensor<?x3x?xf32> {shard.layout = #S0}) -> (tensor<?x3x?xf32> {shard.layout = #S0}) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 2] high[0, 0, 2] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<?x3x?xf32> to tensor<?x3x?xf32>
  return %p : tensor<?x3x?xf32>
}

// [L?, C]: the sequence padded, the channels cut.
func.func @channels_of_padded_seq(%x: tensor<?x4xf32> {shard.layout = #S1}) -> (tensor<?x4xf32> {shard.layout = #S1}) {
  %v = arith.constant 1.5 : f32
  %p = tensor.pad %x low[1, 0] high[2, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<?x4xf32> to tensor<?x4xf32>
  return %p : tensor<?x4xf32>
}

// The padded sequence cut: gathered, padded, cut again.
func.func @seq_cut(%x: tensor<?x4xf32> {shard.layout = #S0}) -> (tensor<?x4xf32> {shard.layout = #S0}) {
  %v = arith.constant 1.5 : f32
  %p = tensor.pad %x low[1, 0] high[2, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<?x4xf32> to tensor<?x4xf32>
  return %p : tensor<?x4xf32>
}

// A static dim padded too, and cut.
func.func @padded_both(%x: tensor<?x6xf32> {shard.layout = #S1}) -> (tensor<?x9xf32> {shard.layout = #S1}) {
  %v = arith.constant 2.0 : f32
  %p = tensor.pad %x low[2, 1] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<?x6xf32> to tensor<?x9xf32>
  return %p : tensor<?x9xf32>
}
