// shard-run --check of a program that is already distributed: the program
// as written holds global shard ops (distribute, redistribute, all_gather),
// so it runs on every rank, as its collectives need, each rank comparing
// with its own results. Run on rank 0 alone, it waited in its first
// collective for ranks that waited for its results: a hang (found by an
// adversarial test; the timeout makes a regression fail, not hang).
// REQUIRES: mpi
// RUN: timeout 120 %mpirun -np 2 %shard-run %s --entry gather_moved,gather_to_root --check 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH
// CHECK: shard-run: @gather_moved: rank 0: OK, 8 elements checked
// CHECK-NEXT: shard-run: @gather_moved: rank 1: OK, 8 elements checked
// CHECK-NEXT: shard-run: @gather_to_root: rank 0: OK, 8 elements checked
// CHECK-NEXT: shard-run: @gather_to_root: rank 1: OK, 8 elements checked

!A = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!B = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:1", "rank:0"]>>
func.func @gather_moved(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.distribute %x from rank 0 : tensor<8xf32> -> !A
  %r = shard.redistribute %s : !A -> !B
  %g = shard.all_gather %r : !B -> tensor<8xf32>
  return %g : tensor<8xf32>
}
func.func @gather_to_root(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.distribute %x from rank 1 : tensor<8xf32> -> !B
  %g = shard.all_gather %s : !B -> tensor<8xf32>
  return %g : tensor<8xf32>
}
