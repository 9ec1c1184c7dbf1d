// A program's own cf.assert (torch-mlir checks its inputs so: a batch
// norm's "unimplemented: tensor with zero element") that fails on shard-run's
// inputs stops the rank saying that it is the program's assertion, with its
// message and location, and the closing words say so: it was taken for a
// crash of shard-run ("please report it"), its message alone above. Where
// the condition holds (the square root of an absolute value, each in
// [-6, 6] but 0 never drawn), the program runs and agrees.
// REQUIRES: mpi
// RUN: not %mpirun -np 2 shard-run %s --entry fails --check > %t.fails 2>&1
// RUN: FileCheck %s --check-prefix=FAILS --input-file %t.fails
// FAILS: ERROR: the program's own assertion failed: unimplemented: tensor with zero element
// FAILS: Location: loc("{{.*}}program-assert-np2.mlir":[[# @LINE + 13]]:5)
// FAILS: If 'ERROR: the program's own assertion failed' is printed above, a cf.assert of the program
// RUN: %mpirun -np 2 shard-run %s --entry holds --check 2>&1 | FileCheck %s --check-prefix=HOLDS --implicit-check-not=error: --implicit-check-not=ERROR
// HOLDS-COUNT-2: OK, 2 elements checked, received 0 bytes
#m = #shard.mesh<shape = [2]>
#map = affine_map<(d0) -> (d0)>
func.func @fails(%v: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%v : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sqrt %in : f32
    %ok = arith.cmpf oge, %s, %z : f32
    cf.assert %ok, "unimplemented: tensor with zero element"
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @holds(%v: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%v : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.absf %in : f32
    %s = math.sqrt %a : f32
    %ok = arith.cmpf oge, %s, %z : f32
    cf.assert %ok, "the square root of an absolute value is never negative"
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
