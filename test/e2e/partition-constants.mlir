// A causal mask computed from the loop indices runs on each rank's rows.
// Constants never move (issue 43, item 3): a constant needed in several
// layouts is made again in each, where first needed, each rank building
// its own part; none is carried by a collective, so an i1 mask never
// reaches the runtime. Every element checked on 2, 3 and 4 ranks, with
// 0 bytes received; the partitioned IR has no collective at all.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry dense_twice,mask_twice,iota_mask --check > %t.run1 2>&1
// RUN: %entry-lines dense_twice %t.run1 | FileCheck %s --check-prefix=OK4
// RUN: %entry-lines mask_twice %t.run1 | FileCheck %s --check-prefix=OK4
// RUN: %entry-lines iota_mask %t.run1 | FileCheck %s --check-prefix=OK4
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry iota_mask,dense_twice,mask_twice --check > %t.run2 2>&1
// RUN: %entry-lines iota_mask %t.run2 | FileCheck %s --check-prefix=OK3
// RUN: %entry-lines dense_twice %t.run2 | FileCheck %s --check-prefix=OK3
// RUN: %entry-lines mask_twice %t.run2 | FileCheck %s --check-prefix=OK3
// A constant read P(sum) (added to a matmul's partial sums, the result
// left partial) is made whole by every rank and kept on the first copy,
// where the search priced it so: nothing moves.
// RUN: shard-opt %t.4.mlir -shard-propagate | FileCheck %s --check-prefix=MADE
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry partial_made --check | sort | FileCheck %s --check-prefix=OK4
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry partial_made --check | sort | FileCheck %s --check-prefix=OK3
// MADE-LABEL: func.func @partial_made
// MADE: linalg.matmul
// MADE: %[[C:.*]] = arith.constant {shard.sharding = {{.*}}loops = [-]>} dense<{{.*}}3.5
// MADE-NEXT: %[[W:.*]] = shard.constraint %[[C]] layout #layout_R
// MADE-NEXT: %[[P:.*]] = shard.constraint %[[W]] layout #layout_Psum
// MADE-NEXT: arith.addf %{{.*}}, %[[P]]
// A fill of a tensor.empty read in two layouts is made again in each,
// its tensor.empty with it; nothing moves and nothing made is left unread.
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry fill_twice --check | sort | FileCheck %s --check-prefix=OK4
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry fill_twice --check | sort | FileCheck %s --check-prefix=OK3
// FILL-LABEL: func.func @fill_twice
// FILL: %[[E0:.*]] = tensor.empty() {{.*}}loops = [d0]
// FILL-NEXT: %[[C0:.*]] = shard.constraint %[[E0]] layout #layout_S0
// FILL-NEXT: linalg.fill {{.*}}outs(%[[C0]]
// FILL: linalg.matmul
// FILL: %[[E1:.*]] = tensor.empty() {{.*}}loops = [d1]
// FILL-NEXT: %[[C1:.*]] = shard.constraint %[[E1]] layout #layout_S1
// FILL-NEXT: linalg.fill {{.*}}outs(%[[C1]]
// FILL-NOT: tensor.empty
// FILL: return
// RUN: shard-opt %t.4.mlir -shard-propagate | FileCheck %s --check-prefix=FILL
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry mask_twice --check | sort | FileCheck %s --check-prefix=OK2
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: func.func @dense_twice
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: func.func @mask_twice
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// A payload reading its loop indices (a causal mask applied in place) is
// cut along them: each linalg.index read plus this rank's offset of the
// loop (before, such a loop was never cut and x was gathered).
// IR: func.func @iota_mask
// IR: linalg.index 0
// IR-NEXT: arith.addi
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// OK2: rank 0: OK, {{.*}} received 0 bytes
// OK2-NEXT: rank 1: OK, {{.*}} received 0 bytes
// OK3: rank 0: OK, {{.*}} received 0 bytes
// OK3-NEXT: rank 1: OK, {{.*}} received 0 bytes
// OK3-NEXT: rank 2: OK, {{.*}} received 0 bytes
// OK4: rank 0: OK, {{.*}} received 0 bytes
// OK4-NEXT: rank 1: OK, {{.*}} received 0 bytes
// OK4-NEXT: rank 2: OK, {{.*}} received 0 bytes
// OK4-NEXT: rank 3: OK, {{.*}} received 0 bytes

#m = #shard.mesh<shape = [@N@]>
#id = affine_map<(i, j) -> (i, j)>

// A dense constant added to rows and multiplied into columns.
func.func @dense_twice(%x: tensor<5x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                       %y: tensor<5x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<5x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        tensor<5x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %c = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.0]]> : tensor<5x4xf32>
  %a = arith.addf %x, %c : tensor<5x4xf32>
  %b = arith.mulf %y, %c : tensor<5x4xf32>
  return %a, %b : tensor<5x4xf32>, tensor<5x4xf32>
}

// A causal mask selecting in a tensor cut by rows and in one cut by
// columns.
func.func @mask_twice(%x: tensor<5x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                      %y: tensor<5x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<5x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        tensor<5x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %causal = arith.constant dense<[[true, false, false, false, false], [true, true, false, false, false], [true, true, true, false, false], [true, true, true, true, false], [true, true, true, true, true]]> : tensor<5x5xi1>
  %zero = arith.constant dense<0.0> : tensor<5x5xf32>
  %a = arith.select %causal, %x, %zero : tensor<5x5xi1>, tensor<5x5xf32>
  %b = arith.select %causal, %y, %zero : tensor<5x5xi1>, tensor<5x5xf32>
  return %a, %b : tensor<5x5xf32>, tensor<5x5xf32>
}

func.func @iota_mask(%x: tensor<5x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<5x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %e = tensor.empty() : tensor<5x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<5x6xf32>) outs(%e : tensor<5x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.cmpi uge, %i, %j : index
    %z = arith.constant 0.0 : f32
    %s = arith.select %k, %v, %z : f32
    linalg.yield %s : f32
  } -> tensor<5x6xf32>
  return %r : tensor<5x6xf32>
}

// A constant added to a matmul's partial sums (k cut), the result partial:
// read P(sum), the constant is made whole on every rank and kept on the
// first copy (the others hold 0).
func.func @partial_made(%a: tensor<5x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                        %b: tensor<4x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<5x3xf32> {shard.layout = #shard.placements<mesh = #m, placements = [P(sum)]>}) {
  %c = arith.constant dense<[[1.0, 2.0, 3.5], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0], [13.0, 14.0, 15.0]]> : tensor<5x3xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<5x4xf32>, tensor<4x3xf32>) outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  %s = arith.addf %mm, %c : tensor<5x3xf32>
  return %s : tensor<5x3xf32>
}

// A fill of a tensor.empty (as torch-mlir makes an init), made once and
// read in two layouts: the init of a matmul cut by rows and an addend cut
// by columns. Each is made again in its layout: nothing moves.
func.func @fill_twice(%a: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                      %b: tensor<4x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                      %y: tensor<6x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<6x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        tensor<6x5xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %c = arith.constant 2.5 : f32
  %e = tensor.empty() : tensor<6x5xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<6x5xf32>) -> tensor<6x5xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<6x4xf32>, tensor<4x5xf32>) outs(%f : tensor<6x5xf32>) -> tensor<6x5xf32>
  %s = arith.addf %y, %f : tensor<6x5xf32>
  return %mm, %s : tensor<6x5xf32>, tensor<6x5xf32>
}
