// Float results are compared with a tolerance that holds for sums the
// sharded program makes in another order (issue 25, item 7). Each row of
// x^4 sums 400,000 terms to about 1.4e8, past 2^24: summed in f32 in
// order, the program as written is off by about 7e4 from the exact sum, and
// the sharded sums (four partial sums, then an all_reduce) differ from it
// by 4.7e-4 relative, more than the 1e-5 first tried; shard-run then
// measures the rounding of the program as written against the same program
// in f64 and allows 8 times it (before: 4 false mismatches on every rank).
// A wrong element is still found: --corrupt-rank adds 1 to one element of
// an exact integer result.
// REQUIRES: mpi
// RUN: %mpirun -np 4 %shard-run %s --entry row_sums --check 2>&1 | sort | FileCheck %s --implicit-check-not=error
// RUN: not %mpirun -np 4 %shard-run %s --entry small --check --corrupt-rank=2 2>&1 | sort | FileCheck %s --check-prefix=CORRUPT
// CHECK: rank 0: OK, 4 elements checked
// CHECK-NEXT: rank 1: OK, 4 elements checked
// CHECK-NEXT: rank 2: OK, 4 elements checked
// CHECK-NEXT: rank 3: OK, 4 elements checked
// CORRUPT: rank 0: OK
// CORRUPT: rank 2: MISMATCH, 1 of {{[0-9]+}} elements differ

#m = #shard.mesh<shape = [4]>
func.func @row_sums(%a: tensor<4x400000xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %sq = arith.mulf %a, %a : tensor<4x400000xf32>
  %q = arith.mulf %sq, %sq : tensor<4x400000xf32>
  %init = arith.constant dense<0.0> : tensor<4xf32>
  %r = linalg.reduce ins(%q : tensor<4x400000xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

// Exact in f32: the f64 program agrees with it, so the tolerance stays
// 1e-5 of the largest magnitude and a change of 1 is found.
func.func @small(%a: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<8x6xf32> {
  %b = arith.mulf %a, %a : tensor<8x6xf32>
  return %b : tensor<8x6xf32>
}
