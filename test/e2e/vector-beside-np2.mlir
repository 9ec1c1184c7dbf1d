// A file holding vector ops beside the function it shards (tpp-mlir's tests
// print their results with vector.print): it parses (it was refused,
// "Dialect 'vector' not found", whatever its entry), the sharded entry
// runs with every element checked, and the vector entry runs too: the
// shard-to-llvm pipeline lowers vector ops (transfers as loops where they
// need them, vector.print as calls of MLIR's C runner utilities, which
// shard-run loads); they were refused as having no LLVM form.
// REQUIRES: mpi
// RUN: %mpirun -np 2 shard-run %s --entry double --check 2>&1 | FileCheck %s --implicit-check-not=error: --check-prefix=RAN
// RAN-COUNT-2: OK, 4 elements checked, received 0 bytes
// RUN: shard-opt %s --shard-to-llvm -o /dev/null
// shard-run's argument values: (7 i + 5 arg) mod 13 - 6.
// RUN: %mpirun -np 2 shard-run %s --entry print_first 2>&1 | FileCheck %s --implicit-check-not=error: --check-prefix=PRINTED
// PRINTED-COUNT-2: ( -6, 1, -5, 2 )
#m = #shard.mesh<shape = [2]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
func.func @double(%x: tensor<8xf32> {shard.layout = #S0}) -> (tensor<8xf32> {shard.layout = #S0}) {
  %y = arith.addf %x, %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func @print_first(%x: tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %x[%c0], %p : tensor<8xf32>, vector<4xf32>
  vector.print %v : vector<4xf32>
  return
}
