// float-rounding-np4.mlir's row sums with a dynamic number of rows (run
// at --dynamic-size=4): each row's 400,000 terms, summed in two halves
// then all-reduced, differ from the program as written by more than 1e-5
// relative, so shard-run measures the program's rounding against the same
// program in f64, whose inputs it must make at the run's sizes too.
// Before, it made them of the entry's dynamic type: a buffer of 8 bytes
// written 6.4 MB past its end, a heap corruption ("corrupted size vs.
// prev_size") on every rank.
// REQUIRES: mpi
// RUN: %mpirun -np 2 %shard-run %s --entry row_sums --dynamic-size=4 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error
// CHECK: rank 0: OK, 4 elements checked
// CHECK-NEXT: rank 1: OK, 4 elements checked

#m = #shard.mesh<shape = [2]>
func.func @row_sums(%a: tensor<?x400000xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (tensor<?xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x400000xf32>
  %e = tensor.empty(%n) : tensor<?x400000xf32>
  %sq = linalg.mul ins(%a, %a : tensor<?x400000xf32>, tensor<?x400000xf32>) outs(%e : tensor<?x400000xf32>) -> tensor<?x400000xf32>
  %q = linalg.mul ins(%sq, %sq : tensor<?x400000xf32>, tensor<?x400000xf32>) outs(%e : tensor<?x400000xf32>) -> tensor<?x400000xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%i : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%q : tensor<?x400000xf32>) outs(%init : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}
