// Grouped-query attention (issue 43, item 7) in the form torch-mlir's
// linalg-on-tensors output takes for a Llama/Mistral attention layer: 4
// query heads and 2 key/value heads of 4 (repeat_kv as an expand, a
// broadcast and a collapse), rotary embeddings from constant cos/sin
// tables (rotate_half as two slices, a negation and a concat), a causal
// mask built from iota (linalg.index compared, 0 or -inf), softmax, and
// the output projection. Megatron's tensor parallelism: q, k and v
// column-parallel (head-major), o row-parallel.
//
// The cheapest plans by hand:
// - 2 ranks: one key/value head and its two query heads per rank; the
//   constants and the mask are built on each rank in the layout used
//   (never moved); only the output projection's partial sum is
//   all-reduced: 4 x 16 f32 = 256 B per rank.
// - 4 ranks (bytes alone, alpha-us=0): 2 key/value heads cannot be cut at
//   head boundaries over 4 ranks. k and v (4 tokens x 8) are moved from
//   their column blocks to token rows (all_to_all: 6 elements, 24 B each),
//   rotated and repeated per token, then moved to cut the 4 repeated heads
//   (all_to_all: 12 of 16 elements, 48 B each); then the output
//   projection's all-reduce (2 (p - 1) / p x 256 = 384 B): 528 B per rank.
//   (Gathering k and v whole instead: 2 x 96 + 384 = 576 B.)
// Every element is checked on every rank.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR2
// IR2-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR2: shard.spmd.all_reduce {{.*}} from !shard.tensor<4x16xf32
// IR2-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry gqa --check | sort | FileCheck %s --check-prefix=NP2
// NP2: rank 0: OK, 64 elements checked, received 256 bytes
// NP2-NEXT: rank 1: OK, 64 elements checked, received 256 bytes
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: shard-opt %t.4.mlir -shard-propagate=alpha-us=0 -shard-spmd-partition | FileCheck %s --check-prefix=IR4
// The rotary tables and the mask never move:
// IR4-NOT: shard.spmd.{{.*}}!shard.tensor<4x4xf32
// IR4: shard.spmd.all_reduce {{.*}} from !shard.tensor<4x16xf32
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry gqa --check --propagate=alpha-us=0 | sort | FileCheck %s --check-prefix=NP4
// NP4: rank 0: OK, 64 elements checked, received 528 bytes
// NP4-NEXT: rank 1: OK, 64 elements checked, received 528 bytes
// NP4-NEXT: rank 2: OK, 64 elements checked, received 528 bytes
// NP4-NEXT: rank 3: OK, 64 elements checked, received 528 bytes
// With 2 us per message, fewer collectives (each rank receives more):
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry gqa --check | sort | FileCheck %s --check-prefix=DEF4
// DEF4: rank 0: OK, 64 elements checked
// DEF4-NEXT: rank 1: OK, 64 elements checked
// DEF4-NEXT: rank 2: OK, 64 elements checked
// DEF4-NEXT: rank 3: OK, 64 elements checked
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry gqa --check --propagate=alpha-us=0 | sort | FileCheck %s --check-prefix=NP3
// NP3: rank 0: OK, 64 elements checked
// NP3-NEXT: rank 1: OK, 64 elements checked
// NP3-NEXT: rank 2: OK, 64 elements checked

#m = #shard.mesh<shape = [@N@]>
#id2 = affine_map<(i, j) -> (i, j)>
#id3 = affine_map<(h, i, j) -> (h, i, j)>
#rope = affine_map<(h, s, d) -> (s, d)>
func.func @gqa(%x: tensor<4x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
               %wq: tensor<16x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
               %wk: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
               %wv: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
               %wo: tensor<16x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<4x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %cos = arith.constant dense<[[1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], [5.403023e-01, 9.999500e-01, 5.403023e-01, 9.999500e-01], [-4.161468e-01, 9.998000e-01, -4.161468e-01, 9.998000e-01], [-9.899925e-01, 9.995500e-01, -9.899925e-01, 9.995500e-01]]> : tensor<4x4xf32>
  %sin = arith.constant dense<[[0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [8.414710e-01, 9.999833e-03, 8.414710e-01, 9.999833e-03], [9.092974e-01, 1.999867e-02, 9.092974e-01, 1.999867e-02], [1.411200e-01, 2.999550e-02, 1.411200e-01, 2.999550e-02]]> : tensor<4x4xf32>
  // projections (aten.linear without bias: x @ W)
  %eq = tensor.empty() : tensor<4x16xf32>
  %zq = linalg.fill ins(%zero : f32) outs(%eq : tensor<4x16xf32>) -> tensor<4x16xf32>
  %q2 = linalg.matmul ins(%x, %wq : tensor<4x16xf32>, tensor<16x16xf32>) outs(%zq : tensor<4x16xf32>) -> tensor<4x16xf32>
  %ek = tensor.empty() : tensor<4x8xf32>
  %zk = linalg.fill ins(%zero : f32) outs(%ek : tensor<4x8xf32>) -> tensor<4x8xf32>
  %k2 = linalg.matmul ins(%x, %wk : tensor<4x16xf32>, tensor<16x8xf32>) outs(%zk : tensor<4x8xf32>) -> tensor<4x8xf32>
  %v2 = linalg.matmul ins(%x, %wv : tensor<4x16xf32>, tensor<16x8xf32>) outs(%zk : tensor<4x8xf32>) -> tensor<4x8xf32>
  // view(S, H, D).transpose(0, 1)
  %q3 = tensor.expand_shape %q2 [[0], [1, 2]] output_shape [4, 4, 4] : tensor<4x16xf32> into tensor<4x4x4xf32>
  %eqt = tensor.empty() : tensor<4x4x4xf32>
  %q = linalg.transpose ins(%q3 : tensor<4x4x4xf32>) outs(%eqt : tensor<4x4x4xf32>) permutation = [1, 0, 2]
  %k3 = tensor.expand_shape %k2 [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
  %ekt = tensor.empty() : tensor<2x4x4xf32>
  %k = linalg.transpose ins(%k3 : tensor<4x2x4xf32>) outs(%ekt : tensor<2x4x4xf32>) permutation = [1, 0, 2]
  %v3 = tensor.expand_shape %v2 [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
  %v = linalg.transpose ins(%v3 : tensor<4x2x4xf32>) outs(%ekt : tensor<2x4x4xf32>) permutation = [1, 0, 2]
  // rotary: x * cos + rotate_half(x) * sin, rotate_half = cat(-x2, x1)
  %q1h = tensor.extract_slice %q[0, 0, 0] [4, 4, 2] [1, 1, 1] : tensor<4x4x4xf32> to tensor<4x4x2xf32>
  %q2h = tensor.extract_slice %q[0, 0, 2] [4, 4, 2] [1, 1, 1] : tensor<4x4x4xf32> to tensor<4x4x2xf32>
  %nq2 = arith.negf %q2h : tensor<4x4x2xf32>
  %qrh = tensor.concat dim(2) %nq2, %q1h : (tensor<4x4x2xf32>, tensor<4x4x2xf32>) -> tensor<4x4x4xf32>
  %qr = linalg.generic {indexing_maps = [#id3, #id3, #rope, #rope, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q, %qrh, %cos, %sin : tensor<4x4x4xf32>, tensor<4x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) outs(%eqt : tensor<4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.addf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<4x4x4xf32>
  %k1h = tensor.extract_slice %k[0, 0, 0] [2, 4, 2] [1, 1, 1] : tensor<2x4x4xf32> to tensor<2x4x2xf32>
  %k2h = tensor.extract_slice %k[0, 0, 2] [2, 4, 2] [1, 1, 1] : tensor<2x4x4xf32> to tensor<2x4x2xf32>
  %nk2 = arith.negf %k2h : tensor<2x4x2xf32>
  %krh = tensor.concat dim(2) %nk2, %k1h : (tensor<2x4x2xf32>, tensor<2x4x2xf32>) -> tensor<2x4x4xf32>
  %kr = linalg.generic {indexing_maps = [#id3, #id3, #rope, #rope, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k, %krh, %cos, %sin : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) outs(%ekt : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.addf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  // repeat_kv: [Hkv, S, D] -> [Hkv, 1, S, D] -> broadcast [Hkv, G, S, D] -> [Hkv * G, S, D]
  %k4 = tensor.expand_shape %kr [[0, 1], [2], [3]] output_shape [2, 1, 4, 4] : tensor<2x4x4xf32> into tensor<2x1x4x4xf32>
  %ekb = tensor.empty() : tensor<2x2x4x4xf32>
  %kb = linalg.generic {indexing_maps = [affine_map<(a, g, s, d) -> (a, 0, s, d)>, affine_map<(a, g, s, d) -> (a, g, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k4 : tensor<2x1x4x4xf32>) outs(%ekb : tensor<2x2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x2x4x4xf32>
  %kk = tensor.collapse_shape %kb [[0, 1], [2], [3]] : tensor<2x2x4x4xf32> into tensor<4x4x4xf32>
  %v4 = tensor.expand_shape %v [[0, 1], [2], [3]] output_shape [2, 1, 4, 4] : tensor<2x4x4xf32> into tensor<2x1x4x4xf32>
  %vb = linalg.generic {indexing_maps = [affine_map<(a, g, s, d) -> (a, 0, s, d)>, affine_map<(a, g, s, d) -> (a, g, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v4 : tensor<2x1x4x4xf32>) outs(%ekb : tensor<2x2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x2x4x4xf32>
  %vv = tensor.collapse_shape %vb [[0, 1], [2], [3]] : tensor<2x2x4x4xf32> into tensor<4x4x4xf32>
  // scores = q k^T / sqrt(D) + causal mask from iota (j <= i)
  %es = tensor.empty() : tensor<4x4x4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %ekT = tensor.empty() : tensor<4x4x4xf32>
  %kT = linalg.transpose ins(%kk : tensor<4x4x4xf32>) outs(%ekT : tensor<4x4x4xf32>) permutation = [0, 2, 1]
  %s0 = linalg.batch_matmul ins(%qr, %kT : tensor<4x4x4xf32>, tensor<4x4x4xf32>) outs(%zs : tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %em = tensor.empty() : tensor<4x4xf32>
  %mask = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%em : tensor<4x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %le = arith.cmpi ule, %j, %i : index
    %m = arith.select %le, %zero, %ninf : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %sc = linalg.generic {indexing_maps = [#id3, affine_map<(h, i, j) -> (i, j)>, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s0, %mask : tensor<4x4x4xf32>, tensor<4x4xf32>) outs(%es : tensor<4x4x4xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %t = arith.mulf %a, %half : f32
    %r = arith.addf %t, %mm : f32
    linalg.yield %r : f32
  } -> tensor<4x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%sc : tensor<4x4x4xf32>) outs(%es : tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %ao = linalg.batch_matmul ins(%p, %vv : tensor<4x4x4xf32>, tensor<4x4x4xf32>) outs(%zs : tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  // transpose(0, 1).reshape(S, H * D) @ wo
  %eat = tensor.empty() : tensor<4x4x4xf32>
  %at = linalg.transpose ins(%ao : tensor<4x4x4xf32>) outs(%eat : tensor<4x4x4xf32>) permutation = [1, 0, 2]
  %a2 = tensor.collapse_shape %at [[0], [1, 2]] : tensor<4x4x4xf32> into tensor<4x16xf32>
  %eo = tensor.empty() : tensor<4x16xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x16xf32>) -> tensor<4x16xf32>
  %out = linalg.matmul ins(%a2, %wo : tensor<4x16xf32>, tensor<16x16xf32>) outs(%zo : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %out : tensor<4x16xf32>
}
