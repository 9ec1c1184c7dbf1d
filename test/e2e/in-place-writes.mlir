// Values a collective, a slice or a return still reads are never written in
// place by an earlier op (issue 25, item 1). Each function moves a value
// (%v: S(1) -> S(0), an all_to_all), then an op writes a new value that
// bufferization could place in %v's buffer (an elementwise op, linalg.fill,
// the outs of a linalg.generic or linalg.matmul, inside scf.for and scf.if),
// and then %v is read again: by another collective (S(0) -> R), by a slice,
// or by a return. Before the collectives told bufferization what they read
// and write, every one of these returned the written values for %v on every
// rank ("partitioned -8, unpartitioned -6"). shard-run --check compares
// every element of every result with the program as written.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: for n in 2 3 4; do \
// RUN:   %mpirun -np $n %shard-run %t.$n.mlir --check --entry sub_then_gather,fill_then_gather,generic_outs_then_gather,matmul_outs_then_gather,loop_then_gather,if_then_gather,sub_then_slice,chain_of_moves 2>&1 | sed -e "s/^/np$n: /"; \
// RUN: done | FileCheck %s
// CHECK-NOT: MISMATCH
// CHECK-COUNT-72: : OK, {{[0-9]+}} elements checked
// CHECK-NOT: {{MISMATCH|error}}

#m = #shard.mesh<shape = [@N@]>
!a = tensor<6x10xf32>

// %b = %v - 2 may go in place in %v's buffer only if nothing reads %v
// after; the all_gather of %v does.
func.func @sub_then_gather(%a: !a {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (!a, !a) {
  %v = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(0)]> : !a
  %c = arith.constant dense<2.0> : !a
  %b = arith.subf %v, %c : !a
  %w = shard.constraint %v layout #shard.placements<mesh = #m, placements = [R]> : !a
  return %b, %w : !a, !a
}

func.func @fill_then_gather(%a: !a {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (!a, !a) {
  %v = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(0)]> : !a
  %z = arith.constant 7.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%v : !a) -> !a
  %w = shard.constraint %v layout #shard.placements<mesh = #m, placements = [R]> : !a
  return %f, %w : !a, !a
}

func.func @generic_outs_then_gather(%a: !a {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (!a, !a) {
  %v = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(0)]> : !a
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%v : !a) {
    ^bb0(%o: f32):
      %x = arith.mulf %o, %o : f32
      linalg.yield %x : f32
    } -> !a
  %w = shard.constraint %v layout #shard.placements<mesh = #m, placements = [R]> : !a
  return %g, %w : !a, !a
}

// The matmul accumulates into %v's rows (S(0) on rows, nothing moves for
// it); %v is then gathered.
func.func @matmul_outs_then_gather(%a: !a {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                                   %x: tensor<6x4xf32>, %y: tensor<4x10xf32>) -> (!a, !a) {
  %v = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(0)]> : !a
  %p = linalg.matmul ins(%x, %y : tensor<6x4xf32>, tensor<4x10xf32>) outs(%v : !a) -> !a
  %w = shard.constraint %v layout #shard.placements<mesh = #m, placements = [R]> : !a
  return %p, %w : !a, !a
}

// Three rounds of %acc = %acc - 1 starting from %v, inside scf.for.
func.func @loop_then_gather(%a: !a {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (!a, !a) {
  %v = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(0)]> : !a
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant dense<1.0> : !a
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %v) -> (!a) {
    %n = arith.subf %acc, %one : !a
    scf.yield %n : !a
  }
  %w = shard.constraint %v layout #shard.placements<mesh = #m, placements = [R]> : !a
  return %r, %w : !a, !a
}

// Three rounds of scf.if inside scf.for: add 5 in even rounds, multiply
// by 5 in odd ones, starting from %v.
func.func @if_then_gather(%a: !a {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (!a, !a) {
  %v = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(0)]> : !a
  %c = arith.constant dense<5.0> : !a
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %v) -> (!a) {
    %odd = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %odd, %c0 : index
    %n = scf.if %even -> (!a) {
      %e = arith.addf %acc, %c : !a
      scf.yield %e : !a
    } else {
      %o = arith.mulf %acc, %c : !a
      scf.yield %o : !a
    }
    scf.yield %n : !a
  }
  %w = shard.constraint %v layout #shard.placements<mesh = #m, placements = [R]> : !a
  return %r, %w : !a, !a
}

// %v is gathered (S(0) -> R), %b = %v - 2 is computed, and %v is then
// taken to S(1) (each rank copies its columns of the replicated value).
func.func @sub_then_slice(%a: !a {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (!a, !a) {
  %v = shard.constraint %a layout #shard.placements<mesh = #m, placements = [R]> : !a
  %c = arith.constant dense<2.0> : !a
  %b = arith.subf %v, %c : !a
  %s = shard.constraint %v layout #shard.placements<mesh = #m, placements = [S(1)]> : !a
  return %b, %s : !a, !a
}

// Collectives in a row, each result written in place by the next op and
// still read by the next collective.
func.func @chain_of_moves(%a: !a {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (!a, !a, !a, !a) {
  %c = arith.constant dense<3.0> : !a
  %v = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(0)]> : !a
  %b = arith.mulf %v, %c : !a
  %u = shard.constraint %v layout #shard.placements<mesh = #m, placements = [S(1)]> : !a
  %d = arith.addf %u, %c : !a
  %w = shard.constraint %u layout #shard.placements<mesh = #m, placements = [R]> : !a
  return %b, %d, %w, %v : !a, !a, !a, !a
}
