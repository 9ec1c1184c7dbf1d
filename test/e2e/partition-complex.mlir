// Complex numbers inside a program (IREE's StableHLO tests: complex
// dot_general, FFTs): the lowering (--shard-to-llvm, shard-run) turns
// their arithmetic into real and imaginary parts and LLVM structs; before,
// shard-run stopped at JIT compilation ("LLVM Translation failed for
// operation: builtin.unrealized_conversion_cast", "complex.constant").
// Every element checked on 2 and 3 ranks:
// - @mk_complex: z = x + iy squared, its imaginary part: elementwise, the
//   rows stay cut, nothing moves;
// - @cmatmul: a complex matmul over a reduction cut on the ranks: a
//   complex partial sum is none the runtime reduces, so both f32 inputs
//   are gathered (4 x 3 + 3 x 5 floats = 108 B on 2 ranks; 4 x 4 + 4 x 5 =
//   144 B on 3, the 6 columns and 6 rows cut 2/2/2);
// - @complex_first: a complex op before any linalg op in the file (the
//   complex dialect was loaded with linalg only: such a file was refused at
//   parse, "Dialect 'complex' not found"); the rows stay cut.
// REQUIRES: mpi
// RUN: for n in 2 3; do sed -e "s/@N@/$n/g" %s > %t.$n.mlir; %mpirun -np $n %shard-run %t.$n.mlir --entry mk_complex,cmatmul,complex_first --check 2>&1 | sort | sed -e "s/^/$n /"; done | FileCheck %s --implicit-check-not=error:
// CHECK: 2 shard-run: @cmatmul: rank 0: OK, 20 elements checked, received 108 bytes
// CHECK-NEXT: 2 shard-run: @cmatmul: rank 1: OK, 20 elements checked, received 108 bytes
// CHECK-NEXT: 2 shard-run: @complex_first: rank 0: OK, 4 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @complex_first: rank 1: OK, 3 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @mk_complex: rank 0: OK, 4 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @mk_complex: rank 1: OK, 3 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @cmatmul: rank 0: OK, 20 elements checked, received 144 bytes
// CHECK-NEXT: 3 shard-run: @cmatmul: rank 1: OK, 20 elements checked, received 144 bytes
// CHECK-NEXT: 3 shard-run: @cmatmul: rank 2: OK, 20 elements checked, received 144 bytes
// CHECK-NEXT: 3 shard-run: @complex_first: rank 0: OK, 3 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @complex_first: rank 1: OK, 3 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @complex_first: rank 2: OK, 1 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @mk_complex: rank 0: OK, 3 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @mk_complex: rank 1: OK, 3 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @mk_complex: rank 2: OK, 1 elements checked, received 0 bytes
#m = #shard.mesh<shape = [@N@], axes = ["x"]>
#s0 = #shard.placements<mesh = #m, placements = [S(0)]>
#s1 = #shard.placements<mesh = #m, placements = [S(1)]>
#r = #shard.placements<mesh = #m, placements = [R]>
func.func @complex_first(%a: tensor<7xf32> {shard.layout = #s0}) -> (tensor<7xf32> {shard.layout = #s0}) {
  %c = complex.constant [2.0 : f32, 1.0 : f32] : complex<f32>
  %re = complex.re %c : complex<f32>
  %s = tensor.splat %re : tensor<7xf32>
  %r = arith.mulf %a, %s : tensor<7xf32>
  return %r : tensor<7xf32>
}
func.func @mk_complex(%a: tensor<7xf32> {shard.layout = #s0}, %b: tensor<7xf32> {shard.layout = #s0}) -> (tensor<7xf32> {shard.layout = #s0}) {
  %e = tensor.empty() : tensor<7xcomplex<f32>>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<7xf32>, tensor<7xf32>) outs(%e : tensor<7xcomplex<f32>>) {
  ^bb0(%x: f32, %y: f32, %o: complex<f32>):
    %z = complex.create %x, %y : complex<f32>
    %zz = complex.mul %z, %z : complex<f32>
    linalg.yield %zz : complex<f32>
  } -> tensor<7xcomplex<f32>>
  %e2 = tensor.empty() : tensor<7xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<7xcomplex<f32>>) outs(%e2 : tensor<7xf32>) {
  ^bb0(%x: complex<f32>, %o: f32):
    %i = complex.im %x : complex<f32>
    linalg.yield %i : f32
  } -> tensor<7xf32>
  return %r : tensor<7xf32>
}
func.func @cmatmul(%a: tensor<4x6xf32> {shard.layout = #s1}, %b: tensor<6x5xf32> {shard.layout = #s0}) -> (tensor<4x5xf32> {shard.layout = #r}) {
  %e = tensor.empty() : tensor<4x6xcomplex<f32>>
  %ca = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x6xf32>) outs(%e : tensor<4x6xcomplex<f32>>) {
  ^bb0(%x: f32, %o: complex<f32>):
    %z = complex.create %x, %x : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<4x6xcomplex<f32>>
  %e1 = tensor.empty() : tensor<6x5xcomplex<f32>>
  %cb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<6x5xf32>) outs(%e1 : tensor<6x5xcomplex<f32>>) {
  ^bb0(%x: f32, %o: complex<f32>):
    %zero = arith.constant 1.0 : f32
    %z = complex.create %x, %zero : complex<f32>
    linalg.yield %z : complex<f32>
  } -> tensor<6x5xcomplex<f32>>
  %cz = complex.constant [0.0 : f32, 0.0 : f32] : complex<f32>
  %e2 = tensor.empty() : tensor<4x5xcomplex<f32>>
  %f = linalg.fill ins(%cz : complex<f32>) outs(%e2 : tensor<4x5xcomplex<f32>>) -> tensor<4x5xcomplex<f32>>
  %mm = linalg.matmul ins(%ca, %cb : tensor<4x6xcomplex<f32>>, tensor<6x5xcomplex<f32>>) outs(%f : tensor<4x5xcomplex<f32>>) -> tensor<4x5xcomplex<f32>>
  %e3 = tensor.empty() : tensor<4x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x5xcomplex<f32>>) outs(%e3 : tensor<4x5xf32>) {
  ^bb0(%x: complex<f32>, %o: f32):
    %re = complex.re %x : complex<f32>
    %im = complex.im %x : complex<f32>
    %s = arith.addf %re, %im : f32
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}
