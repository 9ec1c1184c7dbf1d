// A function without layouts of its own that gets them through its call of
// a kernel pinning them is a root of the callees' copies as a function with
// layouts is (its call of a callee without layouts gets a callee of its
// own), and is searched on the kernel's mesh, the copy with it: the fill is
// made whole where tensor.extract reads it, and the addition takes its rows
// locally: nothing moves. Op by op (search=greedy) the copy takes the
// addition's rows, and the element tensor.extract reads is gathered from
// the rank holding it (a slice of one element, ScalarSlices.h: 4 B to each
// other rank; it gathered the 4 rows, 96 B per rank on 2 ranks, before
// the caller, which gets layouts through its call, was given that step).
// Before, the callee's result was left without a
// layout ("'func.call' op has a tensor value without a layout; run
// -shard-propagate first", after it had run: tpp-mlir's Integration
// programs, whose @entry calls the kernels), and the caller was not
// searched. Every element checked on 2 and 3 ranks, both searches.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry through_call --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry through_call --check --propagate=search=greedy 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=GREEDY2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry through_call --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry through_call --check --propagate=search=greedy 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=GREEDY3
// RUN: shard-opt %t.2.mlir -shard-propagate | FileCheck %s --check-prefix=WHOLE
// RUN: shard-opt %t.2.mlir -shard-propagate=search=greedy -shard-spmd-partition | FileCheck %s --check-prefix=GREEDY
// NP2: rank 0: OK, 25 elements checked, received 0 bytes
// NP2-NEXT: rank 1: OK, 25 elements checked, received 0 bytes
// NP3: rank 0: OK, 19 elements checked, received 0 bytes
// NP3-NEXT: rank 1: OK, 19 elements checked, received 0 bytes
// NP3-NEXT: rank 2: OK, 13 elements checked, received 0 bytes
// GREEDY2: rank 0: OK, 25 elements checked, received 0 bytes
// GREEDY2-NEXT: rank 1: OK, 25 elements checked, received 4 bytes
// GREEDY3: rank 0: OK, 19 elements checked, received 0 bytes
// GREEDY3-NEXT: rank 1: OK, 19 elements checked, received 4 bytes
// GREEDY3-NEXT: rank 2: OK, 13 elements checked, received 4 bytes
// WHOLE-LABEL: func.func @fill(
// WHOLE-SAME: -> tensor<8x6xf32> {
// WHOLE-LABEL: func.func private @fill_{{[0-9]+}}(
// WHOLE-SAME: -> (tensor<8x6xf32> {shard.layout = #layout_R})
// WHOLE-LABEL: func.func @through_call(
// WHOLE-SAME: %arg0: tensor<8x6xf32> {shard.layout = #layout_S0}
// WHOLE: call @fill_{{[0-9]+}}(
// GREEDY-LABEL: func.func private @fill_{{[0-9]+}}(
// GREEDY-SAME: -> (tensor<4x6xf32> {shard.global = !shard.tensor<8x6xf32, #layout_S0>})
// GREEDY-LABEL: func.func @through_call(
// GREEDY: shard.spmd.all_gather
// GREEDY: tensor.extract

#m = #shard.mesh<shape = [@N@]>
!t = tensor<8x6xf32>

func.func @kernel(%x: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %y = arith.mulf %x, %x : !t
  return %y : !t
}

func.func @fill(%s: f32) -> !t {
  %e = tensor.empty() : !t
  %f = linalg.fill ins(%s : f32) outs(%e : !t) -> !t
  return %f : !t
}

func.func @through_call(%x: !t) -> (!t, tensor<1xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %two = arith.constant 2.0 : f32
  %a = func.call @kernel(%x) : (!t) -> !t
  %f = func.call @fill(%two) : (f32) -> !t
  %e = tensor.extract %f[%c1, %c2] : !t
  %g = tensor.from_elements %e : tensor<1xf32>
  %b = arith.addf %a, %f : !t
  return %b, %g : !t, tensor<1xf32>
}
