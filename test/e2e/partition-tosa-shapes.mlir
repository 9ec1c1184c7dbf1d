// TOSA's shape ops under sharding (issue 26, item 1): tosa.reshape that
// splits or folds dims (the rule of expand_shape / collapse_shape;
// partitioned into them on local blocks), tosa.transpose (dims follow the
// permutation), tosa.reduce_sum and reduce_max (the axis a reduction: each
// rank's reduction of its part is partial, then combined). Every element
// checked on 2, 3 and 4 ranks.
// - 16 features split into 4 heads of 4, cut by features over 2 ranks
//   (8/8: heads 2/2) stay cut through the reshape, the transpose and the
//   reduction over the other dim, nothing moves for them; over 4 ranks one
//   head each, also nothing; over 3 (6/6/4 features, heads cut inside) the
//   reshape says so in a remark and the features are gathered.
// - a max over the rows cut over the ranks: each rank's max of its rows,
//   then one all-reduce (max).
// - a flattening reshape of rows cut over the ranks: 60 = 6 rows x 10 over
//   2 ranks cuts 30/30 (3 rows each: aligned, nothing moves); over 4 (15
//   each, rows 2, 2, 2, 0) it is not aligned and the rows are gathered.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry tosa_shapes --check --propagate=search=greedy 2>&1 | sort | FileCheck %s --implicit-check-not=error: --implicit-check-not=remark: --check-prefix=NP2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry tosa_shapes --check --propagate=search=greedy 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry tosa_shapes --check --propagate=search=greedy 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: shard-opt %t.2.mlir -shard-propagate=search=greedy -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// Op by op (--propagate=search=greedy: the default search gathers the
// max's rows on 2 ranks instead, 152 bytes in 2 collectives, 4 us
// modelled, against 72 bytes in 3, 6 us):
// NP2: shard-run: rank 0: OK, 150 elements checked, received 72 bytes
// NP2-NEXT: shard-run: rank 1: OK, 150 elements checked, received 72 bytes
// NP3: remark: operand #0 asks for a sharding whose d1 (4 steps of 4 elements of a folded dim of 16) is not sharded on axis 0
// NP3: shard-run: rank 0: OK
// NP3-NEXT: shard-run: rank 1: OK
// NP3-NEXT: shard-run: rank 2: OK
// NP4: remark: operand #0 asks for a sharding whose d0 (6 steps of 10 elements of a folded dim of 60) is not sharded on axis 0
// NP4: shard-run: rank 0: OK, 93 elements checked
// NP4-NEXT: shard-run: rank 1: OK, 93 elements checked
// NP4-NEXT: shard-run: rank 2: OK, 93 elements checked
// NP4-NEXT: shard-run: rank 3: OK, 73 elements checked
// On 2 ranks: the heads split on local blocks, transposed and reduced
// there; the row max all-reduced; the flattening local too.
// LOCAL: tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [8, 2, 4] : tensor<8x8xf32> into tensor<8x2x4xf32>
// LOCAL: tosa.transpose %{{.*}} {perms = array<i32: 1, 0, 2>} : (tensor<8x2x4xf32>) -> tensor<2x8x4xf32>
// LOCAL: tosa.reduce_sum %{{.*}} {axis = 1 : i32} : (tensor<2x8x4xf32>) -> tensor<2x1x4xf32>
// LOCAL: tosa.reduce_max %arg1 {axis = 0 : i32} : (tensor<3x10xf32>) -> tensor<1x10xf32>
// LOCAL: tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<3x10xf32> into tensor<30xf32>
// LOCAL: shard.spmd.all_reduce %{{.*}} reduce max

#m = #shard.mesh<shape = [@N@]>
#Rows = #shard.placements<mesh = #m, placements = [S(0)]>
#Cols = #shard.placements<mesh = #m, placements = [S(1)]>
#R = #shard.placements<mesh = #m, placements = [R]>
func.func @tosa_shapes(%x: tensor<8x16xf32> {shard.layout = #Cols}, %y: tensor<6x10xf32> {shard.layout = #Rows})
    -> (tensor<4x8x4xf32> {shard.layout = #Rows}, tensor<4x1x4xf32> {shard.layout = #R},
        tensor<1x10xf32> {shard.layout = #R}, tensor<60xf32> {shard.layout = #Rows},
        tensor<10x6xf32> {shard.layout = #Cols}) {
  %s3 = tosa.const_shape {values = dense<[8, 4, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %h = tosa.reshape %x, %s3 : (tensor<8x16xf32>, !tosa.shape<3>) -> tensor<8x4x4xf32>
  %t = tosa.transpose %h {perms = array<i32: 1, 0, 2>} : (tensor<8x4x4xf32>) -> tensor<4x8x4xf32>
  %r = tosa.reduce_sum %t {axis = 1 : i32} : (tensor<4x8x4xf32>) -> tensor<4x1x4xf32>
  %mx = tosa.reduce_max %y {axis = 0 : i32} : (tensor<6x10xf32>) -> tensor<1x10xf32>
  %s1 = tosa.const_shape {values = dense<[60]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %f = tosa.reshape %y, %s1 : (tensor<6x10xf32>, !tosa.shape<1>) -> tensor<60xf32>
  %yt = tosa.transpose %y {perms = array<i32: 1, 0>} : (tensor<6x10xf32>) -> tensor<10x6xf32>
  return %t, %r, %mx, %f, %yt : tensor<4x8x4xf32>, tensor<4x1x4xf32>, tensor<1x10xf32>, tensor<60xf32>, tensor<10x6xf32>
}
