// Vector transfers, gathers and scatters of tensors (vectorized IR, as
// tpp-mlir's and IREE's kernels are after linalg's vectorizer): a vector has
// no layout, so each tensor is read whole on every rank (a cut one
// gathered first) and a written tensor is whole; the layouts asked of the
// results are sliced from it locally. Before: "'vector.transfer_read' op
// has no sharding rule" (332 refusals in a sweep over tpp-mlir). Every
// element checked on 2 and 3 ranks (3: rows of 2, 2 and 0, torch.chunk's).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry mul --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MUL2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry gs --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=GS2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry mul --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MUL3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry gs --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=GS3
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// A vector.mask around a transfer of a tensor (linalg's masked
// vectorization), in a function without layouts: --shard-to-llvm lowers the
// mask into the transfer's mask operand before bufferizing (buffer
// deallocation put ops inside the mask's region: "'vector.mask' op expects
// only one operation to mask", even unsharded).
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry masked --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MASK2
// MASK2: shard-run: rank 0: OK, 35 elements checked, received 0 bytes
// MASK2-NEXT: shard-run: rank 1: OK, 35 elements checked, received 0 bytes
// MUL2: shard-run: rank 0: OK, 16 elements checked
// MUL2-NEXT: shard-run: rank 1: OK, 16 elements checked
// MUL3: shard-run: rank 0: OK, 16 elements checked
// MUL3-NEXT: shard-run: rank 1: OK, 16 elements checked
// MUL3-NEXT: shard-run: rank 2: OK, 0 elements checked
// GS2: shard-run: rank 0: OK, 18 elements checked
// GS2-NEXT: shard-run: rank 1: OK, 18 elements checked
// GS3: shard-run: rank 0: OK, 14 elements checked
// GS3-NEXT: shard-run: rank 1: OK, 14 elements checked
// GS3-NEXT: shard-run: rank 2: OK, 8 elements checked
// IR-LABEL: func.func @mul
// IR: shard.spmd.all_gather %arg0 {{.*}} : tensor<4x4xf32> -> tensor<4x8xf32>
// IR: vector.transfer_read {{.*}} : tensor<4x8xf32>, vector<4x8xf32>
// IR: shard.spmd.all_gather %arg1 {{.*}} : tensor<2x8xf32> -> tensor<4x8xf32>
// IR: vector.transfer_read {{.*}} : tensor<4x8xf32>, vector<4x8xf32>
// IR: vector.transfer_write {{.*}} : vector<4x8xf32>, tensor<4x8xf32>
// IR-LABEL: func.func @gs
// IR: vector.gather {{.*}} : tensor<4x8xf32>
// IR: vector.scatter {{.*}} -> tensor<4x8xf32>

#m = #shard.mesh<shape = [@N@]>
func.func @mul(%a: tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>},
               %b: tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %va = vector.transfer_read %a[%c0, %c0], %p {in_bounds = [true, true]} : tensor<4x8xf32>, vector<4x8xf32>
  %vb = vector.transfer_read %b[%c0, %c0], %p {in_bounds = [true, true]} : tensor<4x8xf32>, vector<4x8xf32>
  %s = arith.mulf %va, %vb : vector<4x8xf32>
  %w = vector.transfer_write %s, %b[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}
// Row 1's elements 1, 3 and 7 gathered (the third lane masked off: the
// pass-through value, read from %u), then scattered into row 2.
func.func @gs(%t: tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
              %u: tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
        tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = arith.constant 0.0 : f32
  %idx = arith.constant dense<[1, 3, 5, 7]> : vector<4xindex>
  %mask = arith.constant dense<[true, true, false, true]> : vector<4xi1>
  %pass = vector.transfer_read %u[%c0], %p {in_bounds = [true]} : tensor<4xf32>, vector<4xf32>
  %g = vector.gather %t[%c1, %c0] [%idx], %mask, %pass : tensor<4x8xf32>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  %gw = vector.transfer_write %g, %u[%c0] {in_bounds = [true]} : vector<4xf32>, tensor<4xf32>
  %s = vector.scatter %t[%c2, %c0] [%idx], %mask, %g : tensor<4x8xf32>, vector<4xindex>, vector<4xi1>, vector<4xf32> -> tensor<4x8xf32>
  return %gw, %s : tensor<4xf32>, tensor<4x8xf32>
}

func.func @masked(%a: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %p = arith.constant 0.25 : f32
  %mask = vector.create_mask %c4, %c3 : vector<7x5xi1>
  %v = vector.mask %mask { vector.transfer_read %a[%c0, %c0], %p : tensor<7x5xf32>, vector<7x5xf32> } : vector<7x5xi1> -> vector<7x5xf32>
  %e = tensor.empty() : tensor<7x5xf32>
  %w = vector.transfer_write %v, %e[%c0, %c0] : vector<7x5xf32>, tensor<7x5xf32>
  return %w : tensor<7x5xf32>
}
