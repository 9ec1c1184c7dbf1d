// Ops whose regions compute on tensors (scf.forall, as tiling leaves it in
// IREE's dispatches and graph-compiler's kernels; vector.mask around a
// transfer of a tensor, as linalg's masked vectorization writes it) run
// whole on every rank (rules/RegionRules.cpp): every tensor they read
// (operands, and those their regions read from outside them) made whole
// first, their regions as written, their results whole and sliced locally
// into the layouts their users need. Before: "'tensor.extract_slice' op
// uses tensors inside 'scf.forall', whose regions -shard-propagate does not
// enter" (36 refusals in a sweep over graph-compiler), and the same for a
// transfer inside a vector.mask. Every element checked on 2 and 3 ranks
// (3: rows of 3, 3 and 2 of @tiled's 8).
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry tiled --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=TILED2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry masked --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MASK2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry looped --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=LOOP2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry called --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=CALL2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry on_memref --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MEM2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry passthru --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=PASS2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry histogram --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=HIST2
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry histogram --check --propagate=search=greedy 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=HIST2
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry histogram --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=HIST3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry passthru --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=PASS3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry called --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=CALL3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry on_memref --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MEM3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry tiled --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=TILED3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry masked --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=MASK3
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry looped --check 2>&1 | sort | FileCheck %s --implicit-check-not=error: --check-prefix=LOOP3
// RUN: shard-opt %t.2.mlir -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// RUN: shard-opt %t.2.mlir -shard-propagate=search=greedy -shard-spmd-partition | FileCheck %s --check-prefix=IR
// @tiled: %x's rows are gathered (4 rows of 4 floats from the other rank on
// 2 ranks), the forall runs whole, and its result is cut locally for the
// add that follows (nothing more moves).
// TILED2: shard-run: rank 0: OK, 16 elements checked, received 64 bytes
// TILED2-NEXT: shard-run: rank 1: OK, 16 elements checked, received 64 bytes
// TILED3: shard-run: rank 0: OK, 12 elements checked, received 80 bytes
// TILED3-NEXT: shard-run: rank 1: OK, 12 elements checked, received 80 bytes
// TILED3-NEXT: shard-run: rank 2: OK, 8 elements checked, received 96 bytes
// @masked: %a's rows and %b's columns gathered (on 2 ranks rank 0 gets 3
// rows of 5 and 2 columns of 7: 60 + 56 bytes).
// MASK2: shard-run: rank 0: OK, 21 elements checked, received 116 bytes
// MASK2-NEXT: shard-run: rank 1: OK, 14 elements checked, received 164 bytes
// MASK3: shard-run: rank 0: OK, 14 elements checked, received 164 bytes
// MASK3-NEXT: shard-run: rank 1: OK, 14 elements checked, received 164 bytes
// MASK3-NEXT: shard-run: rank 2: OK, 7 elements checked, received 232 bytes
// @looped: %x and %w gathered once, before the loop (the carried product
// kept whole: 64 + 32 bytes on 2 ranks), not in each of its 3 trips.
// LOOP2: shard-run: rank 0: OK, 16 elements checked, received 96 bytes
// LOOP2-NEXT: shard-run: rank 1: OK, 16 elements checked, received 96 bytes
// LOOP3: shard-run: rank 0: OK, 12 elements checked, received 112 bytes
// LOOP3-NEXT: shard-run: rank 1: OK, 12 elements checked, received 112 bytes
// LOOP3-NEXT: shard-run: rank 2: OK, 8 elements checked, received 160 bytes
// @called: @neg is called on a cut %y outside the forall and on whole
// slices inside it: the call inside keeps @neg as written (whole), the one
// outside calls a copy with layouts (before: the copy was called inside
// too, with whole tensors: invalid IR).
// CALL2: shard-run: rank 0: OK, 24 elements checked
// CALL2-NEXT: shard-run: rank 1: OK, 24 elements checked
// CALL3: shard-run: rank 0: OK, 20 elements checked, received 80 bytes
// CALL3-NEXT: shard-run: rank 1: OK, 20 elements checked
// CALL3-NEXT: shard-run: rank 2: OK, 8 elements checked, received 96 bytes
// @on_memref: a linalg.generic on a memref whose payload reads a cut
// tensor by its own index: every rank computes the whole memref, so the
// tensor is gathered (before: read at global indices from the rank's
// block, past its end).
// MEM2: shard-run: rank 0: OK, 2 elements checked, received 8 bytes
// MEM2-NEXT: shard-run: rank 1: OK, 2 elements checked, received 8 bytes
// MEM3: shard-run: rank 0: OK, 2 elements checked, received 8 bytes
// MEM3-NEXT: shard-run: rank 1: OK, 2 elements checked, received 8 bytes
// MEM3-NEXT: shard-run: rank 2: OK, 0 elements checked, received 16 bytes
// @passthru: a mask with a passthru around a read (lanes past 7 take 9),
// lowered as the masked read and a select (-shard-masked-transfers; before:
// "'vector.mask' op expects only one operation to mask", with or without
// layouts). %x and %y gathered (5 + 5 bytes of i8 to rank 0 on 2 ranks),
// the result sliced.
// PASS2: shard-run: rank 0: OK, 6 elements checked, received 10 bytes
// PASS2-NEXT: shard-run: rank 1: OK, 5 elements checked, received 12 bytes
// PASS3: shard-run: rank 0: OK, 4 elements checked, received 14 bytes
// PASS3-NEXT: shard-run: rank 1: OK, 4 elements checked, received 14 bytes
// PASS3-NEXT: shard-run: rank 2: OK, 3 elements checked, received 16 bytes
// @histogram: a linalg.generic on tensors whose payload adds into a
// memref made outside it (atomically): every rank runs all of it, its
// loop uncut (before: each rank counted its own block's elements only, a
// silent half or third of the count).
// HIST2: shard-run: rank 0: OK, 6 elements checked, received 16 bytes
// HIST2-NEXT: shard-run: rank 1: OK, 6 elements checked, received 16 bytes
// HIST3: shard-run: rank 0: OK, 5 elements checked, received 20 bytes
// HIST3-NEXT: shard-run: rank 1: OK, 5 elements checked, received 20 bytes
// HIST3-NEXT: shard-run: rank 2: OK, 4 elements checked, received 24 bytes
// The forall whole, its body as written (global shapes, no collective
// inside), the captured %x gathered before it.
// IR-LABEL: func.func @tiled
// IR: %[[X:.*]] = shard.spmd.all_gather %arg0
// IR-NEXT: scf.forall ({{.*}}) in (2) shared_outs({{.*}}) -> (tensor<8x4xf32>) {
// IR-NOT: shard.spmd
// IR: tensor.extract_slice %[[X]][{{.*}}] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
// IR-NOT: shard.spmd
// IR: scf.forall.in_parallel
// IR-LABEL: func.func @masked
// IR: %[[A:.*]] = shard.spmd.all_gather %arg0
// IR: vector.mask %{{.*}} { vector.transfer_read %[[A]]
// IR-NOT: shard.sharding
// IR-LABEL: func.func @looped

#m = #shard.mesh<shape = [@N@]>
#rows = #shard.placements<mesh = #m, placements = [S(0)]>
#cols = #shard.placements<mesh = #m, placements = [S(1)]>

// exp(x) in two tiles of 4 rows, then + y.
func.func @tiled(%x: tensor<8x4xf32> {shard.layout = #rows},
                 %y: tensor<8x4xf32> {shard.layout = #rows})
    -> (tensor<8x4xf32> {shard.layout = #rows}) {
  %e = tensor.empty() : tensor<8x4xf32>
  %r = scf.forall (%i) in (2) shared_outs(%o = %e) -> (tensor<8x4xf32>) {
    %off = affine.apply affine_map<(d0) -> (d0 * 4)>(%i)
    %s = tensor.extract_slice %x[%off, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
    %t = linalg.exp ins(%s : tensor<4x4xf32>) outs(%s : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%off, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x4xf32>
    }
  }
  %z = arith.addf %r, %y : tensor<8x4xf32>
  return %z : tensor<8x4xf32>
}

// A masked read of %a's top-left 4x3 (0.25 elsewhere), written masked into
// %b (cut by columns), which keeps its other elements.
func.func @masked(%a: tensor<7x5xf32> {shard.layout = #rows},
                  %b: tensor<7x5xf32> {shard.layout = #cols})
    -> (tensor<7x5xf32> {shard.layout = #cols}) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %p = arith.constant 0.25 : f32
  %mask = vector.create_mask %c4, %c3 : vector<7x5xi1>
  %v = vector.mask %mask { vector.transfer_read %a[%c0, %c0], %p : tensor<7x5xf32>, vector<7x5xf32> } : vector<7x5xi1> -> vector<7x5xf32>
  %w = vector.mask %mask { vector.transfer_write %v, %b[%c0, %c0] : vector<7x5xf32>, tensor<7x5xf32> } : vector<7x5xi1> -> tensor<7x5xf32>
  return %w : tensor<7x5xf32>
}

// A forall of matmul tiles (rows of %x times the whole %w, captured) in
// the body of an scf.for that carries the product, three times.
func.func @looped(%x: tensor<8x4xf32> {shard.layout = #rows},
                  %w: tensor<4x4xf32> {shard.layout = #cols})
    -> (tensor<8x4xf32> {shard.layout = #rows}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<8x4xf32>) {
    %e = tensor.empty() : tensor<8x4xf32>
    %f = scf.forall (%i) in (2) shared_outs(%o = %e) -> (tensor<8x4xf32>) {
      %off = affine.apply affine_map<(d0) -> (d0 * 4)>(%i)
      %s = tensor.extract_slice %acc[%off, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
      %t0 = tensor.empty() : tensor<4x4xf32>
      %t1 = linalg.fill ins(%zero : f32) outs(%t0 : tensor<4x4xf32>) -> tensor<4x4xf32>
      %t = linalg.matmul ins(%s, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%t1 : tensor<4x4xf32>) -> tensor<4x4xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %t into %o[%off, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x4xf32>
      }
    }
    %g = arith.addf %f, %acc : tensor<8x4xf32>
    scf.yield %g : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

func.func private @neg(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %s = arith.negf %a : tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

func.func @called(%x: tensor<8x4xf32> {shard.layout = #rows},
                  %y: tensor<4x4xf32> {shard.layout = #cols})
    -> (tensor<8x4xf32> {shard.layout = #rows},
        tensor<4x4xf32> {shard.layout = #cols}) {
  %ny = func.call @neg(%y) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %r = scf.forall (%i) in (2) shared_outs(%o = %e) -> (tensor<8x4xf32>) {
    %off = affine.apply affine_map<(d0) -> (d0 * 4)>(%i)
    %a = tensor.extract_slice %x[%off, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
    %s = func.call @neg(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%off, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x4xf32>
    }
  }
  return %r, %ny : tensor<8x4xf32>, tensor<4x4xf32>
}

func.func @on_memref(%x: tensor<4xf32> {shard.layout = #rows})
    -> (tensor<4xf32> {shard.layout = #rows}) {
  %buf = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%buf : memref<4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = tensor.extract %x[%i] : tensor<4xf32>
    %w = arith.mulf %v, %v : f32
    linalg.yield %w : f32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %l0 = memref.load %buf[%c0] : memref<4xf32>
  %l1 = memref.load %buf[%c1] : memref<4xf32>
  %l2 = memref.load %buf[%c2] : memref<4xf32>
  %l3 = memref.load %buf[%c3] : memref<4xf32>
  %t = tensor.from_elements %l0, %l1, %l2, %l3 : tensor<4xf32>
  %y = arith.addf %t, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @passthru(%x: tensor<11xi8> {shard.layout = #rows},
                    %y: tensor<11xi8> {shard.layout = #rows})
    -> (tensor<11xi8> {shard.layout = #rows}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %pad = arith.constant 3 : i8
  %pt = arith.constant dense<9> : vector<8xi8>
  %mask = vector.create_mask %c7 : vector<8xi1>
  %v = vector.mask %mask, %pt { vector.transfer_read %x[%c2], %pad : tensor<11xi8>, vector<8xi8> } : vector<8xi1> -> vector<8xi8>
  %w = vector.transfer_write %v, %y[%c0] : vector<8xi8>, tensor<11xi8>
  %z = arith.addi %w, %x : tensor<11xi8>
  return %z : tensor<11xi8>
}

// Counts the negative and the other elements of %x, and squares them.
func.func @histogram(%x: tensor<8xf32> {shard.layout = #rows})
    -> (tensor<8xf32> {shard.layout = #rows},
        tensor<2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %buf = memref.alloc() : memref<2xf32>
  memref.store %zero, %buf[%c0] : memref<2xf32>
  memref.store %zero, %buf[%c1] : memref<2xf32>
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %neg = arith.cmpf olt, %in, %zero : f32
    %bin = arith.select %neg, %c0, %c1 : index
    %old = memref.atomic_rmw addf %one, %buf[%bin] : (f32, memref<2xf32>) -> f32
    %a = arith.mulf %in, %in : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %l0 = memref.load %buf[%c0] : memref<2xf32>
  %l1 = memref.load %buf[%c1] : memref<2xf32>
  %t = tensor.from_elements %l0, %l1 : tensor<2xf32>
  return %s, %t : tensor<8xf32>, tensor<2xf32>
}
