// A loop chosen with the ops around it (search=whole through scf.for):
// h = tanh(h x W), 8 trips, h [10x32] replicated in and out, W [32x32]
// rows cut, peak-gflops=1 (so that compute counts). The search gathers W
// once, before the loop, carries h's rows (uneven: 10 over 3 is 4, 4, 2;
// over 4, 3, 3, 3, 1) and gathers h once, after it; op by op reads h in
// the layout it comes in and moves it every trip. Every element checked
// on 2, 3 and 4 ranks. Bytes by hand (128 a row of h or W): on 4 ranks W
// lacks 24 rows (3072 B) and h 7 rows (896 B; 9 on rank 3: 1152 B); on 3,
// W 21 rows (22 on rank 2), h 6 (8); on 2, W 16 rows and h 5.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' %s | shard-opt -shard-propagate=peak-gflops=1 | FileCheck %s --check-prefix=IR
// IR: %[[H:.*]] = shard.constraint %arg0 layout {{[^}]*}}#layout_S0
// IR-NEXT: %[[W:.*]] = shard.constraint %arg1 layout {{[^}]*}}#layout_R
// IR-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %[[H]])
// RUN: for n in 2 3 4; do for s in whole greedy; do \
// RUN:   sed -e "s/@N@/$n/g" %s > %t.$n.mlir; \
// RUN:   %mpirun -np $n %shard-run %t.$n.mlir --entry steps --check --propagate="search=$s peak-gflops=1" 2>&1 | sort | sed -e "s/^/$n $s: /"; \
// RUN: done; done | FileCheck %s --implicit-check-not=error:
// CHECK: 2 whole: shard-run: rank 0: OK, 320 elements checked, received 2688 bytes
// CHECK-NEXT: 2 whole: shard-run: rank 1: OK, 320 elements checked, received 2688 bytes
// CHECK-NEXT: 2 greedy: shard-run: rank 0: OK, 320 elements checked, received 10240 bytes
// CHECK-NEXT: 2 greedy: shard-run: rank 1: OK, 320 elements checked, received 10240 bytes
// CHECK-NEXT: 3 whole: shard-run: rank 0: OK, 320 elements checked, received 3456 bytes
// CHECK-NEXT: 3 whole: shard-run: rank 1: OK, 320 elements checked, received 3456 bytes
// CHECK-NEXT: 3 whole: shard-run: rank 2: OK, 320 elements checked, received 3840 bytes
// CHECK-NEXT: 3 greedy: shard-run: rank 0: OK, 320 elements checked
// CHECK-NEXT: 3 greedy: shard-run: rank 1: OK, 320 elements checked
// CHECK-NEXT: 3 greedy: shard-run: rank 2: OK, 320 elements checked
// CHECK-NEXT: 4 whole: shard-run: rank 0: OK, 320 elements checked, received 3968 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 1: OK, 320 elements checked, received 3968 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 2: OK, 320 elements checked, received 3968 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 3: OK, 320 elements checked, received 4224 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 0: OK, 320 elements checked, received 15360 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 1: OK, 320 elements checked, received 15360 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 2: OK, 320 elements checked, received 15360 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 3: OK, 320 elements checked, received 15360 bytes
#m = #shard.mesh<shape = [@N@]>
func.func @steps(%h0: tensor<10x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                 %w: tensor<32x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<10x32xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%h = %h0) -> tensor<10x32xf32> {
    %e = tensor.empty() : tensor<10x32xf32>
    %z = arith.constant 0.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<10x32xf32>) -> tensor<10x32xf32>
    %y = linalg.matmul ins(%h, %w : tensor<10x32xf32>, tensor<32x32xf32>) outs(%f : tensor<10x32xf32>) -> tensor<10x32xf32>
    %t = math.tanh %y : tensor<10x32xf32>
    scf.yield %t : tensor<10x32xf32>
  }
  return %r : tensor<10x32xf32>
}

// Loops and branches nested (an scf.for in an scf.if in an scf.while, on
// a 2x2 mesh), both branches taken: the search's layouts, every element
// checked on 4 ranks (the else branch yields %x, which the loop carries
// transposed: %x is moved once, before the loop).
// RUN: sed -e "s/@N@/4/g" %s > %t.nest.mlir
// RUN: %mpirun -np 4 %shard-run %t.nest.mlir --entry nest_true,nest_false --check 2>&1 | sed -E "s/^shard-run: @nest_([a-z]+): /\1: shard-run: /" | FileCheck %s --check-prefix=NEST --implicit-check-not=error:
// NEST: true: shard-run: rank 0: OK, 16 elements checked, received 192 bytes
// NEST-NEXT: true: shard-run: rank 1: OK, 16 elements checked, received 192 bytes
// NEST-NEXT: true: shard-run: rank 2: OK, 16 elements checked, received 192 bytes
// NEST-NEXT: true: shard-run: rank 3: OK, 16 elements checked, received 192 bytes
// NEST-NEXT: false: shard-run: rank 0: OK, 16 elements checked, received 192 bytes
// NEST-NEXT: false: shard-run: rank 1: OK, 16 elements checked, received 192 bytes
// NEST-NEXT: false: shard-run: rank 2: OK, 16 elements checked, received 192 bytes
// NEST-NEXT: false: shard-run: rank 3: OK, 16 elements checked, received 192 bytes
#q = #shard.mesh<shape = [2, 2]>
func.func @nest_true(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #q, placements = [S(0), S(1)]>}) -> tensor<8x8xf32> {
  %c = arith.constant true
  %n = arith.constant 3 : i32
  %c0 = arith.constant 0 : i32
  %r:2 = scf.while (%t = %x, %i = %c0) : (tensor<8x8xf32>, i32) -> (tensor<8x8xf32>, i32) {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %t, %i : tensor<8x8xf32>, i32
  } do {
  ^bb0(%u: tensor<8x8xf32>, %j: i32):
    %v = scf.if %c -> tensor<8x8xf32> {
      %z0 = arith.constant 0 : index
      %z1 = arith.constant 1 : index
      %z4 = arith.constant 4 : index
      %q = scf.for %k = %z0 to %z4 step %z1 iter_args(%p = %u) -> tensor<8x8xf32> {
        %e = tensor.empty() : tensor<8x8xf32>
        %tt = linalg.transpose ins(%p : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
        scf.yield %tt : tensor<8x8xf32>
      }
      scf.yield %q : tensor<8x8xf32>
    } else {
      scf.yield %x : tensor<8x8xf32>
    }
    %one = arith.constant 1 : i32
    %k2 = arith.addi %j, %one : i32
    scf.yield %v, %k2 : tensor<8x8xf32>, i32
  }
  scf.if %c {
    %s = math.sin %r#0 : tensor<8x8xf32>
  }
  return %r#0 : tensor<8x8xf32>
}
func.func @nest_false(%x: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #q, placements = [S(0), S(1)]>}) -> tensor<8x8xf32> {
  %c = arith.constant false
  %n = arith.constant 3 : i32
  %c0 = arith.constant 0 : i32
  %r:2 = scf.while (%t = %x, %i = %c0) : (tensor<8x8xf32>, i32) -> (tensor<8x8xf32>, i32) {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %t, %i : tensor<8x8xf32>, i32
  } do {
  ^bb0(%u: tensor<8x8xf32>, %j: i32):
    %v = scf.if %c -> tensor<8x8xf32> {
      %z0 = arith.constant 0 : index
      %z1 = arith.constant 1 : index
      %z4 = arith.constant 4 : index
      %q = scf.for %k = %z0 to %z4 step %z1 iter_args(%p = %u) -> tensor<8x8xf32> {
        %e = tensor.empty() : tensor<8x8xf32>
        %tt = linalg.transpose ins(%p : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
        scf.yield %tt : tensor<8x8xf32>
      }
      scf.yield %q : tensor<8x8xf32>
    } else {
      scf.yield %x : tensor<8x8xf32>
    }
    %one = arith.constant 1 : i32
    %k2 = arith.addi %j, %one : i32
    scf.yield %v, %k2 : tensor<8x8xf32>, i32
  }
  scf.if %c {
    %s = math.sin %r#0 : tensor<8x8xf32>
  }
  return %r#0 : tensor<8x8xf32>
}
