// Integer types beyond i8/i32/i64/ui8 on ranks: i16 (a TOSA 16x8
// quantized activation), ui16, ui32 and ui64 have runtime dtypes of their
// own (moved and reduced: i16 compared signed, the unsigned ones unsigned);
// signed integers (si8, ...) move as the bytes of their signless peers and
// are never reduced (as i1: partition-i1-masks.mlir). Before, any of them
// that had to move failed to compile ("element type 'i16' is not supported
// by the runtime"), and then an i16 Partial could not be reduced. Every
// element of every result checked on 2 and 3 ranks:
// - @i16: an i16 product cut by rows returned cut by columns;
// - @moves: ui32, ui16, ui64 and si8 arguments returned in other layouts
//   (all_gather, all_to_all) with nothing computed;
// - @mm: an i16 matmul over a cut reduction dim: its Partial sums
//   all-reduced (each rank receives the other's 4 x 4 i16 = 32 B on 2
//   ranks; gathering both operands instead, as when i16 was moved as
//   bytes, receives 48 B);
// - @maxi16: a signed max over a cut dim of values below and above zero
//   (x - 4), its Partial(max) all-reduced as i16 (reduced as unsigned or as
//   f16 bits, the negative ones would win): 10 B per rank (with
//   alpha-us=0; by the default model, gathering 30 B in one message is
//   cheaper than an all-reduce's two); on 3 ranks 5 elements reduce in
//   chunks of 2, 2 and 1 (12-14 B).
// The lowering refuses a pinned Partial of a type moved as bytes
// (test/Passes/shard-lower-to-runtime.mlir). f8 types move as bytes too
// (test/tools/shard-plan-execute-np2.test runs an f8 redistribution), but
// MLIR 22 cannot compile f8 arithmetic to LLVM, so no program here
// computes with them.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry i16,moves --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry maxi16 --propagate=alpha-us=0 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MAX3
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry i16,moves,mm --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry maxi16 --propagate=alpha-us=0 --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MAX2
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=MM
// RUN: shard-opt %t.2.mlir -shard-propagate=alpha-us=0 -shard-spmd-partition | FileCheck %s --check-prefix=MAX
// NP3: shard-run: @i16: rank 0: OK, 10 elements checked, received 12 bytes
// NP3-NEXT: shard-run: @i16: rank 1: OK, 10 elements checked, received 12 bytes
// NP3-NEXT: shard-run: @i16: rank 2: OK, 10 elements checked, received 16 bytes
// NP3-NEXT: shard-run: @moves: rank 0: OK, 59 elements checked, received 140 bytes
// NP3-NEXT: shard-run: @moves: rank 1: OK, 59 elements checked, received 140 bytes
// NP3-NEXT: shard-run: @moves: rank 2: OK, 53 elements checked, received 174 bytes
// NP2: shard-run: @i16: rank 0: OK, 15 elements checked
// NP2-NEXT: shard-run: @i16: rank 1: OK, 15 elements checked
// NP2-NEXT: shard-run: @mm: rank 0: OK, 16 elements checked, received 32 bytes
// NP2-NEXT: shard-run: @mm: rank 1: OK, 16 elements checked, received 32 bytes
// NP2-NEXT: shard-run: @moves: rank 0: OK
// NP2-NEXT: shard-run: @moves: rank 1: OK
// MM-LABEL: func.func @mm
// MM-NOT: shard.spmd.all_gather
// MM: linalg.matmul {{.*}} -> tensor<4x4xi16>
// MM-NEXT: shard.spmd.all_reduce %{{.*}} reduce sum {{.*}} : tensor<4x4xi16> -> tensor<4x4xi16>
// MM-NEXT: return
// MAX3: shard-run: rank 0: OK, 5 elements checked, received 14 bytes
// MAX3-NEXT: shard-run: rank 1: OK, 5 elements checked, received 12 bytes
// MAX3-NEXT: shard-run: rank 2: OK, 5 elements checked, received 14 bytes
// MAX2: shard-run: rank 0: OK, 5 elements checked, received 10 bytes
// MAX2-NEXT: shard-run: rank 1: OK, 5 elements checked, received 10 bytes
// MAX-LABEL: func.func @maxi16
// MAX: linalg.reduce
// MAX: shard.spmd.all_reduce %{{.*}} reduce max {{.*}} : tensor<5xi16> -> tensor<5xi16>

#m = #shard.mesh<shape = [@N@]>
func.func @i16(%x: tensor<5x6xi16> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<5x6xi16> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %y = arith.muli %x, %x : tensor<5x6xi16>
  return %y : tensor<5x6xi16>
}
func.func @moves(%a: tensor<5x6xui32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                 %b: tensor<5x6xui16> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
                 %c: tensor<5x6xui64> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                 %d: tensor<7xsi8> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<5x6xui32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
        tensor<5x6xui16> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        tensor<5x6xui64> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
        tensor<7xsi8> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  return %a, %b, %c, %d : tensor<5x6xui32>, tensor<5x6xui16>, tensor<5x6xui64>, tensor<7xsi8>
}
func.func @mm(%a: tensor<4x6xi16> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}, %b: tensor<6x4xi16> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<4x4xi16> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %z = arith.constant 0 : i16
  %e = tensor.empty() : tensor<4x4xi16>
  %f = linalg.fill ins(%z : i16) outs(%e : tensor<4x4xi16>) -> tensor<4x4xi16>
  %r = linalg.matmul ins(%a, %b : tensor<4x6xi16>, tensor<6x4xi16>) outs(%f : tensor<4x4xi16>) -> tensor<4x4xi16>
  return %r : tensor<4x4xi16>
}
func.func @maxi16(%x: tensor<5x6xi16> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (tensor<5xi16> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %c = arith.constant dense<4> : tensor<5x6xi16>
  %y = arith.subi %x, %c : tensor<5x6xi16>
  %lo = arith.constant -32768 : i16
  %e = tensor.empty() : tensor<5xi16>
  %f = linalg.fill ins(%lo : i16) outs(%e : tensor<5xi16>) -> tensor<5xi16>
  %r = linalg.reduce ins(%y : tensor<5x6xi16>) outs(%f : tensor<5xi16>) dimensions = [1]
    (%a: i16, %b: i16) {
      %m = arith.maxsi %a, %b : i16
      linalg.yield %m : i16
    }
  return %r : tensor<5xi16>
}
