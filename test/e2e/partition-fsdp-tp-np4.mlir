// FSDP + TP on a 2x2 mesh (dp, tp), more tokens than features: the batch is
// sharded on dp, each weight is stored sharded on dp (FSDP) and on tp (TP).
// Propagation finds that each weight is all-gathered over dp just before
// its matmul (cheaper than moving the activations); nothing else moves but
// the TP reduction of the output. Every element is checked on 4 ranks.
// REQUIRES: mpi
// (Op by op, search=greedy: the default search finds a plan of 8.004 us
// modelled against this one's 8.005, gathering the activations instead;
// test/e2e/propagate-auto-np4.test runs it.)
// RUN: %mpirun -np 4 %shard-run %s --entry fsdp_tp --check --report %t.json --propagate=search=greedy | sort | FileCheck %s
// RUN: %python %S/Inputs/check_report.py %t.json | FileCheck %s --check-prefix=REPORT
// RUN: shard-opt %s -shard-propagate="search=greedy explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK: shard-run: rank 0: OK, 128 elements checked, received 704 bytes
// CHECK-NEXT: shard-run: rank 1: OK, 128 elements checked, received 704 bytes
// CHECK-NEXT: shard-run: rank 2: OK, 128 elements checked, received 704 bytes
// CHECK-NEXT: shard-run: rank 3: OK, 128 elements checked, received 704 bytes
// The default search gathers both weights whole (over dp, then tp) and
// needs no TP reduction: 576 B per rank (docs/partition.md's walkthrough).
// Rank 0 prints every rank's line, in rank order (not sorted here).
// RUN: %mpirun -np 4 %shard-run %s --entry fsdp_tp --check | FileCheck %s --check-prefix=WHOLE
// WHOLE: shard-run: rank 0: OK, 128 elements checked, received 576 bytes
// WHOLE-NEXT: shard-run: rank 1: OK, 128 elements checked, received 576 bytes
// WHOLE-NEXT: shard-run: rank 2: OK, 128 elements checked, received 576 bytes
// WHOLE-NEXT: shard-run: rank 3: OK, 128 elements checked, received 576 bytes

// REPORT: all_gather over mesh axes [0]: 384 bytes, at the lower bound
// REPORT-NEXT: all_gather over mesh axes [0]: 384 bytes, at the lower bound
// REPORT-NEXT: all_reduce over mesh axes [1]: {{[0-9]+}} bytes, at the lower bound
// REPORT-NOT: over

// EXPLAIN: remark: its tensors ask for 2 different shardings; kept d0 on dp, d1 on tp
// EXPLAIN: remark: its tensors ask for 2 different shardings; kept d0 on dp, d2 on tp

#m = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
func.func @fsdp_tp(%x: tensor<32x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>},
                   %w1: tensor<8x12xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), S(1)]>},
                   %w2: tensor<12x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1), S(0)]>})
    -> (tensor<32x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0), R]>}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x12xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x12xf32>) -> tensor<32x12xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x8xf32>, tensor<8x12xf32>) outs(%f1 : tensor<32x12xf32>) -> tensor<32x12xf32>
  %a = arith.maximumf %h, %f1 : tensor<32x12xf32>
  %e2 = tensor.empty() : tensor<32x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x8xf32>) -> tensor<32x8xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<32x12xf32>, tensor<12x8xf32>) outs(%f2 : tensor<32x8xf32>) -> tensor<32x8xf32>
  return %y : tensor<32x8xf32>
}
