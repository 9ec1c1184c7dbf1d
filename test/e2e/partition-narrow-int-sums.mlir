// Sums and products of 8- and 16-bit integers reduced across ranks wrap as
// the program's arith.addi and arith.muli do. Open MPI 4.1's op/avx
// component sums MPI_INT8_T and MPI_INT16_T with saturating SIMD adds on
// buffers of 16 or more elements: an i8 matmul's partial sums came back
// 127 where the program gives -42 (found by an adversarial run); the
// runtime now reduces them with its own op (runtime/mpi/MpiGroups.cpp).
// Every element of every result checked on 2, 3 and 4 ranks:
// - @mm8: an i8 matmul over a cut reduction dim, returned replicated: its
//   16 x 16 partial sums all-reduced (wrapping many times over);
// - @mm8_rows: the same returned cut by rows: a reduce_scatter;
// - @prod8: an i8 product over a cut dim (Partial(product), 32 outputs);
// - @sum16: an i16 sum of 32 rows of 16000 to 32000 over a cut dim.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry mm8,mm8_rows,prod8 --check --int-range=-100:100 --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry sum16 --check --int-range=16000:32000 --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=S2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry mm8,mm8_rows,prod8 --check --int-range=-100:100 --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry sum16 --check --int-range=16000:32000 --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=S3
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mm8,mm8_rows,prod8 --check --int-range=-100:100 --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry sum16 --check --int-range=16000:32000 --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=S4
// RUN: shard-opt %t.4.mlir -shard-propagate=alpha-us=0 -shard-spmd-partition | FileCheck %s --check-prefix=IR
// NP2: shard-run: @mm8: rank 0: OK, 256 elements checked, received 256 bytes
// NP2-NEXT: shard-run: @mm8: rank 1: OK, 256 elements checked, received 256 bytes
// NP2-NEXT: shard-run: @mm8_rows: rank 0: OK, 128 elements checked, received 128 bytes
// NP2-NEXT: shard-run: @mm8_rows: rank 1: OK, 128 elements checked, received 128 bytes
// NP2-NEXT: shard-run: @prod8: rank 0: OK, 32 elements checked, received 32 bytes
// NP2-NEXT: shard-run: @prod8: rank 1: OK, 32 elements checked, received 32 bytes
// S2: shard-run: rank 0: OK, 24 elements checked, received 48 bytes
// S2-NEXT: shard-run: rank 1: OK, 24 elements checked, received 48 bytes
// NP3: shard-run: @mm8: rank 0: OK, 256 elements checked, received 341 bytes
// NP3-NEXT: shard-run: @mm8: rank 1: OK, 256 elements checked, received 341 bytes
// NP3-NEXT: shard-run: @mm8: rank 2: OK, 256 elements checked, received 342 bytes
// NP3-NEXT: shard-run: @mm8_rows: rank 0: OK, 96 elements checked, received 192 bytes
// NP3-NEXT: shard-run: @mm8_rows: rank 1: OK, 96 elements checked, received 192 bytes
// NP3-NEXT: shard-run: @mm8_rows: rank 2: OK, 64 elements checked, received 128 bytes
// NP3-NEXT: shard-run: @prod8: rank 0: OK, 32 elements checked, received 43 bytes
// NP3-NEXT: shard-run: @prod8: rank 1: OK, 32 elements checked, received 42 bytes
// NP3-NEXT: shard-run: @prod8: rank 2: OK, 32 elements checked, received 43 bytes
// S3: shard-run: rank 0: OK, 24 elements checked, received 64 bytes
// S3-NEXT: shard-run: rank 1: OK, 24 elements checked, received 64 bytes
// S3-NEXT: shard-run: rank 2: OK, 24 elements checked, received 64 bytes
// NP4: shard-run: @mm8: rank 0: OK, 256 elements checked, received 384 bytes
// NP4-NEXT: shard-run: @mm8: rank 1: OK, 256 elements checked, received 384 bytes
// NP4-NEXT: shard-run: @mm8: rank 2: OK, 256 elements checked, received 384 bytes
// NP4-NEXT: shard-run: @mm8: rank 3: OK, 256 elements checked, received 384 bytes
// NP4-NEXT: shard-run: @mm8_rows: rank 0: OK, 64 elements checked, received 192 bytes
// NP4-NEXT: shard-run: @mm8_rows: rank 1: OK, 64 elements checked, received 192 bytes
// NP4-NEXT: shard-run: @mm8_rows: rank 2: OK, 64 elements checked, received 192 bytes
// NP4-NEXT: shard-run: @mm8_rows: rank 3: OK, 64 elements checked, received 192 bytes
// NP4-NEXT: shard-run: @prod8: rank 0: OK, 32 elements checked, received 48 bytes
// NP4-NEXT: shard-run: @prod8: rank 1: OK, 32 elements checked, received 48 bytes
// NP4-NEXT: shard-run: @prod8: rank 2: OK, 32 elements checked, received 48 bytes
// NP4-NEXT: shard-run: @prod8: rank 3: OK, 32 elements checked, received 48 bytes
// S4: shard-run: rank 0: OK, 24 elements checked, received 72 bytes
// S4-NEXT: shard-run: rank 1: OK, 24 elements checked, received 72 bytes
// S4-NEXT: shard-run: rank 2: OK, 24 elements checked, received 72 bytes
// S4-NEXT: shard-run: rank 3: OK, 24 elements checked, received 72 bytes
// IR-LABEL: func.func @mm8(
// IR: shard.spmd.all_reduce {{.*}} reduce sum {{.*}} : tensor<16x16xi8> -> tensor<16x16xi8>
// IR-LABEL: func.func @mm8_rows(
// IR: shard.spmd.reduce_scatter {{.*}} reduce sum {{.*}} : tensor<16x16xi8> -> tensor<4x16xi8>
// IR-LABEL: func.func @sum16(
// IR: shard.spmd.all_reduce {{.*}} reduce sum {{.*}} : tensor<24xi16> -> tensor<24xi16>
// IR-LABEL: func.func @prod8(
// IR: shard.spmd.all_reduce {{.*}} reduce product {{.*}} : tensor<32xi8> -> tensor<32xi8>

#m = #shard.mesh<shape = [@N@]>
#k1 = #shard.placements<mesh = #m, placements = [S(1)]>
#k0 = #shard.placements<mesh = #m, placements = [S(0)]>
#r = #shard.placements<mesh = #m, placements = [R]>
func.func @mm8(%a: tensor<16x64xi8> {shard.layout = #k1},
               %b: tensor<64x16xi8> {shard.layout = #k0})
    -> (tensor<16x16xi8> {shard.layout = #r}) {
  %zero = arith.constant 0 : i8
  %e = tensor.empty() : tensor<16x16xi8>
  %z = linalg.fill ins(%zero : i8) outs(%e : tensor<16x16xi8>) -> tensor<16x16xi8>
  %c = linalg.matmul ins(%a, %b : tensor<16x64xi8>, tensor<64x16xi8>) outs(%z : tensor<16x16xi8>) -> tensor<16x16xi8>
  return %c : tensor<16x16xi8>
}
func.func @mm8_rows(%a: tensor<16x64xi8> {shard.layout = #k1},
                    %b: tensor<64x16xi8> {shard.layout = #k0})
    -> (tensor<16x16xi8> {shard.layout = #k0}) {
  %zero = arith.constant 0 : i8
  %e = tensor.empty() : tensor<16x16xi8>
  %z = linalg.fill ins(%zero : i8) outs(%e : tensor<16x16xi8>) -> tensor<16x16xi8>
  %c = linalg.matmul ins(%a, %b : tensor<16x64xi8>, tensor<64x16xi8>) outs(%z : tensor<16x16xi8>) -> tensor<16x16xi8>
  return %c : tensor<16x16xi8>
}
func.func @sum16(%x: tensor<32x24xi16> {shard.layout = #k0})
    -> (tensor<24xi16> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0 : i16
  %e = tensor.empty() : tensor<24xi16>
  %z = linalg.fill ins(%zero : i16) outs(%e : tensor<24xi16>) -> tensor<24xi16>
  %s = linalg.reduce ins(%x : tensor<32x24xi16>) outs(%z : tensor<24xi16>) dimensions = [0]
    (%in: i16, %acc: i16) {
      %t = arith.addi %in, %acc : i16
      linalg.yield %t : i16
    }
  return %s : tensor<24xi16>
}
func.func @prod8(%x: tensor<8x32xi8> {shard.layout = #k0})
    -> (tensor<32xi8> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %one = arith.constant 1 : i8
  %e = tensor.empty() : tensor<32xi8>
  %z = linalg.fill ins(%one : i8) outs(%e : tensor<32xi8>) -> tensor<32xi8>
  %s = linalg.reduce ins(%x : tensor<8x32xi8>) outs(%z : tensor<32xi8>) dimensions = [0]
    (%in: i8, %acc: i8) {
      %t = arith.muli %in, %acc : i8
      linalg.yield %t : i8
    }
  return %s : tensor<32xi8>
}
