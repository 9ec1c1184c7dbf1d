// tosa.gather, the embedding of TorchDynamo's TOSA form (issue 26, item
// 1), every element checked on 2 and 4 ranks:
// - a 50257-row table cut by rows (vocab parallel; over 4 ranks 12565,
//   12565, 12565, 12562): each rank picks the rows it holds at their
//   local index and 0 for the others, and one all-reduce of the [1 x 16 x
//   8] f32 lookup (512 B) makes it whole: 2 (p - 1) / p x 512 B = 512 B per
//   rank on 2 ranks, 768 B on 4; nothing else moves.
//   Token ids (x + 6) x 4188 for inputs x in [-6, 6] span 0 .. 50256,
//   rows of every rank.
// - a replicated table with the tokens cut: each rank gathers its own
//   tokens' rows, nothing moves.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry tosa_embed --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=remark: --check-prefix=NP2
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry tosa_embed --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=remark: --check-prefix=NP4
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// NP2: shard-run: rank 0: OK, 144 elements checked, received 512 bytes
// NP2-NEXT: shard-run: rank 1: OK, 140 elements checked, received 512 bytes
// NP4: shard-run: rank 0: OK, 136 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 1: OK, 136 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 2: OK, 136 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 3: OK, 132 elements checked, received 768 bytes
// LOCAL: linalg.generic
// LOCAL: arith.subi
// LOCAL: scf.if
// LOCAL: tensor.extract %arg0[{{.*}}] : tensor<1x?x8xf32>
// LOCAL: tosa.gather %arg2, %{{.*}} : (tensor<1x13x4xf32>, tensor<1x?xi32>) -> tensor<1x?x4xf32>
// LOCAL: shard.spmd.all_reduce {{.*}} reduce sum
// LOCAL-NOT: shard.spmd.{{all_|exchange|scatter|gather}}

#m = #shard.mesh<shape = [@N@]>
#Rows = #shard.placements<mesh = #m, placements = [S(1)]>
#R = #shard.placements<mesh = #m, placements = [R]>
#Tok = #shard.placements<mesh = #m, placements = [S(1)]>
func.func @tosa_embed(%table: tensor<1x50257x8xf32> {shard.layout = #Rows}, %x: tensor<1x16xi32> {shard.layout = #R},
                      %small: tensor<1x13x4xf32> {shard.layout = #R}, %y: tensor<1x7xi32> {shard.layout = #Tok})
    -> (tensor<1x16x8xf32> {shard.layout = #R}, tensor<1x7x4xf32> {shard.layout = #Tok}) {
  %six = "tosa.const"() <{values = dense<6> : tensor<1x16xi32>}> : () -> tensor<1x16xi32>
  %mul = "tosa.const"() <{values = dense<4188> : tensor<1x16xi32>}> : () -> tensor<1x16xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a = tosa.add %x, %six : (tensor<1x16xi32>, tensor<1x16xi32>) -> tensor<1x16xi32>
  %ids = tosa.mul %a, %mul, %shift : (tensor<1x16xi32>, tensor<1x16xi32>, tensor<1xi8>) -> tensor<1x16xi32>
  %e = tosa.gather %table, %ids : (tensor<1x50257x8xf32>, tensor<1x16xi32>) -> tensor<1x16x8xf32>
  %six7 = "tosa.const"() <{values = dense<6> : tensor<1x7xi32>}> : () -> tensor<1x7xi32>
  %yi = tosa.add %y, %six7 : (tensor<1x7xi32>, tensor<1x7xi32>) -> tensor<1x7xi32>
  %f = tosa.gather %small, %yi : (tensor<1x13x4xf32>, tensor<1x7xi32>) -> tensor<1x7x4xf32>
  return %e, %f : tensor<1x16x8xf32>, tensor<1x7x4xf32>
}
