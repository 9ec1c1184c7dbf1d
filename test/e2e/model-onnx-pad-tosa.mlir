// onnx-mlir's Pad of a 20x16x44x32 tensor (its ONNX-to-TOSA test_pad: pads
// [0, 1, 2, 3] before and [4, 5, 6, 7] after, value 4.5) in the form its
// TOSA lowering emits on MLIR 22: a tosa.const_shape padding (low and high
// per dim), a tosa.const pad value, tosa.pad. The batch is cut; tosa.pad of
// a constant padding takes tensor.pad's rule, so the input stays cut along
// the padded batch and each rank receives only the rows that land in its
// block of the 24 (its old rule kept a padded dim whole: every rank
// gathered the rows of the 20 it lacked, 901,120 B each on 2 ranks).
// Hand-worked, 90,112 B a row:
//   2 ranks (input 10/10, result 12/12): rank 0 needs rows 10-11 (180,224
//     B), rank 1's rows 12-19 are its own, 20-23 padding.
//   3 ranks (7/7/6 into 8/8/8): rank 0 row 7, rank 1 rows 14-15, rank 2
//     none: 90,112 / 180,224 / 0 B.
//   4 ranks (5/5/5/5 into 6/6/6/6): rank 0 row 5, rank 1 rows 10-11, rank
//     2 rows 15-17, rank 3 none: 90,112 / 180,224 / 270,336 / 0 B.
// Every element checked against the unpartitioned program.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry test_pad --check 2>&1 | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry test_pad --check 2>&1 | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry test_pad --check 2>&1 | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// NP2: shard-run: rank 0: OK, 576576 elements checked, received 180224 bytes
// NP2-NEXT: shard-run: rank 1: OK, 576576 elements checked, received 0 bytes
// NP3: shard-run: rank 0: OK, 384384 elements checked, received 90112 bytes
// NP3-NEXT: shard-run: rank 1: OK, 384384 elements checked, received 180224 bytes
// NP3-NEXT: shard-run: rank 2: OK, 384384 elements checked, received 0 bytes
// NP4: shard-run: rank 0: OK, 288288 elements checked, received 90112 bytes
// NP4-NEXT: shard-run: rank 1: OK, 288288 elements checked, received 180224 bytes
// NP4-NEXT: shard-run: rank 2: OK, 288288 elements checked, received 270336 bytes
// NP4-NEXT: shard-run: rank 3: OK, 288288 elements checked, received 0 bytes

#m = #shard.mesh<shape = [@N@]>
func.func @test_pad(%arg0: tensor<20x16x44x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<24x22x52x42xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %padding = tosa.const_shape {values = dense<[0, 4, 1, 5, 2, 6, 3, 7]> : tensor<8xindex>} : () -> !tosa.shape<8>
  %value = "tosa.const"() {values = dense<4.5> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.pad %arg0, %padding, %value : (tensor<20x16x44x32xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<24x22x52x42xf32>
  return %0 : tensor<24x22x52x42xf32>
}
