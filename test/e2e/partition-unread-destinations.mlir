// A destination whose elements its op never reads (an elementwise op's
// init its payload does not read, linalg.copy's and linalg.transpose's,
// an insert_slice's dest the slice fills, a linalg.pack's dest) is given
// as an empty tensor of its type (passes/UnreadDestinations.cpp): nothing
// moves it into the op's layout. Before: %d, an argument laid out on
// columns, was exchanged for rows (48 bytes per rank on 2 ranks) for
// elements no rank read. @accumulate reads its init: it still moves. An
// init the payload does not read but whose map leaves elements unwritten
// keeps its tensor (a silent wrong answer in a review: @constmap writes
// column 0 only, @shift from 1 on, @zero's dropped loop has no trips).
// Every element checked on 2 and 3 ranks (8 rows: 3, 3 and 2), a batch of
// run-time size 7 (4 and 3 rows; 3, 3 and 1).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry ew,copy_transpose,whole_slice,pack --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NONE2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry accumulate --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=ACC2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry dyn --dynamic-size=7 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DYN2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry constmap,shift,zero --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=KEPT2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry ew,copy_transpose,whole_slice,pack --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NONE3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry accumulate --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=ACC3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry dyn --dynamic-size=7 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DYN3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry constmap,shift,zero --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=MISMATCH --check-prefix=KEPT3
// KEPT2-COUNT-6: OK, {{[0-9]+}} elements checked
// KEPT3-COUNT-9: OK, {{[0-9]+}} elements checked
// NONE2-COUNT-8: OK, {{[0-9]+}} elements checked, received 0 bytes
// NONE3-COUNT-12: OK, {{[0-9]+}} elements checked, received 0 bytes
// ACC2: shard-run: rank 0: OK, 24 elements checked, received 48 bytes
// ACC2-NEXT: shard-run: rank 1: OK, 24 elements checked, received 48 bytes
// ACC3: shard-run: rank 0: OK, 18 elements checked, received 48 bytes
// ACC3-NEXT: shard-run: rank 1: OK, 18 elements checked, received 48 bytes
// ACC3-NEXT: shard-run: rank 2: OK, 12 elements checked, received 32 bytes
// DYN2: shard-run: rank 0: OK, 24 elements checked, received 0 bytes
// DYN2-NEXT: shard-run: rank 1: OK, 18 elements checked, received 0 bytes
// DYN3: shard-run: rank 0: OK, 18 elements checked, received 0 bytes
// DYN3-NEXT: shard-run: rank 1: OK, 18 elements checked, received 0 bytes
// DYN3-NEXT: shard-run: rank 2: OK, 6 elements checked, received 0 bytes

#m = #shard.mesh<shape = [@N@], axes = ["x"]>
#r = #shard.placements<mesh = #m, placements = [S(0)]>
#c = #shard.placements<mesh = #m, placements = [S(1)]>
func.func @ew(%a: tensor<8x6xf32> {shard.layout = #r}, %d: tensor<8x6xf32> {shard.layout = #c}) -> (tensor<8x6xf32> {shard.layout = #r}) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x6xf32>) outs(%d : tensor<8x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}
func.func @accumulate(%a: tensor<8x6xf32> {shard.layout = #r}, %d: tensor<8x6xf32> {shard.layout = #c}) -> (tensor<8x6xf32> {shard.layout = #r}) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x6xf32>) outs(%d : tensor<8x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = arith.addf %x, %o : f32
    linalg.yield %e : f32
  } -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}
func.func @copy_transpose(%a: tensor<8x6xf32> {shard.layout = #r}, %d: tensor<8x6xf32> {shard.layout = #c}, %t: tensor<6x8xf32> {shard.layout = #r}) -> (tensor<8x6xf32> {shard.layout = #r}, tensor<6x8xf32> {shard.layout = #c}) {
  %r = linalg.copy ins(%a : tensor<8x6xf32>) outs(%d : tensor<8x6xf32>) -> tensor<8x6xf32>
  %s = linalg.transpose ins(%a : tensor<8x6xf32>) outs(%t : tensor<6x8xf32>) permutation = [1, 0]
  return %r, %s : tensor<8x6xf32>, tensor<6x8xf32>
}
func.func @whole_slice(%a: tensor<8x6xf32> {shard.layout = #r}, %d: tensor<8x6xf32> {shard.layout = #c}) -> (tensor<8x6xf32> {shard.layout = #r}) {
  %r = tensor.insert_slice %a into %d[0, 0] [8, 6] [1, 1] : tensor<8x6xf32> into tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}
func.func @pack(%a: tensor<6x8xf32> {shard.layout = #r}, %d: tensor<6x2x4xf32> {shard.layout = #c}) -> (tensor<6x2x4xf32> {shard.layout = #r}) {
  %p = linalg.pack %a inner_dims_pos = [1] inner_tiles = [4] into %d : tensor<6x8xf32> -> tensor<6x2x4xf32>
  return %p : tensor<6x2x4xf32>
}
func.func @dyn(%a: tensor<?x6xf32> {shard.layout = #r}, %d: tensor<?x6xf32> {shard.layout = #c}) -> (tensor<?x6xf32> {shard.layout = #r}) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<?x6xf32>) outs(%d : tensor<?x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = arith.mulf %x, %x : f32
    linalg.yield %e : f32
  } -> tensor<?x6xf32>
  return %r : tensor<?x6xf32>
}
func.func @constmap(%a: tensor<8xf32> {shard.layout = #r}, %d: tensor<8x2xf32> {shard.layout = #r}) -> (tensor<8x2xf32> {shard.layout = #r}) {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i, 0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%d : tensor<8x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8x2xf32>
  return %r : tensor<8x2xf32>
}
func.func @shift(%a: tensor<8xf32> {shard.layout = #r}, %d: tensor<10xf32> {shard.layout = #r}) -> (tensor<10xf32> {shard.layout = #r}) {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%d : tensor<10xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<10xf32>
  return %r : tensor<10xf32>
}
func.func @zero(%a: tensor<0x6xf32> {shard.layout = #c}, %d: tensor<6xf32> {shard.layout = #r}) -> (tensor<6xf32> {shard.layout = #r}) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<0x6xf32>) outs(%d : tensor<6xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}
