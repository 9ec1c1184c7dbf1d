// Two mesh axes sharding one dim nest as DTensor nests them ([S(0), S(0)]
// on 2x2: dim 0 cut over axis 0, each half cut over axis 1; 10 rows are
// 3, 2, 3, 2), through an elementwise op and a batched matmul whose batch
// is that dim (nothing moves), then gathered whole: checked on 4 ranks.
// REQUIRES: mpi
// RUN: %mpirun -np 4 %shard-run %s --entry nested --check --report %t.json | sort | FileCheck %s
// RUN: %python %S/Inputs/check_report.py %t.json | FileCheck %s --check-prefix=REPORT
// RUN: shard-opt %s -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=PART

// CHECK: shard-run: rank 0: OK, 40 elements checked, received 112 bytes
// CHECK-NEXT: shard-run: rank 1: OK
// CHECK-NEXT: shard-run: rank 2: OK
// CHECK-NEXT: shard-run: rank 3: OK
// REPORT: all_gather over {{.*}}: {{[0-9]+}} bytes, at the lower bound
// PART: dense<[3, 2, 3, 2, 0]> : tensor<5xindex>
// PART: linalg.batch_matmul {{.*}}ins(%{{.*}}, %{{.*}} : tensor<?x2x3xf32>, tensor<?x3x2xf32>)

#m = #shard.mesh<shape = [2, 2]>
func.func @nested(%a: tensor<10x2x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(0)]>},
                  %b: tensor<10x3x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(0)]>})
    -> (tensor<10x2x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, R]>}) {
  %zero = arith.constant 0.0 : f32
  %a2 = arith.addf %a, %a : tensor<10x2x3xf32>
  %e = tensor.empty() : tensor<10x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<10x2x2xf32>) -> tensor<10x2x2xf32>
  %y = linalg.batch_matmul ins(%a2, %b : tensor<10x2x3xf32>, tensor<10x3x2xf32>) outs(%f : tensor<10x2x2xf32>) -> tensor<10x2x2xf32>
  return %y : tensor<10x2x2xf32>
}
