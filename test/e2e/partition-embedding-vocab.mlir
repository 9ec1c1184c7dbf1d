// An embedding and a tied LM head as torch-mlir emits them (aten.embedding:
// a linalg.generic whose payload reads the table with tensor.extract at
// the token's row; aten.linear with the table transposed), under
// Megatron's vocab parallelism (issue 26, items 1 and 3): the table's
// 50257 rows cut over the ranks as torch.chunk cuts them (over 4: 12565,
// 12565, 12565, 12562). Each rank looks up the tokens whose rows it holds
// and yields 0 for the others, the lookup is Partial(sum), and one
// all_reduce makes it whole; the LM head's logits stay cut along the
// vocabulary, so nothing else moves. Token ids are computed from the
// inputs so that they fall on every rank's rows.
//
// The cheapest plan, by hand: the embedding's 2 x 8 x 8 f32 = 512 B are
// all-reduced (each rank receives 2 (p - 1) / p of it: 512 B on 2 ranks,
// 768 B on 4), nothing else moves (the logits are [16 x 50257] cut along
// the vocabulary like the table; the hidden states are needed whole by
// every rank, which they are after the all_reduce). A replicated table
// moves nothing at all: every rank looks up its own batch row.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry vocab_parallel --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry vocab_parallel,replicated_table --check > %t.run1 2>&1
// RUN: not grep "error:" %t.run1
// RUN: %entry-lines vocab_parallel %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: %entry-lines replicated_table %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=REPL
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// NP2: shard-run: rank 0: OK, 402192 elements checked, received 512 bytes
// NP2-NEXT: shard-run: rank 1: OK, 402176 elements checked, received 512 bytes
// NP4: shard-run: rank 0: OK, 201168 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 1: OK, 201168 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 2: OK, 201168 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 3: OK, 201120 elements checked, received 768 bytes
// REPL: shard-run: rank 0: OK, 16 elements checked, received 0 bytes
// REPL-NEXT: shard-run: rank 1: OK, 16 elements checked, received 0 bytes
// The masked lookup: this rank's rows at their local index, 0 elsewhere.
// LOCAL-LABEL: func.func @vocab_parallel(
// LOCAL: linalg.generic
// LOCAL: %[[ROW:.*]] = arith.index_cast
// LOCAL: %[[LOCALROW:.*]] = arith.subi %[[ROW]],
// LOCAL: scf.if
// LOCAL-NEXT: tensor.extract %arg1[%[[LOCALROW]], %{{.*}}] : tensor<?x8xf32>
// LOCAL: } else {
// LOCAL-NEXT: arith.constant 0.0
// LOCAL: shard.spmd.all_reduce {{.*}} reduce sum
// LOCAL-NOT: shard.spmd.{{all_|exchange|scatter|gather|reduce}}
// LOCAL-LABEL: func.func @replicated_table(
// LOCAL-NOT: shard.spmd.{{all_|exchange|scatter|gather|reduce}}
// LOCAL-NOT: scf.if

#m = #shard.mesh<shape = [@N@]>
#Rows = #shard.placements<mesh = #m, placements = [S(0)]>
#Cols = #shard.placements<mesh = #m, placements = [S(1)]>
#R = #shard.placements<mesh = #m, placements = [R]>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tok = affine_map<(d0, d1, d2) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @vocab_parallel(%x: tensor<2x8xi64> {shard.layout = #R},
                          %table: tensor<50257x8xf32> {shard.layout = #Rows})
    -> (tensor<2x8x8xf32> {shard.layout = #R},
        tensor<16x50257xf32> {shard.layout = #Cols}) {
  %c6 = arith.constant 6 : i64
  %cm = arith.constant 8377 : i64
  %cv = arith.constant 50257 : i64
  %e0 = tensor.empty() : tensor<2x8xi64>
  %ids = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x8xi64>) outs(%e0 : tensor<2x8xi64>) {
  ^bb0(%in: i64, %out: i64):
    %a = arith.addi %in, %c6 : i64
    %b = arith.muli %a, %cm : i64
    %c = arith.remsi %b, %cv : i64
    linalg.yield %c : i64
  } -> tensor<2x8xi64>
  %e1 = tensor.empty() : tensor<2x8x8xf32>
  %emb = linalg.generic {indexing_maps = [#tok, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<2x8xi64>) outs(%e1 : tensor<2x8x8xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%i, %j] : tensor<50257x8xf32>
    linalg.yield %v : f32
  } -> tensor<2x8x8xf32>
  %h = tensor.collapse_shape %emb [[0, 1], [2]] : tensor<2x8x8xf32> into tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<8x50257xf32>
  %wt = linalg.transpose ins(%table : tensor<50257x8xf32>) outs(%e2 : tensor<8x50257xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<16x50257xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16x50257xf32>) -> tensor<16x50257xf32>
  %logits = linalg.matmul ins(%h, %wt : tensor<16x8xf32>, tensor<8x50257xf32>) outs(%z : tensor<16x50257xf32>) -> tensor<16x50257xf32>
  return %emb, %logits : tensor<2x8x8xf32>, tensor<16x50257xf32>
}

func.func @replicated_table(%x: tensor<2x4xi64> {shard.layout = #Rows},
                            %table: tensor<13x4xf32> {shard.layout = #R})
    -> (tensor<2x4x4xf32> {shard.layout = #Rows}) {
  %c6 = arith.constant 6 : i64
  %e0 = tensor.empty() : tensor<2x4xi64>
  %ids = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x4xi64>) outs(%e0 : tensor<2x4xi64>) {
  ^bb0(%in: i64, %out: i64):
    %a = arith.addi %in, %c6 : i64
    linalg.yield %a : i64
  } -> tensor<2x4xi64>
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %emb = linalg.generic {indexing_maps = [#tok, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<2x4xi64>) outs(%e1 : tensor<2x4x4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%i, %j] : tensor<13x4xf32>
    linalg.yield %v : f32
  } -> tensor<2x4x4xf32>
  return %emb : tensor<2x4x4xf32>
}
