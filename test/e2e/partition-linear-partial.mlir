// Partial values pass through the ops that are linear in them (DTensor's
// (Partial, Replicate) -> Partial of a matmul and its linear pointwise
// ops): each rule names the groups of operands its results are linear in
// (ShardingRule::linear: a matmul's {A, init} and {B, init}, an add's
// {lhs, rhs}, a product's either factor, a lookup's table, a reshape's
// source), the search may read such a group P(sum) on an axis that cuts no
// loop (the decision written as the sharding's reads), and the result is
// P(sum) there: the parts are reduced once, where something needs them
// whole, instead of before each op.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: shard-opt %t.4.mlir -shard-print-sharding-rules | FileCheck %s --check-prefix=RULE
// RUN: shard-opt %t.4.mlir -shard-propagate | FileCheck %s --check-prefix=DECIDED
// At these sizes 2 us per message makes one gather of a small table or of
// the experts cheaper by the model than the reductions: the IR and the
// runs below count bytes alone (alpha-us=0).
// RUN: shard-opt %t.4.mlir -shard-propagate=alpha-us=0 -shard-spmd-partition | FileCheck %s --check-prefix=IR
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// Each rank count in two launches: the default cost model (alpha 2 us),
// and alpha-us=0.
// RUN: for n in 2 3 4; do \
// RUN:   %mpirun -np $n %shard-run %t.$n.mlir --entry qkv,partial_argument,edges --check > %t.default.$n 2>&1; \
// RUN:   %mpirun -np $n %shard-run %t.$n.mlir --entry embed_project,moe,edges --check --propagate=alpha-us=0 > %t.alpha0.$n 2>&1; \
// RUN: done
// RUN: not grep -e MISMATCH -e error %t.default.2 %t.default.3 %t.default.4 %t.alpha0.2 %t.alpha0.3 %t.alpha0.4
// RUN: %entry-lines qkv %t.default.4 | FileCheck %s --check-prefix=QKV4
// RUN: %entry-lines embed_project %t.alpha0.4 | FileCheck %s --check-prefix=EMB4
// RUN: %entry-lines moe %t.alpha0.4 | FileCheck %s --check-prefix=MOE4
// RUN: %entry-lines qkv %t.default.3 | FileCheck %s --check-prefix=QKV3
// RUN: %entry-lines embed_project %t.alpha0.3 | FileCheck %s --check-prefix=EMB3
// RUN: %entry-lines moe %t.alpha0.3 | FileCheck %s --check-prefix=MOE3
// RUN: %entry-lines qkv %t.default.2 | FileCheck %s --check-prefix=QKV2
// RUN: %entry-lines embed_project %t.alpha0.2 | FileCheck %s --check-prefix=EMB2
// RUN: %entry-lines moe %t.alpha0.2 | FileCheck %s --check-prefix=MOE2

// A P(sum) argument passes its parts through what is linear in it to a
// P(sum) result: nothing moves (op by op reduced and remade it: 192 B on
// 2 ranks).
// RUN: for n in 2 3 4; do %entry-lines partial_argument %t.default.$n; done | FileCheck %s --check-prefix=PARG
// PARG-COUNT-9: OK, 24 elements checked, received 0 bytes
// Where linearity does not hold, or holds only through an init: each
// checked on every rank (a review found these before they were fixed).
// RUN: for n in 2 3 4; do for a in default alpha0; do \
// RUN:   %entry-lines edges %t.$a.$n | sed -e "s/^/$n $a: /"; \
// RUN: done; done > %t.edge.txt
// RUN: grep -c ": OK" %t.edge.txt | FileCheck %s --check-prefix=EDGEN
// EDGEN: {{^}}18{{$}}

#m = #shard.mesh<shape = [@N@]>

// Three row-parallel projections of one input (the query, key and value
// of an attention whose input is cut along the hidden dim, Megatron's
// weights cut by rows), summed, scaled and reshaped: each projection is
// P(sum); the sums, the scaling and the reshape pass the parts on, and
// one all-reduce of the 16 x 32 f32 result (2048 B) makes it whole:
// 2 (p - 1) / p of it received per rank, where reducing each projection
// before its add received three times that.
// RULE-LABEL: func.func @qkv
// RULE: linalg.matmul {{.*}}linear={{\[\[}}0, 2], [1, 2{{\]\]}}>
// RULE: arith.addf {{.*}}linear={{\[\[}}0, 1{{\]\]}}>
// RULE: arith.mulf {{.*}}linear={{\[\[}}0], [1{{\]\]}}>
// RULE: tensor.expand_shape {{.*}}linear={{\[\[}}0{{\]\]}}>
// DECIDED-LABEL: func.func @qkv
// DECIDED: arith.addf {{.*}}reads = [#layout_Psum, #layout_Psum]>
// DECIDED: arith.addf {{.*}}reads = [#layout_Psum, #layout_Psum]>
// IR-LABEL: func.func @qkv
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: arith.addf
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: arith.addf
// IR: shard.spmd.{{all_reduce|reduce_scatter}}
// IR-NOT: shard.spmd.{{all_reduce|reduce_scatter}}
// IR: return
// QKV2: rank 0: OK, {{.*}} received 2048 bytes
// QKV2-NEXT: rank 1: OK, {{.*}} received 2048 bytes
// QKV3: rank 0: OK, {{.*}} received {{26[0-9][0-9]|27[0-9][0-9]}} bytes
// QKV3-NEXT: rank 1: OK, {{.*}} received {{26[0-9][0-9]|27[0-9][0-9]}} bytes
// QKV3-NEXT: rank 2: OK, {{.*}} received {{26[0-9][0-9]|27[0-9][0-9]}} bytes
// QKV4: rank 0: OK, {{.*}} received 3072 bytes
// QKV4-NEXT: rank 1: OK, {{.*}} received 3072 bytes
// QKV4-NEXT: rank 2: OK, {{.*}} received 3072 bytes
// QKV4-NEXT: rank 3: OK, {{.*}} received 3072 bytes
func.func @qkv(%x: tensor<16x64xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
               %wq: tensor<64x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
               %wk: tensor<64x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
               %wv: tensor<64x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<16x4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<16x64xf32>, tensor<64x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<16x64xf32>, tensor<64x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %v = linalg.matmul ins(%x, %wv : tensor<16x64xf32>, tensor<64x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %s1 = arith.addf %q, %k : tensor<16x32xf32>
  %s2 = arith.addf %s1, %v : tensor<16x32xf32>
  %c = arith.constant dense<0.5> : tensor<16x32xf32>
  %s3 = arith.mulf %s2, %c : tensor<16x32xf32>
  %r = tensor.expand_shape %s3 [[0], [1, 2]] output_shape [16, 4, 8] : tensor<16x32xf32> into tensor<16x4x8xf32>
  return %r : tensor<16x4x8xf32>
}

// A vocab-parallel embedding (the table cut along the vocabulary: each
// rank looks up the rows it holds, 0 for the others) projected down from
// 32 to 4 features: the lookup is P(sum), the projection is linear in it
// (its zero init read P too: kept on the first copy), and only the
// projection's 8 x 4 f32 (128 B) is all-reduced, never the 8 x 32 lookup
// (1024 B).
// RULE-LABEL: func.func @embed_project
// RULE: linalg.generic {{.*}}combiners=[sum] unstrided={d{{[0-9]+}}: "it selects rows of a table by data{{.*}}"} inits=[1] linear={{\[\[}}2{{\]\]}}>
// IR-LABEL: func.func @embed_project
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: linalg.matmul
// IR: shard.spmd.{{all_reduce|reduce_scatter}} {{.*}} from !shard.tensor<8x4xf32
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: return
// EMB2: rank 0: OK, {{.*}} received 128 bytes
// EMB2-NEXT: rank 1: OK, {{.*}} received 128 bytes
// EMB3: rank 0: OK, {{.*}} received {{1[67][0-9]}} bytes
// EMB3-NEXT: rank 1: OK, {{.*}} received {{1[67][0-9]}} bytes
// EMB3-NEXT: rank 2: OK, {{.*}} received {{1[67][0-9]}} bytes
// EMB4: rank 0: OK, {{.*}} received 192 bytes
// EMB4-NEXT: rank 1: OK, {{.*}} received 192 bytes
// EMB4-NEXT: rank 2: OK, {{.*}} received 192 bytes
// EMB4-NEXT: rank 3: OK, {{.*}} received 192 bytes
func.func @embed_project(%tok: tensor<8xi32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                         %table: tensor<12x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                         %w: tensor<32x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %emb = linalg.generic {indexing_maps = [affine_map<(t, h) -> (t)>, affine_map<(t, h) -> (t, h)>], iterator_types = ["parallel", "parallel"]} ins(%tok : tensor<8xi32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%t: i32, %o: f32):
    %v12 = arith.constant 12 : i32
    %a = arith.remsi %t, %v12 : i32
    %b = arith.addi %a, %v12 : i32
    %c = arith.remsi %b, %v12 : i32
    %row = arith.index_cast %c : i32 to index
    %h = linalg.index 1 : index
    %v = tensor.extract %table[%row, %h] : tensor<12x32xf32>
    linalg.yield %v : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %p = linalg.matmul ins(%emb, %w : tensor<8x32xf32>, tensor<32x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %p : tensor<8x4xf32>
}

// A switch MoE layer in torch-mlir's lowering form (router matmul, softmax
// max and argmax, then in a callee the experts' matrices looked up per token
// by index, aten.index.Tensor, and applied by bmm, relu between), its 4
// experts cut on the expert dim (expert parallelism). Each lookup is P(sum)
// (each rank yields its experts' rows, 0 for the others); the bmm is linear
// in it, so the 4 x 64 activations are all-reduced before the relu (1 KB)
// and the 4 x 16 outputs at the end (256 B): the experts stay where they
// are, and the looked-up matrices (4 x 16 x 64 f32, 16 KB each) never move.
// Per rank, 2 (p - 1) / p of 1024 + 256 B (1280 B on 2 ranks, 1920 B on
// 4; 3 ranks cut the 4 experts 2/1/1, and the ring's chunks of 256 and 64
// elements are 86/85/85 and 22/21/21: each rank receives every chunk but
// two, its own and the one before it, 426, 426 and 428 elements); moving
// the experts' weights instead (to cut their F dim) receives 6 KB per rank
// on 4 ranks.
// MOE2: rank 0: OK, {{.*}} received 1280 bytes
// MOE2-NEXT: rank 1: OK, {{.*}} received 1280 bytes
// MOE3: rank 0: OK, {{.*}} received 1704 bytes
// MOE3-NEXT: rank 1: OK, {{.*}} received 1704 bytes
// MOE3-NEXT: rank 2: OK, {{.*}} received 1712 bytes
// MOE4: rank 0: OK, {{.*}} received 1920 bytes
// MOE4-NEXT: rank 1: OK, {{.*}} received 1920 bytes
// MOE4-NEXT: rank 2: OK, {{.*}} received 1920 bytes
// MOE4-NEXT: rank 3: OK, {{.*}} received 1920 bytes
// IR-LABEL: func.func @moe
// IR-NOT: shard.spmd.{{.*}}!shard.tensor<4x16x64xf32
// IR-NOT: shard.spmd.{{.*}}!shard.tensor<4x64x16xf32
// IR-LABEL: func.func private @expert
// IR-NOT: shard.spmd.{{.*}}!shard.tensor<4x16x64xf32
// IR-NOT: shard.spmd.{{.*}}!shard.tensor<4x64x16xf32
// IR: return

#td = affine_map<(t, e) -> (t, e)>
#t = affine_map<(t, e) -> (t)>
func.func @moe(%x: tensor<4x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
               %wr: tensor<16x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
               %w1: tensor<4x16x64xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
               %w2: tensor<4x64x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<4x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  // router logits
  %el = tensor.empty() : tensor<4x4xf32>
  %lz = linalg.fill ins(%zero : f32) outs(%el : tensor<4x4xf32>) -> tensor<4x4xf32>
  %logits = linalg.matmul ins(%x, %wr : tensor<4x16xf32>, tensor<16x4xf32>) outs(%lz : tensor<4x4xf32>) -> tensor<4x4xf32>
  // softmax pieces: max, exp-sum
  %e1 = tensor.empty() : tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi64>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %iinit = linalg.fill ins(%c0 : i64) outs(%ei : tensor<4xi64>) -> tensor<4xi64>
  // aten.max.dim: value and index
  %mx:2 = linalg.generic {indexing_maps = [#td, #t, #t], iterator_types = ["parallel", "reduction"]} ins(%logits : tensor<4x4xf32>) outs(%minit, %iinit : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%v: f32, %acc: f32, %ai: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %v, %acc : f32
    %nv = arith.select %gt, %v, %acc : f32
    %ni = arith.select %gt, %ji, %ai : i64
    linalg.yield %nv, %ni : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#td, #t, #t], iterator_types = ["parallel", "reduction"]} ins(%logits, %mx#0 : tensor<4x4xf32>, tensor<4xf32>) outs(%sinit : tensor<4xf32>) {
  ^bb0(%v: f32, %m: f32, %acc: f32):
    %s = arith.subf %v, %m : f32
    %ex = math.exp %s : f32
    %a = arith.addf %ex, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  // gate = max prob = 1 / sum
  %gate = linalg.generic {indexing_maps = [affine_map<(t) -> (t)>, affine_map<(t) -> (t)>], iterator_types = ["parallel"]} ins(%sum : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%s: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %g = arith.divf %one, %s : f32
    linalg.yield %g : f32
  } -> tensor<4xf32>
  %y = call @expert(%x, %mx#1, %gate, %w1, %w2) : (tensor<4x16xf32>, tensor<4xi64>, tensor<4xf32>, tensor<4x16x64xf32>, tensor<4x64x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

func.func private @expert(%x: tensor<4x16xf32>, %idx: tensor<4xi64>, %gate: tensor<4xf32>, %w1: tensor<4x16x64xf32>, %w2: tensor<4x64x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  // aten.index.Tensor: w1[idx] -> [T, D, F]
  %ew1 = tensor.empty() : tensor<4x16x64xf32>
  %g1 = linalg.generic {indexing_maps = [affine_map<(t, d, f) -> (t)>, affine_map<(t, d, f) -> (t, d, f)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%idx : tensor<4xi64>) outs(%ew1 : tensor<4x16x64xf32>) {
  ^bb0(%i: i64, %o: f32):
    %ii = arith.index_cast %i : i64 to index
    %d = linalg.index 1 : index
    %f = linalg.index 2 : index
    %v = tensor.extract %w1[%ii, %d, %f] : tensor<4x16x64xf32>
    linalg.yield %v : f32
  } -> tensor<4x16x64xf32>
  // bmm(x.unsqueeze(1), w1[idx]).squeeze(1)
  %xu = tensor.expand_shape %x [[0, 1], [2]] output_shape [4, 1, 16] : tensor<4x16xf32> into tensor<4x1x16xf32>
  %eh = tensor.empty() : tensor<4x1x64xf32>
  %hz = linalg.fill ins(%zero : f32) outs(%eh : tensor<4x1x64xf32>) -> tensor<4x1x64xf32>
  %h3 = linalg.batch_matmul ins(%xu, %g1 : tensor<4x1x16xf32>, tensor<4x16x64xf32>) outs(%hz : tensor<4x1x64xf32>) -> tensor<4x1x64xf32>
  %h = tensor.collapse_shape %h3 [[0, 1], [2]] : tensor<4x1x64xf32> into tensor<4x64xf32>
  // relu
  %er = tensor.empty() : tensor<4x64xf32>
  %hr = linalg.generic {indexing_maps = [affine_map<(t, f) -> (t, f)>, affine_map<(t, f) -> (t, f)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<4x64xf32>) outs(%er : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32>
  // w2[idx] -> [T, F, D]
  %ew2 = tensor.empty() : tensor<4x64x16xf32>
  %g2 = linalg.generic {indexing_maps = [affine_map<(t, f, d) -> (t)>, affine_map<(t, f, d) -> (t, f, d)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%idx : tensor<4xi64>) outs(%ew2 : tensor<4x64x16xf32>) {
  ^bb0(%i: i64, %o: f32):
    %ii = arith.index_cast %i : i64 to index
    %f = linalg.index 1 : index
    %d = linalg.index 2 : index
    %v = tensor.extract %w2[%ii, %f, %d] : tensor<4x64x16xf32>
    linalg.yield %v : f32
  } -> tensor<4x64x16xf32>
  %hu = tensor.expand_shape %hr [[0, 1], [2]] output_shape [4, 1, 64] : tensor<4x64xf32> into tensor<4x1x64xf32>
  %ey = tensor.empty() : tensor<4x1x16xf32>
  %yz = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x1x16xf32>) -> tensor<4x1x16xf32>
  %y3 = linalg.batch_matmul ins(%hu, %g2 : tensor<4x1x64xf32>, tensor<4x64x16xf32>) outs(%yz : tensor<4x1x16xf32>) -> tensor<4x1x16xf32>
  %y = tensor.collapse_shape %y3 [[0, 1], [2]] : tensor<4x1x16xf32> into tensor<4x16xf32>
  // y * gate
  %eo = tensor.empty() : tensor<4x16xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(t, d) -> (t, d)>, affine_map<(t, d) -> (t)>, affine_map<(t, d) -> (t, d)>], iterator_types = ["parallel", "parallel"]} ins(%y, %gate : tensor<4x16xf32>, tensor<4xf32>) outs(%eo : tensor<4x16xf32>) {
  ^bb0(%a: f32, %g: f32, %o: f32):
    %r = arith.mulf %a, %g : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %out : tensor<4x16xf32>
}

// A product reduction is not linear in its input: its accumulator holds
// the earlier iterations' values (the rule names no group for it). A
// matmul accumulating into a partial value (the row-parallel %x) reads it
// P(sum) with its init: each rank adds its product to its own part. A
// parallel payload linear in its init (out * w + out): no reduction, the
// init read P(sum) is the result's parts. A quotient by data is not
// linear (x / 0 from parts of mixed signs is NaN where x / 0 is an
// infinity), only by a finite constant other than 0. bf16 keeps its parts
// reduced before each op (their rounding could lose what the sum keeps):
// no linear groups below 32-bit floats. A constant factor past 2^24 (or a
// divisor below 2^-24) is not linear either: parts of mixed signs may be
// far larger than their sum, and overflow where it does not.
// RULE-LABEL: func.func @edges
// RULE: linalg.reduce {{.*}}combiners=[product] inits=[1]>
// RULE: arith.divf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=4, d1=6}>
// RULE: arith.divf {{.*}}linear={{\[\[}}0{{\]\]}}>
// RULE: arith.addf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=4, d1=6}>} : tensor<4x6xbf16>
// RULE: arith.divf {{.*}}linear={{\[\[}}0{{\]\]}}>
// RULE: arith.mulf {{.*}}#shard.rule<([d0, d1], [d0, d1]) -> ([d0, d1]) {d0=4, d1=6}>} : tensor<4x6xf32>
// The same rule after propagation (the divisor behind a shard.constraint):
// RUN: shard-opt %t.2.mlir -shard-propagate | shard-opt -shard-print-sharding-rules | FileCheck %s --check-prefix=AFTER
// AFTER-LABEL: func.func @edges
// AFTER: arith.divf {{.*}}linear={{\[\[}}0{{\]\]}}>
// AFTER: arith.divf {{.*}}linear={{\[\[}}0{{\]\]}}>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#R = #shard.placements<mesh = #m, placements = [R]>
#id = affine_map<(i, j) -> (i, j)>
func.func @edges(%a: tensor<4x8xf32> {shard.layout = #S1}, %b: tensor<8x6xf32> {shard.layout = #S0},
                 %c: tensor<4x5xf32> {shard.layout = #R}, %d: tensor<5x6xf32> {shard.layout = #R},
                 %w: tensor<4x6xf32> {shard.layout = #R},
                 %ha: tensor<4x8xbf16> {shard.layout = #S1}, %hb: tensor<8x6xbf16> {shard.layout = #S0},
                 %hw: tensor<4x6xbf16> {shard.layout = #R})
    -> (tensor<4xf32> {shard.layout = #R}, tensor<4xf32> {shard.layout = #R}, tensor<4xf32> {shard.layout = #R},
        tensor<4x6xf32> {shard.layout = #R}, tensor<4x6xbf16> {shard.layout = #R},
        tensor<4x6xf32> {shard.layout = #R}, tensor<4x6xf32> {shard.layout = #R}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %x = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  // product
  %o1 = linalg.fill ins(%one : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %prod = linalg.reduce ins(%x : tensor<4x6xf32>) outs(%o1 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %acc : f32
      linalg.yield %p : f32
    }
  // accumulate
  %x2 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %y = linalg.matmul ins(%c, %d : tensor<4x5xf32>, tensor<5x6xf32>) outs(%x2 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %o2 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %acc = linalg.reduce { arith.addf } ins(%y : tensor<4x6xf32>) outs(%o2 : tensor<4xf32>) dimensions = [1]
  // out * w + out
  %x3 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<4x6xf32>) outs(%x3 : tensor<4x6xf32>) {
  ^bb0(%wv: f32, %out: f32):
    %p = arith.mulf %out, %wv : f32
    %q = arith.addf %p, %out : f32
    linalg.yield %q : f32
  } -> tensor<4x6xf32>
  %o3 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %outw = linalg.reduce { arith.addf } ins(%r : tensor<4x6xf32>) outs(%o3 : tensor<4xf32>) dimensions = [1]
  // quotients
  %q = arith.divf %x, %w : tensor<4x6xf32>
  %four = arith.constant dense<4.0> : tensor<4x6xf32>
  %quot = arith.divf %q, %four : tensor<4x6xf32>
  // bf16
  %hzero = arith.constant 0.0 : bf16
  %he = tensor.empty() : tensor<4x6xbf16>
  %hz = linalg.fill ins(%hzero : bf16) outs(%he : tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %hx = linalg.matmul ins(%ha, %hb : tensor<4x8xbf16>, tensor<8x6xbf16>) outs(%hz : tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %hs = arith.addf %hx, %hw : tensor<4x6xbf16>
  %hp = arith.mulf %hs, %hw : tensor<4x6xbf16>
  %hr = arith.subf %hp, %hx : tensor<4x6xbf16>
  // A mean's division of a partial value by a splat constant: the rule
  // sees the constant through the layout propagation pins on it (the
  // same rule in both passes).
  %x5 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %mean = arith.divf %x5, %four : tensor<4x6xf32>
  // Scaled past 2^24: a part may be far larger than its sum, and overflow.
  %x6 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %huge = arith.constant dense<3.0e+37> : tensor<4x6xf32>
  %scaled = arith.mulf %x6, %huge : tensor<4x6xf32>
  return %prod, %acc, %outw, %quot, %hr, %mean, %scaled : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x6xf32>, tensor<4x6xbf16>, tensor<4x6xf32>, tensor<4x6xf32>
}

func.func @partial_argument(%x: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [P(sum)]>},
                            %w: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [P(sum)]>}) {
  %t = arith.mulf %x, %w : tensor<4x6xf32>
  %u = arith.subf %t, %x : tensor<4x6xf32>
  return %u : tensor<4x6xf32>
}
