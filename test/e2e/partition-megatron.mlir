// The Megatron MLP (PyTorch's sharded linear pair): x replicated, W1 sharded
// on its output features, an activation, W2 sharded on its input features.
// The only communication is one all-reduce of the output, at the lower
// bound; every element of every rank's result is checked against the
// unpartitioned program. Hidden size 16 (even) on 2, 4 and 8 ranks, and 10
// (uneven: 3, 3, 3, 1 over 4; 4, 4, 2 over 3; 2, 2, 2, 2, 2, 0, 0, 0 over 8).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' -e 's/@H@/16/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry mlp --check --report %t.2.json | sort | FileCheck %s --check-prefix=NP2
// RUN: %python %S/Inputs/check_report.py %t.2.json | FileCheck %s --check-prefix=REPORT
// RUN: sed -e 's/@N@/4/g' -e 's/@H@/16/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry mlp --check --report %t.4.json | sort | FileCheck %s --check-prefix=NP4
// RUN: %python %S/Inputs/check_report.py %t.4.json | FileCheck %s --check-prefix=REPORT
// RUN: sed -e 's/@N@/8/g' -e 's/@H@/16/g' %s > %t.8.mlir
// RUN: %mpirun -np 8 %shard-run %t.8.mlir --entry mlp --check --report %t.8.json | sort | FileCheck %s --check-prefix=NP8
// RUN: %python %S/Inputs/check_report.py %t.8.json | FileCheck %s --check-prefix=REPORT
// RUN: sed -e 's/@N@/4/g' -e 's/@H@/10/g' %s > %t.4u.mlir
// RUN: %mpirun -np 4 %shard-run %t.4u.mlir --entry mlp --check --report %t.4u.json | sort | FileCheck %s --check-prefix=NP4
// RUN: %python %S/Inputs/check_report.py %t.4u.json | FileCheck %s --check-prefix=REPORT
// RUN: sed -e 's/@N@/3/g' -e 's/@H@/10/g' %s > %t.3u.mlir
// RUN: %mpirun -np 3 %shard-run %t.3u.mlir --entry mlp --check --report %t.3u.json | sort | FileCheck %s --check-prefix=NP3
// RUN: %python %S/Inputs/check_report.py %t.3u.json | FileCheck %s --check-prefix=REPORT
// RUN: sed -e 's/@N@/8/g' -e 's/@H@/10/g' %s > %t.8u.mlir
// RUN: %mpirun -np 8 %shard-run %t.8u.mlir --entry mlp --check --report %t.8u.json | sort | FileCheck %s --check-prefix=NP8
// RUN: %python %S/Inputs/check_report.py %t.8u.json | FileCheck %s --check-prefix=REPORT
// tanh instead of ReLU: values that are not integers, summed in another
// order by the sharded program (compared within float rounding).
// RUN: sed -e 's/@N@/4/g' -e 's/@H@/10/g' -e 's/arith.maximumf %h, %f1/math.tanh %h/' %s > %t.tanh.mlir
// RUN: %mpirun -np 4 %shard-run %t.tanh.mlir --entry mlp --check | sort | FileCheck %s --check-prefix=NP4
// The partitioned IR: local blocks, nothing moved before the reduction.
// RUN: shard-opt %t.4u.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=PART

// NP2: shard-run: rank 0: OK, 128 elements checked
// NP2-NEXT: shard-run: rank 1: OK, 128 elements checked
// NP3: shard-run: rank 0: OK
// NP3-NEXT: shard-run: rank 1: OK
// NP3-NEXT: shard-run: rank 2: OK
// NP4: shard-run: rank 0: OK
// NP4-NEXT: shard-run: rank 1: OK
// NP4-NEXT: shard-run: rank 2: OK
// NP4-NEXT: shard-run: rank 3: OK
// NP8: shard-run: rank 0: OK
// NP8-COUNT-6: OK
// NP8-NEXT: shard-run: rank 7: OK
// REPORT: all_reduce over mesh axes [0]: {{[0-9]+}} bytes, at the lower bound
// REPORT-NOT: over
// PART: func.func @mlp(%arg0: tensor<8x16xf32> {{.*}}, %arg1: tensor<16x?xf32> {{.*}}, %arg2: tensor<?x16xf32>
// PART-NOT: shard.spmd.all_gather
// PART: linalg.matmul
// PART-NOT: shard.spmd
// PART: linalg.matmul
// PART-NEXT: shard.spmd.all_reduce
// PART-NOT: shard.spmd

#m = #shard.mesh<shape = [@N@], axes = ["tp"]>
func.func @mlp(%x: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
               %w1: tensor<16x@H@xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
               %w2: tensor<@H@x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x@H@xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x@H@xf32>) -> tensor<8x@H@xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x@H@xf32>) outs(%f1 : tensor<8x@H@xf32>) -> tensor<8x@H@xf32>
  // ReLU: max(h, 0), exact on integers.
  %a = arith.maximumf %h, %f1 : tensor<8x@H@xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<8x@H@xf32>, tensor<@H@x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
