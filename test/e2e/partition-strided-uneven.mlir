// Strided cuts of folded heads where the heads do not divide over the
// ranks: each rank's rows of [B*H, ...] are a block per batch (_S(0, B)),
// and its local tensor holds every batch's (found by an adversarial test:
// a tensor.empty in such a layout was made with one batch's rows, the
// last block's, so the ops writing into it covered one batch and read
// zeros for the rest (a wrong answer: BERT attention, 2 x 3 heads on 4
// ranks) or wrote past its end (a heap crash: 3 x 2 heads on 3 ranks)).
// Every element checked.
// REQUIRES: mpi
// RUN: %mpirun -np 4 %shard-run %s --entry smax,gen,rsum,ew,tr,attn_b2h3 --check > %t.run4 2>&1
// RUN: not grep -e error: -e MISMATCH %t.run4
// RUN: %entry-lines smax %t.run4 | FileCheck %s --check-prefix=ROWS
// RUN: %entry-lines gen %t.run4 | FileCheck %s --check-prefix=ROWS
// RUN: %entry-lines rsum %t.run4 | FileCheck %s --check-prefix=SUMS
// RUN: %entry-lines ew %t.run4 | FileCheck %s --check-prefix=ROWS
// RUN: %entry-lines tr %t.run4 | FileCheck %s --check-prefix=TR
// RUN: %entry-lines attn_b2h3 %t.run4 | FileCheck %s --check-prefix=ATTN4
// RUN: %mpirun -np 3 %shard-run %s --entry attn_b3h2 --check 2>&1 | FileCheck %s --check-prefix=ATTN3 --implicit-check-not=error: --implicit-check-not=MISMATCH
// 3 heads over 4 ranks: 1, 1, 1, 0 heads, of each of the 2 batches.
// ROWS: shard-run: rank 0: OK, 4 elements checked, received 0 bytes
// ROWS-NEXT: shard-run: rank 1: OK, 4 elements checked, received 0 bytes
// ROWS-NEXT: shard-run: rank 2: OK, 4 elements checked, received 0 bytes
// ROWS-NEXT: shard-run: rank 3: OK, 0 elements checked, received 0 bytes
// SUMS: shard-run: rank 0: OK, 2 elements checked
// SUMS-NEXT: shard-run: rank 1: OK, 2 elements checked
// SUMS-NEXT: shard-run: rank 2: OK, 2 elements checked
// SUMS-NEXT: shard-run: rank 3: OK, 0 elements checked
// TR: shard-run: rank 0: OK, 8 elements checked, received 0 bytes
// TR-NEXT: shard-run: rank 1: OK, 8 elements checked, received 0 bytes
// TR-NEXT: shard-run: rank 2: OK, 8 elements checked, received 0 bytes
// TR-NEXT: shard-run: rank 3: OK, 0 elements checked, received 0 bytes
// ATTN4: shard-run: rank 0: OK, 24 elements checked
// ATTN4-NEXT: shard-run: rank 1: OK, 24 elements checked
// ATTN4-NEXT: shard-run: rank 2: OK, 24 elements checked
// ATTN4-NEXT: shard-run: rank 3: OK, 24 elements checked
// ATTN3: shard-run: rank 0: OK, 24 elements checked
// ATTN3-NEXT: shard-run: rank 1: OK, 24 elements checked
// ATTN3-NEXT: shard-run: rank 2: OK, 24 elements checked

#m4 = #shard.mesh<shape = [4], axes = ["tp"]>
#m3 = #shard.mesh<shape = [3], axes = ["tp"]>
func.func @smax(%x: tensor<2x3x2xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>})
    -> (tensor<2x3x2xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %s = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x2xf32> into tensor<6x2xf32>
  %es = tensor.empty() : tensor<6x2xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<6x2xf32>) outs(%es : tensor<6x2xf32>) -> tensor<6x2xf32>
  %y = tensor.expand_shape %p [[0, 1], [2]] output_shape [2, 3, 2] : tensor<6x2xf32> into tensor<2x3x2xf32>
  return %y : tensor<2x3x2xf32>
}

func.func @gen(%x: tensor<2x3x2xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>})
    -> (tensor<2x3x2xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %s = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x2xf32> into tensor<6x2xf32>
  %es = tensor.empty() : tensor<6x2xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<6x2xf32>) outs(%es : tensor<6x2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<6x2xf32>
  %y = tensor.expand_shape %p [[0, 1], [2]] output_shape [2, 3, 2] : tensor<6x2xf32> into tensor<2x3x2xf32>
  return %y : tensor<2x3x2xf32>
}

func.func @rsum(%x: tensor<2x3x2xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>})
    -> (tensor<2x3xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %z = arith.constant 0.0 : f32
  %s = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x2xf32> into tensor<6x2xf32>
  %es = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%z : f32) outs(%es : tensor<6xf32>) -> tensor<6xf32>
  %r = linalg.reduce ins(%s : tensor<6x2xf32>) outs(%f : tensor<6xf32>) dimensions = [1]
    (%a: f32, %b: f32) { %t = arith.addf %a, %b : f32
      linalg.yield %t : f32 }
  %y = tensor.expand_shape %r [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

func.func @ew(%x: tensor<2x3x2xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>})
    -> (tensor<2x3x2xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %s = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x2xf32> into tensor<6x2xf32>
  %c = arith.constant dense<2.0> : tensor<6x2xf32>
  %p = arith.mulf %s, %c : tensor<6x2xf32>
  %y = tensor.expand_shape %p [[0, 1], [2]] output_shape [2, 3, 2] : tensor<6x2xf32> into tensor<2x3x2xf32>
  return %y : tensor<2x3x2xf32>
}

func.func @tr(%x: tensor<2x3x2x2xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>})
    -> (tensor<2x3x2x2xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}) {
  %s = tensor.collapse_shape %x [[0, 1], [2], [3]] : tensor<2x3x2x2xf32> into tensor<6x2x2xf32>
  %es = tensor.empty() : tensor<6x2x2xf32>
  %t = linalg.transpose ins(%s : tensor<6x2x2xf32>) outs(%es : tensor<6x2x2xf32>) permutation = [0, 2, 1]
  %y = tensor.expand_shape %t [[0, 1], [2], [3]] output_shape [2, 3, 2, 2] : tensor<6x2x2xf32> into tensor<2x3x2x2xf32>
  return %y : tensor<2x3x2x2xf32>
}

func.func @attn_b2h3(%x: tensor<2x2x6xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [R]>},
                %wq: tensor<6x6xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>},
                %wk: tensor<6x6xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>},
                %wv: tensor<6x6xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>},
                %wo: tensor<6x6xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>})
    -> (tensor<2x2x6xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x2x6xf32> into tensor<4x6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %q = linalg.matmul ins(%x2, %wq : tensor<4x6xf32>, tensor<6x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %k = linalg.matmul ins(%x2, %wk : tensor<4x6xf32>, tensor<6x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %v = linalg.matmul ins(%x2, %wv : tensor<4x6xf32>, tensor<6x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %q4 = tensor.expand_shape %q [[0, 1], [2, 3]] output_shape [2, 2, 3, 2] : tensor<4x6xf32> into tensor<2x2x3x2xf32>
  %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [2, 2, 3, 2] : tensor<4x6xf32> into tensor<2x2x3x2xf32>
  %v4 = tensor.expand_shape %v [[0, 1], [2, 3]] output_shape [2, 2, 3, 2] : tensor<4x6xf32> into tensor<2x2x3x2xf32>
  %et = tensor.empty() : tensor<2x3x2x2xf32>
  %qt = linalg.transpose ins(%q4 : tensor<2x2x3x2xf32>) outs(%et : tensor<2x3x2x2xf32>) permutation = [0, 2, 1, 3]
  %vt = linalg.transpose ins(%v4 : tensor<2x2x3x2xf32>) outs(%et : tensor<2x3x2x2xf32>) permutation = [0, 2, 1, 3]
  %ekt = tensor.empty() : tensor<2x3x2x2xf32>
  %kt = linalg.transpose ins(%k4 : tensor<2x2x3x2xf32>) outs(%ekt : tensor<2x3x2x2xf32>) permutation = [0, 2, 3, 1]
  %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<2x3x2x2xf32> into tensor<6x2x2xf32>
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<2x3x2x2xf32> into tensor<6x2x2xf32>
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x3x2x2xf32> into tensor<6x2x2xf32>
  %es = tensor.empty() : tensor<6x2x2xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
  %s = linalg.batch_matmul ins(%q3, %k3 : tensor<6x2x2xf32>, tensor<6x2x2xf32>) outs(%zs : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<6x2x2xf32>) outs(%es : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
  %eo = tensor.empty() : tensor<6x2x2xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
  %o = linalg.batch_matmul ins(%p, %v3 : tensor<6x2x2xf32>, tensor<6x2x2xf32>) outs(%zo : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 3, 2, 2] : tensor<6x2x2xf32> into tensor<2x3x2x2xf32>
  %eot = tensor.empty() : tensor<2x2x3x2xf32>
  %ot = linalg.transpose ins(%o4 : tensor<2x3x2x2xf32>) outs(%eot : tensor<2x2x3x2xf32>) permutation = [0, 2, 1, 3]
  %o2 = tensor.collapse_shape %ot [[0, 1], [2, 3]] : tensor<2x2x3x2xf32> into tensor<4x6xf32>
  %y = linalg.matmul ins(%o2, %wo : tensor<4x6xf32>, tensor<6x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [2, 2, 6] : tensor<4x6xf32> into tensor<2x2x6xf32>
  return %y3 : tensor<2x2x6xf32>
}

func.func @attn_b3h2(%x: tensor<3x2x4xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [R]>},
                %wq: tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(1)]>},
                %wk: tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(1)]>},
                %wv: tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(1)]>},
                %wo: tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>})
    -> (tensor<3x2x4xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<3x2x4xf32> into tensor<6x4xf32>
  %e = tensor.empty() : tensor<6x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  %q = linalg.matmul ins(%x2, %wq : tensor<6x4xf32>, tensor<4x4xf32>) outs(%z : tensor<6x4xf32>) -> tensor<6x4xf32>
  %k = linalg.matmul ins(%x2, %wk : tensor<6x4xf32>, tensor<4x4xf32>) outs(%z : tensor<6x4xf32>) -> tensor<6x4xf32>
  %v = linalg.matmul ins(%x2, %wv : tensor<6x4xf32>, tensor<4x4xf32>) outs(%z : tensor<6x4xf32>) -> tensor<6x4xf32>
  %q4 = tensor.expand_shape %q [[0, 1], [2, 3]] output_shape [3, 2, 2, 2] : tensor<6x4xf32> into tensor<3x2x2x2xf32>
  %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [3, 2, 2, 2] : tensor<6x4xf32> into tensor<3x2x2x2xf32>
  %v4 = tensor.expand_shape %v [[0, 1], [2, 3]] output_shape [3, 2, 2, 2] : tensor<6x4xf32> into tensor<3x2x2x2xf32>
  %et = tensor.empty() : tensor<3x2x2x2xf32>
  %qt = linalg.transpose ins(%q4 : tensor<3x2x2x2xf32>) outs(%et : tensor<3x2x2x2xf32>) permutation = [0, 2, 1, 3]
  %vt = linalg.transpose ins(%v4 : tensor<3x2x2x2xf32>) outs(%et : tensor<3x2x2x2xf32>) permutation = [0, 2, 1, 3]
  %ekt = tensor.empty() : tensor<3x2x2x2xf32>
  %kt = linalg.transpose ins(%k4 : tensor<3x2x2x2xf32>) outs(%ekt : tensor<3x2x2x2xf32>) permutation = [0, 2, 3, 1]
  %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<3x2x2x2xf32> into tensor<6x2x2xf32>
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<3x2x2x2xf32> into tensor<6x2x2xf32>
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<3x2x2x2xf32> into tensor<6x2x2xf32>
  %es = tensor.empty() : tensor<6x2x2xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
  %s = linalg.batch_matmul ins(%q3, %k3 : tensor<6x2x2xf32>, tensor<6x2x2xf32>) outs(%zs : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<6x2x2xf32>) outs(%es : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
  %eo = tensor.empty() : tensor<6x2x2xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
  %o = linalg.batch_matmul ins(%p, %v3 : tensor<6x2x2xf32>, tensor<6x2x2xf32>) outs(%zo : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [3, 2, 2, 2] : tensor<6x2x2xf32> into tensor<3x2x2x2xf32>
  %eot = tensor.empty() : tensor<3x2x2x2xf32>
  %ot = linalg.transpose ins(%o4 : tensor<3x2x2x2xf32>) outs(%eot : tensor<3x2x2x2xf32>) permutation = [0, 2, 1, 3]
  %o2 = tensor.collapse_shape %ot [[0, 1], [2, 3]] : tensor<3x2x2x2xf32> into tensor<6x4xf32>
  %y = linalg.matmul ins(%o2, %wo : tensor<6x4xf32>, tensor<4x4xf32>) outs(%z : tensor<6x4xf32>) -> tensor<6x4xf32>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [3, 2, 4] : tensor<6x4xf32> into tensor<3x2x4xf32>
  return %y3 : tensor<3x2x4xf32>
}
