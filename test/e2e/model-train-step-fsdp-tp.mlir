// A training step (forward, backward, Adam) under FSDP and tensor
// parallelism on a 2-D dp x tp mesh (issue 43, items 7 and 8), written in
// the form torch-mlir's linalg-on-tensors output takes for a two-layer MLP
// with an MSE loss and torch.optim.Adam's first step (aten.mm, relu, the
// transposes of the backward, the loss's sum and its gradient, Adam's
// moments and update as one elementwise payload per parameter). The
// batch is cut on dp; W1 [D, F] is column-parallel on tp and FSDP-sharded
// on dp ([S(0), S(1)]), W2 [F, O] row-parallel on tp and FSDP-sharded on
// dp ([S(1), S(0)]); Adam's moments lie as their parameters, and so do the
// updated ones.
//
// The cheapest plan by hand, at GPT-2 small's sizes (8192 tokens: batch 8
// of 1024; D = O = 768, F = 3072) on 2 x 2 ranks: each weight all-gathered
// over dp before the forward (FSDP; 384 x 1536 f32 = 2,359,296 B received
// per rank each), the row-parallel output y all-reduced over tp
// (4096 x 768 f32 = 12,582,912 B), each weight's gradient reduce-scattered
// over dp (2,359,296 B each), the loss all-reduced over dp (4 B); the
// backward's dy @ W2^T needs nothing (dy is whole on tp, W2^T cut like
// W1), and Adam runs on each rank's shard: 21,233,668 B per rank. The
// default cost model chooses that, proven optimal at 969.3 us, or its
// twin of the same time and bytes, y reduce-scattered over tp (along
// either dim) and gathered again after the loss's elementwise ops (a tie
// in the model; the integer program returns either):
// REQUIRES: mpi
// RUN: sed -e 's/@DP@/2/; s/@TP@/2/; s/@B@/8192/g; s/@D@/768/g; s/@F@/3072/g; s/@O@/768/g; s/@NINV@/1.589457e-07/g; s/@N2INV@/3.178914e-07/g' %s > %t.big.mlir
// RUN: shard-opt %t.big.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=BIG
// BIG-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// BIG: shard.spmd.all_gather %arg2 over axes [0] dim 0 from !shard.tensor<768x3072xf32, #layout_S0_S1>
// BIG: shard.spmd.all_gather %arg5 over axes [0] dim 1 from !shard.tensor<3072x768xf32, #layout_S1_S0>
// BIG-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// BIG: shard.spmd.{{all_reduce|reduce_scatter}} {{.*}} over axes [1] {{(dim [01] )?}}reduce sum from !shard.tensor<8192x768xf32, #layout_S0_Psum>
// BIG-NOT: shard.spmd.{{all_to_all|broadcast|gather|scatter}}
// BIG-DAG: shard.spmd.reduce_scatter {{.*}} over axes [0] dim 0 reduce sum from !shard.tensor<768x3072xf32, #layout_Psum_S1>
// BIG-DAG: shard.spmd.reduce_scatter {{.*}} over axes [0] dim 1 reduce sum from !shard.tensor<3072x768xf32, #layout_Psum_S0>
// BIG-DAG: shard.spmd.all_reduce {{.*}} over axes [0] reduce sum from !shard.tensor<f32, #layout_Psum_R>
// BIG-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// BIG: return
//
// auto=true with nothing pinned but the mesh, within the bytes per rank
// the hand plan holds (memory-budget), reaches at least the hand plan's
// modelled time (item 8): 924.8 us against 969.3 us, holding 177.7 MB
// against the hand plan's 187.2 MB (CBC proves it optimal in about 9 s; at test sizes it
// finds 4.002 us against 10.01 us, but takes 90 s to prove it, so that
// run is not part of the suite):
// RUN: shard-opt %t.big.mlir -shard-propagate="explain=true" -o /dev/null 2> %t.big.hand.txt
// RUN: FileCheck %s --check-prefix=HANDTIME < %t.big.hand.txt
// HANDTIME: proven optimal: modelled 969.3 us
// RUN: %python %S/Inputs/unpin.py '#m' < %t.big.mlir > %t.big.free.mlir
// RUN: shard-opt %t.big.free.mlir -shard-propagate="auto=true explain=true memory-budget=$(%python %S/Inputs/compare_modelled.py budget %t.big.hand.txt)" -o /dev/null 2> %t.big.auto.txt
// RUN: %python %S/Inputs/compare_modelled.py --memory %t.big.hand.txt %t.big.auto.txt | FileCheck %s --check-prefix=AUTOBIG
// AUTOBIG: auto {{.*}} us <= hand 969.3 us, holds {{[0-9]+}} <= 1{{[0-9]+}} bytes
// RUN: cat %t.big.hand.txt %t.big.auto.txt | not grep "error:"
// RUN: sed -e 's/@DP@/2/; s/@TP@/2/; s/@B@/8/g; s/@D@/16/g; s/@F@/32/g; s/@O@/8/g; s/@NINV@/0.015625/g; s/@N2INV@/0.03125/g' %s > %t.22.mlir
//
// At test sizes (batch 8, D = O = 8 and 16, F = 32) every element of the
// loss and of the updated weights and moments is checked on 2 x 2 ranks,
// on 2 x 1 (FSDP alone) and 1 x 2 (tensor parallelism alone). The plans
// differ from the hand plan there (moving the batch is cheaper than the
// weights at these sizes); with alpha-us=0 the 2 x 2 plan is the
// integer program's proven optimum, 1152 B per rank, where the FSDP + TP
// plan above would receive 512 + 256 + 128 + 512 + 256 + 4 = 1668 B.
// RUN: %mpirun -np 4 %shard-run %t.22.mlir --entry train_step --check | sort | FileCheck %s --check-prefix=RUN4
// RUN: %mpirun -np 4 %shard-run %t.22.mlir --entry train_step --check --propagate=alpha-us=0 | sort | FileCheck %s --check-prefix=BYTES4
// RUN: sed -e 's/@DP@/2/; s/@TP@/1/; s/@B@/8/g; s/@D@/16/g; s/@F@/32/g; s/@O@/8/g; s/@NINV@/0.015625/g; s/@N2INV@/0.03125/g' %s > %t.21.mlir
// RUN: sed -e 's/@DP@/1/; s/@TP@/2/; s/@B@/8/g; s/@D@/16/g; s/@F@/32/g; s/@O@/8/g; s/@NINV@/0.015625/g; s/@N2INV@/0.03125/g' %s > %t.12.mlir
// RUN: %mpirun -np 2 %shard-run %t.21.mlir %t.12.mlir --entry train_step --check > %t.run2 2>&1
// RUN: %entry-lines train_step %t.run2 %t.21.mlir | FileCheck %s --check-prefix=RUN2
// RUN: %entry-lines train_step %t.run2 %t.12.mlir | FileCheck %s --check-prefix=RUN2
// RUN4: rank 0: OK, 577 elements checked
// RUN4-NEXT: rank 1: OK, 577 elements checked
// RUN4-NEXT: rank 2: OK, 577 elements checked
// RUN4-NEXT: rank 3: OK, 577 elements checked
// BYTES4: rank 0: OK, 577 elements checked, received 1152 bytes
// BYTES4-NEXT: rank 1: OK, 577 elements checked, received 1152 bytes
// BYTES4-NEXT: rank 2: OK, 577 elements checked, received 1152 bytes
// BYTES4-NEXT: rank 3: OK, 577 elements checked, received 1152 bytes
// RUN2: rank 0: OK, 1153 elements checked
// RUN2-NEXT: rank 1: OK, 1153 elements checked

#m = #shard.mesh<shape = [@DP@, @TP@], axes = ["dp", "tp"]>
#batch = #shard.placements<mesh = #m, placements = [S(0), R]>
#w1 = #shard.placements<mesh = #m, placements = [S(0), S(1)]>
#w2 = #shard.placements<mesh = #m, placements = [S(1), S(0)]>
#rep = #shard.placements<mesh = #m, placements = [R, R]>
#id2 = affine_map<(i, j) -> (i, j)>
#sc = affine_map<(i, j) -> ()>
func.func @train_step(%x: tensor<@B@x@D@xf32> {shard.layout = #batch},
                      %t: tensor<@B@x@O@xf32> {shard.layout = #batch},
                      %w1: tensor<@D@x@F@xf32> {shard.layout = #w1},
                      %m1: tensor<@D@x@F@xf32> {shard.layout = #w1},
                      %v1: tensor<@D@x@F@xf32> {shard.layout = #w1},
                      %w2: tensor<@F@x@O@xf32> {shard.layout = #w2},
                      %m2: tensor<@F@x@O@xf32> {shard.layout = #w2},
                      %v2: tensor<@F@x@O@xf32> {shard.layout = #w2})
    -> (tensor<f32> {shard.layout = #rep},
        tensor<@D@x@F@xf32> {shard.layout = #w1}, tensor<@D@x@F@xf32> {shard.layout = #w1}, tensor<@D@x@F@xf32> {shard.layout = #w1},
        tensor<@F@x@O@xf32> {shard.layout = #w2}, tensor<@F@x@O@xf32> {shard.layout = #w2}, tensor<@F@x@O@xf32> {shard.layout = #w2}) {
  %zero = arith.constant 0.0 : f32
  // forward: h = x @ w1; a = relu(h); y = a @ w2
  %eh = tensor.empty() : tensor<@B@x@F@xf32>
  %zh = linalg.fill ins(%zero : f32) outs(%eh : tensor<@B@x@F@xf32>) -> tensor<@B@x@F@xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<@B@x@D@xf32>, tensor<@D@x@F@xf32>) outs(%zh : tensor<@B@x@F@xf32>) -> tensor<@B@x@F@xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<@B@x@F@xf32>) outs(%eh : tensor<@B@x@F@xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<@B@x@F@xf32>
  %ey = tensor.empty() : tensor<@B@x@O@xf32>
  %zy = linalg.fill ins(%zero : f32) outs(%ey : tensor<@B@x@O@xf32>) -> tensor<@B@x@O@xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<@B@x@F@xf32>, tensor<@F@x@O@xf32>) outs(%zy : tensor<@B@x@O@xf32>) -> tensor<@B@x@O@xf32>
  // mse loss: sum((y - t)^2) / (B * O), and its gradient 2 (y - t) / (B * O)
  %diff = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y, %t : tensor<@B@x@O@xf32>, tensor<@B@x@O@xf32>) outs(%ey : tensor<@B@x@O@xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %d = arith.subf %p, %q : f32
    linalg.yield %d : f32
  } -> tensor<@B@x@O@xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sq = linalg.generic {indexing_maps = [#id2, #sc], iterator_types = ["reduction", "reduction"]} ins(%diff : tensor<@B@x@O@xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%d: f32, %acc: f32):
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %acc, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%sq : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%s: f32, %o: f32):
    %n = arith.constant @NINV@ : f32
    %l = arith.mulf %s, %n : f32
    linalg.yield %l : f32
  } -> tensor<f32>
  %dy = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%diff : tensor<@B@x@O@xf32>) outs(%ey : tensor<@B@x@O@xf32>) {
  ^bb0(%d: f32, %o: f32):
    %n = arith.constant @N2INV@ : f32
    %g = arith.mulf %d, %n : f32
    linalg.yield %g : f32
  } -> tensor<@B@x@O@xf32>
  // backward: dw2 = a^T @ dy; da = dy @ w2^T; dh = da * (h > 0); dw1 = x^T @ dh
  %eaT = tensor.empty() : tensor<@F@x@B@xf32>
  %aT = linalg.transpose ins(%a : tensor<@B@x@F@xf32>) outs(%eaT : tensor<@F@x@B@xf32>) permutation = [1, 0]
  %ew2 = tensor.empty() : tensor<@F@x@O@xf32>
  %zw2 = linalg.fill ins(%zero : f32) outs(%ew2 : tensor<@F@x@O@xf32>) -> tensor<@F@x@O@xf32>
  %dw2 = linalg.matmul ins(%aT, %dy : tensor<@F@x@B@xf32>, tensor<@B@x@O@xf32>) outs(%zw2 : tensor<@F@x@O@xf32>) -> tensor<@F@x@O@xf32>
  %ew2T = tensor.empty() : tensor<@O@x@F@xf32>
  %w2T = linalg.transpose ins(%w2 : tensor<@F@x@O@xf32>) outs(%ew2T : tensor<@O@x@F@xf32>) permutation = [1, 0]
  %da = linalg.matmul ins(%dy, %w2T : tensor<@B@x@O@xf32>, tensor<@O@x@F@xf32>) outs(%zh : tensor<@B@x@F@xf32>) -> tensor<@B@x@F@xf32>
  %dh = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%da, %h : tensor<@B@x@F@xf32>, tensor<@B@x@F@xf32>) outs(%eh : tensor<@B@x@F@xf32>) {
  ^bb0(%g: f32, %hv: f32, %o: f32):
    %pos = arith.cmpf ogt, %hv, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<@B@x@F@xf32>
  %exT = tensor.empty() : tensor<@D@x@B@xf32>
  %xT = linalg.transpose ins(%x : tensor<@B@x@D@xf32>) outs(%exT : tensor<@D@x@B@xf32>) permutation = [1, 0]
  %ew1 = tensor.empty() : tensor<@D@x@F@xf32>
  %zw1 = linalg.fill ins(%zero : f32) outs(%ew1 : tensor<@D@x@F@xf32>) -> tensor<@D@x@F@xf32>
  %dw1 = linalg.matmul ins(%xT, %dh : tensor<@D@x@B@xf32>, tensor<@B@x@F@xf32>) outs(%zw1 : tensor<@D@x@F@xf32>) -> tensor<@D@x@F@xf32>
  // Adam (torch.optim.Adam, step 1: bias corrections 1 - 0.9 and 1 - 0.999)
  %n1:3 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%w1, %dw1, %m1, %v1 : tensor<@D@x@F@xf32>, tensor<@D@x@F@xf32>, tensor<@D@x@F@xf32>, tensor<@D@x@F@xf32>) outs(%ew1, %ew1, %ew1 : tensor<@D@x@F@xf32>, tensor<@D@x@F@xf32>, tensor<@D@x@F@xf32>) {
  ^bb0(%w: f32, %g: f32, %mm: f32, %vv: f32, %o1: f32, %o2: f32, %o3: f32):
    %b1 = arith.constant 0.9 : f32
    %c1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %c2 = arith.constant 0.001 : f32
    %lr = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-08 : f32
    %m0 = arith.mulf %b1, %mm : f32
    %m1g = arith.mulf %c1, %g : f32
    %m_ = arith.addf %m0, %m1g : f32
    %g2 = arith.mulf %g, %g : f32
    %v0 = arith.mulf %b2, %vv : f32
    %v1g = arith.mulf %c2, %g2 : f32
    %v_ = arith.addf %v0, %v1g : f32
    %mh = arith.divf %m_, %c1 : f32
    %vh = arith.divf %v_, %c2 : f32
    %rt = math.sqrt %vh : f32
    %den = arith.addf %rt, %eps : f32
    %upd = arith.divf %mh, %den : f32
    %st = arith.mulf %lr, %upd : f32
    %w_ = arith.subf %w, %st : f32
    linalg.yield %w_, %m_, %v_ : f32, f32, f32
  } -> (tensor<@D@x@F@xf32>, tensor<@D@x@F@xf32>, tensor<@D@x@F@xf32>)
  %n2:3 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%w2, %dw2, %m2, %v2 : tensor<@F@x@O@xf32>, tensor<@F@x@O@xf32>, tensor<@F@x@O@xf32>, tensor<@F@x@O@xf32>) outs(%ew2, %ew2, %ew2 : tensor<@F@x@O@xf32>, tensor<@F@x@O@xf32>, tensor<@F@x@O@xf32>) {
  ^bb0(%w: f32, %g: f32, %mm: f32, %vv: f32, %o1: f32, %o2: f32, %o3: f32):
    %b1 = arith.constant 0.9 : f32
    %c1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %c2 = arith.constant 0.001 : f32
    %lr = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-08 : f32
    %m0 = arith.mulf %b1, %mm : f32
    %m1g = arith.mulf %c1, %g : f32
    %m_ = arith.addf %m0, %m1g : f32
    %g2 = arith.mulf %g, %g : f32
    %v0 = arith.mulf %b2, %vv : f32
    %v1g = arith.mulf %c2, %g2 : f32
    %v_ = arith.addf %v0, %v1g : f32
    %mh = arith.divf %m_, %c1 : f32
    %vh = arith.divf %v_, %c2 : f32
    %rt = math.sqrt %vh : f32
    %den = arith.addf %rt, %eps : f32
    %upd = arith.divf %mh, %den : f32
    %st = arith.mulf %lr, %upd : f32
    %w_ = arith.subf %w, %st : f32
    linalg.yield %w_, %m_, %v_ : f32, f32, f32
  } -> (tensor<@F@x@O@xf32>, tensor<@F@x@O@xf32>, tensor<@F@x@O@xf32>)
  return %loss, %n1#0, %n1#1, %n1#2, %n2#0, %n2#1, %n2#2 : tensor<f32>, tensor<@D@x@F@xf32>, tensor<@D@x@F@xf32>, tensor<@D@x@F@xf32>, tensor<@F@x@O@xf32>, tensor<@F@x@O@xf32>, tensor<@F@x@O@xf32>
}
