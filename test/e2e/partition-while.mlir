// scf.while carries layouts as scf.for does (issue 26, item 1): the
// values it carries (inits, the before region's arguments, what the after
// region yields) keep one layout, those it passes on (the condition's
// values, the after region's arguments, the results) another. Three
// iterations of t = tanh(t @ w) on rows cut over the ranks (10 over 4: 3,
// 3, 3, 1), every element checked on 2, 3 and 4 ranks. By hand: w (8 x 8
// f32, its rows cut) is needed whole by every iteration; it is gathered
// once, before the loop (each rank receives the rows it lacks: on 4
// ranks 6 x 32 = 192 B), and the second result is gathered whole (the
// rows it lacks: 7 x 32 = 224 B on ranks 0-2, 9 x 32 = 288 B on rank 3):
// 416 and 480 B.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry iterate --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry iterate --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry iterate --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// NP4: shard-run: rank 0: OK, 104 elements checked, received 416 bytes
// NP4-NEXT: shard-run: rank 1: OK, 104 elements checked, received 416 bytes
// NP4-NEXT: shard-run: rank 2: OK, 104 elements checked, received 416 bytes
// NP4-NEXT: shard-run: rank 3: OK, 88 elements checked, received 480 bytes
// NP3: shard-run: rank 0: OK
// NP3-NEXT: shard-run: rank 1: OK
// NP3-NEXT: shard-run: rank 2: OK
// NP2: shard-run: rank 0: OK
// NP2-NEXT: shard-run: rank 1: OK
// The weight gathered once, before the loop; the loop carries local rows.
// LOCAL: shard.spmd.all_gather %arg1
// LOCAL: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %arg0) : (index, tensor<?x8xf32>) -> (index, tensor<?x8xf32>)
// LOCAL-NOT: shard.spmd.{{all_|exchange|scatter|gather}}
// LOCAL: scf.yield
// LOCAL: shard.spmd.all_gather

#m = #shard.mesh<shape = [@N@]>
#Rows = #shard.placements<mesh = #m, placements = [S(0)]>
#R = #shard.placements<mesh = #m, placements = [R]>
func.func @iterate(%x: tensor<10x8xf32> {shard.layout = #Rows},
                   %w: tensor<8x8xf32> {shard.layout = #Rows},
                   %n: tensor<1xi32> {shard.layout = #R})
    -> (tensor<10x8xf32> {shard.layout = #Rows}, tensor<10x8xf32> {shard.layout = #R}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %trips = arith.constant 3 : index
  %r:2 = scf.while (%i = %c0, %t = %x) : (index, tensor<10x8xf32>) -> (index, tensor<10x8xf32>) {
    %more = arith.cmpi slt, %i, %trips : index
    scf.condition(%more) %i, %t : index, tensor<10x8xf32>
  } do {
  ^bb0(%i2: index, %t2: tensor<10x8xf32>):
    %e = tensor.empty() : tensor<10x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<10x8xf32>) -> tensor<10x8xf32>
    %m = linalg.matmul ins(%t2, %w : tensor<10x8xf32>, tensor<8x8xf32>) outs(%z : tensor<10x8xf32>) -> tensor<10x8xf32>
    %s = math.tanh %m : tensor<10x8xf32>
    %next = arith.addi %i2, %c1 : index
    scf.yield %next, %s : index, tensor<10x8xf32>
  }
  return %r#1, %r#1 : tensor<10x8xf32>, tensor<10x8xf32>
}
