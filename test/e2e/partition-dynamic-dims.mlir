// Dynamic dims that no layout cuts (issue 43 item 6): the Megatron MLP
// with a batch of dynamic size, as torch-mlir emits it (`tensor<?x16xf32>`).
// The program is compiled once with the batch dynamic; each rank's blocks
// keep it dynamic, the collectives' tables get its extent at run time, and
// shard-run runs it at several batch sizes (--dynamic-size), 0 included,
// checking every element on every rank against the program as written.
// Hidden size 130 is uneven over 4 ranks (33, 33, 33, 31) and 3 (44, 44, 42). Only the output's
// reduction moves: one all_reduce of each rank's [batch, 16] partial.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' -e "s/@H@/128/g" %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry mlp --check --dynamic-size 5 --report %t.2.json 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=NP2
// RUN: %python %S/Inputs/check_report.py %t.2.json | FileCheck %s --check-prefix=REPORT
// The report's bytes count the batch as 64 rows, and say so.
// RUN: FileCheck %s --check-prefix=JSON < %t.2.json
// RUN: sed -e 's/@N@/4/g' -e "s/@H@/130/g" %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mlp --check --dynamic-size 7 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=NP4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mlp --check --dynamic-size 1 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=NP4
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mlp --check --dynamic-size 0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=NP4
// RUN: sed -e 's/@N@/3/g' -e "s/@H@/130/g" %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry mlp --check --dynamic-size 9 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=NP3
// The partitioned IR: the batch stays dynamic on every rank.
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning: --check-prefix=PART
// Without a size for the dynamic dims, shard-run says what it needs.
// RUN: not %mpirun -np 2 %shard-run %t.2.mlir --entry mlp 2>&1 | FileCheck %s --check-prefix=NOSIZE
// A rank that holds no block of a tensor with dynamic dims does not know
// their extents: the program runs on exactly its mesh's ranks.
// RUN: not %mpirun -np 3 %shard-run %t.2.mlir --entry mlp --dynamic-size 5 2>&1 | FileCheck %s --check-prefix=WORLD

// NP2: shard-run: rank 0: OK, 80 elements checked
// NP2-NEXT: shard-run: rank 1: OK, 80 elements checked
// NP3: shard-run: rank 0: OK
// NP3-NEXT: shard-run: rank 1: OK
// NP3-NEXT: shard-run: rank 2: OK
// NP4: shard-run: rank 0: OK
// NP4-NEXT: shard-run: rank 1: OK
// NP4-NEXT: shard-run: rank 2: OK
// NP4-NEXT: shard-run: rank 3: OK
// REPORT: all_reduce over mesh axes [0]: {{[0-9]+}} bytes, at the lower bound
// REPORT-NOT: over
// PART: func.func @mlp(%arg0: tensor<?x16xf32> {{.*}}, %arg1: tensor<16x?xf32> {{.*}}, %arg2: tensor<?x16xf32>
// PART-NOT: shard.spmd.{{[a-z_]+}} %
// PART: tensor.dim %arg0, %{{.*}} : tensor<?x16xf32>
// PART-NOT: shard.spmd.{{[a-z_]+}} %
// PART: linalg.matmul {{.*}} -> tensor<?x?xf32>
// PART-NOT: shard.spmd.{{[a-z_]+}} %
// PART: linalg.matmul {{.*}} -> tensor<?x16xf32>
// PART-NEXT: shard.spmd.all_reduce %{{.*}} over axes [0] reduce sum from !shard.tensor<?x16xf32, #layout_Psum> to !shard.tensor<?x16xf32, #layout_R> : tensor<?x16xf32> -> tensor<?x16xf32>
// PART-NOT: shard.spmd
// JSON: "dynamic_dims_counted_as": 64
// WORLD: shard-run: rank 2 holds no block of 'tensor<?x16xf32>' ({{.*}}), a tensor with dynamic dims, whose extents only the ranks holding a block know; run the program on exactly ranks [0, 1]
// NOSIZE: the entry has a tensor of dynamic shape 'tensor<?x16xf32>'; give the size of its dynamic dims with --dynamic-size

#m = #shard.mesh<shape = [@N@], axes = ["tp"]>
func.func @mlp(%x: tensor<?x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
               %w1: tensor<16x@H@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
               %w2: tensor<@H@x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<?x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %batch = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e1 = tensor.empty(%batch) : tensor<?x@H@xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x@H@xf32>) -> tensor<?x@H@xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<?x16xf32>, tensor<16x@H@xf32>) outs(%f1 : tensor<?x@H@xf32>) -> tensor<?x@H@xf32>
  // ReLU: max(h, 0), exact on integers.
  %a = arith.maximumf %h, %f1 : tensor<?x@H@xf32>
  %e2 = tensor.empty(%batch) : tensor<?x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<?x@H@xf32>, tensor<@H@x16xf32>) outs(%f2 : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
