// A per-channel tosa.rescale (TFLite requantization) whose multiplier is a
// constant of several values and whose shift is a splat: cutting its
// channels would make the multiplier each rank's slice (not a constant) and
// the shift a smaller splat (a constant), which MLIR 22's tosa-to-linalg
// lowers with an empty shift table that its loop reads past: every element
// wrong, differently from run to run (found by a sweep over upstream's
// tosa-to-linalg tests). Its rule keeps the channels whole there
// (shard-print-sharding-rules.mlir); the rows are cut instead. Every
// element checked on 2 and 4 ranks.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry main --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=NP2
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry main --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=NP4
// NP2: shard-run: rank 0: OK, 8 elements checked
// NP2-NEXT: shard-run: rank 1: OK, 8 elements checked
// NP4: shard-run: rank 0: OK
// NP4-NEXT: shard-run: rank 1: OK
// NP4-NEXT: shard-run: rank 2: OK
// NP4-NEXT: shard-run: rank 3: OK

#m = #shard.mesh<shape = [@N@], axes = ["x"]>
func.func @main(%arg0: tensor<4x4xi32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) -> tensor<4x4xi8> {
  %mul = arith.constant dense<[1507838509, 1871282663, 1551314227, 1996827068]> : tensor<4xi32>
  %shift = arith.constant dense<20> : tensor<4xi8>
  %izp = arith.constant dense<0> : tensor<1xi32>
  %ozp = arith.constant dense<-1> : tensor<1xi8>
  %r = tosa.rescale %arg0, %mul, %shift, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<4x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<4x4xi8>
  return %r : tensor<4x4xi8>
}
