// shard-run stops a rank whose tosa.scatter writes past its values, naming
// the op, as it does for a lookup read past its table
// (shard-run-gather-bounds.mlir). TOSA lowers a scatter to a loop of
// insert_slices at the offsets its indices give, after the tensor-level
// checks shard-run adds; it is now lowered first and checked as any
// insert_slice at a run-time offset. Before: shard-run's default inputs
// (-6 to 6) wrote past the buffer, "corrupted size vs. prev_size" on one
// rank and the other waiting until killed (found by a sweep over
// upstream's TOSA tests). In bounds (indices 0 to 7), every element is
// checked; one past, each rank stops.
// REQUIRES: mpi
// RUN: %mpirun -np 2 shard-run %s --entry sc --check --int-range=0:7 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=OK
// OK: rank 0: OK, 32 elements checked
// OK-NEXT: rank 1: OK, 32 elements checked
// RUN: not %mpirun -np 2 shard-run %s --entry sc --check --int-range=8:8 > %t.past 2>&1
// RUN: FileCheck %s --check-prefix=PAST --input-file %t.past
// RUN: not %mpirun -np 2 shard-run %s --entry sc --check > %t.default 2>&1
// RUN: FileCheck %s --check-prefix=PAST --input-file %t.default
// PAST: ERROR: Runtime op verification failed
// PAST: out-of-bounds
// PAST: Location: loc("{{.*}}shard-run-scatter-bounds.mlir":[[@LINE+6]]:8)

#m = #shard.mesh<shape = [2], axes = ["x"]>
func.func @sc(%v: tensor<2x8x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
              %idx: tensor<2x4xi32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
              %in: tensor<2x4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<2x8x4xf32> {
  %0 = tosa.scatter %v, %idx, %in : (tensor<2x8x4xf32>, tensor<2x4xi32>, tensor<2x4x4xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}
