// world-size, as the passes take it (-shard-plan-redistribute's and
// -shard-validate's, one check: layout::checkWorldSize): the size of an MPI
// world (1 to 2^31 - 1), holding every rank the layouts name.
// RUN: shard-opt %s -shard-plan-redistribute="world-size=2" -split-input-file -verify-diagnostics
// RUN: not shard-opt %s -shard-plan-redistribute="world-size=5000000000" 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not shard-opt %s -shard-plan-redistribute="world-size=-1" 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not shard-opt %s -shard-validate="world-size=5000000000" 2>&1 | FileCheck %s --check-prefix=VHUGE
// HUGE: error: -shard-plan-redistribute: world-size must be between 1 and 2147483647 (the size of an MPI world is a positive int), got 5000000000
// NEG: error: -shard-plan-redistribute: world-size must be between 1 and 2147483647 (the size of an MPI world is a positive int), got -1
// VHUGE: error: -shard-validate: world-size must be between 1 and 2147483647 (the size of an MPI world is a positive int), got 5000000000

// A world of 2 holds ranks 0 and 1: a layout naming rank 3 is named at the op
// (before, the report silently covered 4 ranks).
!a = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!b = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:1", "rank:3"]>>
func.func @beyond(%a: !a) -> !b {
  // expected-error @+1 {{-shard-plan-redistribute: world-size is 2 but the layouts name rank 3 (a world of 2 ranks has ranks 0 to 1)}}
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}

// -----

// So is a distribute's source rank.
!c = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func @root(%t: tensor<8xf32>) -> !c {
  // expected-error @+1 {{world-size is 2 but the layouts name rank 5}}
  %c = shard.distribute %t from rank 5 : tensor<8xf32> -> !c
  return %c : !c
}

// -----

// Ranks inside the world plan as before.
!d = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!e = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:1", "rank:0"]>>
func.func @inside(%d: !d) -> !e {
  %e = shard.redistribute %d : !d -> !e
  return %e : !e
}
