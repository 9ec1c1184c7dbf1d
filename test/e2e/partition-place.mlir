// tensor.pad, tensor.concat, tensor.insert_slice, tensor.extract and
// tensor.insert under sharding (issue 26, item 1), every element of every
// result checked on every rank against the unpartitioned program:
// - padding and concatenating along the unsharded dim: each rank pads or
//   joins its own rows, nothing moves;
// - along the sharded dim (rows 10 over 4: 3, 3, 3, 1; the results' 13
//   rows: 4, 4, 4, 1): a cut source stays cut and each rank receives only
//   the rows of it that land in its block (an exchange into the layout of
//   those parts; the bytes: e2e/partition-windows.mlir), a replicated one
//   is sliced where it is (here x is gathered once for the scalar read
//   below, and every placement reads that copy); each rank places its part,
//   padding around it;
// - a strided insert_slice (rows 1, 3, .., 9 of 12) and a rank-reducing one
//   (a row into row 3) into a sharded destination: each rank inserts the
//   rows that land in its block, none on the others;
// - a scalar read and written with tensor.extract / tensor.insert: the
//   tensor is made whole first.
// Also on 2, 3 and 8 ranks (on 8, ranks 6 and 7 hold no row of x).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' -e 's/@R3@/13/g' -e 's/@R@/10/g' %s > %t.4.mlir
// RUN: sed -e 's/@N@/3/g' -e 's/@R3@/11/g' -e 's/@R@/8/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/8/g' -e 's/@R3@/13/g' -e 's/@R@/10/g' %s > %t.8.mlir
// RUN: %mpirun -np 8 %shard-run %t.8.mlir --entry place --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=NP8
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry place,pinned --check > %t.run1 2>&1
// RUN: not grep "error:" %t.run1
// RUN: %entry-lines place %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=NP4
// RUN: %entry-lines pinned %t.run1 | FileCheck %s --implicit-check-not=error: --check-prefix=PINNED
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry place,edges --check > %t.run2 2>&1
// RUN: not grep "error:" %t.run2
// RUN: %entry-lines place %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=NP3
// RUN: %entry-lines edges %t.run2 | FileCheck %s --implicit-check-not=error: --check-prefix=EDGES
// RUN: %mpirun -np 2 %shard-run %t.4.mlir --entry mm --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=TORCHMM
// RUN: shard-opt %t.4.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=LOCAL
// NP4: shard-run: rank 0: OK, 431 elements checked
// NP4-NEXT: shard-run: rank 1: OK, 431 elements checked
// NP4-NEXT: shard-run: rank 2: OK, 431 elements checked
// NP4-NEXT: shard-run: rank 3: OK, 165 elements checked
// NP3: shard-run: rank 0: OK
// NP3-NEXT: shard-run: rank 1: OK
// NP3-NEXT: shard-run: rank 2: OK
// NP8: shard-run: rank 0: OK
// NP8: shard-run: rank 7: OK, 0 elements checked
// A replicated source padded, concatenated or inserted into a sharded
// result: each rank computes its own rows, nothing moves.
// PINNED: shard-run: rank 0: OK, 128 elements checked, received 0 bytes
// PINNED-NEXT: shard-run: rank 1: OK, 128 elements checked, received 0 bytes
// PINNED-NEXT: shard-run: rank 2: OK, 128 elements checked, received 0 bytes
// PINNED-NEXT: shard-run: rank 3: OK, 64 elements checked, received 0 bytes
// Edge cases (found by adversarial testing): a concatenated operand and a
// padded source without elements (each rank places nothing of them),
// padding and slice offsets written as SSA constants, a padding value read
// from a tensor outside the pad (needed whole), and tensor.dim (the global
// size on every rank).
// EDGES: shard-run: rank 0: OK, 45 elements checked
// EDGES-NEXT: shard-run: rank 1: OK, 45 elements checked
// EDGES-NEXT: shard-run: rank 2: OK, 27 elements checked
// aten.mm as torch-mlir's TorchToLinalg lowers it (its own test's form,
// on static arguments): casts to dynamic shapes, tensor.dim, a cf.assert
// on the contracting sizes, tensor.empty of the dims, a cast back. The
// function is canonicalized to static shapes first; rows stay cut.
// TORCHMM: shard-run: rank 0: OK, 4 elements checked, received 0 bytes
// TORCHMM-NEXT: shard-run: rank 1: OK, 4 elements checked, received 0 bytes
// Padding and concatenating along the unsharded dim: this rank's rows.
// LOCAL-LABEL: func.func @place(
// LOCAL: tensor.pad %{{.*}} low[0, 2] high[0, 3]
// The scalar read gathers x whole, once; the pad and the concat along the
// cut dim read their parts from that copy, as the search priced them (no
// exchange of x's windows besides: they ran on top of the gather, unpriced).
// LOCAL: shard.spmd.all_gather %arg0
// LOCAL-NOT: shard.spmd.exchange %arg0
// LOCAL: tensor.pad %{{.*}} low[%{{.*}}, 0] high[%{{.*}}, 0]
// LOCAL: tensor.empty(%{{.*}}) : tensor<?x32xf32>
// LOCAL-NOT: shard.spmd.all_gather
// LOCAL-NOT: shard.spmd.exchange %arg0
// LOCAL: tensor.insert_slice {{.*}} [2, 1] : tensor<?x16xf32> into tensor<3x16xf32>

#m = #shard.mesh<shape = [@N@]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#R = #shard.placements<mesh = #m, placements = [R]>
func.func @place(%x: tensor<@R@x16xf32> {shard.layout = #S0},
                 %y: tensor<3x16xf32> {shard.layout = #R},
                 %s: tensor<5x16xf32> {shard.layout = #R},
                 %big: tensor<12x16xf32> {shard.layout = #S0},
                 %row: tensor<16xf32> {shard.layout = #R})
    -> (tensor<@R@x21xf32> {shard.layout = #S0},
        tensor<@R3@x16xf32> {shard.layout = #S0},
        tensor<@R@x32xf32> {shard.layout = #S0},
        tensor<@R3@x16xf32> {shard.layout = #S0},
        tensor<12x16xf32> {shard.layout = #S0},
        tensor<@R@x16xf32> {shard.layout = #S0},
        tensor<@R@x16xf32> {shard.layout = #S0}) {
  %cst = arith.constant 0.5 : f32
  %p1 = tensor.pad %x low[0, 2] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<@R@x16xf32> to tensor<@R@x21xf32>
  %p2 = tensor.pad %x low[2, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<@R@x16xf32> to tensor<@R3@x16xf32>
  %c1 = tensor.concat dim(1) %x, %x : (tensor<@R@x16xf32>, tensor<@R@x16xf32>) -> tensor<@R@x32xf32>
  %c2 = tensor.concat dim(0) %x, %y : (tensor<@R@x16xf32>, tensor<3x16xf32>) -> tensor<@R3@x16xf32>
  %i1 = tensor.insert_slice %s into %big[1, 0] [5, 16] [2, 1] : tensor<5x16xf32> into tensor<12x16xf32>
  %i2 = tensor.insert_slice %row into %x[3, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<@R@x16xf32>
  %c0 = arith.constant 0 : index
  %c2i = arith.constant 2 : index
  %e = tensor.extract %x[%c2i, %c2i] : tensor<@R@x16xf32>
  %i3 = tensor.insert %e into %x[%c0, %c0] : tensor<@R@x16xf32>
  return %p1, %p2, %c1, %c2, %i1, %i2, %i3 : tensor<@R@x21xf32>, tensor<@R3@x16xf32>, tensor<@R@x32xf32>, tensor<@R3@x16xf32>, tensor<12x16xf32>, tensor<@R@x16xf32>, tensor<@R@x16xf32>
}

func.func @pinned(%y: tensor<3x16xf32> {shard.layout = #R}, %z: tensor<4x16xf32> {shard.layout = #R}, %big: tensor<12x16xf32> {shard.layout = #S0})
    -> (tensor<9x16xf32> {shard.layout = #S0}, tensor<7x16xf32> {shard.layout = #S0}, tensor<12x16xf32> {shard.layout = #S0}) {
  %cst = arith.constant 0.5 : f32
  %p = tensor.pad %y low[4, 0] high[2, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<3x16xf32> to tensor<9x16xf32>
  %p1 = shard.constraint %p layout #S0 : tensor<9x16xf32>
  %c = tensor.concat dim(0) %y, %z : (tensor<3x16xf32>, tensor<4x16xf32>) -> tensor<7x16xf32>
  %c1 = shard.constraint %c layout #S0 : tensor<7x16xf32>
  %i = tensor.insert_slice %y into %big[2, 0] [3, 16] [3, 1] : tensor<3x16xf32> into tensor<12x16xf32>
  return %p1, %c1, %i : tensor<9x16xf32>, tensor<7x16xf32>, tensor<12x16xf32>
}

#m3 = #shard.mesh<shape = [3]>
#E0 = #shard.placements<mesh = #m3, placements = [S(0)]>
#ER = #shard.placements<mesh = #m3, placements = [R]>
func.func @edges(%z: tensor<0x3xf32> {shard.layout = #ER}, %b: tensor<5x3xf32> {shard.layout = #E0},
                 %t: tensor<3x3xf32> {shard.layout = #E0})
    -> (tensor<5x3xf32> {shard.layout = #E0}, tensor<5x3xf32> {shard.layout = #E0},
        tensor<9x3xf32> {shard.layout = #E0}, tensor<5x3xf32> {shard.layout = #E0},
        tensor<10x3xf32> {shard.layout = #E0}, tensor<5x3xf32> {shard.layout = #E0}) {
  %cst = arith.constant 0.5 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor.concat dim(0) %z, %b : (tensor<0x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  %p = tensor.pad %z low[2, 0] high[3, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<0x3xf32> to tensor<5x3xf32>
  %q = tensor.pad %b low[%c1, 0] high[%c2, %c0] {
  ^bb0(%i: index, %j: index):
    %v = tensor.extract %t[%c1, %c1] : tensor<3x3xf32>
    tensor.yield %v : f32
  } : tensor<5x3xf32> to tensor<8x3xf32>
  %q9 = tensor.pad %q low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<8x3xf32> to tensor<9x3xf32>
  %s = tensor.extract_slice %t[%c1, 0] [2, 3] [%c1, 1] : tensor<3x3xf32> to tensor<2x3xf32>
  %i = tensor.insert_slice %s into %b[%c2, 0] [2, 3] [%c1, 1] : tensor<2x3xf32> into tensor<5x3xf32>
  %d = tensor.dim %b, %c0 : tensor<5x3xf32>
  %e = tensor.empty(%d) : tensor<?x3xf32>
  %es = tensor.cast %e : tensor<?x3xf32> to tensor<5x3xf32>
  %f = linalg.fill ins(%cst : f32) outs(%es : tensor<5x3xf32>) -> tensor<5x3xf32>
  %w = tensor.concat dim(0) %f, %i : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<10x3xf32>
  %d1 = tensor.dim %t, %c1 : tensor<3x3xf32>
  %df = arith.index_cast %d1 : index to i32
  %dv = arith.sitofp %df : i32 to f32
  %g = linalg.fill ins(%dv : f32) outs(%b : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %a, %p, %q9, %i, %w, %g : tensor<5x3xf32>, tensor<5x3xf32>, tensor<9x3xf32>, tensor<5x3xf32>, tensor<10x3xf32>, tensor<5x3xf32>
}

#m2 = #shard.mesh<shape = [2]>
func.func @mm(%lhs: tensor<4x6xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}, %rhs0: tensor<6x2xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [R]>}) -> (tensor<4x2xf32> {shard.layout = #shard.placements<mesh = #m2, placements = [S(0)]>}) {
  %l = tensor.cast %lhs : tensor<4x6xf32> to tensor<?x?xf32>
  %r = tensor.cast %rhs0 : tensor<6x2xf32> to tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %l, %c0 : tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %r, %c1 : tensor<?x?xf32>
  %c1_0 = arith.constant 1 : index
  %k0 = tensor.dim %l, %c1_0 : tensor<?x?xf32>
  %c0_1 = arith.constant 0 : index
  %k1 = tensor.dim %r, %c0_1 : tensor<?x?xf32>
  %eq = arith.cmpi eq, %k0, %k1 : index
  cf.assert %eq, "mismatching contracting dimension for torch.aten.mm"
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%l, %r : tensor<?x?xf32>, tensor<?x?xf32>) outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  %res = tensor.cast %mm : tensor<?x?xf32> to tensor<4x2xf32>
  return %res : tensor<4x2xf32>
}
