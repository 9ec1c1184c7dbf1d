// A chunk spec over distinct ranks is the layout Shard(dim) makes on a 1-D
// mesh of its ranks (docs/partition.md), also where its last chunks are
// empty: PyTorch's ChunkShardingSpec puts an empty chunk at split * i (6 for
// the last of 5 rows over 4 ranks, 2 and 3 for 2 rows over 4), a mesh at
// the dim's end, and an empty block is the same wherever it is said to lie.
// These were refused ("none of its tensors has a mesh layout (..., or a
// chunk spec over distinct ranks)"; found by an adversarial sweep); 4 rows
// over 3 ranks, or 7 over 4, were not. Each runs on 4 ranks, every element
// checked, nothing moved but the lookup's rows.
// REQUIRES: mpi
// RUN: %mpirun -np 4 %shard-run %s --entry five_over_four,two_over_four,lookup_reversed --check 2>&1 | FileCheck %s --implicit-check-not=error --implicit-check-not=MISMATCH
// CHECK-COUNT-8: OK, {{[0-9]+}} elements checked, received 0 bytes
// CHECK-COUNT-4: OK, 6 elements checked, received {{[1-9][0-9]*}} bytes
// RUN: shard-opt %s -shard-propagate -shard-spmd-partition -o /dev/null

#id = affine_map<(b, h) -> (b, h)>
#tok = affine_map<(b, h) -> (b)>
func.func @five_over_four(%x: tensor<5x4xf32> {shard.layout = #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>}) -> (tensor<5x4xf32>) {
  %e = tensor.empty() : tensor<5x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<5x4xf32>) outs(%e : tensor<5x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %a : f32
    linalg.yield %y : f32
  } -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}
func.func @two_over_four(%x: tensor<2x4xf32> {shard.layout = #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>}) -> (tensor<2x4xf32>) {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %a : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
// A vocab-parallel lookup whose 5-row table is a chunk spec of ranks in
// reversed order (ids taken mod 5).
func.func @lookup_reversed(%ids: tensor<6xi32>, %t: tensor<5x4xf32> {shard.layout = #shard.chunk<dim = 0, placements = ["rank:3", "rank:1", "rank:2", "rank:0"]>}) -> (tensor<6x4xf32>) {
  %e = tensor.empty() : tensor<6x4xf32>
  %r = linalg.generic {indexing_maps = [#tok, #id], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<6xi32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%a: i32, %o: f32):
    %v = arith.constant 5 : i32
    %a1 = arith.remsi %a, %v : i32
    %a2 = arith.addi %a1, %v : i32
    %a3 = arith.remsi %a2, %v : i32
    %ia = arith.index_cast %a3 : i32 to index
    %h = linalg.index 1 : index
    %x = tensor.extract %t[%ia, %h] : tensor<5x4xf32>
    linalg.yield %x : f32
  } -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
