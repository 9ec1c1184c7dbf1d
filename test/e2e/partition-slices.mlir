// tensor.extract_slice under sharding (issue 26, item 1), every element of
// every result checked on every rank against the unpartitioned program:
// - along a dim the source does not shard (x[:, 3:9], rows sharded): each
//   rank slices its own block, nothing moves;
// - along the sharded dim (x[1:6, :] and the rank-reducing row x[2, :]):
//   each rank slices what it holds of x[1:6, :], then an exchange makes
//   the result's blocks; the row comes by an all_to_all of the whole of x
//   (its cheapest plan for now: only rank 0 holds row 2);
// - a strided slice (t[3:23:2, 1:11]) of a replicated table into a sharded
//   result (test/Passes/shard-spmd-partition.mlir shows each rank slicing
//   only its rows when the slice is given the result's sharding).
// 10 rows over 4 ranks (3, 3, 3, 1) and 8 over 2.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' -e 's/@R@/10/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry slices --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: sed -e 's/@N@/2/g' -e 's/@R@/8/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry slices --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// NP4: shard-run: rank 0: OK, 84 elements checked
// NP4-NEXT: shard-run: rank 1: OK, 84 elements checked
// NP4-NEXT: shard-run: rank 2: OK, 68 elements checked
// NP4-NEXT: shard-run: rank 3: OK, 20 elements checked
// NP2: shard-run: rank 0: OK
// NP2-NEXT: shard-run: rank 1: OK
// The slice along the unsharded dim: this rank's rows, nothing gathered.
// LOCAL: tensor.extract_slice %arg0[0, 3] [%{{.*}}, 6] [1, 1] : tensor<?x16xf32> to tensor<?x6xf32>

#m = #shard.mesh<shape = [@N@]>
func.func @slices(%x: tensor<@R@x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                  %t: tensor<32x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<@R@x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        tensor<5x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        tensor<@R@x@R@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        tensor<16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %a = tensor.extract_slice %x[0, 3] [@R@, 6] [1, 1] : tensor<@R@x16xf32> to tensor<@R@x6xf32>
  %b = tensor.extract_slice %x[1, 0] [5, 16] [1, 1] : tensor<@R@x16xf32> to tensor<5x16xf32>
  %c = tensor.extract_slice %t[3, 1] [@R@, @R@] [2, 1] : tensor<32x32xf32> to tensor<@R@x@R@xf32>
  %d = tensor.extract_slice %x[2, 0] [1, 16] [1, 1] : tensor<@R@x16xf32> to tensor<16xf32>
  return %a, %b, %c, %d : tensor<@R@x6xf32>, tensor<5x16xf32>, tensor<@R@x@R@xf32>, tensor<16xf32>
}
