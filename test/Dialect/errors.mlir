// Diagnostics of the dialect's parsers and verifiers, one case each for most
// of them (some verifier messages are reachable only from C++ builders).
// RUN: shard-opt %s -split-input-file -verify-diagnostics

// Device strings that PyTorch's _remote_device rejects.
// expected-error @+1 {{invalid device "cuda:foo": device index 'foo' is not a non-negative integer}}
func.func private @f() attributes {d = #shard.device<"cuda:foo">}

// -----

// expected-error @+1 {{invalid device "foo:0": 'foo' is neither 'rank' nor a device type}}
func.func private @f() attributes {d = #shard.device<"foo:0">}

// -----

// expected-error @+1 {{invalid device "rank:foo": rank 'foo' is not a non-negative integer}}
func.func private @f() attributes {d = #shard.device<"rank:foo">}

// -----

// expected-error @+1 {{invalid device "rank:0/cpu2": 'cpu2' is not a device type (expected 'cpu' or 'cuda')}}
func.func private @f() attributes {d = #shard.device<"rank:0/cpu2">}

// -----

// expected-error @+1 {{invalid device "rank:0/random:0": 'random' is not a device type}}
func.func private @f() attributes {d = #shard.device<"rank:0/random:0">}

// -----

// PyTorch accepts RPC worker names; SPMD code has ranks only.
// expected-error @+1 {{invalid device "worker0/cuda:0": worker names ('worker0') are not supported, only ranks}}
func.func private @f() attributes {d = #shard.device<"worker0/cuda:0">}

// -----

// expected-error @+1 {{invalid device "rank:0/cuda:0/x": more than one '/'}}
func.func private @f() attributes {d = #shard.device<"rank:0/cuda:0/x">}

// -----

// expected-error @+1 {{invalid device "/cuda:0": nothing before '/'}}
func.func private @f() attributes {d = #shard.device<"/cuda:0">}

// -----

// expected-error @+1 {{invalid device "rank:-1": rank '-1' is not a non-negative integer}}
func.func private @f() attributes {d = #shard.device<"rank:-1">}

// -----

// c10::Device rejects leading zeros in a device index.
// expected-error @+1 {{invalid device "cuda:01": device index '01' has leading zeros}}
func.func private @f() attributes {d = #shard.device<"cuda:01">}

// -----

// expected-error @+1 {{invalid device "rank:0/cuda:128": device index 128 is out of range (PyTorch's device index is 8-bit: at most 127)}}
func.func private @f() attributes {d = #shard.device<"rank:0/cuda:128">}

// -----

// expected-error @+1 {{invalid device "cpu:1": cpu device index must be 0, got 1}}
func.func private @f() attributes {d = #shard.device<"cpu:1">}

// -----

// Valid torch devices that shardc has no backend for.
// expected-error @+1 {{invalid device "meta": device type 'meta' is not supported (only 'cpu' and 'cuda')}}
func.func private @f() attributes {d = #shard.device<"meta">}

// -----

// expected-error @+1 {{invalid device "cuda:0/cpu": a device ('cuda:0') cannot come before '/'}}
func.func private @f() attributes {d = #shard.device<"cuda:0/cpu">}

// -----

// expected-error @+1 {{invalid device "rank:2147483648": rank 2147483648 is out of range (MPI ranks are at most 2147483647)}}
func.func private @f() attributes {d = #shard.device<"rank:2147483648">}

// -----

// Numbers past int64 are out of range too, not "not an integer".
// expected-error @+1 {{invalid device "rank:9223372036854775808": rank 9223372036854775808 is out of range (MPI ranks are at most 2147483647)}}
func.func private @f() attributes {d = #shard.device<"rank:9223372036854775808">}

// -----

// expected-error @+1 {{invalid device "cuda:99999999999999999999": device index 99999999999999999999 is out of range (PyTorch's device index is 8-bit: at most 127)}}
func.func private @f() attributes {d = #shard.device<"cuda:99999999999999999999">}

// -----

// Placements inside specs are checked the same way.
// expected-error @+1 {{invalid device "cuda:foo"}}
func.func private @f() attributes {d = #shard.chunk<dim = 0, placements = ["rank:0", "cuda:foo"]>}

// -----

// expected-error @+1 {{a chunk spec needs at least one placement}}
func.func private @f() attributes {d = #shard.chunk<dim = 0, placements = []>}

// -----

// expected-error @+1 {{chunk dim 2 is out of range for a tensor of rank 2 (expected -2 <= dim < 2)}}
func.func private @f(!shard.tensor<4x4xf32, #shard.chunk<dim = 2, placements = ["rank:0"]>>)

// -----

// expected-error @+1 {{chunk dim -3 is out of range for a tensor of rank 2}}
func.func private @f(!shard.tensor<4x4xf32, #shard.chunk<dim = -3, placements = ["rank:0"]>>)

// -----

// expected-error @+1 {{chunk dim 0 is out of range: a rank-0 tensor has no dims}}
func.func private @f(!shard.tensor<f32, #shard.chunk<dim = 0, placements = ["rank:0"]>>)

// -----

// expected-error @+1 {{invalid sharding of tensor [4, 4]: the spec has no blocks}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[]>>)

// -----

// expected-error @+1 {{invalid sharding of tensor [4, 4]: block #1 (offsets [2], sizes [2, 4]) is inconsistent: 1 offsets but 2 sizes}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [2, 4], placement = "rank:0"},
  {offsets = [2], sizes = [2, 4], placement = "rank:1"} ]>>)

// -----

// expected-error @+1 {{invalid sharding of tensor [4, 4]: block #0 (offsets [0, 0, 0], sizes [4, 4, 1]) has rank 3 but the tensor [4, 4] has rank 2}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [0, 0, 0], sizes = [4, 4, 1], placement = "rank:0"} ]>>)

// -----

// expected-error @+1 {{block #1 (offsets [-2, 0], sizes [2, 4]) has a negative offset in dim 0}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [4, 4], placement = "rank:0"},
  {offsets = [-2, 0], sizes = [2, 4], placement = "rank:1"} ]>>)

// -----

// expected-error @+1 {{block #0 (offsets [0, 0], sizes [4, -4]) has a negative size in dim 1}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [4, -4], placement = "rank:0"} ]>>)

// -----

// expected-error @+1 {{block #1 (offsets [2, 0], sizes [3, 4]) exceeds the tensor [4, 4] in dim 0: offset 2 + size 3 > 4}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [2, 4], placement = "rank:0"},
  {offsets = [2, 0], sizes = [3, 4], placement = "rank:1"} ]>>)

// -----

// Several problems: the first is the error, the others are notes on it.
// expected-error @+3 {{block #1 (offsets [9, 0], sizes [1, 4]) exceeds the tensor [4, 4] in dim 0}}
// expected-note @+2 {{block #2 (offsets [0, 7], sizes [4, 1]) exceeds the tensor [4, 4] in dim 1}}
// expected-note @+1 {{block #3 (offsets [0], sizes [4, 4]) is inconsistent}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [4, 4], placement = "rank:0"},
  {offsets = [9, 0], sizes = [1, 4], placement = "rank:1"},
  {offsets = [0, 7], sizes = [4, 1], placement = "rank:2"},
  {offsets = [0], sizes = [4, 4], placement = "rank:3"} ]>>)

// -----

// expected-error @+1 {{block #0 (offsets [9223372036854775807, 0], sizes [2, 4]): offset + size overflows int64 in dim 0}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [9223372036854775807, 0], sizes = [2, 4], placement = "rank:0"} ]>>)

// -----

// expected-error @+1 {{invalid sharding of tensor [4, 4]: block #0 (offsets [0, 0], sizes [3, 4]) and block #1 (offsets [2, 0], sizes [2, 4]) overlap in (offsets [2, 0], sizes [1, 4])}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [3, 4], placement = "rank:0"},
  {offsets = [2, 0], sizes = [2, 4], placement = "rank:1"} ]>>)

// -----

// Every overlapping pair is named.
// expected-error @+2 {{block #0 (offsets [0, 0], sizes [2, 4]) and block #1 (offsets [1, 0], sizes [2, 4]) overlap in (offsets [1, 0], sizes [1, 4])}}
// expected-note @+1 {{block #1 (offsets [1, 0], sizes [2, 4]) and block #2 (offsets [2, 0], sizes [2, 4]) overlap in (offsets [2, 0], sizes [1, 4])}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [2, 4], placement = "rank:0"},
  {offsets = [1, 0], sizes = [2, 4], placement = "rank:1"},
  {offsets = [2, 0], sizes = [2, 4], placement = "rank:2"} ]>>)

// -----

// At most 8 problems are listed, the first pairs in (lower, higher) index
// order; the total count of overlapping pairs is given.
// expected-error @+10 {{block #0 (offsets [0], sizes [4]) and block #1 (offsets [0], sizes [4]) overlap in (offsets [0], sizes [4])}}
// expected-note @+9 {{block #0 (offsets [0], sizes [4]) and block #2 (offsets [0], sizes [4]) overlap}}
// expected-note @+8 {{block #0 (offsets [0], sizes [4]) and block #3 (offsets [0], sizes [4]) overlap}}
// expected-note @+7 {{block #0 (offsets [0], sizes [4]) and block #4 (offsets [0], sizes [4]) overlap}}
// expected-note @+6 {{block #1 (offsets [0], sizes [4]) and block #2 (offsets [0], sizes [4]) overlap}}
// expected-note @+5 {{block #1 (offsets [0], sizes [4]) and block #3 (offsets [0], sizes [4]) overlap}}
// expected-note @+4 {{block #1 (offsets [0], sizes [4]) and block #4 (offsets [0], sizes [4]) overlap}}
// expected-note @+3 {{block #2 (offsets [0], sizes [4]) and block #3 (offsets [0], sizes [4]) overlap}}
// expected-note @+2 {{10 overlapping pairs of blocks in total}}
// Five copies of the whole tensor: 10 overlapping pairs.
func.func private @f(!shard.tensor<4xf32, #shard.enumerable<[
  {offsets = [0], sizes = [4], placement = "rank:0"},
  {offsets = [0], sizes = [4], placement = "rank:1"},
  {offsets = [0], sizes = [4], placement = "rank:2"},
  {offsets = [0], sizes = [4], placement = "rank:3"},
  {offsets = [0], sizes = [4], placement = "rank:4"} ]>>)

// -----

// The volumes, as PyTorch compares them, then the uncovered box.
// expected-error @+2 {{invalid sharding of tensor [4, 4]: the blocks do not cover the tensor [4, 4]: total volume of blocks 12 does not match tensor volume 16 (a gap of 4 elements in 1 box)}}
// expected-note @+1 {{the blocks do not cover the tensor [4, 4]: (offsets [3, 0], sizes [1, 4]) is not covered}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [2, 4], placement = "rank:0"},
  {offsets = [2, 0], sizes = [1, 4], placement = "rank:1"} ]>>)

// -----

// An uncovered region that is no box is named as disjoint boxes, in offset
// order.
// expected-error @+3 {{the blocks do not cover the tensor [4, 4]: total volume of blocks 12 does not match tensor volume 16 (a gap of 4 elements in 2 boxes)}}
// expected-note @+2 {{the blocks do not cover the tensor [4, 4]: (offsets [2, 0], sizes [2, 1]) is not covered}}
// expected-note @+1 {{the blocks do not cover the tensor [4, 4]: (offsets [2, 3], sizes [2, 1]) is not covered}}
func.func private @f(!shard.tensor<4x4xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [2, 4], placement = "rank:0"},
  {offsets = [2, 1], sizes = [2, 2], placement = "rank:1"} ]>>)

// -----

// expected-error @+1 {{invalid sharding of tensor [4611686018427387904, 4]: the volume of the tensor [4611686018427387904, 4] overflows int64}}
func.func private @f(!shard.tensor<4611686018427387904x4xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [4611686018427387904, 1], placement = "rank:0"},
  {offsets = [0, 1], sizes = [4611686018427387904, 3], placement = "rank:1"} ]>>)

// -----

// expected-error @+1 {{expected a sharding spec (#shard.chunk, #shard.enumerable, #shard.placements or #shard.device_placement), got #shard.device<"cpu">}}
func.func private @f(!shard.tensor<4xf32, #shard.device<"cpu">>)

// -----

// expected-error @+1 {{invalid element type 'none' for a sharded tensor}}
func.func private @f(!shard.tensor<4xnone, #shard.chunk<dim = 0, placements = ["rank:0"]>>)

// -----

// expected-error @+1 {{invalid element type 'vector<2xf32>' for a sharded tensor}}
func.func private @f(!shard.tensor<4xvector<2xf32>, #shard.chunk<dim = 0, placements = ["rank:0"]>>)

// -----

// expected-error @+1 {{dim 0 of [?, 4] is dynamic, but the layout cuts it (block #0 holds 32 of its elements at offset 0 when it has 64)}}
func.func private @f(!shard.tensor<?x4xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>)

// -----

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%t: tensor<6x9xf32>) {
  // expected-error @+1 {{'shard.distribute' op source shape [6, 9] does not match the sharded tensor's shape [6, 10]}}
  %s = shard.distribute %t from rank 0 : tensor<6x9xf32> -> !s
  return
}

// -----

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%t: tensor<6x10xf16>) {
  // expected-error @+1 {{'shard.distribute' op source element type 'f16' does not match the sharded tensor's 'f32'}}
  %s = shard.distribute %t from rank 0 : tensor<6x10xf16> -> !s
  return
}

// -----

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%t: tensor<6x10xf32>) {
  // expected-error @+1 {{'shard.distribute' op attribute 'src_rank' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %s = shard.distribute %t from rank -1 : tensor<6x10xf32> -> !s
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
!b = !shard.tensor<6x8xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%a: !a) {
  // expected-error @+1 {{'shard.redistribute' op cannot change the shape from [6, 10] to [6, 8]}}
  %b = shard.redistribute %a : !a -> !b
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
!b = !shard.tensor<6x10xi32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%a: !a) {
  // expected-error @+1 {{'shard.redistribute' op cannot change the element type from 'f32' to 'i32'}}
  %b = shard.redistribute %a : !a -> !b
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%a: !a) {
  // expected-error @+1 {{'shard.all_gather' op result shape [10, 6] does not match the sharded tensor's shape [6, 10]}}
  %t = shard.all_gather %a : !a -> tensor<10x6xf32>
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
func.func @f(%a: !a) {
  // Chunks of 10 over 4 are 3, 3, 3, 1: dim 1 cannot be static.
  // expected-error @+1 {{'shard.local_shards' op result dim 1 is static (3) but block #3 (offsets [0, 9], sizes [6, 1]) has size 1 in it; make it dynamic ('?')}}
  %l = shard.local_shards %a : !a -> tensor<6x3xf32>
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%a: !a) {
  // expected-error @+1 {{'shard.local_shards' op result has rank 1 but the sharded tensor has rank 2}}
  %l = shard.local_shards %a : !a -> tensor<?xf32>
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%a: !a) {
  // expected-error @+1 {{'shard.local_shards' op result element type 'f64' does not match the sharded tensor's 'f32'}}
  %l = shard.local_shards %a : !a -> tensor<6x?xf64>
  return
}

// -----

// Several blocks on one rank (PyTorch's LocalShardsWrapper): the local view
// packs them in a 1-D tensor, of every rank's size when static.
!a = !shard.tensor<5x5xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [3, 5], placement = "rank:0"},
  {offsets = [3, 0], sizes = [2, 5], placement = "rank:0"} ]>>
func.func @f(%a: !a) {
  // expected-error @+1 {{'shard.local_shards' op result has rank 2 but a rank owns several blocks of the sharded tensor: its local view packs them in a 1-D tensor}}
  %l = shard.local_shards %a : !a -> tensor<?x5xf32>
  return
}

// -----

!a = !shard.tensor<5x5xf32, #shard.enumerable<[
  {offsets = [0, 0], sizes = [3, 5], placement = "rank:0"},
  {offsets = [3, 0], sizes = [2, 4], placement = "rank:0"},
  {offsets = [3, 4], sizes = [2, 1], placement = "rank:1"} ]>>
func.func @f(%a: !a) {
  // expected-error @+1 {{'shard.local_shards' op result has 23 elements but the blocks of rank 1 hold 2; make it dynamic ('?')}}
  %l = shard.local_shards %a : !a -> tensor<23xf32>
  return
}

// -----

!a = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["cuda:0", "cuda:1"]>>
func.func @f(%a: !a) {
  // expected-error @+1 {{'shard.local_shards' op block #0 is placed on "cuda:0", which names no rank; a local view needs 'rank:<N>/<device>' placements}}
  %l = shard.local_shards %a : !a -> tensor<4xf32>
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
func.func @f(%l: tensor<2x10xf32>) {
  // Chunks of 6 over 4 are 2, 2, 2, 0.
  // expected-error @+1 {{'shard.from_local_shards' op operand dim 0 is static (2) but block #3 (offsets [6, 0], sizes [0, 10]) has size 0 in it}}
  %a = shard.from_local_shards %l : tensor<2x10xf32> -> !a
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%l: tensor<6x5xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op result shape [6, 5] does not match the sharded tensor's shape [6, 10]}}
  %t = shard.spmd.all_gather %l over world from !a : tensor<6x5xf32> -> tensor<6x5xf32>
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%l: tensor<6x4xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op operand dim 1 is static (4) but block #0 (offsets [0, 0], sizes [6, 5]) has size 5 in it}}
  %t = shard.spmd.all_gather %l over world from !a : tensor<6x4xf32> -> tensor<6x10xf32>
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%t: tensor<6x10xf32>) {
  // expected-error @+1 {{'shard.spmd.scatter' op result dim 0 is static (3) but block #0 (offsets [0, 0], sizes [6, 5]) has size 6 in it}}
  %l = shard.spmd.scatter %t over world root 0 to !a : tensor<6x10xf32> -> tensor<3x5xf32>
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%t: tensor<6x11xf32>) {
  // expected-error @+1 {{'shard.spmd.scatter' op source shape [6, 11] does not match the sharded tensor's shape [6, 10]}}
  %l = shard.spmd.scatter %t over world root 0 to !a : tensor<6x11xf32> -> tensor<6x5xf32>
  return
}

// -----

// Meshes and placements.
// expected-error @+1 {{invalid mesh: mesh axis 1 has size 0; sizes must be positive}}
func.func private @f() attributes {m = #shard.mesh<shape = [2, 0]>}

// -----

// expected-error @+1 {{invalid mesh: the mesh [2, 2] has 4 positions but 3 device ids}}
func.func private @f() attributes {m = #shard.mesh<shape = [2, 2], devices = [0, 1, 2]>}

// -----

// expected-error @+1 {{invalid mesh: device id 1 appears twice in the mesh}}
func.func private @f() attributes {m = #shard.mesh<shape = [2, 2], devices = [0, 1, 1, 3]>}

// -----

// expected-error @+1 {{invalid mesh: device id -1 at position 0 is not a rank (0 to 2147483647)}}
func.func private @f() attributes {m = #shard.mesh<shape = [2], devices = [-1, 1]>}

// -----

// expected-error @+1 {{invalid mesh: the mesh [4294967296, 2] has too many devices (at most 16777216)}}
func.func private @f() attributes {m = #shard.mesh<shape = [4294967296, 2]>}

// -----

// expected-error @+1 {{mesh device type must be "cpu" or "cuda", got "tpu"}}
func.func private @f() attributes {m = #shard.mesh<shape = [2], device = "tpu">}

// -----

// Every device's block is materialized: meshes are bounded.
// expected-error @+1 {{invalid mesh: the mesh [2147483647] has too many devices (at most 16777216)}}
func.func private @f() attributes {m = #shard.mesh<shape = [2147483647]>}

// -----

// expected-error @+1 {{invalid mesh: 1 axis names for a mesh of rank 2}}
func.func private @f() attributes {m = #shard.mesh<shape = [2, 2], axes = ["dp"]>}

// -----

// expected-error @+1 {{invalid mesh: axis name "dp" appears twice}}
func.func private @f() attributes {m = #shard.mesh<shape = [2, 2], axes = ["dp", "dp"]>}

// -----

// expected-error @+1 {{mesh device type must be "cpu" or "cuda", got "tpu"}}
func.func private @f() attributes {m = #shard.mesh<shape = [2], device = "tpu">}

// -----

// expected-error @+1 {{expected 'devices', 'axes' or 'device', got 'names'}}
func.func private @f() attributes {m = #shard.mesh<shape = [2], names = ["x"]>}

// -----

// A key given twice is an error, not two lists joined.
// expected-error @+1 {{'devices' is given twice}}
func.func private @f() attributes {m = #shard.mesh<shape = [2, 2], devices = [0, 1], devices = [2, 3]>}

// -----

// Axis names travel in JSON: they must be UTF-8.
// expected-error @+1 {{invalid mesh: axis name "\FF" is not valid UTF-8 (names travel in JSON)}}
func.func private @f() attributes {m = #shard.mesh<shape = [2, 2], axes = ["\FF", "b"]>}

// -----

// A dynamic dim is shown as `?`.
!l = !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), R]>>
func.func @f(%l: tensor<4x6xf32>) {
  // expected-error @+1 {{'shard.spmd.exchange' op result shape [?, 6] does not match the sharded tensor's shape [8, 6]}}
  %r = shard.spmd.exchange %l from !l to world : tensor<4x6xf32> -> tensor<?x6xf32>
  return
}

// -----

// expected-error @+1 {{3 placements for a mesh of rank 2; DTensor needs one per mesh axis}}
func.func private @f() attributes {p = #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), R, R]>}

// -----

// expected-error @+1 {{expected a placement: S(<dim>), _S(<dim>, <split>), R or P(<op>), got 'Shard'}}
func.func private @f() attributes {p = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [Shard]>}

// -----

// expected-error @+1 {{expected sum, avg, max, min or product, got 'mean'}}
func.func private @f() attributes {p = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(mean)]>}

// -----

// expected-error @+1 {{expected a #shard.mesh, got #shard.device<"cpu">}}
func.func private @f() attributes {p = #shard.placements<mesh = #shard.device<"cpu">, placements = [R]>}

// -----

// expected-error @+1 {{S(2) on mesh axis 1 is out of range for a tensor of rank 2}}
func.func private @f(!shard.tensor<4x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), S(2)]>>)

// -----

// Strided shards (_S(dim, split)).
// expected-error @+1 {{a strided shard's split is 1 or more, got 0}}
func.func private @f() attributes {p = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [_S(0, 0)]>}

// -----

// expected-error @+1 {{_S(2, 2) on mesh axis 0 is out of range for a tensor of rank 2}}
func.func private @f(!shard.tensor<4x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [_S(2, 2)]>>)

// -----

// expected-error @+1 {{expected ','}}
func.func private @f() attributes {p = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [_S(0)]>}

// -----

// 2 billion groups of one row on each device: past the cap on blocks.
// expected-error @+1 {{the devices of [2] would hold more than 4194304 blocks of the strided layout}}
func.func private @f(!shard.tensor<4000000000x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [_S(0, 2000000000)]>>)

// -----

// A strided shard's local view is the rank's rows, laid along the dim: a
// tensor of the tensor's rank, not a packed 1-D one.
!s = !shard.tensor<10x2xf32, #shard.placements<mesh = #shard.mesh<shape = [3]>, placements = [_S(0, 2)]>>
func.func @f(%a: !s) {
  // expected-error @+1 {{'shard.local_shards' op result has rank 1 but the sharded tensor has rank 2 (a rank's rows of a strided dim lie one after the other along it)}}
  %l = shard.local_shards %a : !s -> tensor<?xf32>
  return
}

// -----

// Heads 2, 2, 1 of both batches: ranks hold 4, 4 and 2 rows.
!s = !shard.tensor<10x2xf32, #shard.placements<mesh = #shard.mesh<shape = [3]>, placements = [_S(0, 2)]>>
func.func @f(%a: !s) {
  // expected-error @+1 {{'shard.local_shards' op result dim 0 is static (4) but rank 2 holds 2 rows of it; make it dynamic ('?')}}
  %l = shard.local_shards %a : !s -> tensor<4x2xf32>
  return
}

// -----

// A named collective takes layouts of one block per rank.
!a = !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [_S(0, 2)]>>
!b = !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
func.func @f(%l: tensor<4x6xf32>) {
  // expected-error @+1 {{a named collective takes layouts without strided shards}}
  %0 = shard.spmd.all_gather %l over axes [0] dim 0 from !a to !b : tensor<4x6xf32> -> tensor<8x6xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'shard.mesh' op expects parent op 'builtin.module'}}
  "shard.mesh"() {sym_name = "m", mesh = #shard.mesh<shape = [2]>} : () -> ()
  return
}

// -----

// expected-error @+1 {{invalid kind of attribute specified}}
shard.mesh @m = #shard.device<"cpu">

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
!b = !shard.tensor<6x10xf64, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func @f(%l: tensor<6x5xf32>) {
  // expected-error @+1 {{'shard.spmd.exchange' op layouts of different tensors}}
  %r = shard.spmd.exchange %l from !a to !b : tensor<6x5xf32> -> tensor<3x10xf64>
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%l: tensor<6x5xf32>) {
  // expected-error @+1 {{'shard.spmd.exchange' op result shape [6, 5] does not match the sharded tensor's shape [6, 10]}}
  %r = shard.spmd.exchange %l from !a to world : tensor<6x5xf32> -> tensor<6x5xf32>
  return
}

// -----

!p = !shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]>>
func.func @f(%l: tensor<4xf32>) {
  // expected-error @+1 {{'shard.spmd.exchange' op moves the partial values of '!shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]>>' without reducing them}}
  %r = shard.spmd.exchange %l from !p to world : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

!a = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
!b = !shard.tensor<6x10xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func @f(%l: tensor<6x5xf32>) {
  // expected-error @+1 {{'shard.spmd.exchange' op result dim 0 is static (6) but block #0 (offsets [0, 0], sizes [3, 10]) has size 3 in it}}
  %r = shard.spmd.exchange %l from !a to !b : tensor<6x5xf32> -> tensor<6x10xf32>
  return
}

// -----

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%t: tensor<6x10xf32>) {
  // expected-error @+1 {{'shard.distribute' op rank 4611686018427387904 is out of range (MPI ranks are at most 2147483647)}}
  %s = shard.distribute %t from rank 4611686018427387904 : tensor<6x10xf32> -> !s
  return
}

// -----

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%t: tensor<6x10xf32>) {
  // expected-error @+1 {{'shard.spmd.scatter' op rank 2147483648 is out of range}}
  %l = shard.spmd.scatter %t over world root 2147483648 to !s : tensor<6x10xf32> -> tensor<6x5xf32>
  return
}

// -----

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%s: !s) {
  // expected-error @+1 {{'shard.gather' op result shape [6, 5] does not match the sharded tensor's shape [6, 10]}}
  %t = shard.gather %s to rank 0 : !s -> tensor<6x5xf32>
  return
}

// -----

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @f(%s: !s) {
  // expected-error @+1 {{'shard.gather' op rank 2147483648 is out of range}}
  %t = shard.gather %s to rank 2147483648 : !s -> tensor<6x10xf32>
  return
}

// -----

// Named collectives: each says what its layouts must be.
#m22 = #shard.mesh<shape = [2, 2]>
!ss = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), S(0)]>>
!rs = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [R, S(0)]>>
func.func @gather_outer_axis(%l: tensor<?x6xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op mesh axis 0 must be the innermost that shard dim 0 before (sharding nests the outer axis first), or the group's blocks are not contiguous}}
  %0 = shard.spmd.all_gather %l over axes [0] dim 0 from !ss to !rs : tensor<?x6xf32> -> tensor<?x6xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), S(1)]>>
!b = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), R]>>
func.func @gather_wrong_dim(%l: tensor<5x3xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op all_gather takes S(0) to R on every axis of its group, but mesh axis 1 goes from S(1) to R}}
  %0 = shard.spmd.all_gather %l over axes [1] dim 0 from !a to !b : tensor<5x3xf32> -> tensor<5x6xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), S(1)]>>
!b = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [R, R]>>
func.func @gather_axis_left_out(%l: tensor<5x3xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op mesh axis 0 is not in the group but changes from S(0) to R}}
  %0 = shard.spmd.all_gather %l over axes [1] dim 1 from !a to !b : tensor<5x3xf32> -> tensor<10x6xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), S(1)]>>
!b = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), R]>>
func.func @gather_axis_range(%l: tensor<5x3xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op mesh axis 2 is out of range for a mesh of 2 axes}}
  %0 = shard.spmd.all_gather %l over axes [2] dim 1 from !a to !b : tensor<5x3xf32> -> tensor<5x6xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(1), S(1)]>>
!b = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [R, R]>>
func.func @gather_axes_order(%l: tensor<10x?xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op mesh axes must be listed once each, ascending}}
  %0 = shard.spmd.all_gather %l over axes [1, 0] dim 1 from !a to !b : tensor<10x?xf32> -> tensor<10x6xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), S(1)]>>
!b = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), R]>>
func.func @gather_world_dim(%l: tensor<5x3xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op over the world gathers the whole tensor: it takes no dim and no destination layout}}
  %0 = shard.spmd.all_gather %l over world dim 1 from !a : tensor<5x3xf32> -> tensor<10x6xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), S(1)]>>
func.func @gather_axes_no_to(%l: tensor<5x3xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op over mesh axes needs a dim and a destination layout (`dim D ... to !layout`)}}
  %0 = shard.spmd.all_gather %l over axes [1] dim 1 from !a : tensor<5x3xf32> -> tensor<5x6xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
#m4 = #shard.mesh<shape = [4]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), S(1)]>>
!b = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [R]>>
func.func @gather_two_meshes(%l: tensor<5x3xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op runs over mesh axes, so both layouts must be placements on one mesh}}
  %0 = shard.spmd.all_gather %l over axes [1] dim 1 from !a to !b : tensor<5x3xf32> -> tensor<10x6xf32>
  return
}

// -----

#m4 = #shard.mesh<shape = [4]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [S(0)]>>
!b = !shard.tensor<10x8xf32, #shard.placements<mesh = #m4, placements = [R]>>
func.func @gather_other_tensor(%l: tensor<?x6xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op layouts of different tensors}}
  %0 = shard.spmd.all_gather %l over axes [0] dim 0 from !a to !b : tensor<?x6xf32> -> tensor<10x8xf32>
  return
}

// -----

#m4 = #shard.mesh<shape = [4]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [S(0)]>>
!b = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [R]>>
func.func @gather_result_shape(%l: tensor<?x6xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op result dim 0 is static (9) but block #0 (offsets [0, 0], sizes [10, 6]) has size 10 in it}}
  %0 = shard.spmd.all_gather %l over axes [0] dim 0 from !a to !b : tensor<?x6xf32> -> tensor<9x6xf32>
  return
}

// -----

#m4 = #shard.mesh<shape = [4]>
!p = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [P(sum)]>>
!s = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [S(0)]>>
func.func @reduce_scatter_reduction(%l: tensor<10x6xf32>) {
  // expected-error @+1 {{'shard.spmd.reduce_scatter' op reduce_scatter takes P(max) to S(0) on every axis of its group, but mesh axis 0 goes from P(sum) to S(0)}}
  %0 = shard.spmd.reduce_scatter %l over axes [0] dim 0 reduce max from !p to !s : tensor<10x6xf32> -> tensor<?x6xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
!p = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [P(sum), S(0)]>>
!s = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), S(0)]>>
func.func @reduce_scatter_outer(%l: tensor<?x6xf32>) {
  // expected-error @+1 {{'shard.spmd.reduce_scatter' op mesh axis 0 must be the innermost that shard dim 0 after (sharding nests the outer axis first), or the group's blocks are not contiguous}}
  %0 = shard.spmd.reduce_scatter %l over axes [0] dim 0 reduce sum from !p to !s : tensor<?x6xf32> -> tensor<?x6xf32>
  return
}

// -----

#m4 = #shard.mesh<shape = [4]>
!p = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [P(sum)]>>
!s = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [S(0)]>>
func.func @all_reduce_to_shard(%l: tensor<10x6xf32>) {
  // expected-error @+1 {{'shard.spmd.all_reduce' op all_reduce takes P(sum) to R on every axis of its group, but mesh axis 0 goes from P(sum) to S(0)}}
  %0 = shard.spmd.all_reduce %l over axes [0] reduce sum from !p to !s : tensor<10x6xf32> -> tensor<?x6xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(0), S(0)]>>
!b = !shard.tensor<10x6xf32, #shard.placements<mesh = #m22, placements = [S(1), S(1)]>>
func.func @all_to_all_two_axes(%l: tensor<?x6xf32>) {
  // expected-error @+1 {{'shard.spmd.all_to_all' op all_to_all runs over one mesh axis}}
  %0 = shard.spmd.all_to_all %l over axes [0, 1] split 1 concat 0 from !a to !b : tensor<?x6xf32> -> tensor<10x?xf32>
  return
}

// -----

#m4 = #shard.mesh<shape = [4]>
!a = !shard.tensor<10x6xf32, #shard.placements<mesh = #m4, placements = [S(0)]>>
func.func @all_to_all_same_dim(%l: tensor<?x6xf32>) {
  // expected-error @+1 {{'shard.spmd.all_to_all' op all_to_all needs two different dims of the tensor}}
  %0 = shard.spmd.all_to_all %l over axes [0] split 0 concat 0 from !a to !a : tensor<?x6xf32> -> tensor<?x6xf32>
  return
}

// -----

!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:2">>
!all = !shard.tensor<4x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2], devices = [0, 2]>, placements = [R]>>
func.func @broadcast_root(%l: tensor<4x4xf32>) {
  // expected-error @+1 {{'shard.spmd.broadcast' op broadcast's source must be one block on the root, rank 0}}
  %0 = shard.spmd.broadcast %l over ranks [0, 2] root 0 from !one to !all : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:2">>
!all = !shard.tensor<4x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2], devices = [0, 2]>, placements = [R]>>
func.func @broadcast_group(%l: tensor<4x4xf32>) {
  // expected-error @+1 {{'shard.spmd.broadcast' op rank 0 holds a block but is not in the group}}
  %0 = shard.spmd.broadcast %l over ranks [2] root 2 from !one to !all : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:2">>
func.func @broadcast_no_ranks(%l: tensor<4x4xf32>) {
  // expected-error @+1 {{'shard.spmd.broadcast' op the group names no rank}}
  %0 = shard.spmd.broadcast %l over ranks [] root 2 from !one to !one : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:2">>
!two = !shard.tensor<4x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2], devices = [1, 2]>, placements = [R]>>
func.func @broadcast_unsorted(%l: tensor<4x4xf32>) {
  // expected-error @+1 {{'shard.spmd.broadcast' op the group's ranks must be listed once each, ascending}}
  %0 = shard.spmd.broadcast %l over ranks [2, 1] root 2 from !one to !two : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

!reps = !shard.tensor<4x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:0">>
func.func @gather_replicas(%l: tensor<4x4xf32>) {
  // expected-error @+1 {{'shard.spmd.gather' op gather's source has replicas}}
  %0 = shard.spmd.gather %l over ranks [0, 1] root 0 from !reps to !one : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

!rows = !shard.tensor<4x4xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!cols = !shard.tensor<4x4xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func @gather_not_whole(%l: tensor<2x4xf32>) {
  // expected-error @+1 {{'shard.spmd.gather' op gather's destination must be one block on the root, rank 0}}
  %0 = shard.spmd.gather %l over ranks [0, 1] root 0 from !rows to !cols : tensor<2x4xf32> -> tensor<4x2xf32>
  return
}

// -----

// No SPMD collective leaves partial values, and only a reducing one reads
// them.
#m4 = #shard.mesh<shape = [4]>
!p = !shard.tensor<8xf32, #shard.placements<mesh = #m4, placements = [P(sum)]>>
func.func @gather_partial(%l: tensor<8xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op moves the partial values of '!shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [P(sum)]>>' without reducing them; reduce them first (reduce_scatter, all_reduce or an exchange)}}
  %0 = shard.spmd.all_gather %l over world from !p : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

#m2 = #shard.mesh<shape = [2]>
!r = !shard.tensor<4xf32, #shard.placements<mesh = #m2, placements = [R]>>
!p = !shard.tensor<4xf32, #shard.placements<mesh = #m2, placements = [P(sum)]>>
func.func @exchange_to_partial(%l: tensor<4xf32>) {
  // expected-error @+1 {{'shard.spmd.exchange' op leaves partial values in '!shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]>>'; SPMD collectives end in reduced values}}
  %0 = shard.spmd.exchange %l from !r to !p : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

#m2 = #shard.mesh<shape = [2]>
!p = !shard.tensor<4xf32, #shard.placements<mesh = #m2, placements = [P(sum)]>>
func.func @scatter_to_partial(%t: tensor<4xf32>) {
  // expected-error @+1 {{'shard.spmd.scatter' op leaves partial values in}}
  %0 = shard.spmd.scatter %t over world root 0 to !p : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<4xf32, #shard.placements<mesh = #m22, placements = [P(sum), S(0)]>>
!b = !shard.tensor<4xf32, #shard.placements<mesh = #m22, placements = [P(sum), R]>>
func.func @gather_keeps_partial(%l: tensor<2xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op leaves partial values in}}
  %0 = shard.spmd.all_gather %l over axes [1] dim 0 from !a to !b : tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

#m22 = #shard.mesh<shape = [2, 2]>
!a = !shard.tensor<4xf32, #shard.placements<mesh = #m22, placements = [P(sum), P(max)]>>
!b = !shard.tensor<4xf32, #shard.placements<mesh = #m22, placements = [R, R]>>
func.func @mixed_reductions(%l: tensor<4xf32>) {
  // expected-error @+1 {{'shard.spmd.exchange' op reduces the Partial axes of '!shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [P(sum), P(max)]>>' with different operations}}
  %0 = shard.spmd.exchange %l from !a to !b : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

!a = !shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2], device = "cuda">, placements = [S(0)]>>
!b = !shard.tensor<4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
func.func @two_device_kinds(%l: tensor<2xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op moves data between devices of different kinds (cpu and cuda)}}
  %0 = shard.spmd.all_gather %l over axes [0] dim 0 from !a to !b : tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

!a = !shard.tensor<8xf32, #shard.enumerable<[{offsets = [0], sizes = [4], placement = "rank:0/cpu"}, {offsets = [4], sizes = [4], placement = "rank:1/cuda:1"}]>>
!b = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
func.func @mixed_device_kinds(%l: tensor<4xf32>) {
  // expected-error @+1 {{'shard.spmd.exchange' op moves data between devices of different kinds (cpu and cuda): the blocks of '!shard.tensor<8xf32, #shard.enumerable<[{offsets = [0], sizes = [4], placement = "rank:0/cpu"}, {offsets = [4], sizes = [4], placement = "rank:1/cuda:1"}]>>' are on both}}
  %0 = shard.spmd.exchange %l from !a to !b : tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

!a = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2], device = "cuda">, placements = [S(0)]>>
func.func @exchange_to_world_keeps_device_kind(%l: tensor<4xf32>) -> tensor<8xf32> {
  // The same kind on both sides (or a gather to every rank): fine.
  %0 = shard.spmd.exchange %l from !a to world : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

!a = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2], device = "cuda">, placements = [S(0)]>>
!b = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>
func.func @exchange_between_kinds(%l: tensor<4xf32>) {
  // expected-error @+1 {{'shard.spmd.exchange' op moves data between devices of different kinds (cpu and cuda): from}}
  %0 = shard.spmd.exchange %l from !a to !b : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0/cpu", "rank:1/cuda:0"]>>
func.func @world_all_gather_mixed(%l: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'shard.spmd.all_gather' op moves data between devices of different kinds (cpu and cuda): the blocks of}}
  %t = shard.spmd.all_gather %l over world from !s : tensor<4xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0/cuda:0", "rank:1/cpu"]>>
func.func @scatter_mixed(%t: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'shard.spmd.scatter' op moves data between devices of different kinds (cpu and cuda): the blocks of}}
  %l = shard.spmd.scatter %t over world root 0 to !s : tensor<8xf32> -> tensor<4xf32>
  return %l : tensor<4xf32>
}

// -----

#m4 = #shard.mesh<shape = [4]>
!s = !shard.tensor<4xf32, #shard.placements<mesh = #m4, placements = [S(0)]>>
!r = !shard.tensor<4xf32, #shard.placements<mesh = #m4, placements = [R]>>
func.func @no_axes(%l: tensor<1xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op the group names no mesh axis}}
  %0 = shard.spmd.all_gather %l over axes [] dim 0 from !s to !r : tensor<1xf32> -> tensor<4xf32>
  return
}

// -----

!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:1">>
!s4 = !shard.tensor<4x4xf32, #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(0)]>>
func.func @gather_rank_range(%l: tensor<1x4xf32>) {
  // expected-error @+1 {{'shard.spmd.gather' op rank -1 is out of range (MPI ranks are 0 to 2147483647)}}
  %0 = shard.spmd.gather %l over ranks [-1, 0, 1, 2, 3] root 1 from !s4 to !one : tensor<1x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Layouts of ordinary tensors: the spec must fit the tensor.
func.func @f(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'shard.constraint' op chunk dim 2 is out of range for a tensor of rank 2 (expected -2 <= dim < 2)}}
  %y = shard.constraint %x layout #shard.chunk<dim = 2, placements = ["rank:0", "rank:1"]> : tensor<8x4xf32>
  return
}

// -----

// The dialect keeps each (tensor type, layout) pair it found valid, so that
// a layout is checked once per context: a valid layout of a type does not
// make another layout of that type valid, and an invalid pair is reported
// at each use (the functions are verified one by one).
#m = #shard.mesh<shape = [2]>
func.func @valid(%x: tensor<8x4xf32>) {
  %a = shard.constraint %x layout #shard.placements<mesh = #m, placements = [S(0)]> : tensor<8x4xf32>
  %b = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(0)]> : tensor<8x4xf32>
  // expected-error @+1 {{'shard.constraint' op chunk dim 2 is out of range for a tensor of rank 2 (expected -2 <= dim < 2)}}
  %c = shard.constraint %b layout #shard.chunk<dim = 2, placements = ["rank:0", "rank:1"]> : tensor<8x4xf32>
  return
}
func.func @again(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'shard.constraint' op chunk dim 2 is out of range for a tensor of rank 2 (expected -2 <= dim < 2)}}
  %c = shard.constraint %x layout #shard.chunk<dim = 2, placements = ["rank:0", "rank:1"]> : tensor<8x4xf32>
  return
}

// -----

// Only a mesh layout's Shard placements cut a dynamic dim (by torch.chunk
// on its run-time extent); a chunk spec's blocks are made at compile time.
func.func @f(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'shard.constraint' op dim 0 of [?, 4] is dynamic, but the layout cuts it (block #0 holds 32 of its elements at offset 0 when it has 64); only a mesh layout's Shard placements (#shard.placements) cut a dynamic dim, by torch.chunk on its run-time extent: cut a static dim, give the dim a static size or use a mesh layout}}
  %y = shard.constraint %x layout #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]> : tensor<?x4xf32>
  return
}

// -----

// A strided shard of a dynamic dim: its groups need a known size.
#m = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
func.func @f(%x: tensor<4x?xf32>) {
  // expected-error @+1 {{'shard.constraint' op dim 1 of [4, ?] is dynamic, but _S(1, 2) cuts it strided; only Shard placements cut a dynamic dim (by torch.chunk on its run-time extent): give the dim a static size or cut it with S(1)}}
  %y = shard.constraint %x layout #shard.placements<mesh = #m, placements = [S(0), _S(1, 2)]> : tensor<4x?xf32>
  return
}

// -----

// Explicit blocks have sizes: a block that happens to hold all of the
// nominal extent is no whole dim.
func.func @f(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'shard.constraint' op dim 0 of [?, 4] is dynamic, but the layout cuts it (block #0 holds 64 of its elements at offset 0 when it has 65)}}
  %y = shard.constraint %x layout #shard.enumerable<[{offsets = [0, 0], sizes = [64, 4], placement = "rank:0"}]> : tensor<?x4xf32>
  return
}

// -----

// expected-error @+1 {{dim 0 of [?, 6] is dynamic, but the layout cuts it}}
func.func private @f(!shard.tensor<?x6xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>)


// -----

// expected-error @+1 {{'shard.layout' of argument #0 must be a sharding spec (#shard.chunk, #shard.enumerable, #shard.placements or #shard.device_placement), got 1 : i64}}
func.func private @f(%x: tensor<8xf32> {shard.layout = 1 : i64})

// -----

// expected-error @+1 {{unknown argument attribute 'shard.lay' (the shard dialect's are 'shard.layout', 'shard.global' and, on arguments, 'shard.batch')}}
func.func private @f(%x: tensor<8xf32> {shard.lay = #shard.chunk<dim = 0, placements = ["rank:0"]>})

// -----

// expected-error @+1 {{'shard.batch' of argument #0 must be a dim of a ranked tensor argument (an integer from 0 to its rank - 1), got 2 : i64 on 'tensor<8x4xf32>'}}
func.func private @f(%x: tensor<8x4xf32> {shard.batch = 2 : i64})

// -----

// expected-error @+1 {{'shard.batch' of argument #0 must be a dim of a ranked tensor argument (an integer from 0 to its rank - 1), got "rows" on 'tensor<8x4xf32>'}}
func.func private @f(%x: tensor<8x4xf32> {shard.batch = "rows"})

// -----

// expected-error @+1 {{'shard.layout' of result #0: S(2) on mesh axis 0 is out of range for a tensor of rank 2}}
func.func private @f() -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(2)]>})

// -----

// expected-error @+1 {{'shard.layout' of argument #0: invalid sharding of tensor [8]: block #0 (offsets [0], sizes [5]) and block #1 (offsets [4], sizes [4]) overlap in (offsets [4], sizes [1])}}
func.func private @f(%x: tensor<8xf32> {shard.layout = #shard.enumerable<[{offsets = [0], sizes = [5], placement = "rank:0"}, {offsets = [4], sizes = [4], placement = "rank:1"}]>})

// -----

// expected-error @+1 {{'shard.layout' of argument #0: a layout annotates a ranked tensor, not 'i32'}}
func.func private @f(%x: i32 {shard.layout = #shard.chunk<dim = 0, placements = ["rank:0"]>})

// -----

// expected-error @+1 {{'shard.global' of argument #0 must be a sharded tensor type, got tensor<8xf32>}}
func.func private @f(%x: tensor<4xf32> {shard.global = tensor<8xf32>})

// -----

// expected-error @+1 {{'shard.global' of result #0: result has rank 1 but the sharded tensor has rank 2}}
func.func private @f() -> (tensor<4xf32> {shard.global = !shard.tensor<8x2xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>})

// -----

// A partitioned argument after bufferization: a buffer of the local shape.
// expected-error @+1 {{'shard.global' of argument #0: argument dim 0 is static (5) but block #0 (offsets [0], sizes [4]) has size 4 in it}}
func.func private @f(%x: memref<5xf32> {shard.global = !shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>})

// -----

// A mnemonic that is no shard attribute.
// expected-error @+1 {{unknown attribute `foo` in dialect `shard`}}
func.func private @f() attributes {d = #shard.foo<1>}

// -----

// A named collective's dim must be a dim of the tensor.
#m4 = #shard.mesh<shape = [4]>
!a = !shard.tensor<8x6xf32, #shard.placements<mesh = #m4, placements = [S(0)]>>
!b = !shard.tensor<8x6xf32, #shard.placements<mesh = #m4, placements = [R]>>
func.func @all_gather_dim_range(%l: tensor<2x6xf32>) {
  // expected-error @+1 {{'shard.spmd.all_gather' op all_gather's dim 2 is out of range for a tensor of rank 2}}
  %0 = shard.spmd.all_gather %l over axes [0] dim 2 from !a to !b : tensor<2x6xf32> -> tensor<8x6xf32>
  return
}

// -----

#m4 = #shard.mesh<shape = [4]>
!p = !shard.tensor<8x6xf32, #shard.placements<mesh = #m4, placements = [P(sum)]>>
!s = !shard.tensor<8x6xf32, #shard.placements<mesh = #m4, placements = [S(0)]>>
func.func @reduce_scatter_dim_range(%l: tensor<8x6xf32>) {
  // expected-error @+1 {{'shard.spmd.reduce_scatter' op reduce_scatter's dim 2 is out of range for a tensor of rank 2}}
  %0 = shard.spmd.reduce_scatter %l over axes [0] dim 2 reduce sum from !p to !s : tensor<8x6xf32> -> tensor<2x6xf32>
  return
}

// -----

// Collectives over ranks: the root is one of the group's ranks ...
!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:2">>
!all = !shard.tensor<4x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2], devices = [0, 2]>, placements = [R]>>
func.func @broadcast_root_outside(%l: tensor<4x4xf32>) {
  // expected-error @+1 {{'shard.spmd.broadcast' op the root, rank 2, is not in the group}}
  %0 = shard.spmd.broadcast %l over ranks [0, 1] root 2 from !one to !all : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// ... a broadcast gives every rank of the group the root's block, whole ...
!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:0">>
!rows = !shard.tensor<4x4xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func @broadcast_to_parts(%l: tensor<4x4xf32>) {
  // expected-error @+1 {{'shard.spmd.broadcast' op broadcast's destination blocks must all be the root's block}}
  %0 = shard.spmd.broadcast %l over ranks [0, 1] root 0 from !one to !rows : tensor<4x4xf32> -> tensor<2x4xf32>
  return
}

// -----

// ... once each ...
!one = !shard.tensor<4x4xf32, #shard.device_placement<"rank:0">>
!two = !shard.tensor<4x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
func.func @broadcast_rank_left_out(%l: tensor<4x4xf32>) {
  // expected-error @+1 {{'shard.spmd.broadcast' op broadcast gives every rank of its group one copy of the root's block, but rank 2 holds 0}}
  %0 = shard.spmd.broadcast %l over ranks [0, 1, 2] root 0 from !one to !two : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// ... and a gather takes one block from each rank.
!cyclic = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:0", "rank:1"]>>
!one = !shard.tensor<8xf32, #shard.device_placement<"rank:0">>
func.func @gather_several_per_rank(%l: tensor<?xf32>) {
  // expected-error @+1 {{'shard.spmd.gather' op gather's source holds one block per rank, but rank 0 holds several}}
  %0 = shard.spmd.gather %l over ranks [0, 1] root 0 from !cyclic to !one : tensor<?xf32> -> tensor<8xf32>
  return
}

// -----

// An op's sharding names one loop (or '-') per mesh axis.
func.func @sharding_axes(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{1 loops for a mesh of rank 2; a sharding names one (or '-') per mesh axis}}
  %t = math.tanh %a {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2, 2]>, loops = [d0]>} : tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

func.func @sharding_token(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected a loop (d0, d1, ...) or '-' per mesh axis}}
  %t = math.tanh %a {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [x0]>} : tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// An op's reads are layouts, or 'unit' for an operand read as its loops say.
func.func @sharding_reads_kind(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{a sharding reads each operand in a layout or as its loops say ('unit'); got 1 : i64}}
  %t = math.tanh %a {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d0], reads = [1]>} : tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

func.func @sharding_reads_none(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{a sharding's reads name at least one layout (leave reads out where every operand is read as the loops say)}}
  %t = math.tanh %a {shard.sharding = #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d0], reads = [unit]>} : tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// #shard.rule: its grammar, then its verifier.
// expected-error @+1 {{expected a loop (d0, d1, ...) or '_'}}
func.func @rule_bad_dim() attributes {r = #shard.rule<([x0]) -> () {}>} { return }

// -----

// expected-error @+1 {{expected loop d1 (loops are listed in order)}}
func.func @rule_loops_out_of_order() attributes {r = #shard.rule<() -> () {d0=2, d2=4}>} { return }

// -----

// expected-error @+1 {{loop d3 is not among the rule's 1 loops}}
func.func @rule_unknown_loop() attributes {r = #shard.rule<() -> () {d0=2} reduction={d3}>} { return }

// -----

// expected-error @+1 {{'reduction' is given twice}}
func.func @rule_twice() attributes {r = #shard.rule<() -> () {d0=2} reduction={d0} reduction={d0}>} { return }

// -----

// Folds (strided={dK: rN[D] xG}): the grammar, then the verifier.
// expected-error @+1 {{expected a tensor (o0, o1, ... or r0, r1, ...)}}
func.func @rule_fold_tensor() attributes {r = #shard.rule<([d0, d1]) -> ([d0]) {d0=2, d1=4} strided={d1: t0[0] x2}>} { return }

// -----

// expected-error @+1 {{expected the groups (x2, x3, ...)}}
func.func @rule_fold_groups() attributes {r = #shard.rule<([d0, d1]) -> ([d0]) {d0=2, d1=4} strided={d1: r0[0] y2}>} { return }

// -----

// expected-error @+1 {{loop d1 folds into result #0 dim 3, which does not exist}}
func.func @rule_fold_dim() attributes {r = #shard.rule<([d0, d1]) -> ([d0]) {d0=2, d1=4} folds={d0*4} strided={d1: r0[3] x2}>} { return }

// -----

// expected-error @+1 {{loop d1 folds into result #0 dim 0, which no other loop indexes}}
func.func @rule_fold_alone() attributes {r = #shard.rule<([d0, d1]) -> ([d1]) {d0=2, d1=4} strided={d1: r0[0] x2}>} { return }

// -----

// 2 x 4 rows folded in 3 groups of 4.
// expected-error @+1 {{loop d1 (4 steps) folds into result #0 dim 0 in 3 groups, which do not divide it}}
func.func @rule_fold_groups_divide() attributes {r = #shard.rule<([d0, d1]) -> ([d0]) {d0=2, d1=4} folds={d0*4} strided={d1: r0[0] x3}>} { return }

// -----

// expected-error @+1 {{a strided cut has 2 or more groups, got 1}}
func.func private @f() attributes {s = #shard.sharding<mesh = #shard.mesh<shape = [2]>, loops = [d0 strided 1]>}

// -----

// expected-error @+1 {{expected a combiner (sum, avg, max, min, product) or 'none', got 'add'}}
func.func @rule_bad_combiner() attributes {r = #shard.rule<([d0]) -> ([_]) {d0=2} combiners=[add]>} { return }

// -----

// expected-error @+1 {{more inits than the rule's 1 results}}
func.func @rule_too_many_inits() attributes {r = #shard.rule<([d0]) -> ([d0]) {d0=2} inits=[none, 0]>} { return }

// -----

// expected-error @+1 {{1 combiners for the rule's 2 results (one each)}}
func.func @rule_too_few_combiners() attributes {r = #shard.rule<([d0]) -> ([d0], [d0]) {d0=2} combiners=[sum]>} { return }

// -----

// expected-error @+1 {{operand #1 is not among the 1 operands}}
func.func @rule_window_operand() attributes {r = #shard.rule<([_]) -> ([d0]) {d0=2} windows={1: [d0]}>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: operand #0 names loop d1, but there are 1 loops}}
func.func @rule_undefined_loop() attributes {r = #shard.rule<([d1]) -> () {d0=2}>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: result #0 is indexed by d0, a reduction loop}}
func.func @rule_reduced_result() attributes {r = #shard.rule<([d0]) -> ([d0]) {d0=2} reduction={d0}>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: loop d0 has a negative size}}
func.func @rule_negative() attributes {r = #shard.rule<([d0]) -> ([d0]) {d0=-2}>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: loop d0 folds over 0 inner elements (1 or more)}}
func.func @rule_fold_zero() attributes {r = #shard.rule<([d0]) -> ([d0]) {d0=2} folds={d0*0}>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: the window of operand #0 has 2 dims, the operand 1}}
func.func @rule_window_rank() attributes {r = #shard.rule<([_]) -> ([d0]) {d0=2} windows={0: [d0, _]}>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: dim 0 of operand #0 is indexed by a loop and is a window too}}
func.func @rule_window_indexed() attributes {r = #shard.rule<([d0]) -> ([d0]) {d0=2} windows={0: [d0]}>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: the init of result #0 is operand #3, but there are 1 operands}}
func.func @rule_bad_init() attributes {r = #shard.rule<([d0]) -> ([d0]) {d0=2} inits=[3]>} { return }

// -----

// expected-error @+1 {{a loop that may not be cut needs its reason}}
func.func @rule_empty_reason() attributes {r = #shard.rule<([d0]) -> ([d0]) {d0=2} unshardable={d0: ""}>} { return }

// -----

// expected-error @+1 {{a loop that may not be cut strided needs its reason}}
func.func @rule_empty_unstrided() attributes {r = #shard.rule<([d0]) -> ([d0]) {d0=2} unstrided={d0: ""}>} { return }

// -----

// expected-error @+1 {{loop d0 is given twice}}
func.func @rule_loop_twice() attributes {r = #shard.rule<([d0]) -> ([d0]) {d0=2} folds={d0*2, d0*3}>} { return }

// -----

// expected-error @+1 {{operand #0 is given twice}}
func.func @rule_window_twice() attributes {r = #shard.rule<([_]) -> ([d0]) {d0=2} windows={0: [d0], 0: [_]}>} { return }

// -----

// expected-error @+1 {{expected an integer}}
func.func @rule_bool_size() attributes {r = #shard.rule<([d0]) -> ([d0]) {d0=true}>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: linear group #0 names operand #2, but there are 2 operands}}
func.func @rule_linear_out_of_range() attributes {r = #shard.rule<([d0], [d0]) -> ([d0]) {d0=2} linear=[[0, 2]]>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: linear group #0 is empty}}
func.func @rule_linear_empty() attributes {r = #shard.rule<([d0], [d0]) -> ([d0]) {d0=2} linear=[[]]>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: linear group #0 must list distinct operands in increasing order}}
func.func @rule_linear_order() attributes {r = #shard.rule<([d0], [d0]) -> ([d0]) {d0=2} linear=[[1, 0]]>} { return }

// -----

// expected-error @+1 {{a sharding rule that is not valid: linear group #1 is given twice}}
func.func @rule_linear_twice() attributes {r = #shard.rule<([d0], [d0]) -> ([d0]) {d0=2} linear=[[0, 1], [0, 1]]>} { return }

// -----

// expected-error @+1 {{'linear' is given twice}}
func.func @rule_linear_key_twice() attributes {r = #shard.rule<([d0], [d0]) -> ([d0]) {d0=2} linear=[[0]] linear=[[1]]>} { return }

// -----

// expected-error @+1 {{expected integer value}}
func.func @rule_linear_not_integer() attributes {r = #shard.rule<([d0], [d0]) -> ([d0]) {d0=2} linear=[[a]]>} { return }

// -----

// A move of a tensor whose layout cuts a dynamic dim needs its extent: no
// rank's block tells it.
!s0 = !shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>
!r = !shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
func.func @f(%l: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'shard.spmd.all_gather' op moves '!shard.tensor<?x4xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>', whose layout cuts a dynamic dim: it needs the tensor's extents (`extents(%n, ...)`, one index per dynamic dim), which no rank's block tells}}
  %g = shard.spmd.all_gather %l over axes [0] dim 0 from !s0 to !r : tensor<?x4xf32> -> tensor<?x4xf32>
  return %g : tensor<?x4xf32>
}

// -----

!s0 = !shard.tensor<?x?xf32, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>
func.func @f(%l: tensor<?x?xf32>, %n: index) -> !s0 {
  // expected-error @+1 {{'shard.from_local_shards' op has 1 extents for a tensor of shape [?, ?] with 2 dynamic dims; it takes one per dynamic dim}}
  %s = shard.from_local_shards %l extents(%n) : tensor<?x?xf32> -> !s0
  return %s : !s0
}

// -----

// An op of upstream MLIR's own shard dialect, which shardc's takes the name
// of: the error names the importer (shard-translate --import-upstream-shard).
// expected-error @+1 {{custom op 'shard.grid' is of upstream MLIR's own shard dialect, not of shardc's (which takes its name): shard-translate --import-upstream-shard reads a program annotated for upstream's (shard.grid, shard.sharding, shard.shard) and writes it in shardc's form}}
shard.grid @g(shape = 2)

// -----

func.func @f(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  // expected-error @+1 {{custom op 'shard.shard' is of upstream MLIR's own shard dialect}}
  %0 = shard.shard %x to %s : tensor<4xf32>
  return %0 : tensor<4xf32>
}
