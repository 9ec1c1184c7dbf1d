// A function of the outer module beside a nested module whose function
// needs a collective (an all_to_all, S(0) -> S(1)): the file lowers, and the
// outer function runs on 2 ranks with every element checked. The outer
// module's bufferization met the nested collective as an op of unknown
// effects and refused the whole file, whichever entry was run.
// REQUIRES: mpi
// RUN: %mpirun -np 2 shard-run %s --entry top --check 2>&1 | FileCheck %s --implicit-check-not=error
// CHECK-COUNT-2: OK, 12 elements checked, received 0 bytes
#m = #shard.mesh<shape = [2]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
!t = tensor<4x3xf32>
func.func @top(%x: !t) -> !t {
  %a = arith.negf %x : !t
  return %a : !t
}
module @inner {
  func.func @nested_entry(%x: !t {shard.layout = #S0}) -> (!t {shard.layout = #S1}) {
    %a = arith.negf %x : !t
    return %a : !t
  }
}
