// Slicing, padding, inserting and concatenating along a dim the tensors
// are cut along (issue 26, item 1): a sliced, padded, inserted or
// concatenated tensor stays cut (it is no longer gathered whole first),
// and only the elements that another rank's block needs move.
//
// tensor.extract_slice: each rank slices the part of the window its own
// block holds, and the planner moves those parts to the result's layout. Every element of every result
// checked on every rank against the unpartitioned program; the bytes below
// are worked out by hand, per rank.
//
// @rows: rows 4..11 of 16 rows cut S(0), result S(0).
//   2 ranks: blocks 0-7 / 8-15 hold rows 4-7 and 8-11, the result's own
//     blocks: nothing moves.
//   3 ranks: blocks 0-5 / 6-11 / 12-15; the result's 8 rows cut 3/3/2 need
//     slice rows 0-2 / 3-5 / 6-7: rank 0 gets row 2 (16 B) from rank 1,
//     rank 2 rows 6-7 (32 B) from rank 1.
//   4 ranks: blocks of 4; the result's 2/2/2/2: ranks 0 and 3 get 2 rows
//     (32 B) each from ranks 1 and 2.
//   (Gathering the source whole, as before, received 12 of 16 rows, 192 B,
//   per rank on 4 ranks.)
// @strided: rows 0, 4, 8, 12 (stride 4). 4 ranks: one each, where the
//   result wants it: nothing moves. 3 ranks (blocks 0-5 / 6-11 / 12-15 hold 2/1/1
//   of them, the result's 4 rows are cut 2/2/0): rank 1 gets row 12 from
//   rank 2 (16 B).
// @grid: columns 6..11 of 12 on a 2x2 mesh [S(0) dp, S(1) tp]: tp 1 holds
//   all 6, the result cuts them 3/3: each tp 0 rank gets 4 rows x 3 columns
//   (48 B).
// @qkv: a column-cut projection [6, 24] split into q, k, v of 8 columns
//   each (4 ranks: 6 columns per rank), each wanted cut 2/2/2/2. Read as
//   they lie, three of each one's four pieces sit on another rank (96 B
//   received per rank), but in three exchanges, in each of which one rank
//   sends two pieces: the search prices the three reads above one
//   all_gather of the projection at 2 us a message, and gathers it (432 B
//   per rank; with alpha-us=0, and at GPT sizes, it moves the projection
//   to rows and the sum back to columns instead). Before the search's
//   choice was what ran, it modelled the gather and the partition read the
//   windows.
// @qkv_tosa: @qkv's split as TOSA writes it (tosa.slice of a tosa.matmul's
//   [1, 6, 24] result): tosa.slice takes tensor.extract_slice's rule, so the
//   same plan as @qkv.
// @moved_first: columns 2..6 of 8 cut S(1) on 2 ranks into rows S(0).
//   Reading the window as it is would move its parts (2 and 3 columns) to
//   every rank: 48 and 32 B; moving the source to rows first (all_to_all)
//   receives 32 B each. The search prices the window's move as the planner
//   does (it counted it as nothing, and read the window).
// @whole: rows 3..10 into a replicated result: every rank ends up with the
//   8 rows; the planner's cheapest plan in its time model moves the parts
//   to the result's rows cut S(0), then all_gathers them (on 4 ranks rank 3,
//   which holds none of them, receives all 8 rows: 128 B).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry rows,strided,grid,qkv,qkv_tosa,whole,pad,pad_tosa,concat,concat_tosa,insert,insertdrop,grid_concat,strided_tail --check > %t.run3 2>&1
// RUN: not grep "error:" %t.run3
// RUN: %entry-lines rows %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=ROWS4
// RUN: %entry-lines strided %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=STRIDED4
// RUN: %entry-lines grid %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=GRID
// RUN: %entry-lines qkv %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=QKV
// RUN: %entry-lines qkv_tosa %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=QKV
// RUN: %entry-lines whole %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=WHOLE
// RUN: %entry-lines pad %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=PAD4
// RUN: %entry-lines pad_tosa %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=PAD4
// RUN: %entry-lines concat %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=CONCAT4
// RUN: %entry-lines concat_tosa %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=CONCAT4
// RUN: %entry-lines insert %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=INSERT4
// RUN: %entry-lines insertdrop %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=DROP4
// RUN: %entry-lines grid_concat %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=GRIDCAT
// RUN: %entry-lines strided_tail %t.run3 | FileCheck %s --implicit-check-not=error: --check-prefix=TAIL4
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry rows,strided,qkv,whole,pad,concat,insertdrop,rep --check > %t.run2 2>&1
// RUN: not grep "error:" %t.run2
// RUN: %entry-lines rows %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=ROWS3
// RUN: %entry-lines strided %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=STRIDED3
// RUN: %entry-lines qkv %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=OK3
// RUN: %entry-lines whole %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=OK3
// RUN: %entry-lines pad %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=OK3
// RUN: %entry-lines concat %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=OK3
// RUN: %entry-lines insertdrop %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=OK3
// RUN: %entry-lines rep %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=OK3
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry rows,pad,insert,drop_strided,empty_rows,empty_rows_cut,moved_first --check > %t.run1 2>&1
// RUN: not grep "error:" %t.run1
// RUN: %entry-lines rows %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=ROWS2
// RUN: %entry-lines pad %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=ZERO2
// RUN: %entry-lines insert %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=ZERO2
// RUN: %entry-lines drop_strided %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=ZERO2
// RUN: %entry-lines empty_rows %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=ZERO2
// RUN: %entry-lines empty_rows_cut %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=ZERO2
// RUN: %entry-lines moved_first %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=FIRST2
// RUN: shard-opt %t.2.mlir -shard-propagate=explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRICED --implicit-check-not=error:
// RUN: shard-opt %t.4.mlir -shard-propagate=explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLACED --implicit-check-not=error:
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition 2>&1 | FileCheck %s --check-prefix=LOCAL --implicit-check-not=error:
// FIRST2: shard-run: rank 0: OK, 10 elements checked, received 32 bytes
// FIRST2-NEXT: shard-run: rank 1: OK, 10 elements checked, received 32 bytes
// The window read, rejected at its price (the parts' move, 80 B), not as
// nothing:
// PRICED: :[[#MOVED:]]:1: remark: search=whole chose the shardings of 1 ops {{.*}}: modelled 2 us (moves 2 us,
// PRICED-NEXT: func.func @moved_first
// PRICED: :[[#MOVED+2]]:8: remark: kept d0 on tp (compute {{.*}}; %arg0 [S(1)] -> [S(0)]: 64 bytes, 2 us); best rejected: nothing sharded (operand #0 read as it is, [S(1)]: its window moved by the op) (+{{.*}} us: the window's parts moved: 2 us; moves nothing)
// A placement's window read is priced too, as the planner models the
// placed tensor's parts moving to where they land (it was free: "moves 0
// us" of a pad that sends 16 B to two ranks), and a concat reads both its
// operands as they lie (its search read one, gathered the other, and the
// partition read both: an explain that named a move not made):
// PLACED: :[[#PAD:]]:1: remark: search=whole chose the shardings of 1 ops {{.*}}: modelled 2 us (moves 2 us,
// PLACED-NEXT: func.func @pad
// PLACED: :[[#PAD+3]]:8: remark: kept d0 on tp (operand #0 read as it is, [S(0)]: its window moved by the op) (compute {{.*}} us; the window's parts moved: 2 us; moves nothing)
// PLACED: :[[#CONCAT:]]:1: remark: search=whole chose the shardings of 1 ops {{.*}}: modelled 6.001 us (moves 6.001 us,
// PLACED-NEXT: func.func @concat
// PLACED: :[[#CONCAT+3]]:8: remark: kept d0 on tp (operands with windows read as they are, [S(0)]: their windows moved by the op) (compute {{.*}} us; the window's parts moved: 6.001 us; moves nothing)
// PLACED: :[[#INSERT:]]:1: remark: search=whole chose the shardings of 1 ops {{.*}}: modelled 2 us (moves 2 us,
// PLACED-NEXT: func.func @insert(
// PLACED: :[[#INSERT+3]]:8: remark: kept d0 on tp (operand #0 read as it is, [S(0)]: its window moved by the op) (compute {{.*}} us; the window's parts moved: 2 us; moves nothing)
// @strided_tail (found by random-shapes seed 228 on 4 ranks): columns
// 1, 3, .., 11 of a replicated 6x12 cut 2/2/2/0: rank 3's empty part started
// at column 13, past the end, and MLIR's runtime check stopped the program.
// TAIL4: shard-run: rank 0: OK, 12 elements checked, received 0 bytes
// TAIL4-NEXT: shard-run: rank 1: OK, 12 elements checked, received 0 bytes
// TAIL4-NEXT: shard-run: rank 2: OK, 12 elements checked, received 0 bytes
// TAIL4-NEXT: shard-run: rank 3: OK, 0 elements checked, received 0 bytes
// ROWS2: shard-run: rank 0: OK, 16 elements checked, received 0 bytes
// ROWS2-NEXT: shard-run: rank 1: OK, 16 elements checked, received 0 bytes
// ROWS3: shard-run: rank 0: OK, 12 elements checked, received 16 bytes
// ROWS3-NEXT: shard-run: rank 1: OK, 12 elements checked, received 0 bytes
// ROWS3-NEXT: shard-run: rank 2: OK, 8 elements checked, received 32 bytes
// ROWS4: shard-run: rank 0: OK, 8 elements checked, received 32 bytes
// ROWS4-NEXT: shard-run: rank 1: OK, 8 elements checked, received 0 bytes
// ROWS4-NEXT: shard-run: rank 2: OK, 8 elements checked, received 0 bytes
// ROWS4-NEXT: shard-run: rank 3: OK, 8 elements checked, received 32 bytes
// STRIDED3: shard-run: rank 0: OK, 8 elements checked, received 0 bytes
// STRIDED3-NEXT: shard-run: rank 1: OK, 8 elements checked, received 16 bytes
// STRIDED3-NEXT: shard-run: rank 2: OK, 0 elements checked, received 0 bytes
// STRIDED4-COUNT-4: OK, 4 elements checked, received 0 bytes
// GRID: shard-run: rank 0: OK, 12 elements checked, received 48 bytes
// GRID-NEXT: shard-run: rank 1: OK, 12 elements checked, received 0 bytes
// GRID-NEXT: shard-run: rank 2: OK, 12 elements checked, received 48 bytes
// GRID-NEXT: shard-run: rank 3: OK, 12 elements checked, received 0 bytes
// QKV-COUNT-4: OK, 12 elements checked, received 432 bytes
// WHOLE: shard-run: rank 0: OK, 32 elements checked
// WHOLE: shard-run: rank 3: OK, 32 elements checked, received 128 bytes
// tensor.pad, tensor.concat, tensor.insert_slice into a result cut the
// same way: each rank receives the elements of the placed tensor that land
// in its block from where they are (an exchange into the layout of those
// parts), then places them.
// @pad: rows 10 cut 3/3/3/1 padded 2 above, 1 below into 13 rows cut
//   4/4/4/1 (4 ranks): rank 1's block (rows 4-7) needs source rows 2-5,
//   row 2 from rank 0; rank 2's (8-11) rows 6-9, row 9 from rank 3: 16 B
//   each. 2 ranks: 5/5 rows padded into 7/6, source rows 0-4 land in rank
//   0's block 0-6 and 5-9 in rank 1's: nothing moves.
// @concat: 6 rows (2/2/2/0) and 10 rows (3/3/3/1) into 16 rows (4 each):
//   rank 0 needs a rows 2-3 (32 B); rank 1 a 4-5 and b 0-1 (64 B); rank 2
//   b 2-5: b 2 from rank 0 and b 3-5 from rank 1 (64 B); rank 3 b 6-9:
//   b 6-8 from rank 2 (48 B), b 9 is its own.
// @pad_tosa: @pad as TOSA writes it: tosa.pad of a constant padding takes
//   tensor.pad's rule, so the same bytes (its old rule kept a padded dim
//   whole: the source gathered, 112 B on ranks 0-2 and 144 B on rank 3).
// @concat_tosa: @concat as TOSA writes it: tosa.concat takes tensor.concat's
//   rule, so the same bytes (its old rule kept the axis whole: both operands
//   gathered, 176 B on ranks 0-2 and 240 B on rank 3).
// @insert: 6 rows (2/2/2/0) into rows 3, 5, .., 13 of 16 (4 each): rank 0
//   places a 0 (its own), rank 1 a 1-2 (a 1 from rank 0), rank 2 a 3-4
//   (a 3 from rank 1), rank 3 a 5 (from rank 2): 16 B each but rank 0.
//   2 ranks (3/3 into 8/8): rows 3, 5, 7 and 9, 11, 13 are the ranks' own.
// @insertdrop: a row of 4 (1/1/1/1) into columns 2-5 of row 1 of 3x8 cut
//   S(1) 2/2/2/2: ranks 1 and 2 place two elements each, one of them from
//   a neighbour (4 B).
// @grid_concat: two 8x6 [S(0) dp, S(1) tp] side by side into 8x12: each
//   tp 0 rank gets the second half of a's columns of its rows, each tp 1
//   rank the first half of b's: 4 rows x 3 columns, 48 B each.
// @rep: the same concat into a replicated result: every rank receives
//   what it lacks of both.
// Found by adversarial testing: a column of rows 0 and 2 (rank-reducing,
// stride 2 on the cut dim: each rank's part is one element, and the dim
// dropped must stay the one the program drops), and slices without
// elements along the uncut dim (each rank's block is empty).
// ZERO2: shard-run: rank 0: OK, {{[0-9]+}} elements checked, received 0 bytes
// ZERO2-NEXT: shard-run: rank 1: OK, {{[0-9]+}} elements checked, received 0 bytes
// PAD4: shard-run: rank 0: OK, 16 elements checked, received 0 bytes
// PAD4-NEXT: shard-run: rank 1: OK, 16 elements checked, received 16 bytes
// PAD4-NEXT: shard-run: rank 2: OK, 16 elements checked, received 16 bytes
// PAD4-NEXT: shard-run: rank 3: OK, 4 elements checked, received 0 bytes
// CONCAT4: shard-run: rank 0: OK, 16 elements checked, received 32 bytes
// CONCAT4-NEXT: shard-run: rank 1: OK, 16 elements checked, received 64 bytes
// CONCAT4-NEXT: shard-run: rank 2: OK, 16 elements checked, received 64 bytes
// CONCAT4-NEXT: shard-run: rank 3: OK, 16 elements checked, received 48 bytes
// INSERT4: shard-run: rank 0: OK, 16 elements checked, received 0 bytes
// INSERT4-NEXT: shard-run: rank 1: OK, 16 elements checked, received 16 bytes
// INSERT4-NEXT: shard-run: rank 2: OK, 16 elements checked, received 16 bytes
// INSERT4-NEXT: shard-run: rank 3: OK, 16 elements checked, received 16 bytes
// DROP4: shard-run: rank 0: OK, 6 elements checked, received 0 bytes
// DROP4-NEXT: shard-run: rank 1: OK, 6 elements checked, received 4 bytes
// DROP4-NEXT: shard-run: rank 2: OK, 6 elements checked, received 4 bytes
// DROP4-NEXT: shard-run: rank 3: OK, 6 elements checked, received 0 bytes
// GRIDCAT-COUNT-4: OK, 24 elements checked, received 48 bytes
// OK3: shard-run: rank 0: OK
// OK3-NEXT: shard-run: rank 1: OK
// OK3-NEXT: shard-run: rank 2: OK
//
// The local form: the source stays cut (no gather); each rank slices its
// part, whose layout is the parts the ranks hold, and the planner's move
// follows only where those are not the result's blocks.
// LOCAL-LABEL: func.func @rows(
// LOCAL-NOT: all_gather
// LOCAL: tensor.extract_slice %arg0[0, 0] [%{{.*}}, 4] [1, 1] : tensor<4x4xf32> to tensor<?x4xf32>
// LOCAL-NEXT: shard.spmd.exchange %{{.*}} from !shard.tensor<8x4xf32, #shard.enumerable<[{offsets = [0, 0], sizes = [0, 4], placement = "rank:0/cpu"}, {offsets = [0, 0], sizes = [4, 4], placement = "rank:1/cpu"}, {offsets = [4, 0], sizes = [4, 4], placement = "rank:2/cpu"}, {offsets = [8, 0], sizes = [0, 4], placement = "rank:3/cpu"}]>>
// LOCAL-LABEL: func.func @strided(
// LOCAL-NEXT: tensor.extract_slice %arg0[0, 0] [1, 4] [4, 1] : tensor<4x4xf32> to tensor<1x4xf32>
// LOCAL-NEXT: return
// LOCAL-LABEL: func.func @whole(
#m = #shard.mesh<shape = [@N@], axes = ["tp"]>
#g = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
func.func @rows(%x: tensor<16x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %y = tensor.extract_slice %x[4, 0] [8, 4] [1, 1] : tensor<16x4xf32> to tensor<8x4xf32>
  %z = arith.addf %y, %y : tensor<8x4xf32>
  return %z : tensor<8x4xf32>
}
func.func @strided(%x: tensor<16x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %y = tensor.extract_slice %x[0, 0] [4, 4] [4, 1] : tensor<16x4xf32> to tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
func.func @whole(%x: tensor<16x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %y = tensor.extract_slice %x[3, 0] [8, 4] [1, 1] : tensor<16x4xf32> to tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
func.func @qkv(%x: tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
               %w: tensor<8x24xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %e = tensor.empty() : tensor<6x24xf32>
  %c0 = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<6x24xf32>) -> tensor<6x24xf32>
  %qkv = linalg.matmul ins(%x, %w : tensor<6x8xf32>, tensor<8x24xf32>) outs(%z : tensor<6x24xf32>) -> tensor<6x24xf32>
  %q = tensor.extract_slice %qkv[0, 0] [6, 8] [1, 1] : tensor<6x24xf32> to tensor<6x8xf32>
  %k = tensor.extract_slice %qkv[0, 8] [6, 8] [1, 1] : tensor<6x24xf32> to tensor<6x8xf32>
  %v = tensor.extract_slice %qkv[0, 16] [6, 8] [1, 1] : tensor<6x24xf32> to tensor<6x8xf32>
  %qk = arith.mulf %q, %k : tensor<6x8xf32>
  %r = arith.addf %qk, %v : tensor<6x8xf32>
  return %r : tensor<6x8xf32>
}
func.func @qkv_tosa(%x: tensor<1x6x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                    %w: tensor<1x8x24xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(2)]>})
    -> (tensor<1x6x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(2)]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %qkv = tosa.matmul %x, %w, %zp, %zp : (tensor<1x6x8xf32>, tensor<1x8x24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x24xf32>
  %size = tosa.const_shape {values = dense<[1, 6, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sq = tosa.const_shape {values = dense<[0, 0, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sk = tosa.const_shape {values = dense<[0, 0, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sv = tosa.const_shape {values = dense<[0, 0, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q = tosa.slice %qkv, %sq, %size : (tensor<1x6x24xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x6x8xf32>
  %k = tosa.slice %qkv, %sk, %size : (tensor<1x6x24xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x6x8xf32>
  %v = tosa.slice %qkv, %sv, %size : (tensor<1x6x24xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x6x8xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %qk = tosa.mul %q, %k, %shift : (tensor<1x6x8xf32>, tensor<1x6x8xf32>, tensor<1xi8>) -> tensor<1x6x8xf32>
  %r = tosa.add %qk, %v : (tensor<1x6x8xf32>, tensor<1x6x8xf32>) -> tensor<1x6x8xf32>
  return %r : tensor<1x6x8xf32>
}
func.func @moved_first(%x: tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<4x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %s = tensor.extract_slice %x[0, 2] [4, 5] [1, 1] : tensor<4x8xf32> to tensor<4x5xf32>
  return %s : tensor<4x5xf32>
}
func.func @grid(%x: tensor<8x12xf32> {shard.layout = #shard.placements<mesh = #g, placements = [S(0), S(1)]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #g, placements = [S(0), S(1)]>}) {
  %y = tensor.extract_slice %x[0, 6] [8, 6] [1, 1] : tensor<8x12xf32> to tensor<8x6xf32>
  %z = arith.negf %y : tensor<8x6xf32>
  return %z : tensor<8x6xf32>
}
func.func @pad(%x: tensor<10x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<13x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c = arith.constant 7.0 : f32
  %y = tensor.pad %x low[2, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<10x4xf32> to tensor<13x4xf32>
  return %y : tensor<13x4xf32>
}
func.func @pad_tosa(%x: tensor<10x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<13x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %padding = tosa.const_shape {values = dense<[2, 1, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %c = "tosa.const"() {values = dense<7.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.pad %x, %padding, %c : (tensor<10x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<13x4xf32>
  return %y : tensor<13x4xf32>
}
func.func @concat(%a: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                  %b: tensor<10x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<16x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %y = tensor.concat dim(0) %a, %b : (tensor<6x4xf32>, tensor<10x4xf32>) -> tensor<16x4xf32>
  return %y : tensor<16x4xf32>
}
func.func @concat_tosa(%a: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                       %b: tensor<10x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<16x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %y = tosa.concat %a, %b {axis = 0 : i32} : (tensor<6x4xf32>, tensor<10x4xf32>) -> tensor<16x4xf32>
  return %y : tensor<16x4xf32>
}
func.func @insert(%a: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                  %d: tensor<16x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<16x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %y = tensor.insert_slice %a into %d[3, 0] [6, 4] [2, 1] : tensor<6x4xf32> into tensor<16x4xf32>
  return %y : tensor<16x4xf32>
}
func.func @insertdrop(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                  %d: tensor<3x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<3x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %y = tensor.insert_slice %a into %d[1, 2] [1, 4] [1, 1] : tensor<4xf32> into tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}
func.func @rep(%a: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                  %b: tensor<10x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<16x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %y = tensor.concat dim(0) %a, %b : (tensor<6x4xf32>, tensor<10x4xf32>) -> tensor<16x4xf32>
  return %y : tensor<16x4xf32>
}
func.func @grid_concat(%a: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #g, placements = [S(0), S(1)]>},
                %b: tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #g, placements = [S(0), S(1)]>})
    -> (tensor<8x12xf32> {shard.layout = #shard.placements<mesh = #g, placements = [S(0), S(1)]>}) {
  %y = tensor.concat dim(1) %a, %b : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x12xf32>
  return %y : tensor<8x12xf32>
}
func.func @drop_strided(%x: tensor<4x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %y = tensor.extract_slice %x[0, 7] [2, 1] [2, 1] : tensor<4x10xf32> to tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @empty_rows(%x: tensor<2x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<0x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %y = tensor.extract_slice %x[0, 3] [0, 5] [1, 1] : tensor<2x8xf32> to tensor<0x5xf32>
  return %y : tensor<0x5xf32>
}
func.func @empty_rows_cut(%x: tensor<2x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<0x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %y = tensor.extract_slice %x[0, 3] [0, 5] [1, 1] : tensor<2x8xf32> to tensor<0x5xf32>
  return %y : tensor<0x5xf32>
}
func.func @strided_tail(%x: tensor<6x12xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<6x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %y = tensor.extract_slice %x[0, 1] [6, 6] [1, 2] : tensor<6x12xf32> to tensor<6x6xf32>
  return %y : tensor<6x6xf32>
}
