// A slice (tensor.extract_slice, tosa.slice; a scalar tensor.extract made
// one, ScalarSlices.h) is linear in its source: a source of P(sum) parts
// (a matmul's whose contracted dim is cut) is sliced part by part, and only
// the slice's parts are reduced. Before, the whole source was reduced (a
// reduce_scatter) and the slice then broadcast: @element received 192,
// 196, 196 and 196 B on 4 ranks where reducing its one element receives 4,
// 4, 8 and 8 B. A source of integers keeps its parts whole first (P(sum)
// parts are summed for floats only: Payload.h, summable). The matmuls of
// the 2x2 mesh give [S(0), P(sum)]: rows cut on x, parts on y.
// A slice whose window each rank reads as it is (@strided_window, of 9 x 7
// cut [S(0), S(1)]; @strided_window_partial, of a [S(0), P(sum)] product)
// on 8 ranks: ranks 4-7, past the mesh, hold empty blocks of the dynamic
// dims and slice a tensor.empty of what the slice reads (before: every
// mesh rank's window had 2 rows, the table folded to a static 2, and ranks
// 4-7 stopped, out of bounds; found by a helper).
// REQUIRES: mpi
// RUN: %mpirun -np 4 %shard-run %s --entry element,window_rows_cut,tosa_slice,int_sum --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: %mpirun -np 8 %shard-run %s --entry window_rows_cut,tosa_slice,int_sum,strided_window,strided_window_partial --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP8
// RUN: %mpirun -np 3 %shard-run %s --entry element3 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: %mpirun -np 2 %shard-run %s --entry element2 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// Bytes alone (alpha-us=0): the row of a strided slice of P(sum) parts,
// sliced first; before, 192 B on every rank.
// RUN: %mpirun -np 4 %shard-run %s --entry strided_dropped --check --propagate=alpha-us=0 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=BYTES
// NP4: @element: rank 0: OK, 1 elements checked, received 4 bytes
// NP4-NEXT: @element: rank 1: OK, 1 elements checked, received 4 bytes
// NP4-NEXT: @element: rank 2: OK, 1 elements checked, received 8 bytes
// NP4-NEXT: @element: rank 3: OK, 1 elements checked, received 8 bytes
// NP4-NEXT: @int_sum: rank 0: OK, 15 elements checked
// NP4-NEXT: @int_sum: rank 1: OK, 15 elements checked
// NP4-NEXT: @int_sum: rank 2: OK, 15 elements checked
// NP4-NEXT: @int_sum: rank 3: OK, 15 elements checked
// NP4-NEXT: @tosa_slice: rank 0: OK, 8 elements checked
// NP4-NEXT: @tosa_slice: rank 1: OK, 8 elements checked
// NP4-NEXT: @tosa_slice: rank 2: OK, 8 elements checked
// NP4-NEXT: @tosa_slice: rank 3: OK, 8 elements checked
// NP4-NEXT: @window_rows_cut: rank 0: OK, 9 elements checked
// NP4-NEXT: @window_rows_cut: rank 1: OK, 9 elements checked
// NP4-NEXT: @window_rows_cut: rank 2: OK, 6 elements checked
// NP4-NEXT: @window_rows_cut: rank 3: OK, 6 elements checked
// NP8: @int_sum: rank 3: OK, 15 elements checked
// NP8: @int_sum: rank 7: OK, 0 elements checked
// NP8: @strided_window: rank 3: OK, 4 elements checked
// NP8: @strided_window: rank 7: OK, 0 elements checked
// NP8: @strided_window_partial: rank 3: OK, 4 elements checked
// NP8: @strided_window_partial: rank 7: OK, 0 elements checked
// NP8: @tosa_slice: rank 3: OK, 8 elements checked
// NP8: @tosa_slice: rank 7: OK, 0 elements checked
// NP8: @window_rows_cut: rank 3: OK, 6 elements checked
// NP8: @window_rows_cut: rank 7: OK, 0 elements checked
// NP3: rank 0: OK, 1 elements checked, received 4 bytes
// NP3-NEXT: rank 1: OK, 1 elements checked, received 4 bytes
// NP3-NEXT: rank 2: OK, 1 elements checked, received 8 bytes
// NP2: rank 0: OK, 1 elements checked, received 4 bytes
// NP2-NEXT: rank 1: OK, 1 elements checked, received 4 bytes
// BYTES: rank 0: OK, 2 elements checked, received 100 bytes
// BYTES-NEXT: rank 1: OK, 1 elements checked, received 52 bytes
// BYTES-NEXT: rank 2: OK, 2 elements checked, received 104 bytes
// BYTES-NEXT: rank 3: OK, 1 elements checked, received 52 bytes

#m4 = #shard.mesh<shape = [4], axes = ["t"]>
#m3 = #shard.mesh<shape = [3], axes = ["t"]>
#m2 = #shard.mesh<shape = [2], axes = ["t"]>
#m = #shard.mesh<shape = [2, 2], axes = ["x", "y"]>
#a = #shard.placements<mesh = #m, placements = [S(0), S(1)]>
#b = #shard.placements<mesh = #m, placements = [R, S(0)]>
#r = #shard.placements<mesh = #m, placements = [R, R]>
#s0 = #shard.placements<mesh = #m, placements = [S(0), R]>
#s1 = #shard.placements<mesh = #m, placements = [R, S(1)]>
func.func @window_rows_cut(%a: tensor<8x16xf32> {shard.layout = #a}, %b: tensor<16x6xf32> {shard.layout = #b}) -> (tensor<5x3xf32> {shard.layout = #s0}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x6xf32>) outs(%f : tensor<8x6xf32>) -> tensor<8x6xf32>
  %x = tensor.extract_slice %m[3, 0] [5, 3] [1, 2] : tensor<8x6xf32> to tensor<5x3xf32>
  return %x : tensor<5x3xf32>
}
func.func @strided_dropped(%a: tensor<8x16xf32> {shard.layout = #a}, %b: tensor<16x6xf32> {shard.layout = #b}) -> (tensor<3xf32> {shard.layout = #b}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x6xf32>) outs(%f : tensor<8x6xf32>) -> tensor<8x6xf32>
  %x = tensor.extract_slice %m[6, 0] [1, 3] [1, 2] : tensor<8x6xf32> to tensor<3xf32>
  return %x : tensor<3xf32>
}
func.func @tosa_slice(%a: tensor<8x16xf32> {shard.layout = #a}, %b: tensor<16x6xf32> {shard.layout = #b}) -> (tensor<2x4xf32> {shard.layout = #r}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x6xf32>) outs(%f : tensor<8x6xf32>) -> tensor<8x6xf32>
  %start = tosa.const_shape {values = dense<[3, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %x = tosa.slice %m, %start, %size : (tensor<8x6xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %x : tensor<2x4xf32>
}
func.func @int_sum(%a: tensor<8x16xi32> {shard.layout = #a}, %b: tensor<16x6xi32> {shard.layout = #b}) -> (tensor<5x3xi32> {shard.layout = #r}) {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8x6xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<8x6xi32>) -> tensor<8x6xi32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xi32>, tensor<16x6xi32>) outs(%f : tensor<8x6xi32>) -> tensor<8x6xi32>
  %x = tensor.extract_slice %m[1, 2] [5, 3] [1, 1] : tensor<8x6xi32> to tensor<5x3xi32>
  return %x : tensor<5x3xi32>
}
func.func @element(%a: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(1)]>}, %b: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [S(0)]>}) -> (tensor<1x1xf32> {shard.layout = #shard.placements<mesh = #m4, placements = [R]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %x = tensor.extract_slice %m[1, 2] [1, 1] [1, 1] : tensor<8x8xf32> to tensor<1x1xf32>
  return %x : tensor<1x1xf32>
}
func.func @element3(%a: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(1)]>}, %b: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [S(0)]>}) -> (tensor<1x1xf32> {shard.layout = #shard.placements<mesh = #m3, placements = [R]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %x = tensor.extract_slice %m[1, 2] [1, 1] [1, 1] : tensor<8x8xf32> to tensor<1x1xf32>
  return %x : tensor<1x1xf32>
}
func.func @element2(%a: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(1)]>}, %b: tensor<16x8xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}) -> (tensor<1x1xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [R]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %x = tensor.extract_slice %m[1, 2] [1, 1] [1, 1] : tensor<8x8xf32> to tensor<1x1xf32>
  return %x : tensor<1x1xf32>
}
func.func @strided_window(%a: tensor<9x7xf32> {shard.layout = #a}) -> (tensor<4x3xf32> {shard.layout = #s1}) {
  %x = tensor.extract_slice %a[2, 0] [4, 3] [2, 3] : tensor<9x7xf32> to tensor<4x3xf32>
  return %x : tensor<4x3xf32>
}
func.func @strided_window_partial(%a: tensor<9x10xf32> {shard.layout = #a}, %b: tensor<10x7xf32> {shard.layout = #b}) -> (tensor<4x3xf32> {shard.layout = #s1}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<9x7xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<9x7xf32>) -> tensor<9x7xf32>
  %m = linalg.matmul ins(%a, %b : tensor<9x10xf32>, tensor<10x7xf32>) outs(%f : tensor<9x7xf32>) -> tensor<9x7xf32>
  %x = tensor.extract_slice %m[2, 0] [4, 3] [2, 3] : tensor<9x7xf32> to tensor<4x3xf32>
  return %x : tensor<4x3xf32>
}
