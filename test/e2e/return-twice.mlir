// A function returning one tensor twice (`return %h, %h`), whose second
// result is passed to a function that computes in place on its argument,
// while the first is returned: bufferization took a call's results to be
// distinct buffers, so the callee's in-place write changed the other result
// too (found by a 3-rank random sweep, seed 259: every rank off by a factor
// of 2). -shard-lower-to-runtime returns each repeat as a copy of its own.
// Layouts pinned: the helper gathers its S(1) sum to R, the second helper
// adds replicated in place. Every element checked on 2 and 3 ranks.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry main --check > %t.3 2>&1
// RUN: FileCheck %s --input-file=%t.3 --check-prefix=OK3 --implicit-check-not=MISMATCH --implicit-check-not=error
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry main --check > %t.2 2>&1
// RUN: FileCheck %s --input-file=%t.2 --check-prefix=OK2 --implicit-check-not=MISMATCH --implicit-check-not=error
// RUN: shard-opt %t.3.mlir -shard-propagate -shard-spmd-partition -shard-plan-redistribute -shard-lower-to-runtime | FileCheck %s --check-prefix=IR
// OK3-COUNT-3: rank {{[0-2]}}: OK, {{[0-9]+}} elements checked
// OK2-COUNT-2: rank {{[01]}}: OK, {{[0-9]+}} elements checked
// The repeated result is a copy: a new buffer, the value copied into it.
// IR-LABEL: func.func private @helper(
// IR: memref.copy %[[V:[a-z0-9_]+]], %[[COPY:[a-z0-9_]+]] :
// IR-NEXT: return %[[V]], %[[COPY]] :

#m = #shard.mesh<shape = [@N@]>
#R = #shard.placements<mesh = #m, placements = [R]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
func.func @main(%a0: tensor<5x5xf32> {shard.layout = #S1}) -> (tensor<5x5xf32> {shard.layout = #S0}, tensor<5x5xf32> {shard.layout = #R}) {
  %v1:2 = func.call @helper(%a0) : (tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5x5xf32>)
  %r = shard.constraint %v1#1 layout #R : tensor<5x5xf32>
  %v4:2 = func.call @helper2(%r) : (tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5x5xf32>)
  return %v4#0, %v1#0 : tensor<5x5xf32>, tensor<5x5xf32>
}
func.func private @helper(%x0: tensor<5x5xf32> {shard.layout = #S1}) -> (tensor<5x5xf32> {shard.layout = #R}, tensor<5x5xf32> {shard.layout = #R}) {
  %h0 = arith.addf %x0, %x0 : tensor<5x5xf32>
  return %h0, %h0 : tensor<5x5xf32>, tensor<5x5xf32>
}
func.func private @helper2(%x0: tensor<5x5xf32> {shard.layout = #R}) -> (tensor<5x5xf32> {shard.layout = #S0}, tensor<5x5xf32> {shard.layout = #S1}) {
  %h0 = arith.addf %x0, %x0 {shard.sharding = #shard.sharding<mesh = #m, loops = [-]>} : tensor<5x5xf32>
  return %h0, %h0 : tensor<5x5xf32>, tensor<5x5xf32>
}
