// Argument annotations that conflict: x is sharded on its rows, w on its
// rows (the contraction dim), and one mesh axis cannot shard both loops.
// Sharding the rows of x keeps x and all-gathers w (1.5 KiB per rank);
// sharding the contraction keeps w but moves x and leaves a Partial 64x64
// result to reduce (24 KiB per rank). The cost model keeps the
// cheaper: the report shows one all_gather of w, at the lower bound, and
// the remark says why.
// REQUIRES: mpi
// RUN: %mpirun -np 4 %shard-run %s --entry conflict --check --report %t.json | sort | FileCheck %s
// RUN: %python %S/Inputs/check_report.py %t.json | FileCheck %s --check-prefix=REPORT
// Op by op's remark (search=greedy; the default search, run by shard-run
// above, makes the same choice):
// RUN: shard-opt %s -shard-propagate="search=greedy explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK: shard-run: rank 0: OK, 1024 elements checked, received 1536 bytes
// CHECK-NEXT: shard-run: rank 1: OK
// CHECK-NEXT: shard-run: rank 2: OK
// CHECK-NEXT: shard-run: rank 3: OK
// REPORT: all_gather over mesh axes [0]: 6144 bytes, at the lower bound
// REPORT-NOT: over
// EXPLAIN: remark: its tensors ask for 2 different shardings; kept d0 on axis 0 (operand #1 {{.*}}placements = [S(0)]> -> {{.*}}placements = [R]>: 6144 bytes, {{.*}}); over d2 on axis 0 (operand #0 {{.*}}: 1536 bytes, {{.*}}; result #0 {{.*}}placements = [P(sum)]> -> {{.*}}placements = [R]>: 98304 bytes

#m = #shard.mesh<shape = [4]>
func.func @conflict(%x: tensor<64x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                    %w: tensor<8x64xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x8xf32>, tensor<8x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
