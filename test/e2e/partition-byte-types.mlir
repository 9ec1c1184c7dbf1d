// Element types the runtime has no dtype of its own for move as the bytes of
// one of their width (as i1 does: partition-i1-masks.mlir): int16 (a TOSA
// 16x8 quantized activation) as f16's bits, unsigned and signed integers as
// their signless peers. Before, any of them that had to move failed to
// compile: "element type 'i16' is not supported by the runtime". Every
// element of every result checked on 2 and 3 ranks:
// - @i16: an i16 product cut by rows returned cut by columns;
// - @moves: ui32, ui16, ui64 and si8 arguments returned in other layouts
//   (all_gather, all_to_all) with nothing computed;
// - @mm: an i16 matmul over a cut reduction dim: bytes are never reduced,
//   so the search gathers both operands instead of an all_reduce of
//   Partial sums (each rank receives the other's half of both: 4 x 3 + 3 x
//   4 i16 = 48 B on 2 ranks).
// The lowering refuses a pinned Partial of such a type
// (test/Passes/shard-lower-to-runtime.mlir). f8 types move the same way
// (test/tools/shard-plan-execute-np2.test runs an f8 redistribution), but
// MLIR 22 cannot compile f8 arithmetic to LLVM, so no program here
// computes with them.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry i16,moves --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry i16,moves,mm --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP2
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=MM
// NP3: shard-run: @i16: rank 0: OK, 10 elements checked, received 12 bytes
// NP3-NEXT: shard-run: @i16: rank 1: OK, 10 elements checked, received 12 bytes
// NP3-NEXT: shard-run: @i16: rank 2: OK, 10 elements checked, received 16 bytes
// NP3-NEXT: shard-run: @moves: rank 0: OK, 59 elements checked, received 140 bytes
// NP3-NEXT: shard-run: @moves: rank 1: OK, 59 elements checked, received 140 bytes
// NP3-NEXT: shard-run: @moves: rank 2: OK, 53 elements checked, received 174 bytes
// NP2: shard-run: @i16: rank 0: OK, 15 elements checked
// NP2-NEXT: shard-run: @i16: rank 1: OK, 15 elements checked
// NP2-NEXT: shard-run: @mm: rank 0: OK, 16 elements checked, received 48 bytes
// NP2-NEXT: shard-run: @mm: rank 1: OK, 16 elements checked, received 48 bytes
// NP2-NEXT: shard-run: @moves: rank 0: OK
// NP2-NEXT: shard-run: @moves: rank 1: OK
// MM-LABEL: func.func @mm
// MM: shard.spmd.all_gather %arg0
// MM: shard.spmd.all_gather %arg1
// MM-NOT: shard.spmd.all_reduce
// MM: linalg.matmul {{.*}} -> tensor<4x4xi16>

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
