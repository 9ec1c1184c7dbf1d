// What --import-upstream-shard refuses, at the annotation, with what to do
// instead: each layout upstream's shard dialect can say that no shardc
// layout says the same, other ops of its dialect, and a sharding it cannot
// follow to its shard.sharding op.
// RUN: shard-translate --import-upstream-shard --split-input-file --verify-diagnostics %s

shard.grid @g(shape = 2x4)
func.func @uneven(%x: tensor<7x6xf32>) -> tensor<7x6xf32> {
  // expected-note @+1 {{the sharding is defined here}}
  %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{splits dim 0 of size 7 into 2 shards, which do not divide it: an uneven split is imported only in shardc's form, whose cut is torch.chunk's; give the layout that way, or a size the shards divide}}
  %xs = shard.shard %x to %s annotate_for_users : tensor<7x6xf32>
  return %xs : tensor<7x6xf32>
}

// -----

shard.grid @g(shape = 2x4)
func.func @dynamic_dim(%x: tensor<?x6xf32>) -> tensor<?x6xf32> {
  %s = shard.sharding @g split_axes = [[], [0]] : !shard.sharding
  %y = math.exp %x : tensor<?x6xf32>
  // The dynamic dim is not split: accepted. The next pins a split of it.
  %ys = shard.shard %y to %s : tensor<?x6xf32>
  // expected-note @+1 {{the sharding is defined here}}
  %s0 = shard.sharding @g split_axes = [[1]] : !shard.sharding
  // expected-error @+1 {{splits dim 0 of dynamic size, which only the run time knows to divide evenly: such a split is imported only in shardc's form, whose cut is torch.chunk's; give the layout that way}}
  %z = shard.shard %ys to %s0 annotate_for_users : tensor<?x6xf32>
  return %z : tensor<?x6xf32>
}

// -----

shard.grid @g(shape = 2x4)
func.func @halo(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-note @+1 {{the sharding is defined here}}
  %s = shard.sharding @g split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  // expected-error @+1 {{has halo sizes, which no shardc layout holds (a block and its neighbours' rows are not one tensor's blocks): remove them, or give the layout in shardc's form}}
  %xs = shard.shard %x to %s : tensor<8x6xf32>
  return %xs : tensor<8x6xf32>
}

// -----

shard.grid @g(shape = 2)
func.func @short(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-note @+1 {{the sharding is defined here}}
  %s = shard.sharding @g split_axes = [[], [0]] sharded_dims_offsets = [0, 2, 5] : !shard.sharding
  // expected-error @+1 {{gives shard offsets along dim 1 from 0 to 5, not from 0 to its size 6}}
  %xs = shard.shard %x to %s : tensor<8x6xf32>
  return %xs : tensor<8x6xf32>
}

// -----

shard.grid @g(shape = 2x2)
func.func @copies(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-note @+1 {{the sharding is defined here}}
  %s = shard.sharding @g split_axes = [[0]] sharded_dims_offsets = [0, 3, 8] : !shard.sharding
  // expected-error @+1 {{gives shard offsets on grid @g, whose axis 1 splits nothing: its blocks would be copies, which a #shard.enumerable layout does not hold; give the layout in shardc's form}}
  %xs = shard.shard %x to %s : tensor<8x6xf32>
  return %xs : tensor<8x6xf32>
}

// -----

shard.grid @g(shape = 2)
func.func @dynamic_offsets(%x: tensor<?x6xf32>) -> tensor<?x6xf32> {
  // expected-note @+1 {{the sharding is defined here}}
  %s = shard.sharding @g split_axes = [[0]] sharded_dims_offsets = [0, 3, 8] : !shard.sharding
  // expected-error @+1 {{gives shard offsets along dim 0 of dynamic size, which are not imported: give the layout in shardc's form}}
  %xs = shard.shard %x to %s : tensor<?x6xf32>
  return %xs : tensor<?x6xf32>
}

// -----

shard.grid @g(shape = 2)
func.func @run_time_offsets(%x: tensor<8x6xf32>, %o: i64) -> tensor<8x6xf32> {
  // expected-note @+1 {{the sharding is defined here}}
  %s = shard.sharding @g split_axes = [[0]] sharded_dims_offsets = [0, %o, 8] : !shard.sharding
  // expected-error @+1 {{has shard offsets only the run time knows (sharded_dims_offsets), which are not imported: give the layout in shardc's form}}
  %xs = shard.shard %x to %s : tensor<8x6xf32>
  return %xs : tensor<8x6xf32>
}

// -----

shard.grid @d(shape = ?x2)
func.func @dynamic_grid(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-note @+1 {{the sharding is defined here}}
  %s = shard.sharding @d split_axes = [[], [1]] : !shard.sharding
  // expected-error @+1 {{is on grid @d, whose shape is not static: shardc's meshes are}}
  %xs = shard.shard %x to %s : tensor<8x6xf32>
  return %xs : tensor<8x6xf32>
}

// -----

func.func @given(%x: tensor<8x6xf32>, %s: !shard.sharding) -> tensor<8x6xf32> {
  // expected-error @+1 {{takes a sharding not made by a shard.sharding op: the importer reads only those}}
  %xs = shard.shard %x to %s : tensor<8x6xf32>
  return %xs : tensor<8x6xf32>
}

// -----

shard.grid @g(shape = 2)
func.func @collective(%x: tensor<4x6xf32>) -> tensor<8x6xf32> {
  // expected-error @+1 {{is an op of upstream's shard dialect the importer has no counterpart for: import the program as upstream's sharding-propagation takes it (shard.grid, shard.sharding, shard.shard), before shard-partition}}
  %y = shard.all_gather %x on @g grid_axes = [0] gather_axis = 0 : tensor<4x6xf32> -> tensor<8x6xf32>
  return %y : tensor<8x6xf32>
}

// -----

shard.grid @g(shape = 2)
// expected-error @+1 {{takes or returns upstream's !shard.sharding type, which has no counterpart in shardc}}
func.func @returns(%x: tensor<4x6xf32>) -> !shard.sharding {
  %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
  return %s : !shard.sharding
}

// -----

// Not upstream's syntax either: the parser's error, at its place.
shard.grid @g(shape = 2)
func.func @misspelt(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{expected 'split_axes'}}
  %s = shard.sharding @g splits = [[0]] : !shard.sharding
  return %x : tensor<4x6xf32>
}

// -----

shard.grid @g(shape = 2x2)
func.func @rank(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note @+1 {{the sharding is defined here}}
  %s = shard.sharding @g split_axes = [[0], [1]] : !shard.sharding
  // expected-error @+1 {{splits dim 1 of a tensor of rank 1}}
  %xs = shard.shard %x to %s : tensor<8xf32>
  return %xs : tensor<8xf32>
}

// -----

shard.grid @g(shape = 2x2)
func.func @axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note @+1 {{the sharding is defined here}}
  %s = shard.sharding @g split_axes = [[2]] : !shard.sharding
  // expected-error @+1 {{splits dim 0 over grid axis 2, not an axis of grid @g}}
  %xs = shard.shard %x to %s : tensor<8xf32>
  return %xs : tensor<8xf32>
}

// -----

shard.grid @g(shape = 2)
func.func @carried(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %r = scf.execute_region -> !shard.sharding {
    // expected-error @+1 {{uses upstream's !shard.sharding type, which has no counterpart in shardc}}
    scf.yield %s : !shard.sharding
  }
  return %x : tensor<8xf32>
}
