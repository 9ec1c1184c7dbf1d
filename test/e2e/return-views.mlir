// A function returning a tensor and a view of it (a slice, a reshape, or the
// pair a call gave it), whose view a caller passes to a function computing in
// place on its argument, while the tensor itself is returned: one-shot
// bufferization takes a call's results to be distinct buffers, so the
// in-place write changed the other result too (68 of 306 elements wrong on
// every rank before -shard-lower-to-runtime returned each result that may
// share a buffer with an earlier one as a copy). An argument returned with a
// slice of it, and a choice (scf.if) that may be a returned tensor, are
// checked too. Every element checked on 2 and 3 ranks.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry main --check > %t.3 2>&1
// RUN: FileCheck %s --input-file=%t.3 --check-prefix=OK3 --implicit-check-not=MISMATCH --implicit-check-not=error
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry main --check > %t.2 2>&1
// RUN: FileCheck %s --input-file=%t.2 --check-prefix=OK2 --implicit-check-not=MISMATCH --implicit-check-not=error
// RUN: shard-opt %t.3.mlir -shard-propagate -shard-spmd-partition -shard-plan-redistribute -shard-lower-to-runtime | FileCheck %s --check-prefix=IR
// OK3-COUNT-3: rank {{[0-2]}}: OK, 306 elements checked
// OK2-COUNT-2: rank {{[01]}}: OK, 306 elements checked
// The slice is returned as a copy of its own.
// IR-LABEL: func.func private @slice(
// IR: %[[S:[a-z0-9_]+]] = memref.subview %[[H:[a-z0-9_]+]][0, 0] [3, 6] [1, 1]
// IR-NEXT: %[[COPY:[a-z0-9_]+]] = memref.alloc()
// IR-NEXT: memref.copy %[[S]], %[[COPY]] :
// IR-NEXT: return %[[H]], %[[COPY]] :
#m = #shard.mesh<shape = [@N@]>
#R = #shard.placements<mesh = #m, placements = [R]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
func.func @main(%a0: tensor<6x6xf32> {shard.layout = #S1}) -> (tensor<6x6xf32> {shard.layout = #R}, tensor<3x6xf32> {shard.layout = #R}, tensor<6x6xf32> {shard.layout = #R}, tensor<36xf32> {shard.layout = #R}, tensor<6x6xf32> {shard.layout = #R}, tensor<3x6xf32> {shard.layout = #R}, tensor<6x6xf32> {shard.layout = #R}, tensor<6x6xf32> {shard.layout = #R}, tensor<6x6xf32> {shard.layout = #R}, tensor<3x6xf32> {shard.layout = #R}) {
  %c = arith.constant true
  %v:2 = func.call @slice(%a0) : (tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<3x6xf32>)
  %w = func.call @twice3(%v#1) : (tensor<3x6xf32>) -> tensor<3x6xf32>
  %c0:2 = func.call @collapse(%a0) : (tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<36xf32>)
  %c1 = func.call @twice36(%c0#1) : (tensor<36xf32>) -> tensor<36xf32>
  %r = func.call @twice(%a0) : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %g:2 = func.call @argslice(%r) : (tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<3x6xf32>)
  %g1 = func.call @twice3(%g#1) : (tensor<3x6xf32>) -> tensor<3x6xf32>
  %i:2 = func.call @choose(%a0, %c) : (tensor<6x6xf32>, i1) -> (tensor<6x6xf32>, tensor<6x6xf32>)
  %i1 = func.call @twice(%i#1) : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %n:2 = func.call @nested(%a0) : (tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<3x6xf32>)
  %n1 = func.call @twice3(%n#1) : (tensor<3x6xf32>) -> tensor<3x6xf32>
  return %v#0, %w, %c0#0, %c1, %g#0, %g1, %i#0, %i1, %n#0, %n1 : tensor<6x6xf32>, tensor<3x6xf32>, tensor<6x6xf32>, tensor<36xf32>, tensor<6x6xf32>, tensor<3x6xf32>, tensor<6x6xf32>, tensor<6x6xf32>, tensor<6x6xf32>, tensor<3x6xf32>
}
// A result and a slice of it.
func.func private @slice(%x0: tensor<6x6xf32> {shard.layout = #S1}) -> (tensor<6x6xf32> {shard.layout = #R}, tensor<3x6xf32> {shard.layout = #R}) {
  %h0 = arith.addf %x0, %x0 : tensor<6x6xf32>
  %s = tensor.extract_slice %h0[0, 0] [3, 6] [1, 1] : tensor<6x6xf32> to tensor<3x6xf32>
  return %h0, %s : tensor<6x6xf32>, tensor<3x6xf32>
}
// A result and the same buffer reshaped.
func.func private @collapse(%x0: tensor<6x6xf32> {shard.layout = #S1}) -> (tensor<6x6xf32> {shard.layout = #R}, tensor<36xf32> {shard.layout = #R}) {
  %h0 = arith.addf %x0, %x0 : tensor<6x6xf32>
  %s = tensor.collapse_shape %h0 [[0, 1]] : tensor<6x6xf32> into tensor<36xf32>
  return %h0, %s : tensor<6x6xf32>, tensor<36xf32>
}
// An argument returned with a slice of it.
func.func private @argslice(%x0: tensor<6x6xf32> {shard.layout = #R}) -> (tensor<6x6xf32> {shard.layout = #R}, tensor<3x6xf32> {shard.layout = #R}) {
  %s = tensor.extract_slice %x0[3, 0] [3, 6] [1, 1] : tensor<6x6xf32> to tensor<3x6xf32>
  return %x0, %s : tensor<6x6xf32>, tensor<3x6xf32>
}
// A result and a choice that may be it.
func.func private @choose(%x0: tensor<6x6xf32> {shard.layout = #S1}, %c: i1) -> (tensor<6x6xf32> {shard.layout = #R}, tensor<6x6xf32> {shard.layout = #R}) {
  %h0 = arith.addf %x0, %x0 : tensor<6x6xf32>
  %e = arith.mulf %x0, %x0 : tensor<6x6xf32>
  %r = scf.if %c -> tensor<6x6xf32> {
    scf.yield %h0 : tensor<6x6xf32>
  } else {
    scf.yield %e : tensor<6x6xf32>
  }
  return %h0, %r : tensor<6x6xf32>, tensor<6x6xf32>
}
// The pair passed on from a call.
func.func private @nested(%x0: tensor<6x6xf32> {shard.layout = #S1}) -> (tensor<6x6xf32> {shard.layout = #R}, tensor<3x6xf32> {shard.layout = #R}) {
  %v:2 = func.call @slice(%x0) : (tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<3x6xf32>)
  return %v#0, %v#1 : tensor<6x6xf32>, tensor<3x6xf32>
}
// Each of these computes in place on its argument, replicated.
func.func private @twice(%x0: tensor<6x6xf32> {shard.layout = #R}) -> (tensor<6x6xf32> {shard.layout = #R}) {
  %h0 = arith.addf %x0, %x0 {shard.sharding = #shard.sharding<mesh = #m, loops = [-]>} : tensor<6x6xf32>
  return %h0 : tensor<6x6xf32>
}
func.func private @twice3(%x0: tensor<3x6xf32> {shard.layout = #R}) -> (tensor<3x6xf32> {shard.layout = #R}) {
  %h0 = arith.addf %x0, %x0 {shard.sharding = #shard.sharding<mesh = #m, loops = [-]>} : tensor<3x6xf32>
  return %h0 : tensor<3x6xf32>
}
func.func private @twice36(%x0: tensor<36xf32> {shard.layout = #R}) -> (tensor<36xf32> {shard.layout = #R}) {
  %h0 = arith.addf %x0, %x0 {shard.sharding = #shard.sharding<mesh = #m, loops = [-]>} : tensor<36xf32>
  return %h0 : tensor<36xf32>
}
