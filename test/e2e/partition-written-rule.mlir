// An op shardc has no rule for is sharded by a rule written on it
// (shard.sharding_rule = #shard.rule<...>, the form -shard-print-sharding-rules
// prints): propagation and partition read it as any rule, and the op runs
// as itself on each rank's blocks. The rule is the writer's promise: a
// tensor.generate whose body reads its indices is not the same op on local
// blocks, and --check shows the rule wrong. A split where ranks' blocks differ
// in shape (the op's other operands may name its shape) is refused.
// tensor.splat has a rule of its own, with a partition hook that builds a
// splat of this rank's block sizes: uneven blocks included.
// REQUIRES: mpi
// RUN: %mpirun -np 2 %shard-run %s --entry generate_rows --check | sort | FileCheck %s --check-prefix=OK2
// RUN: %mpirun -np 4 %shard-run %s --entry generate_rows,generate_cols --check > %t.run1 2>&1
// RUN: %entry-lines generate_rows %t.run1 | FileCheck %s --check-prefix=OK4
// RUN: %entry-lines generate_cols %t.run1 | FileCheck %s --check-prefix=OK4
// RUN: %mpirun -np 3 %shard-run %s --entry splat_uneven --check | sort | FileCheck %s --check-prefix=OK3
// RUN: not %mpirun -np 2 %shard-run %s --entry generate_indexed --check | sort | FileCheck %s --check-prefix=WRONG
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
// UNEVEN: error: 'tensor.generate' op is partitioned by the sharding rule written on it only where every rank's block of its results has one shape; result #0 is '!shard.tensor<7x6xf32, {{.*}}placements = [S(0)]>>' (give the op a partition hook: ShardingRuleOpInterface)

#m2 = #shard.mesh<shape = [2]>
#m4 = #shard.mesh<shape = [4]>
#m3 = #shard.mesh<shape = [3]>

// Each rank generates its own rows of a constant tensor: nothing moves.
func.func @generate_rows(%x: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}) {
  %h = arith.constant 1.5 : f32
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    tensor.yield %h : f32
  } {shard.sharding_rule = #shard.rule<() -> ([d0, d1]) {d0=8, d1=6}>} : tensor<8x6xf32>
  %y = arith.mulf %x, %g : tensor<8x6xf32>
  return %y : tensor<8x6xf32>
}

// Cut by columns on 4 ranks: two columns each.
func.func @generate_cols(%x: tensor<3x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>})
    -> (tensor<3x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %a = arith.constant 2.0 : f32
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    tensor.yield %a : f32
  } {shard.sharding_rule = #shard.rule<() -> ([d0, d1]) {d0=3, d1=8}>} : tensor<3x8xf32>
  %y = arith.addf %x, %g : tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// A wrong rule: the body reads its row index, which on rank 1 is local.
func.func @generate_indexed(%x: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}) {
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %k = arith.index_cast %i : index to i32
    %f = arith.sitofp %k : i32 to f32
    tensor.yield %f : f32
  } {shard.sharding_rule = #shard.rule<() -> ([d0, d1]) {d0=8, d1=6}>} : tensor<8x6xf32>
  %y = arith.addf %x, %g : tensor<8x6xf32>
  return %y : tensor<8x6xf32>
}

// 7 rows on 3 ranks: local types tensor<?x6xf32>, which tensor.generate
// cannot take without sizes.
func.func @generate_uneven(%x: tensor<7x6xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>})
    -> (tensor<7x6xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>}) {
  %h = arith.constant 1.5 : f32
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    tensor.yield %h : f32
  } {shard.sharding_rule = #shard.rule<() -> ([d0, d1]) {d0=7, d1=6}>} : tensor<7x6xf32>
  %y = arith.mulf %x, %g : tensor<7x6xf32>
  return %y : tensor<7x6xf32>
}

func.func @splat_uneven(%x: tensor<7x6xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>})
    -> (tensor<7x6xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>}) {
  %h = arith.constant 1.5 : f32
  %g = tensor.splat %h : tensor<7x6xf32>
  %y = arith.mulf %x, %g : tensor<7x6xf32>
  return %y : tensor<7x6xf32>
}
