// A value needed in several layouts is moved once per layout, each from
// the cheapest source (issue 27, item 1): here the value itself (S(0)) or
// its other copy. Gathered to R, it is sliced to S(1) for free, not moved
// again by an all-to-all. Under both searches; every element checked on 2,
// 3 and 4 ranks, and each rank receives only the gather's bytes.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/3/g' %s | shard-opt -shard-propagate=explain=true --mlir-print-op-on-diagnostic=false -o %t.ir.mlir 2> %t.explain.txt
// RUN: FileCheck %s --check-prefix=IR < %t.ir.mlir
// RUN: sed -e 's/@N@/3/g' %s | shard-opt -shard-propagate=search=greedy | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=EXPLAIN < %t.explain.txt
// IR: %[[S0:.*]] = shard.constraint %{{.*}}#layout_S0
// IR-NEXT: %[[R:.*]] = shard.constraint %[[S0]] layout {{.*}}#layout_R
// IR-NEXT: %[[S1:.*]] = shard.constraint %[[R]] layout {{.*}}#layout_S1
// IR-NEXT: return %[[R]], %[[S1]]
// EXPLAIN: remark: kept d0 on axis 0 (compute {{.*}} us; %0 [S(0)] -> [R]: 480 bytes, 4 us); best rejected
// On 3 ranks each launch runs @square (below) too.
// RUN: for n in 2 3 4; do for s in whole greedy; do \
// RUN:   sed -e "s/@N@/$n/g" %s > %t.$n.mlir; \
// RUN:   entries=copies; if [ $n = 3 ]; then entries=copies,square; fi; \
// RUN:   %mpirun -np $n %shard-run %t.$n.mlir --entry $entries --check --propagate=search=$s > %t.$n.$s.txt 2>&1; \
// RUN:   if [ $n = 3 ]; then %entry-lines copies %t.$n.$s.txt; else sort %t.$n.$s.txt; fi | sed -e "s/^/$n $s: /"; \
// RUN: done; done | FileCheck %s --implicit-check-not=error:
// RUN: not grep error: %t.2.whole.txt %t.3.whole.txt %t.4.whole.txt %t.2.greedy.txt %t.3.greedy.txt %t.4.greedy.txt
// 10 rows of 6 f32: each rank receives the rows it lacks (24 bytes a row).
// CHECK: 2 whole: shard-run: rank 0: OK, 90 elements checked, received 120 bytes
// CHECK-NEXT: 2 whole: shard-run: rank 1: OK, 90 elements checked, received 120 bytes
// CHECK-NEXT: 2 greedy: shard-run: rank 0: OK, 90 elements checked, received 120 bytes
// CHECK-NEXT: 2 greedy: shard-run: rank 1: OK, 90 elements checked, received 120 bytes
// CHECK-NEXT: 3 whole: shard-run: rank 0: OK, 80 elements checked, received 144 bytes
// CHECK-NEXT: 3 whole: shard-run: rank 1: OK, 80 elements checked, received 144 bytes
// CHECK-NEXT: 3 whole: shard-run: rank 2: OK, 80 elements checked, received 192 bytes
// CHECK-NEXT: 3 greedy: shard-run: rank 0: OK, 80 elements checked, received 144 bytes
// CHECK-NEXT: 3 greedy: shard-run: rank 1: OK, 80 elements checked, received 144 bytes
// CHECK-NEXT: 3 greedy: shard-run: rank 2: OK, 80 elements checked, received 192 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 0: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 1: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 2: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 whole: shard-run: rank 3: OK, 60 elements checked, received 216 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 0: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 1: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 2: OK, 80 elements checked, received 168 bytes
// CHECK-NEXT: 4 greedy: shard-run: rank 3: OK, 60 elements checked, received 216 bytes
// A tensor times itself (torch.mm(x, x) as torch-mlir lowers it to
// linalg), x cut by columns: its rows are cut for the left operand and it
// is whole for the right one. The search gathers x once and slices the row
// blocks from the gathered copy (4.002 us modelled, where a gather and an
// all-to-all from x cost 8); op by op moves more.
// RUN: FileCheck %s --check-prefix=SQUARE < %t.explain.txt
// SQUARE: remark: search=whole chose the shardings of 3 ops {{.*}} proven optimal: modelled 4.002 us
// SQUARE: remark: kept d0 on axis 0 (compute {{.*}} us; %arg0 [S(1)] -> [R]: 800 bytes, 4 us); best rejected
// RUN: sed -e "s/@N@/3/g" %s > %t.sq.mlir
// RUN: for s in whole greedy; do %entry-lines square %t.3.$s.txt | sed -e "s/^/$s: /"; done | FileCheck %s --check-prefix=SQRANKS --implicit-check-not=error:
// SQRANKS: whole: shard-run: rank 0: OK, 40 elements checked, received 240 bytes
// SQRANKS-NEXT: whole: shard-run: rank 1: OK, 40 elements checked, received 240 bytes
// SQRANKS-NEXT: whole: shard-run: rank 2: OK, 20 elements checked, received 320 bytes
// SQRANKS-NEXT: greedy: shard-run: rank 0: OK, 40 elements checked, received 336 bytes
// SQRANKS-NEXT: greedy: shard-run: rank 1: OK, 40 elements checked, received 336 bytes
// SQRANKS-NEXT: greedy: shard-run: rank 2: OK, 20 elements checked, received 384 bytes
// Every value feeding every later op on a 2x2 mesh (the @dense function
// of shard-propagate-search.mlir): solved by the integer program of copies
// (proven) inside each of 4 MPI ranks, whose CBC runs in a forked child,
// and every element checked.
// RUN: %mpirun -np 4 %shard-run %t.sq.mlir --entry dense --check 2>&1 | sort | FileCheck %s --check-prefix=DENSE --implicit-check-not=error:
// DENSE: shard-run: rank 0: OK, 16 elements checked
// DENSE-NEXT: shard-run: rank 1: OK, 16 elements checked
// DENSE-NEXT: shard-run: rank 2: OK, 16 elements checked
// DENSE-NEXT: shard-run: rank 3: OK, 16 elements checked

#m = #shard.mesh<shape = [@N@]>
func.func @copies(%x: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
        tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %a = math.exp %x : tensor<10x6xf32>
  return %a, %a : tensor<10x6xf32>, tensor<10x6xf32>
}

func.func @square(%arg0: tensor<10x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
    -> (tensor<10x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<10x10xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<10x10xf32>) -> tensor<10x10xf32>
  %2 = linalg.matmul ins(%arg0, %arg0 : tensor<10x10xf32>, tensor<10x10xf32>) outs(%1 : tensor<10x10xf32>) -> tensor<10x10xf32>
  return %2 : tensor<10x10xf32>
}

#m22 = #shard.mesh<shape = [2, 2]>
func.func @dense(%a: tensor<8x8xf32> {shard.layout = #shard.placements<mesh = #m22, placements = [S(0), S(1)]>}, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x8xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m0 = linalg.matmul ins(%b, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x8xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m1 = linalg.matmul ins(%m0, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s1_0 = arith.addf %m1, %a : tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m2 = linalg.matmul ins(%s1_0, %m0 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s2_0 = arith.addf %m2, %a : tensor<8x8xf32>
  %s2_1 = arith.addf %s2_0, %b : tensor<8x8xf32>
  %e3 = tensor.empty() : tensor<8x8xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m3 = linalg.matmul ins(%s2_1, %s1_0 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f3 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s3_0 = arith.addf %m3, %a : tensor<8x8xf32>
  %s3_1 = arith.addf %s3_0, %b : tensor<8x8xf32>
  %s3_2 = arith.addf %s3_1, %m0 : tensor<8x8xf32>
  return %s3_2 : tensor<8x8xf32>
}
