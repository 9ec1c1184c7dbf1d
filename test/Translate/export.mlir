// Export writes the first sharded tensor argument's type as ShardedTensor
// metadata: size, dtype, the distinct blocks as shards_metadata, and the
// sharding_spec; a placements spec also gets the DTensor fields.
// RUN: shard-translate --export-sharded-metadata --split-input-file %s | FileCheck %s

// A chunk spec: its chunks (10 over 4 is 3, 3, 3, 1) and placements, in the
// canonical device strings.
// CHECK-LABEL: "size": [10, 6],
// CHECK-NEXT:   "tensor_properties": {"dtype": "float32"},
// CHECK-NEXT:   "shards_metadata": [
// CHECK-NEXT:     {"shard_offsets": [0, 0], "shard_sizes": [3, 6], "placement": "rank:0/cuda:0"},
// CHECK-NEXT:     {"shard_offsets": [3, 0], "shard_sizes": [3, 6], "placement": "rank:1/cuda:1"},
// CHECK-NEXT:     {"shard_offsets": [6, 0], "shard_sizes": [3, 6], "placement": "rank:2/cpu"},
// CHECK-NEXT:     {"shard_offsets": [9, 0], "shard_sizes": [1, 6], "placement": "rank:3/cpu"}
// CHECK-NEXT:   ],
// CHECK-NEXT:   "sharding_spec": {"type": "chunk", "dim": 0, "placements": ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2/cpu", "rank:3/cpu"]}
// CHECK-NEXT: {{^\}$}}
func.func @chunk(%a: !shard.tensor<10x6xf32, #shard.chunk<dim = 0, placements = ["rank:0/cuda:0", "rank:1/cuda:1", "rank:2", "rank:3/cpu"]>>) {
  return
}

// -----

// An enumerable spec: its blocks in their order, several on one rank; the
// first sharded argument of the first function that has one, here of a
// declaration.
// CHECK-LABEL: "size": [25],
// CHECK-NEXT:   "tensor_properties": {"dtype": "bool"},
// CHECK-NEXT:   "shards_metadata": [
// CHECK-NEXT:     {"shard_offsets": [16], "shard_sizes": [9], "placement": "rank:0/cpu"},
// CHECK-NEXT:     {"shard_offsets": [0], "shard_sizes": [16], "placement": "rank:0/cpu"}
// CHECK-NEXT:   ],
// CHECK-NEXT:   "sharding_spec": {"type": "enumerable"}
// CHECK-NEXT: {{^\}$}}
func.func private @no_sharded_args(tensor<4xf32>)
func.func private @enumerable(tensor<4xf32>, !shard.tensor<25xi1, #shard.enumerable<[
    {offsets = [16], sizes = [9], placement = "rank:0"},
    {offsets = [0], sizes = [16], placement = "rank:0"} ]>>,
  !shard.tensor<4xf32, #shard.device_placement<"rank:1">>)

// -----

// A placements spec: the distinct blocks (replicas left out, each block on
// the first device that holds it), and the DTensor fields, so that import
// gives back the same spec.
// CHECK-LABEL: "size": [8, 6],
// CHECK-NEXT:   "tensor_properties": {"dtype": "complex64"},
// CHECK-NEXT:   "shards_metadata": [
// CHECK-NEXT:     {"shard_offsets": [0, 0], "shard_sizes": [8, 3], "placement": "rank:3/cuda"},
// CHECK-NEXT:     {"shard_offsets": [0, 3], "shard_sizes": [8, 3], "placement": "rank:2/cuda"}
// CHECK-NEXT:   ],
// CHECK-NEXT:   "sharding_spec": {"type": "enumerable"},
// CHECK-NEXT:   "device_mesh": {"shape": [2, 2], "mesh": [3, 2, 1, 0], "device_type": "cuda", "mesh_dim_names": ["dp", "tp"]},
// CHECK-NEXT:   "placements": ["P(avg)", "S(1)"]
// CHECK-NEXT: {{^\}$}}
#mesh = #shard.mesh<shape = [2, 2], devices = [3, 2, 1, 0], axes = ["dp", "tp"], device = "cuda">
func.func @placements(%a: !shard.tensor<8x6xcomplex<f32>, #shard.placements<mesh = #mesh, placements = [P(avg), S(1)]>>) {
  return
}

// -----

// A mesh without explicit device ids writes no "mesh" (import then gives
// back the same attribute).
// CHECK-LABEL: "size": [8],
// CHECK:   "device_mesh": {"shape": [4], "device_type": "cpu"},
// CHECK-NEXT:   "placements": ["S(0)"]
func.func private @implicit_ids(!shard.tensor<8xf32, #shard.placements<mesh = #shard.mesh<shape = [4]>, placements = [S(0)]>>)

// -----

// PyTorch's DevicePlacementSpec has no "sharding_spec" form: one shard,
// enumerable.
// CHECK-LABEL: "size": [2, 3],
// CHECK-NEXT:   "tensor_properties": {"dtype": "int64"},
// CHECK-NEXT:   "shards_metadata": [
// CHECK-NEXT:     {"shard_offsets": [0, 0], "shard_sizes": [2, 3], "placement": "rank:1/cuda:1"}
// CHECK-NEXT:   ],
// CHECK-NEXT:   "sharding_spec": {"type": "enumerable"}
func.func private @device(!shard.tensor<2x3xi64, #shard.device_placement<"rank:1/cuda:1">>)
