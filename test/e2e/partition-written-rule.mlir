// An op shardc has no rule for is sharded by a rule written on it
// (shard.sharding_rule = #shard.rule<...>, the form -shard-print-sharding-rules
// prints): propagation and partition read it as any rule, and the op runs
// as itself on each rank's blocks (tosa.rfft2d, a 2-D transform of each
// image: cut by images it is). The rule is the writer's promise: one that
// cuts an image's rows, which the transform mixes, is not the same op on
// local blocks, and --check shows the rule wrong. A split where ranks'
// blocks differ in shape (the op's other operands may name its shape) is
// refused.
// tensor.splat has a rule of its own, with a partition hook that builds a
// splat of this rank's block sizes: uneven blocks included.
// REQUIRES: mpi
// RUN: %mpirun -np 2 %shard-run %s --entry rfft_batch --check | sort | FileCheck %s --check-prefix=OK2
// RUN: %mpirun -np 4 %shard-run %s --entry rfft_batch,rfft_batch4 --check > %t.run1 2>&1
// RUN: %entry-lines rfft_batch %t.run1 | FileCheck %s --check-prefix=OK4
// RUN: %entry-lines rfft_batch4 %t.run1 | FileCheck %s --check-prefix=OK4
// RUN: %mpirun -np 3 %shard-run %s --entry splat_uneven --check | sort | FileCheck %s --check-prefix=OK3
// RUN: not %mpirun -np 2 %shard-run %s --entry rfft_rows --check | sort | FileCheck %s --check-prefix=WRONG
// RUN: not shard-opt %s -shard-propagate -shard-spmd-partition=world-size=3 2>&1 | FileCheck %s --check-prefix=UNEVEN
// OK2: shard-run: rank 0: OK
// OK2-NEXT: shard-run: rank 1: OK
// OK3: shard-run: rank 0: OK
// OK3-NEXT: shard-run: rank 1: OK
// OK3-NEXT: shard-run: rank 2: OK
// OK4: shard-run: rank 0: OK
// OK4-NEXT: shard-run: rank 1: OK
// OK4-NEXT: shard-run: rank 2: OK
// OK4-NEXT: shard-run: rank 3: OK
// WRONG: rank 1: MISMATCH
// UNEVEN: error: 'tosa.rfft2d' op is partitioned by the sharding rule written on it only where every rank's block of its results has one shape; result #0 is '!shard.tensor<7x8x5xf32, {{.*}}placements = [S(0)]>>' (give the op a partition hook: ShardingRuleOpInterface)

#m2 = #shard.mesh<shape = [2]>
#m4 = #shard.mesh<shape = [4]>
#m3 = #shard.mesh<shape = [3]>

// Each rank transforms its own images (the batch cut): nothing moves.
func.func @rfft_batch(%x: tensor<4x8x8xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>})
    -> (tensor<4x8x5xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>},
        tensor<4x8x5xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}) {
  %re, %im = tosa.rfft2d %x {shard.sharding_rule = #shard.rule<([d0, _, _]) -> ([d0, _, _], [d0, _, _]) {d0=4}>} : (tensor<4x8x8xf32>) -> (tensor<4x8x5xf32>, tensor<4x8x5xf32>)
  return %re, %im : tensor<4x8x5xf32>, tensor<4x8x5xf32>
}

// Cut by images on 4 ranks: one each.
func.func @rfft_batch4(%x: tensor<4x8x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>})
    -> (tensor<4x8x5xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>},
        tensor<4x8x5xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>}) {
  %re, %im = tosa.rfft2d %x {shard.sharding_rule = #shard.rule<([d0, _, _]) -> ([d0, _, _], [d0, _, _]) {d0=4}>} : (tensor<4x8x8xf32>) -> (tensor<4x8x5xf32>, tensor<4x8x5xf32>)
  return %re, %im : tensor<4x8x5xf32>, tensor<4x8x5xf32>
}

// A wrong rule: the transform mixes an image's rows, which it cuts.
func.func @rfft_rows(%x: tensor<4x8x8xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1)]>})
    -> (tensor<4x8x5xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1)]>},
        tensor<4x8x5xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1)]>}) {
  %re, %im = tosa.rfft2d %x {shard.sharding_rule = #shard.rule<([d0, d1, _]) -> ([d0, d1, _], [d0, d1, _]) {d0=4, d1=8}>} : (tensor<4x8x8xf32>) -> (tensor<4x8x5xf32>, tensor<4x8x5xf32>)
  return %re, %im : tensor<4x8x5xf32>, tensor<4x8x5xf32>
}

// 7 images on 3 ranks: local types tensor<?x8x5xf32>, which the op as
// written does not make.
func.func @rfft_uneven(%x: tensor<7x8x8xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>})
    -> (tensor<7x8x5xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>}) {
  %re, %im = tosa.rfft2d %x {shard.sharding_rule = #shard.rule<([d0, _, _]) -> ([d0, _, _], [d0, _, _]) {d0=7}>} : (tensor<7x8x8xf32>) -> (tensor<7x8x5xf32>, tensor<7x8x5xf32>)
  return %re : tensor<7x8x5xf32>
}

func.func @splat_uneven(%x: tensor<7x6xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>})
    -> (tensor<7x6xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>}) {
  %h = arith.constant 1.5 : f32
  %g = tensor.splat %h : tensor<7x6xf32>
  %y = arith.mulf %x, %g : tensor<7x6xf32>
  return %y : tensor<7x6xf32>
}
