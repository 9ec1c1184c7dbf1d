// tensor.generate (a causal mask from iotas, a table of the element's
// indices, as torch-mlir and graph-compiler's tests write them) is cut as
// its users need, each rank generating its own block: its body's indices
// made global (plus the block's offsets). Before: "'tensor.generate' op has
// no sharding rule" (26 refusals in a sweep over mlir-tv, a graph-compiler
// callee under auto=true). Every element checked on 2 and 3 ranks (3: rows
// of 2, 2 and 2; columns of 3, 3 and 2), nothing moves; @dyn's extent is a
// run-time one (5 and 7 rows), its global size summed once (8 B).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry gen --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=GEN2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry dyn --dynamic-size=5 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DYN2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry gen --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=GEN3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry dyn --dynamic-size=7 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=DYN3
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// GEN2: shard-run: rank 0: OK, 48 elements checked, received 0 bytes
// GEN2-NEXT: shard-run: rank 1: OK, 48 elements checked, received 0 bytes
// GEN3: shard-run: rank 0: OK, 34 elements checked, received 0 bytes
// GEN3-NEXT: shard-run: rank 1: OK, 34 elements checked, received 0 bytes
// GEN3-NEXT: shard-run: rank 2: OK, 28 elements checked, received 0 bytes
// DYN2: shard-run: rank 0: OK, 12 elements checked, received 8 bytes
// DYN2-NEXT: shard-run: rank 1: OK, 8 elements checked, received 8 bytes
// DYN3: shard-run: rank 0: OK, 12 elements checked, received 8 bytes
// DYN3-NEXT: shard-run: rank 1: OK, 12 elements checked, received 8 bytes
// DYN3-NEXT: shard-run: rank 2: OK, 4 elements checked, received 16 bytes
// The mask's rows cut: each rank's row index plus its offset (3 rows each).
// IR-LABEL: func.func @gen
// IR: %[[OFF:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<3xindex>
// IR: tensor.generate  {
// IR-NEXT: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
// IR-NEXT: arith.addi %[[I]], %[[OFF]] : index
// IR: } : tensor<3x8xf32>
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR-LABEL: func.func @dyn

#m = #shard.mesh<shape = [@N@]>
// A causal mask from the element's indices (row >= column), cut by rows;
// and a table of 10 * row + column, cut by columns.
func.func @gen(%x: tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
               %y: tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        tensor<6x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %zero = arith.constant 0.0 : f32
  %mask = tensor.generate {
  ^bb0(%i: index, %j: index):
    %keep = arith.cmpi uge, %i, %j : index
    %one = arith.constant 1.0 : f32
    %v = arith.select %keep, %one, %zero : f32
    tensor.yield %v : f32
  } : tensor<6x8xf32>
  %a = arith.mulf %x, %mask : tensor<6x8xf32>
  %table = tensor.generate {
  ^bb0(%i: index, %j: index):
    %c10 = arith.constant 10 : index
    %r = arith.muli %i, %c10 : index
    %s = arith.addi %r, %j : index
    %si = arith.index_cast %s : index to i32
    %f = arith.sitofp %si : i32 to f32
    tensor.yield %f : f32
  } : tensor<6x8xf32>
  %b = arith.addf %y, %table : tensor<6x8xf32>
  return %a, %b : tensor<6x8xf32>, tensor<6x8xf32>
}
// Rows of a run-time extent (the generate's extent operand), cut.
func.func @dyn(%x: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %t = tensor.generate %n {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    %si = arith.index_cast %s : index to i32
    %f = arith.sitofp %si : i32 to f32
    tensor.yield %f : f32
  } : tensor<?x4xf32>
  %b = arith.addf %x, %t : tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}
