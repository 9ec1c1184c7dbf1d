// Reductions of several results, each with an init of its own, cut along
// the reduced dim: every result's init is kept by the first copy only (the
// others take the reduction's identity), whatever the other results'
// inits became. Found on upstream MLIR's linalg.reduce of two inputs and
// two inits (mlir/test/Dialect/Linalg/named-ops.mlir @reduce): the second
// init was kept on every rank, so its result was the sum plus N times the
// init (a MISMATCH on every rank), because the first result's init, made
// partial, was read as a Partial operand of the op.
// REQUIRES: mpi
// RUN: for n in 2 3 4; do \
// RUN:   sed -e "s/@N@/$n/g" %s > %t.$n.mlir; \
// RUN:   %mpirun -np $n %shard-run %t.$n.mlir --entry reduce_two,reduce_sum_max,generic_two --check > %t.whole.$n 2>&1; \
// RUN:   %mpirun -np $n %shard-run %t.$n.mlir --entry reduce_two,reduce_sum_max,generic_two --check --propagate=search=greedy > %t.greedy.$n 2>&1; \
// RUN: done
// RUN: not grep -e MISMATCH -e error %t.whole.2 %t.whole.3 %t.whole.4 %t.greedy.2 %t.greedy.3 %t.greedy.4
// RUN: cat %t.whole.2 %t.greedy.2 | grep -c ": OK" | FileCheck %s --check-prefix=NP2
// RUN: cat %t.whole.3 %t.greedy.3 | grep -c ": OK" | FileCheck %s --check-prefix=NP3
// RUN: cat %t.whole.4 %t.greedy.4 | grep -c ": OK" | FileCheck %s --check-prefix=NP4
// Three entries, two searches, every rank OK:
// NP2: 12
// NP3: 18
// NP4: 24

#m = #shard.mesh<shape = [@N@]>
#cut1 = #shard.placements<mesh = #m, placements = [S(1)]>
#cut0 = #shard.placements<mesh = #m, placements = [S(0)]>
#r = #shard.placements<mesh = #m, placements = [R]>

// Both inputs cut along the reduced dim (7 rows: uneven on 2, 3 and 4
// ranks), both inits whole arguments (not the identity).
func.func @reduce_two(%input1: tensor<6x7x5xf32> {shard.layout = #cut1},
                      %input2: tensor<6x7x5xf32> {shard.layout = #cut1},
                      %init1: tensor<6x5xf32> {shard.layout = #r},
                      %init2: tensor<6x5xf32> {shard.layout = #r})
    -> (tensor<6x5xf32> {shard.layout = #cut0},
        tensor<6x5xf32> {shard.layout = #cut1}) {
  %reduce, %reduce2 = linalg.reduce
      ins(%input1, %input2 : tensor<6x7x5xf32>, tensor<6x7x5xf32>)
      outs(%init1, %init2 : tensor<6x5xf32>, tensor<6x5xf32>)
      dimensions = [1]
      (%in1: f32, %in2: f32, %out1: f32, %out2: f32) {
        %0 = arith.addf %in1, %out1 : f32
        %1 = arith.addf %in2, %out2 : f32
        linalg.yield %0, %1 : f32, f32
      }
  return %reduce, %reduce2 : tensor<6x5xf32>, tensor<6x5xf32>
}

// A max and a sum of one input (read twice), the sum's init second.
func.func @reduce_sum_max(%input: tensor<7x6xf32> {shard.layout = #cut0},
                          %init1: tensor<6xf32> {shard.layout = #r},
                          %init2: tensor<6xf32> {shard.layout = #r})
    -> (tensor<6xf32> {shard.layout = #r}, tensor<6xf32> {shard.layout = #r}) {
  %max, %sum = linalg.reduce
      ins(%input, %input : tensor<7x6xf32>, tensor<7x6xf32>)
      outs(%init1, %init2 : tensor<6xf32>, tensor<6xf32>)
      dimensions = [0]
      (%in: f32, %in2: f32, %m: f32, %s: f32) {
        %0 = arith.maximumf %in, %m : f32
        %1 = arith.addf %in2, %s : f32
        linalg.yield %0, %1 : f32, f32
      }
  return %max, %sum : tensor<6xf32>, tensor<6xf32>
}

// The same as a linalg.generic of two sums, its results pinned whole.
func.func @generic_two(%a: tensor<5x7xf32> {shard.layout = #cut1},
                       %init1: tensor<5xf32> {shard.layout = #r},
                       %init2: tensor<5xf32> {shard.layout = #r})
    -> (tensor<5xf32> {shard.layout = #r}, tensor<5xf32> {shard.layout = #r}) {
  %s1, %s2 = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                       affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<5x7xf32>) outs(%init1, %init2 : tensor<5xf32>, tensor<5xf32>) {
    ^bb0(%x: f32, %o1: f32, %o2: f32):
      %0 = arith.addf %x, %o1 : f32
      %sq = arith.mulf %x, %x : f32
      %1 = arith.addf %sq, %o2 : f32
      linalg.yield %0, %1 : f32, f32
  } -> (tensor<5xf32>, tensor<5xf32>)
  return %s1, %s2 : tensor<5xf32>, tensor<5xf32>
}
