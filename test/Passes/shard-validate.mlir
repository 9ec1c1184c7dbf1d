// RUN: shard-opt %s -shard-validate="world-size=4 report" -split-input-file -verify-diagnostics
// RUN: not shard-opt %s -shard-validate="world-size=-1" 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: -shard-validate: world-size must be between 1 and 2147483647 (the size of an MPI world is a positive int), got -1

// A valid chunk spec on the world: a summary remark (10 over 4 is 3, 3, 3, 1).
// expected-remark @+1 {{'!shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu", "rank:2/cpu", "rank:3/cpu"]>>': 4 blocks on 4 ranks, 6 to 18 elements per rank}}
func.func private @chunk(!shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>)

// -----

// Replicas count per device.
// expected-remark @+1 {{2 blocks (4 with replicas) on 4 ranks, 24 to 24 elements per rank}}
func.func private @replicas(!shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [R, S(0)]>>)

// -----

// A block beyond the world is named.
// expected-error @+1 {{block #4 (offsets [8], sizes [2]) is placed on rank 4 but the world has 4 ranks}}
func.func private @beyond(!shard.tensor<10xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3", "rank:4"]>>)

// -----

// Mesh device ids too.
func.func @mesh(%t: tensor<4xf32>) {
  // expected-error @+1 {{block #1 (offsets [2], sizes [2]) is placed on rank 7 but the world has 4 ranks}}
  %s = shard.distribute %t from rank 0 : tensor<4xf32> -> !shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2], devices = [0, 7]>, placements = [S(0)]>>
  return
}

// -----

// The ranks ops name are in the world too: a gather to rank 5 of a world of 4
// is the user's mistake, named here rather than at run time.
!s4 = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
func.func @gather_beyond(%s: !s4) -> tensor<8xf32> {
  // expected-remark @+2 {{4 blocks on 4 ranks}}
  // expected-error @+1 {{'shard.gather' gathers to rank 5 but the world has 4 ranks}}
  %g = shard.gather %s to rank 5 : !s4 -> tensor<8xf32>
  return %g : tensor<8xf32>
}

// -----

!d4 = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
func.func @distribute_beyond(%t: tensor<8xf32>) -> !d4 {
  // expected-remark @+2 {{4 blocks on 4 ranks}}
  // expected-error @+1 {{'shard.distribute' distributes from rank 4 but the world has 4 ranks}}
  %s = shard.distribute %t from rank 4 : tensor<8xf32> -> !d4
  return %s : !d4
}

// -----

// Placements without a rank are summarized apart.
// expected-remark @+1 {{1 blocks, 4 elements on placements without rank}}
func.func private @device(!shard.tensor<4xf32, #shard.device_placement<"cuda:0">>)

// -----

// A declared mesh and a tensor's mesh with the same axis names must agree.
#dp_tp = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
// expected-note @+1 {{mesh declared here}}
shard.mesh @dp_tp = #dp_tp
// expected-remark @+1 {{4 blocks on 4 ranks}}
func.func private @same(!shard.tensor<8x8xf32, #shard.placements<mesh = #dp_tp, placements = [S(0), S(1)]>>)
// expected-remark @+2 {{4 blocks on 4 ranks, 16 to 16 elements per rank}}
// expected-error @+1 {{uses the axis names of mesh @dp_tp but another mesh: #shard.mesh<shape = [4, 1], axes = ["dp", "tp"]> vs #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>}}
func.func private @other(!shard.tensor<8x8xf32, #shard.placements<mesh = #shard.mesh<shape = [4, 1], axes = ["dp", "tp"]>, placements = [S(0), S(1)]>>)
