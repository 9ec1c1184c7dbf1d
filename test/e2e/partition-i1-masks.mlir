// i1 values move as bytes (issue 41, item 9): a program shardc accepts runs,
// whatever element type it holds. Before, a sliced i1 constant (a causal
// mask, as GPT-2 from torch-mlir has it) or an i1 argument that had to move
// was accepted, then failed at run time: "element type 'i1' is not
// supported by the runtime". Every element of every result checked on 2, 3
// and 4 ranks against the program as written:
// - @mask: rows 2..7 of an 8x8 causal mask select between x and 0 where x
//   is cut by columns (the mask's slice follows the columns);
// - @moves: an i1 tensor cut by rows returned cut by columns (an
//   all_to_all of bytes) and made whole (an all_gather of bytes);
// - @compare: an i1 computed from a cut tensor, then moved.
// A Partial i1 value cannot be reduced as bytes: the lowering says so
// (test/Passes/shard-lower-to-runtime.mlir), and the searches never make
// one (an adversarial test found both choosing P(sum) on i1, then refused
// by the lowering): an i1 table cut by rows and looked up by token ids
// (@i1_lookup: the rows gathered, not looked up where they lie), and
// reductions of i1 over a cut dim (@i1_reduce: the dim gathered), each
// with the default search and op by op.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mask,moves,compare,i1_lookup,i1_reduce --check --propagate=alpha-us=0 > %t.run1 2>&1
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry i1_lookup,i1_reduce --check --propagate=search=greedy > %t.greedy 2>&1
// RUN: not grep -e "error:" -e MISMATCH %t.greedy
// RUN: %entry-lines i1_lookup %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=LOOKUP4
// RUN: %entry-lines i1_reduce %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=REDUCE4
// RUN: %entry-lines i1_lookup %t.greedy | FileCheck %s --implicit-check-not=error: --check-prefix=LOOKUP4
// RUN: %entry-lines i1_reduce %t.greedy | FileCheck %s --implicit-check-not=error: --check-prefix=REDUCE4
// LOOKUP4: shard-run: rank 0: OK, 15 elements checked
// LOOKUP4-NEXT: shard-run: rank 1: OK, 15 elements checked
// LOOKUP4-NEXT: shard-run: rank 2: OK, 15 elements checked
// LOOKUP4-NEXT: shard-run: rank 3: OK, 15 elements checked
// REDUCE4: shard-run: rank 0: OK, 10 elements checked
// REDUCE4-NEXT: shard-run: rank 1: OK, 10 elements checked
// REDUCE4-NEXT: shard-run: rank 2: OK, 10 elements checked
// REDUCE4-NEXT: shard-run: rank 3: OK, 10 elements checked
// RUN: not grep "error:" %t.run1
// RUN: %entry-lines mask %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=MASK4
// RUN: %entry-lines moves %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=MOVES4
// RUN: %entry-lines compare %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=OK4
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry mask,moves,compare --check > %t.run2 2>&1
// RUN: not grep "error:" %t.run2
// RUN: %entry-lines mask %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=OK3
// RUN: %entry-lines moves %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=OK3
// RUN: %entry-lines compare %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=OK3
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry mask,moves,compare --check > %t.run3 2>&1
// RUN: not grep "error:" %t.run3
// RUN: %entry-lines mask %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=OK2
// RUN: %entry-lines moves %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=OK2
// RUN: %entry-lines compare %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=OK2
// MASK4: shard-run: rank 0: OK, 12 elements checked
// MASK4-NEXT: shard-run: rank 1: OK, 12 elements checked
// MASK4-NEXT: shard-run: rank 2: OK, 12 elements checked
// MASK4-NEXT: shard-run: rank 3: OK, 12 elements checked
// Columns 2, 2, 1, 0 of 6 rows, and the whole 6x5; one byte per i1:
// MOVES4: shard-run: rank 0: OK, 42 elements checked, received 20 bytes
// MOVES4-NEXT: shard-run: rank 1: OK, 42 elements checked, received 20 bytes
// MOVES4-NEXT: shard-run: rank 2: OK, 36 elements checked, received 20 bytes
// MOVES4-NEXT: shard-run: rank 3: OK, 30 elements checked, received 30 bytes
// OK4: shard-run: rank 0: OK
// OK4-NEXT: shard-run: rank 1: OK
// OK4-NEXT: shard-run: rank 2: OK
// OK4-NEXT: shard-run: rank 3: OK
// OK3: shard-run: rank 0: OK
// OK3-NEXT: shard-run: rank 1: OK
// OK3-NEXT: shard-run: rank 2: OK
// OK2: shard-run: rank 0: OK
// OK2-NEXT: shard-run: rank 1: OK

#m = #shard.mesh<shape = [@N@]>
#id = affine_map<(i, j) -> (i, j)>
func.func @mask(%x: tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %causal = arith.constant dense<[[true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false], [true, true, true, false, false, false, false, false], [true, true, true, true, false, false, false, false], [true, true, true, true, true, false, false, false], [true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true]]> : tensor<8x8xi1>
  %rows = tensor.extract_slice %causal[2, 0] [6, 8] [1, 1] : tensor<8x8xi1> to tensor<6x8xi1>
  %e = tensor.empty() : tensor<6x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %rows : tensor<6x8xf32>, tensor<6x8xi1>) outs(%e : tensor<6x8xf32>) {
  ^bb0(%a: f32, %keep: i1, %o: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.select %keep, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<6x8xf32>
  return %y : tensor<6x8xf32>
}

func.func @moves(%b: tensor<6x5xi1> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<6x5xi1> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
        tensor<6x5xi1> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  return %b, %b : tensor<6x5xi1>, tensor<6x5xi1>
}

func.func @compare(%x: tensor<7x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<7x4xi1> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %e = tensor.empty() : tensor<7x4xi1>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<7x4xf32>) outs(%e : tensor<7x4xi1>) {
  ^bb0(%a: f32, %o: i1):
    %t = arith.constant 5.0 : f32
    %p = arith.cmpf ogt, %a, %t : f32
    linalg.yield %p : i1
  } -> tensor<7x4xi1>
  return %c : tensor<7x4xi1>
}

func.func @i1_lookup(%tok: tensor<5xi32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                     %w: tensor<41x3xi1> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<5x3xi1> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %e = tensor.empty() : tensor<5x3xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(t, h) -> (t)>, affine_map<(t, h) -> (t, h)>], iterator_types = ["parallel", "parallel"]} ins(%tok : tensor<5xi32>) outs(%e : tensor<5x3xi1>) {
  ^bb0(%k: i32, %o: i1):
    %n = arith.constant 41 : i32
    %a = arith.remsi %k, %n : i32
    %b = arith.addi %a, %n : i32
    %c = arith.remsi %b, %n : i32
    %row = arith.index_cast %c : i32 to index
    %h = linalg.index 1 : index
    %x = tensor.extract %w[%row, %h] : tensor<41x3xi1>
    linalg.yield %x : i1
  } -> tensor<5x3xi1>
  return %r : tensor<5x3xi1>
}

func.func @i1_reduce(%x: tensor<5x999xi1> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<5xi1> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
        tensor<5xi1> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %f = arith.constant false
  %e = tensor.empty() : tensor<5xi1>
  %i = linalg.fill ins(%f : i1) outs(%e : tensor<5xi1>) -> tensor<5xi1>
  %xor = linalg.reduce { arith.addi } ins(%x : tensor<5x999xi1>) outs(%i : tensor<5xi1>) dimensions = [1]
  %max = linalg.reduce { arith.maxsi } ins(%x : tensor<5x999xi1>) outs(%i : tensor<5xi1>) dimensions = [1]
  return %xor, %max : tensor<5xi1>, tensor<5xi1>
}
