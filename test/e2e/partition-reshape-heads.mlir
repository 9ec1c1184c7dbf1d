// Multi-head attention's head split and merge (issue 26, item 1):
// q = x @ Wq with Wq sharded on its output features (Megatron's column
// parallel), tensor.expand_shape [8, H*D] -> [8, H, D], a per-element op on
// the heads, tensor.collapse_shape back, and the row-parallel Wo. Where
// torch.chunk's cut of the H*D features falls between heads, the heads
// stay sharded and nothing moves but the output's all-reduce (8x16 f32 =
// 512 B: each rank receives 2(n-1)/n of it, 256 B on 2 ranks and 384 B on
// 4, counted twice by the ring: 512 and 768 B); where it does not, the
// op says so and q is gathered (exactly), then sliced back for Wo.
// Every element of every rank's result is checked against the
// unpartitioned program.
// REQUIRES: mpi
//
// 4 heads of 4 over 4 ranks (1 each) and over 2 (2 each): nothing moves.
// RUN: sed -e 's/@N@/4/g' -e 's/@HD@/16/g' -e 's/@H@/4/g' -e 's/@D@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry heads --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// The IR checked below is op-by-op propagation's (search=greedy); shard-run
// runs the default (search=whole).
// RUN: shard-opt %t.4.mlir -shard-propagate=search=greedy -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// RUN: sed -e 's/@N@/2/g' -e 's/@HD@/16/g' -e 's/@H@/4/g' -e 's/@D@/4/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry heads --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// 7 heads of 2 over 4 ranks: 14 features cut 4, 4, 4, 2, heads 2, 2, 2, 1;
// uneven but aligned: nothing moves, local sizes read from the rank.
// RUN: sed -e 's/@N@/4/g' -e 's/@HD@/14/g' -e 's/@H@/7/g' -e 's/@D@/2/g' %s > %t.7.mlir
// RUN: %mpirun -np 4 %shard-run %t.7.mlir --entry heads --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: shard-opt %t.7.mlir -shard-propagate=search=greedy -shard-spmd-partition | FileCheck %s --check-prefix=UNEVEN
// 3 heads of 4 over 2 ranks: 12 features cut 6/6, heads 2/1: not aligned.
// RUN: sed -e 's/@N@/2/g' -e 's/@HD@/12/g' -e 's/@H@/3/g' -e 's/@D@/4/g' %s > %t.3.mlir
// RUN: %mpirun -np 2 %shard-run %t.3.mlir --entry heads --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MISALIGNED
// RUN: shard-opt %t.3.mlir -shard-propagate=search=greedy 2>&1 | FileCheck %s --check-prefix=REMARK

// NP4: shard-run: rank 0: OK, 128 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 1: OK, 128 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 2: OK, 128 elements checked, received 768 bytes
// NP4-NEXT: shard-run: rank 3: OK, 128 elements checked, received 768 bytes
// NP2: shard-run: rank 0: OK, 128 elements checked, received 512 bytes
// NP2-NEXT: shard-run: rank 1: OK, 128 elements checked, received 512 bytes
// LOCAL: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [8, 1, 4] : tensor<8x4xf32> into tensor<8x1x4xf32>
// LOCAL-NOT: shard.spmd
// LOCAL: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<8x1x4xf32> into tensor<8x4xf32>
// LOCAL-NOT: shard.spmd
// LOCAL: shard.spmd.all_reduce
// UNEVEN: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [8, %{{.*}}, 2] : tensor<8x?xf32> into tensor<8x?x2xf32>
// UNEVEN-NOT: shard.spmd
// UNEVEN: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<8x?x2xf32> into tensor<8x?xf32>
// UNEVEN-NOT: shard.spmd
// UNEVEN: shard.spmd.all_reduce
// MISALIGNED: shard-run: rank 0: OK, 128 elements checked
// MISALIGNED: shard-run: rank 1: OK, 128 elements checked
// REMARK: remark: operand #0 asks for a sharding whose d1 (3 steps of 4 elements of a folded dim of 12) is not sharded on tp: torch.chunk cuts the folded dim between its steps; its tensors are moved instead (exactly)

#m = #shard.mesh<shape = [@N@], axes = ["tp"]>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @heads(%x: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                 %wq: tensor<16x@HD@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                 %wo: tensor<@HD@x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x@HD@xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x@HD@xf32>) -> tensor<8x@HD@xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<8x16xf32>, tensor<16x@HD@xf32>) outs(%f1 : tensor<8x@HD@xf32>) -> tensor<8x@HD@xf32>
  %qh = tensor.expand_shape %q [[0], [1, 2]] output_shape [8, @H@, @D@] : tensor<8x@HD@xf32> into tensor<8x@H@x@D@xf32>
  %e3 = tensor.empty() : tensor<8x@H@x@D@xf32>
  %s = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qh : tensor<8x@H@x@D@xf32>) outs(%e3 : tensor<8x@H@x@D@xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<8x@H@x@D@xf32>
  %c = tensor.collapse_shape %s [[0], [1, 2]] : tensor<8x@H@x@D@xf32> into tensor<8x@HD@xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%c, %wo : tensor<8x@HD@xf32>, tensor<@HD@x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
