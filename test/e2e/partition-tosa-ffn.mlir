// A feed-forward layer as TOSA-based ingress writes it (issue 26, item 1):
// torch-mlir's ml_program.global seed, linalg matmuls, the bias added by
// tosa.add (broadcast over the rows), SiLU as tosa.sigmoid and tosa.mul
// (with its shift constant). Megatron's layout: W1 and b1 sharded on the
// hidden features, W2 on its rows; the only move is the output's
// all-reduce (8x16 f32: the ring's 2(n-1)/n of 512 B, counted twice: 768 B
// per rank on 4 ranks, 512 B on 2). Hidden 16 (even) and 10 (uneven: 3, 3,
// 3, 1 over 4). Every element checked against the unpartitioned program.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' -e 's/@H@/10/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry ffn --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: sed -e 's/@N@/2/g' -e 's/@H@/16/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry ffn --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// NP4: shard-run: rank 0: OK, 128 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 1: OK, 128 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 2: OK, 128 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 3: OK, 128 elements checked, received 768 bytes
// NP2: shard-run: rank 0: OK, 128 elements checked, received 512 bytes
// NP2-NEXT: shard-run: rank 1: OK, 128 elements checked, received 512 bytes
// LOCAL-NOT: shard.spmd.{{all_gather|exchange}}
// LOCAL: tosa.add %{{.*}}, %{{.*}} : (tensor<8x?xf32>, tensor<1x?xf32>) -> tensor<8x?xf32>
// LOCAL-NEXT: tosa.sigmoid %{{.*}} : (tensor<8x?xf32>) -> tensor<8x?xf32>
// LOCAL-NEXT: tosa.mul
// LOCAL-NOT: shard.spmd.{{all_gather|exchange}}
// LOCAL: shard.spmd.all_reduce

ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
#m = #shard.mesh<shape = [@N@], axes = ["tp"]>
func.func @ffn(%x: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
               %w1: tensor<16x@H@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
               %b1: tensor<1x@H@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
               %w2: tensor<@H@x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e1 = tensor.empty() : tensor<8x@H@xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x@H@xf32>) -> tensor<8x@H@xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x@H@xf32>) outs(%f1 : tensor<8x@H@xf32>) -> tensor<8x@H@xf32>
  %hb = tosa.add %h, %b1 : (tensor<8x@H@xf32>, tensor<1x@H@xf32>) -> tensor<8x@H@xf32>
  %s = tosa.sigmoid %hb : (tensor<8x@H@xf32>) -> tensor<8x@H@xf32>
  %a = tosa.mul %hb, %s, %shift : (tensor<8x@H@xf32>, tensor<8x@H@xf32>, tensor<1xi8>) -> tensor<8x@H@xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<8x@H@xf32>, tensor<@H@x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
