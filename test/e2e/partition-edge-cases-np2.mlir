// shard-run on arguments and programs at the edges, on 2 ranks:
// - a Partial argument is fed as its copies (sum: the value on the first
//   copy, 0 on the other; product: 1; max: every copy), reduced and checked;
// - a payload that reads its loop index (linalg.index) is not sharded on
//   that loop (each rank would read its local index);
// - a program whose layouts name more ranks than the world is refused on
//   every rank before it runs;
// - a rank that fails before the program runs (a report it cannot write)
//   stops every rank instead of leaving them waiting.
// REQUIRES: mpi
// RUN: not %mpirun -np 2 %shard-run %s --entry four_ranks --check 2>&1 | FileCheck %s --check-prefix=WORLD
// RUN: not %mpirun -np 2 %shard-run %s --entry partial_sum --report %t.missing/r.json 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: %mpirun -np 2 %shard-run %s --entry partial_sum,partial_product,partial_max,iota,several_blocks,empty_collapse,empty_expand --check > %t.run1 2>&1
// RUN: %entry-lines partial_sum %t.run1 | FileCheck %s --check-prefix=OK
// RUN: %entry-lines partial_product %t.run1 | FileCheck %s --check-prefix=OK
// RUN: %entry-lines partial_max %t.run1 | FileCheck %s --check-prefix=OK
// RUN: %entry-lines iota %t.run1 | FileCheck %s --check-prefix=OK
// RUN: %entry-lines several_blocks %t.run1 | FileCheck %s --check-prefix=SEVERAL
// Reshapes of empty tensors (a group with an empty dim) run, cut:
// RUN: %entry-lines empty_collapse %t.run1 | FileCheck %s --check-prefix=EMPTY
// RUN: %entry-lines empty_expand %t.run1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: shard-run: rank 0: OK, 0 elements checked, received 0 bytes
// EMPTY-NEXT: shard-run: rank 1: OK, 0 elements checked, received 0 bytes

// OK: shard-run: rank 0: OK
// OK-NEXT: shard-run: rank 1: OK
// WORLD: error: shard-run: the program's layouts name rank 3, but it runs on 2 ranks; run it on at least 4
// REPORT-DAG: error: shard-run: cannot write the report to
// REPORT-DAG: error: shard-run: rank 1 stops: another rank failed before the program ran
// Several blocks on a rank (rank 0 holds rows 0-1 and 4-5) are passed and
// returned as its packed 1-D view, each block checked.
// SEVERAL: shard-run: rank 0: OK, 4 elements checked, received 0 bytes
// SEVERAL-NEXT: shard-run: rank 1: OK, 2 elements checked, received 0 bytes

#m2 = #shard.mesh<shape = [2]>
#m4 = #shard.mesh<shape = [4]>
func.func @partial_sum(%a: tensor<4x3xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [P(sum)]>})
    -> (tensor<4x3xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [R]>}) {
  return %a : tensor<4x3xf32>
}
func.func @partial_product(%a: tensor<5xi32> {shard.layout = #shard.placements<mesh = #m2, placements = [P(product)]>})
    -> (tensor<5xi32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}) {
  return %a : tensor<5xi32>
}
func.func @partial_max(%a: tensor<5xf64> {shard.layout = #shard.placements<mesh = #m2, placements = [P(max)]>})
    -> (tensor<5xf64> {shard.layout = #shard.placements<mesh = #m2, placements = [R]>}) {
  return %a : tensor<5xf64>
}
func.func @iota(%a: tensor<7xi64> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}) -> tensor<7xi64> {
  %e = tensor.empty() : tensor<7xi64>
  %d = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<7xi64>) outs(%e : tensor<7xi64>) {
    ^bb0(%in: i64, %out: i64):
      %i = linalg.index 0 : index
      %c = arith.index_cast %i : index to i64
      %s = arith.addi %in, %c : i64
      linalg.yield %s : i64
    } -> tensor<7xi64>
  return %d : tensor<7xi64>
}
func.func @four_ranks(%a: tensor<8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>}) -> tensor<8xf32> {
  %b = math.exp %a : tensor<8xf32>
  return %b : tensor<8xf32>
}
func.func @several_blocks(%a: tensor<6xf32> {shard.layout = #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:0"]>}) -> tensor<6xf32> {
  return %a : tensor<6xf32>
}

func.func @empty_collapse(%a: tensor<4x0x3xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>})
    -> (tensor<0x3xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1)]>}) {
  %c = tensor.collapse_shape %a [[0, 1], [2]] : tensor<4x0x3xf32> into tensor<0x3xf32>
  return %c : tensor<0x3xf32>
}
func.func @empty_expand(%a: tensor<0xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>})
    -> (tensor<4x0xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}) {
  %c = tensor.expand_shape %a [[0, 1]] output_shape [4, 0] : tensor<0xf32> into tensor<4x0xf32>
  return %c : tensor<4x0xf32>
}
