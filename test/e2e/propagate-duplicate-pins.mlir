// Two constraints of one value to one layout (one per use) make one copy,
// as the cost model prices it ("each value moved once per distinct layout
// it is needed in"): before, the search said "proven optimal: modelled
// 6.082 us" for one all_gather of 49,152 B and the partitioned program ran
// two (24,576 B received per rank).
// REQUIRES: mpi
// RUN: shard-opt %s -shard-propagate=explain=true --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// EXPLAIN: proven optimal: modelled 6.082 us
// RUN: shard-opt %s -shard-propagate | FileCheck %s --check-prefix=IR
// IR: %[[R:.*]] = shard.constraint %arg0 layout {{.*}}#layout_R
// IR-NOT: shard.constraint %arg0 layout {{.*}}#layout_R
// IR: shard.constraint %[[R]] layout {{.*}}#layout_R
// RUN: shard-opt %s -shard-propagate -shard-spmd-partition=report=%t.json -o /dev/null
// RUN: %python %S/Inputs/check_report.py %t.json | FileCheck %s --check-prefix=REPORT
// REPORT: all_gather over mesh axes [0]: 49152 bytes
// REPORT-NOT: all_gather
// 64x64 f32 in rows on 4 ranks: each receives the 48 rows it lacks once.
// RUN: %mpirun -np 4 %shard-run %s --entry dup --check 2>&1 | sort | FileCheck %s --implicit-check-not=error:
// CHECK: shard-run: rank 0: OK, 2048 elements checked, received 12288 bytes
// CHECK-NEXT: shard-run: rank 1: OK, 2048 elements checked, received 12288 bytes
// CHECK-NEXT: shard-run: rank 2: OK, 2048 elements checked, received 12288 bytes
// CHECK-NEXT: shard-run: rank 3: OK, 2048 elements checked, received 12288 bytes

#m = #shard.mesh<shape = [4]>
!t = tensor<64x64xf32>
func.func @dup(%a: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (!t, !t) {
  %one = arith.constant dense<1.0> : !t
  %x = shard.constraint %a layout #shard.placements<mesh = #m, placements = [R]> : !t
  %y = arith.addf %x, %one : !t
  %z = shard.constraint %a layout #shard.placements<mesh = #m, placements = [R]> : !t
  %w = arith.mulf %z, %z : !t
  return %y, %w : !t, !t
}
