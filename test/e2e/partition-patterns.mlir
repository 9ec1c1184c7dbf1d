// The standard patterns on 2, 3, 4 and 8 ranks (a 1-D mesh of N), each
// checked element by element against the unpartitioned program, with what
// the report says moved:
// - a batched matmul with the batch sharded: nothing moves;
// - a matmul whose contraction dim is sharded: a Partial result, reduced
//   (reduce-scattered where the result is free: search=whole cuts it);
// - row-wise sum and max over a sharded dim (uneven: 10 columns): Partial
//   values of sum and max, reduced; the inits keep their values once;
// - a transpose of a sharded tensor: a layout change, nothing moves;
// - integers: the same matmul on i32.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: sed -e 's/@N@/8/g' %s > %t.8.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry batch_matmul --check --report %t.bmm.json | sort | FileCheck %s --check-prefix=NP2
// RUN: %python %S/Inputs/check_report.py %t.bmm.json | FileCheck %s --check-prefix=NOTHING
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry batch_matmul --check | sort | FileCheck %s --check-prefix=NP4
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry contraction --check --report %t.c.json | sort | FileCheck %s --check-prefix=NP3
// RUN: %python %S/Inputs/check_report.py %t.c.json | FileCheck %s --check-prefix=REDUCED
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry row_sum --check --report %t.sum.json | sort | FileCheck %s --check-prefix=NP4
// RUN: %python %S/Inputs/check_report.py %t.sum.json | FileCheck %s --check-prefix=REDUCED
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry row_max --check --report %t.max.json | sort | FileCheck %s --check-prefix=NP3
// RUN: %python %S/Inputs/check_report.py %t.max.json | FileCheck %s --check-prefix=REDUCED
// RUN: %mpirun -np 8 %shard-run %t.8.mlir --entry contraction_i32,row_max --check > %t.run1 2>&1
// RUN: %entry-lines contraction_i32 %t.run1 | FileCheck %s --check-prefix=NP8
// RUN: %entry-lines row_max %t.run1 | FileCheck %s --check-prefix=NP8
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry transpose --check --report %t.t.json | sort | FileCheck %s --check-prefix=NP3
// RUN: %python %S/Inputs/check_report.py %t.t.json | FileCheck %s --check-prefix=NOTHING

// NP2: rank 0: OK
// NP2-NEXT: rank 1: OK
// NP3: rank 0: OK
// NP3-NEXT: rank 1: OK
// NP3-NEXT: rank 2: OK
// NP4: rank 0: OK
// NP4-NEXT: rank 1: OK
// NP4-NEXT: rank 2: OK
// NP4-NEXT: rank 3: OK
// NP8: rank 0: OK
// NP8-COUNT-6: OK
// NP8-NEXT: rank 7: OK
// NOTHING: no redistribution
// REDUCED: {{all_reduce|reduce_scatter}} over mesh axes [0]: {{[0-9]+}} bytes, at the lower bound
// REDUCED-NOT: over

#m = #shard.mesh<shape = [@N@]>
func.func @batch_matmul(%a: tensor<8x3x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                        %b: tensor<8x5x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                        %c: tensor<8x3x2xf32>) -> tensor<8x3x2xf32> {
  %y = linalg.batch_matmul ins(%a, %b : tensor<8x3x5xf32>, tensor<8x5x2xf32>) outs(%c : tensor<8x3x2xf32>) -> tensor<8x3x2xf32>
  return %y : tensor<8x3x2xf32>
}

func.func @contraction(%a: tensor<6x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                       %b: tensor<10x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                       %c: tensor<6x4xf32>) -> (tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %y = linalg.matmul ins(%a, %b : tensor<6x10xf32>, tensor<10x4xf32>) outs(%c : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

func.func @contraction_i32(%a: tensor<6x10xi32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                           %b: tensor<10x4xi32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                           %c: tensor<6x4xi32>) -> (tensor<6x4xi32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %y = linalg.matmul ins(%a, %b : tensor<6x10xi32>, tensor<10x4xi32>) outs(%c : tensor<6x4xi32>) -> tensor<6x4xi32>
  return %y : tensor<6x4xi32>
}

func.func @row_sum(%a: tensor<6x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                   %init: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.reduce ins(%a : tensor<6x10xf32>) outs(%init : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<6xf32>
}

func.func @row_max(%a: tensor<6x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                   %init: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<6x10xf32>) outs(%init : tensor<6xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.maximumf %acc, %in : f32
      linalg.yield %s : f32
    } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

func.func @transpose(%a: tensor<6x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<10x6xf32> {
  %e = tensor.empty() : tensor<10x6xf32>
  %t = linalg.transpose ins(%a : tensor<6x10xf32>) outs(%e : tensor<10x6xf32>) permutation = [1, 0]
  return %t : tensor<10x6xf32>
}
