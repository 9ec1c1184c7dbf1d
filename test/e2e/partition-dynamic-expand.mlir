// torch-mlir's aten.linear on a [B?, S?, K] input: the rows folded into
// [B*S, K], the matmul, and its [B*S, N] result expanded back into two dims
// of run-time size. Upstream MLIR 22's strided-metadata expansion crashed
// on that expand (shard-run exited with a segfault at every size);
// -shard-dynamic-expands writes it as a tensor.reshape before bufferizing.
// The batch cut: every element checked on 2 and 3 ranks at batch and
// sequence 3 and 5.
// REQUIRES: mpi
// RUN: for n in 2 3; do sed -e "s/@N@/$n/g" %s > %t.$n.mlir; for k in 3 5; do %mpirun -np $n %shard-run %t.$n.mlir --entry linear3 --check --dynamic-size $k 2>&1 | sort | sed -e "s/^/$n $k /"; done; done | FileCheck %s --implicit-check-not=error: --implicit-check-not=stopped
// CHECK: 2 3 shard-run: rank 0: OK, 36 elements checked
// CHECK-NEXT: 2 3 shard-run: rank 1: OK, 18 elements checked
// CHECK-NEXT: 2 5 shard-run: rank 0: OK, 90 elements checked
// CHECK-NEXT: 2 5 shard-run: rank 1: OK, 60 elements checked
// CHECK-NEXT: 3 3 shard-run: rank 0: OK, 18 elements checked
// CHECK-NEXT: 3 3 shard-run: rank 1: OK, 18 elements checked
// CHECK-NEXT: 3 3 shard-run: rank 2: OK, 18 elements checked
// CHECK-NEXT: 3 5 shard-run: rank 0: OK, 60 elements checked
// CHECK-NEXT: 3 5 shard-run: rank 1: OK, 60 elements checked
// CHECK-NEXT: 3 5 shard-run: rank 2: OK, 30 elements checked
#m = #shard.mesh<shape = [@N@], axes = ["x"]>
#R = #shard.placements<mesh = #m, placements = [R]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
func.func @linear3(%x: tensor<?x?x8xf32> {shard.layout = #S0}, %w: tensor<8x6xf32> {shard.layout = #R}) -> (tensor<?x?x6xf32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.000000e+00 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x8xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x8xf32>
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
  %n = tensor.dim %c, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x6xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x6xf32>) -> tensor<?x6xf32>
  %y = linalg.matmul ins(%c, %w : tensor<?x8xf32>, tensor<8x6xf32>) outs(%f : tensor<?x6xf32>) -> tensor<?x6xf32>
  %r = tensor.expand_shape %y [[0, 1], [2]] output_shape [%b, %s, 6] : tensor<?x6xf32> into tensor<?x?x6xf32>
  return %r : tensor<?x?x6xf32>
}
