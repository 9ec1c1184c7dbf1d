// A switch (top-1) mixture-of-experts layer in the dispatch form GShard,
// fairseq's MoELayer and Switch Transformer's reference code use (issue
// 43, item 2): a one-hot dispatch mask [T, E, C] from each token's expert
// and its position in that expert's capacity C (both from the router,
// computed before this function), the experts' inputs
// einsum('tec,td->ecd'), each expert's two matrices by batch_matmul with
// relu between, and the outputs combined back einsum('tec,t,ecd->td')
// scaled by the gate; torch-mlir's linalg-on-tensors form of it. Expert
// parallelism: the tokens cut over the ranks (data parallel) and the
// experts' weights cut along the expert dim.
//
// The weights never move: the tokens go to their experts and back by
// all_to_all, as expert parallelism does. At realistic sizes (4096 tokens,
// hidden 768, FFN 3072, 8 experts of capacity 640 on 8 ranks) with the
// default cost model:
// REQUIRES: mpi
// RUN: sed -e 's/@N@/8/g; s/@T@/4096/g; s/@D@/768/g; s/@F@/3072/g; s/@E@/8/g; s/@C@/640/g' %s > %t.big.mlir
// RUN: shard-opt %t.big.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=BIG
// BIG-NOT: shard.spmd.{{.*}}!shard.tensor<8x768x3072xf32
// BIG-NOT: shard.spmd.{{.*}}!shard.tensor<8x3072x768xf32
// BIG: shard.spmd.all_to_all {{.*}} from !shard.tensor<8x640x768xf32
// BIG: linalg.batch_matmul {{.*}} tensor<1x768x3072xf32>
// BIG: linalg.batch_matmul {{.*}} tensor<1x3072x768xf32>
// BIG: shard.spmd.all_to_all {{.*}} from !shard.tensor<8x640x768xf32
// BIG-NOT: shard.spmd.{{.*}}!shard.tensor<8x768x3072xf32
// BIG-NOT: shard.spmd.{{.*}}!shard.tensor<8x3072x768xf32
// BIG: return
//
// At test sizes (16 tokens of 8, FFN 32, 4 experts of capacity 8),
// counting bytes alone (alpha-us=0), the cheapest plan by hand on 4 ranks,
// per rank: the tokens all_to_all'd to cut their features (96 B: 3/4 of
// 16 x 2 f32), the experts' inputs computed on each feature slice and
// all_to_all'd to their experts (192 B: 3/4 of 8 x 8 f32), and back the
// same way (192 B, then 96 B); each rank needs every token's expert and
// position to compute its slice of the dispatch (all_gather of 16 i64
// each, 96 B twice) and every gate (48 B): 816 B, the search's proven
// optimum. Gathering one expert's weights would be 4 KB.
// RUN: sed -e 's/@N@/4/g; s/@T@/16/g; s/@D@/8/g; s/@F@/32/g; s/@E@/4/g; s/@C@/8/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry moe --check --propagate=alpha-us=0 | sort | FileCheck %s --check-prefix=NP4
// RUN: sed -e 's/@N@/3/g; s/@T@/16/g; s/@D@/8/g; s/@F@/32/g; s/@E@/4/g; s/@C@/8/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry moe --check --propagate=alpha-us=0 | sort | FileCheck %s --check-prefix=NP3
// RUN: sed -e 's/@N@/2/g; s/@T@/16/g; s/@D@/8/g; s/@F@/32/g; s/@E@/4/g; s/@C@/8/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry moe --check --propagate=alpha-us=0 | sort | FileCheck %s --check-prefix=NP2
// With the default cost model at these sizes, fewer messages: the experts'
// inputs reduce-scattered to their experts and their outputs gathered back.
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry moe --check | sort | FileCheck %s --check-prefix=DEF4
// NP2: rank 0: OK, 64 elements checked, received 672 bytes
// NP2-NEXT: rank 1: OK, 64 elements checked, received 672 bytes
// NP3: rank 0: OK, 48 elements checked, received 904 bytes
// NP3-NEXT: rank 1: OK, 48 elements checked, received 904 bytes
// NP3-NEXT: rank 2: OK, 32 elements checked, received 880 bytes
// NP4: rank 0: OK, 32 elements checked, received 816 bytes
// NP4-NEXT: rank 1: OK, 32 elements checked, received 816 bytes
// NP4-NEXT: rank 2: OK, 32 elements checked, received 816 bytes
// NP4-NEXT: rank 3: OK, 32 elements checked, received 816 bytes
// DEF4: rank 0: OK, 32 elements checked, received 1536 bytes
// DEF4-NEXT: rank 1: OK, 32 elements checked, received 1536 bytes
// DEF4-NEXT: rank 2: OK, 32 elements checked, received 1536 bytes
// DEF4-NEXT: rank 3: OK, 32 elements checked, received 1536 bytes

#m = #shard.mesh<shape = [@N@]>
#tok = #shard.placements<mesh = #m, placements = [S(0)]>
#exp = #shard.placements<mesh = #m, placements = [S(0)]>
func.func @moe(%x: tensor<@T@x@D@xf32> {shard.layout = #tok},
                  %idx: tensor<@T@xi64> {shard.layout = #tok},
                  %pos: tensor<@T@xi64> {shard.layout = #tok},
                  %gate: tensor<@T@xf32> {shard.layout = #tok},
                  %w1: tensor<@E@x@D@x@F@xf32> {shard.layout = #exp},
                  %w2: tensor<@E@x@F@x@D@xf32> {shard.layout = #exp})
    -> (tensor<@T@x@D@xf32> {shard.layout = #tok}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  // dispatch[t, e, c] = (idx[t] == e) && (pos[t] == c)
  %ed = tensor.empty() : tensor<@T@x@E@x@C@xf32>
  %disp = linalg.generic {indexing_maps = [affine_map<(t, e, c) -> (t)>, affine_map<(t, e, c) -> (t)>, affine_map<(t, e, c) -> (t, e, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%idx, %pos : tensor<@T@xi64>, tensor<@T@xi64>) outs(%ed : tensor<@T@x@E@x@C@xf32>) {
  ^bb0(%i: i64, %p: i64, %o: f32):
    %e = linalg.index 1 : index
    %c = linalg.index 2 : index
    %ei = arith.index_cast %e : index to i64
    %ci = arith.index_cast %c : index to i64
    %a = arith.cmpi eq, %i, %ei : i64
    %b = arith.cmpi eq, %p, %ci : i64
    %ab = arith.andi %a, %b : i1
    %v = arith.select %ab, %one, %zero : f32
    linalg.yield %v : f32
  } -> tensor<@T@x@E@x@C@xf32>
  // expert inputs: einsum('tec,td->ecd')
  %exi = tensor.empty() : tensor<@E@x@C@x@D@xf32>
  %xi0 = linalg.fill ins(%zero : f32) outs(%exi : tensor<@E@x@C@x@D@xf32>) -> tensor<@E@x@C@x@D@xf32>
  %xin = linalg.generic {indexing_maps = [affine_map<(e, c, d, t) -> (t, e, c)>, affine_map<(e, c, d, t) -> (t, d)>, affine_map<(e, c, d, t) -> (e, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%disp, %x : tensor<@T@x@E@x@C@xf32>, tensor<@T@x@D@xf32>) outs(%xi0 : tensor<@E@x@C@x@D@xf32>) {
  ^bb0(%m: f32, %xv: f32, %acc: f32):
    %p = arith.mulf %m, %xv : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<@E@x@C@x@D@xf32>
  // experts
  %eh = tensor.empty() : tensor<@E@x@C@x@F@xf32>
  %hz = linalg.fill ins(%zero : f32) outs(%eh : tensor<@E@x@C@x@F@xf32>) -> tensor<@E@x@C@x@F@xf32>
  %h = linalg.batch_matmul ins(%xin, %w1 : tensor<@E@x@C@x@D@xf32>, tensor<@E@x@D@x@F@xf32>) outs(%hz : tensor<@E@x@C@x@F@xf32>) -> tensor<@E@x@C@x@F@xf32>
  %hr = linalg.generic {indexing_maps = [affine_map<(e, c, f) -> (e, c, f)>, affine_map<(e, c, f) -> (e, c, f)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h : tensor<@E@x@C@x@F@xf32>) outs(%eh : tensor<@E@x@C@x@F@xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<@E@x@C@x@F@xf32>
  %eo = tensor.empty() : tensor<@E@x@C@x@D@xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%eo : tensor<@E@x@C@x@D@xf32>) -> tensor<@E@x@C@x@D@xf32>
  %out = linalg.batch_matmul ins(%hr, %w2 : tensor<@E@x@C@x@F@xf32>, tensor<@E@x@F@x@D@xf32>) outs(%oz : tensor<@E@x@C@x@D@xf32>) -> tensor<@E@x@C@x@D@xf32>
  // combine: einsum('tec,t,ecd->td')
  %ey = tensor.empty() : tensor<@T@x@D@xf32>
  %yz = linalg.fill ins(%zero : f32) outs(%ey : tensor<@T@x@D@xf32>) -> tensor<@T@x@D@xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(t, d, e, c) -> (t, e, c)>, affine_map<(t, d, e, c) -> (t)>, affine_map<(t, d, e, c) -> (e, c, d)>, affine_map<(t, d, e, c) -> (t, d)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%disp, %gate, %out : tensor<@T@x@E@x@C@xf32>, tensor<@T@xf32>, tensor<@E@x@C@x@D@xf32>) outs(%yz : tensor<@T@x@D@xf32>) {
  ^bb0(%m: f32, %g: f32, %o: f32, %acc: f32):
    %mg = arith.mulf %m, %g : f32
    %p = arith.mulf %mg, %o : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<@T@x@D@xf32>
  return %y : tensor<@T@x@D@xf32>
}
