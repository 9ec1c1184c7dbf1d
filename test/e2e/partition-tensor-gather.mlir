// tensor.gather (issue 43, item 1): a table cut along a dim it does not
// gather stays cut, each rank gathering its columns of the rows the indices
// pick (a column-parallel embedding: nothing moves); indices cut along their
// batch give the result cut alike (nothing moves); a table cut along the
// gathered dim is needed whole there. Every element checked on 2, 3 and 4
// ranks (columns and rows that do not divide evenly).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry columns,batch,rows --check > %t.run1 2>&1
// RUN: %entry-lines columns %t.run1 | FileCheck %s --check-prefix=ZERO4
// RUN: %entry-lines batch %t.run1 | FileCheck %s --check-prefix=ZERO4
// RUN: %entry-lines rows %t.run1 | FileCheck %s --check-prefix=OK4
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry columns,batch,rows --check > %t.run2 2>&1
// RUN: %entry-lines columns %t.run2 | FileCheck %s --check-prefix=ZERO3
// RUN: %entry-lines batch %t.run2 | FileCheck %s --check-prefix=ZERO3
// RUN: %entry-lines rows %t.run2 | FileCheck %s --check-prefix=OK3
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry columns --check | sort | FileCheck %s --check-prefix=ZERO2
// IR-LABEL: func.func @columns
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: tensor.gather
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR-LABEL: func.func @batch
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: tensor.gather
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR-LABEL: func.func @rows
// IR: shard.spmd.all_gather
// IR: tensor.gather
// ZERO2: rank 0: OK, {{.*}} received 0 bytes
// ZERO2-NEXT: rank 1: OK, {{.*}} received 0 bytes
// ZERO3: rank 0: OK, {{.*}} received 0 bytes
// ZERO3-NEXT: rank 1: OK, {{.*}} received 0 bytes
// ZERO3-NEXT: rank 2: OK, {{.*}} received 0 bytes
// ZERO4: rank 0: OK, {{.*}} received 0 bytes
// ZERO4-NEXT: rank 1: OK, {{.*}} received 0 bytes
// ZERO4-NEXT: rank 2: OK, {{.*}} received 0 bytes
// ZERO4-NEXT: rank 3: OK, {{.*}} received 0 bytes
// OK3: rank 0: OK
// OK3-NEXT: rank 1: OK
// OK3-NEXT: rank 2: OK
// OK4: rank 0: OK
// OK4-NEXT: rank 1: OK
// OK4-NEXT: rank 2: OK
// OK4-NEXT: rank 3: OK

#m = #shard.mesh<shape = [@N@]>

// Columns of the table (7 over the ranks), rows picked by the data.
func.func @columns(%t: tensor<10x7xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<5x7xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %i = arith.constant dense<[[3], [0], [9], [3], [7]]> : tensor<5x1xindex>
  %r = tensor.gather %t[%i] gather_dims([0]) : (tensor<10x7xf32>, tensor<5x1xindex>) -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}

// The indices' batch (5 over the ranks), the table whole on each rank.
func.func @batch(%t: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<5x1x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %i = arith.constant dense<[[3], [0], [9], [3], [7]]> : tensor<5x1xindex>
  %r = tensor.gather %t[%i] gather_dims([0]) : (tensor<10x6xf32>, tensor<5x1xindex>) -> tensor<5x1x6xf32>
  return %r : tensor<5x1x6xf32>
}

// The table cut along the gathered rows: made whole first.
func.func @rows(%t: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<5x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %i = arith.constant dense<[[3], [0], [9], [3], [7]]> : tensor<5x1xindex>
  %r = tensor.gather %t[%i] gather_dims([0]) : (tensor<10x6xf32>, tensor<5x1xindex>) -> tensor<5x6xf32>
  return %r : tensor<5x6xf32>
}
