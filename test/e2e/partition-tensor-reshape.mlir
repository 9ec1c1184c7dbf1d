// tensor.reshape of static shapes (its shape a tensor operand, as
// StableHLO's and TOSA's lowerings write a reshape) takes tosa.reshape's
// rule and partition, and tensor.from_elements (a small tensor of scalars)
// is made whole on every rank; before, both were refused ("has no sharding
// rule"). Every element of every result checked on 2, 3 and 4 ranks:
// - @split: [6, 8] columns cut into [6, 2, 4] heads: on 2 ranks each holds
//   one head's 4 columns, nothing moves; on 3 and 4, torch.chunk's cuts of
//   8 columns (3/3/2, 2/2/2/2) fall inside the heads, which are moved;
// - @fold: [3, 2, 4] rows folded into [6, 4]: on 3 and 4 ranks each rank's
//   rows (1/1/1, 1/1/1/0) fold into its rows of the result (2/2/2,
//   2/2/2/0), nothing moves; on 2 (2/1 rows into 3/3) some move;
// - @unit_dims: [5, 1, 6] into [1, 5, 6], the 5 rows cut: they stay cut;
// - @neither: [6, 4] into [4, 6] neither folds nor splits: gathered (each
//   rank receives the rows it lacks: 48 B on 2 ranks; 64 B on 3; on 4,
//   rows 2/2/2/0: 64 B, and 96 B on the rank that holds none), reshaped
//   whole and sliced;
// - @scalars: a row of scalars (tensor.from_elements) scales a tensor cut
//   by columns: each rank makes the row and reads its columns of it.
// REQUIRES: mpi
// RUN: for n in 2 3 4; do sed -e "s/@N@/$n/g" %s > %t.$n.mlir; %mpirun -np $n %shard-run %t.$n.mlir --entry split,fold,unit_dims,neither,scalars --check 2>&1 | sort | sed -e "s/^/$n /"; done | FileCheck %s --implicit-check-not=error:
// CHECK: 2 shard-run: @fold: rank 0: OK, 12 elements checked
// CHECK-NEXT: 2 shard-run: @fold: rank 1: OK, 12 elements checked
// CHECK-NEXT: 2 shard-run: @neither: rank 0: OK, 12 elements checked, received 48 bytes
// CHECK-NEXT: 2 shard-run: @neither: rank 1: OK, 12 elements checked, received 48 bytes
// CHECK-NEXT: 2 shard-run: @scalars: rank 0: OK, 12 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @scalars: rank 1: OK, 12 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @split: rank 0: OK, 24 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @split: rank 1: OK, 24 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @unit_dims: rank 0: OK, 18 elements checked, received 0 bytes
// CHECK-NEXT: 2 shard-run: @unit_dims: rank 1: OK, 12 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @fold: rank 0: OK, 8 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @fold: rank 1: OK, 8 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @fold: rank 2: OK, 8 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @neither: rank 0: OK, 12 elements checked, received 64 bytes
// CHECK-NEXT: 3 shard-run: @neither: rank 1: OK, 12 elements checked, received 64 bytes
// CHECK-NEXT: 3 shard-run: @neither: rank 2: OK, 0 elements checked, received 64 bytes
// CHECK-NEXT: 3 shard-run: @scalars: rank 0: OK, 12 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @scalars: rank 1: OK, 12 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @scalars: rank 2: OK, 0 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @split: rank 0: OK, 24 elements checked
// CHECK-NEXT: 3 shard-run: @split: rank 1: OK, 24 elements checked
// CHECK-NEXT: 3 shard-run: @split: rank 2: OK, 0 elements checked
// CHECK-NEXT: 3 shard-run: @unit_dims: rank 0: OK, 12 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @unit_dims: rank 1: OK, 12 elements checked, received 0 bytes
// CHECK-NEXT: 3 shard-run: @unit_dims: rank 2: OK, 6 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @fold: rank 0: OK, 8 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @fold: rank 1: OK, 8 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @fold: rank 2: OK, 8 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @fold: rank 3: OK, 0 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @neither: rank 0: OK, 6 elements checked, received 64 bytes
// CHECK-NEXT: 4 shard-run: @neither: rank 1: OK, 6 elements checked, received 64 bytes
// CHECK-NEXT: 4 shard-run: @neither: rank 2: OK, 6 elements checked, received 64 bytes
// CHECK-NEXT: 4 shard-run: @neither: rank 3: OK, 6 elements checked, received 96 bytes
// CHECK-NEXT: 4 shard-run: @scalars: rank 0: OK, 6 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @scalars: rank 1: OK, 6 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @scalars: rank 2: OK, 6 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @scalars: rank 3: OK, 6 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @split: rank 0: OK, 24 elements checked
// CHECK-NEXT: 4 shard-run: @split: rank 1: OK, 24 elements checked
// CHECK-NEXT: 4 shard-run: @split: rank 2: OK, 0 elements checked
// CHECK-NEXT: 4 shard-run: @split: rank 3: OK, 0 elements checked
// CHECK-NEXT: 4 shard-run: @unit_dims: rank 0: OK, 12 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @unit_dims: rank 1: OK, 12 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @unit_dims: rank 2: OK, 6 elements checked, received 0 bytes
// CHECK-NEXT: 4 shard-run: @unit_dims: rank 3: OK, 0 elements checked, received 0 bytes
// The partitioned split: each rank's columns split into its head, the shape
// constant left unused.
// RUN: sed -e "s/@N@/2/g" %s | shard-opt -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @split
// IR-NOT: shard.spmd
// IR: tensor.expand_shape %arg0 {{\[\[}}0], [1, 2{{\]\]}} output_shape [6, 1, 4] : tensor<6x4xf32> into tensor<6x1x4xf32>
// IR-NOT: shard.spmd
// IR: return
#m = #shard.mesh<shape = [@N@], axes = ["x"]>
#rows = #shard.placements<mesh = #m, placements = [S(0)]>
#cols = #shard.placements<mesh = #m, placements = [S(1)]>
func.func @split(%x: tensor<6x8xf32> {shard.layout = #cols}) -> (tensor<6x2x4xf32> {shard.layout = #cols}) {
  %shape = arith.constant dense<[6, 2, 4]> : tensor<3xi64>
  %r = tensor.reshape %x(%shape) : (tensor<6x8xf32>, tensor<3xi64>) -> tensor<6x2x4xf32>
  return %r : tensor<6x2x4xf32>
}
func.func @fold(%x: tensor<3x2x4xf32> {shard.layout = #rows}) -> (tensor<6x4xf32> {shard.layout = #rows}) {
  %shape = arith.constant dense<[6, 4]> : tensor<2xindex>
  %r = tensor.reshape %x(%shape) : (tensor<3x2x4xf32>, tensor<2xindex>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
func.func @unit_dims(%x: tensor<5x1x6xf32> {shard.layout = #rows}) -> (tensor<1x5x6xf32> {shard.layout = #cols}) {
  %shape = arith.constant dense<[1, 5, 6]> : tensor<3xi32>
  %r = tensor.reshape %x(%shape) : (tensor<5x1x6xf32>, tensor<3xi32>) -> tensor<1x5x6xf32>
  return %r : tensor<1x5x6xf32>
}
func.func @neither(%x: tensor<6x4xf32> {shard.layout = #rows}) -> (tensor<4x6xf32> {shard.layout = #rows}) {
  %shape = arith.constant dense<[4, 6]> : tensor<2xi64>
  %r = tensor.reshape %x(%shape) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func @scalars(%x: tensor<6x4xf32> {shard.layout = #cols}, %s: tensor<f32>) -> (tensor<6x4xf32> {shard.layout = #cols}) {
  %v = tensor.extract %s[] : tensor<f32>
  %two = arith.constant 2.0 : f32
  %w = arith.mulf %v, %two : f32
  %row = tensor.from_elements %w, %v, %two, %w : tensor<4xf32>
  %e = tensor.empty() : tensor<6x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %row : tensor<6x4xf32>, tensor<4xf32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
