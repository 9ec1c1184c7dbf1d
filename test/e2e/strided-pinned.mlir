// Values pinned in strided layouts (FSDP2 + TP's [_S(0, tp), S(0)] on a
// parameter, DTensor's, even and uneven: torch.chunk's groups) stay where
// they are through elementwise ops, a matmul with a replicated weight, an
// optimizer-like update and a loop of updates (its carried value offered
// the pinned split: it was exchanged in and out): 0 bytes on every rank (they were gathered or
// exchanged: the search offered strided cuts only in the groups reshapes
// fold, and refused groups the split does not divide). And a strided view
// (a column's slice, a slice with a step) moved into a strided layout is
// copied to a buffer of its own for the packed runtime call (found by an
// adversarial test: the runtime aborted every rank, "the source memref
// holds several blocks packed but is not contiguous"). Every element
// checked.
// REQUIRES: mpi
// RUN: %mpirun -np 4 %shard-run %s --entry ew_even,ew_uneven,mm_uneven,update_uneven,loop_update --check 2>&1 | FileCheck %s --check-prefix=STAY --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 4 %shard-run %s --entry ew_even,ew_uneven,mm_uneven,update_uneven,loop_update --check --propagate=search=greedy 2>&1 | FileCheck %s --check-prefix=STAY --implicit-check-not=error: --implicit-check-not=MISMATCH
// STAY-COUNT-20: OK, {{[0-9]+}} elements checked, received 0 bytes
// RUN: %mpirun -np 2 %shard-run %s --entry colslice,stepslice --check 2>&1 | FileCheck %s --check-prefix=VIEW --implicit-check-not=error: --implicit-check-not=MISMATCH
// RUN: %mpirun -np 2 %shard-run %s --entry colslice,stepslice --check --propagate=search=greedy 2>&1 | FileCheck %s --check-prefix=VIEW --implicit-check-not=error: --implicit-check-not=MISMATCH
// VIEW-COUNT-4: OK, {{[0-9]+}} elements checked

#m = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
#fsdp = #shard.placements<mesh = #m, placements = [_S(0, 2), S(0)]>
#m2 = #shard.mesh<shape = [2]>
#C = #shard.placements<mesh = #m2, placements = [_S(0, 2)]>
#S0 = #shard.placements<mesh = #m2, placements = [S(0)]>

func.func @ew_even(%x: tensor<8x4xf32> {shard.layout = #fsdp}) -> (tensor<8x4xf32> {shard.layout = #fsdp}) {
  %c = arith.constant dense<1.5> : tensor<8x4xf32>
  %p = arith.mulf %x, %c : tensor<8x4xf32>
  %e = math.exp %p : tensor<8x4xf32>
  return %e : tensor<8x4xf32>
}

// 9 rows: groups of 5 and 4, dp's pieces then cut on tp.
func.func @ew_uneven(%x: tensor<9x4xf32> {shard.layout = #fsdp}) -> (tensor<9x4xf32> {shard.layout = #fsdp}) {
  %c = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.0], [21.0, 22.0, 23.0, 24.0], [25.0, 26.0, 27.0, 28.0], [29.0, 30.0, 31.0, 32.0], [33.0, 34.0, 35.0, 36.0]]> : tensor<9x4xf32>
  %p = arith.mulf %x, %c : tensor<9x4xf32>
  return %p : tensor<9x4xf32>
}

func.func @mm_uneven(%x: tensor<9x4xf32> {shard.layout = #fsdp}, %w: tensor<4x3xf32>) -> (tensor<9x3xf32> {shard.layout = #fsdp}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<9x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<9x3xf32>) -> tensor<9x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<9x4xf32>, tensor<4x3xf32>) outs(%f : tensor<9x3xf32>) -> tensor<9x3xf32>
  return %y : tensor<9x3xf32>
}

// p - lr * g and the moment m * 0.9 + g * 0.1, all in the parameter's
// layout.
func.func @update_uneven(%p: tensor<9x4xf32> {shard.layout = #fsdp}, %g: tensor<9x4xf32> {shard.layout = #fsdp}, %m: tensor<9x4xf32> {shard.layout = #fsdp})
    -> (tensor<9x4xf32> {shard.layout = #fsdp}, tensor<9x4xf32> {shard.layout = #fsdp}) {
  %b = arith.constant dense<0.9> : tensor<9x4xf32>
  %a = arith.constant dense<0.1> : tensor<9x4xf32>
  %mb = arith.mulf %m, %b : tensor<9x4xf32>
  %ga = arith.mulf %g, %a : tensor<9x4xf32>
  %m2 = arith.addf %mb, %ga : tensor<9x4xf32>
  %step = arith.mulf %m2, %a : tensor<9x4xf32>
  %p2 = arith.subf %p, %step : tensor<9x4xf32>
  return %p2, %m2 : tensor<9x4xf32>, tensor<9x4xf32>
}

// Three steps of an update in a loop, the parameter carried in its layout.
func.func @loop_update(%p: tensor<9x4xf32> {shard.layout = #fsdp}, %g: tensor<9x4xf32> {shard.layout = #fsdp}) -> (tensor<9x4xf32> {shard.layout = #fsdp}) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %lr = arith.constant dense<0.5> : tensor<9x4xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %p) -> (tensor<9x4xf32>) {
    %s = arith.mulf %g, %lr : tensor<9x4xf32>
    %n = arith.subf %acc, %s : tensor<9x4xf32>
    %t = math.tanh %n : tensor<9x4xf32>
    scf.yield %t : tensor<9x4xf32>
  }
  return %r : tensor<9x4xf32>
}

func.func @colslice(%x: tensor<8x2xf32> {shard.layout = #S0}) -> (tensor<8x1xf32> {shard.layout = #C}) {
  %y = tensor.extract_slice %x[0, 1] [8, 1] [1, 1] : tensor<8x2xf32> to tensor<8x1xf32>
  return %y : tensor<8x1xf32>
}

func.func @stepslice(%x: tensor<9x2xf32> {shard.layout = #C}) -> (tensor<4x2xf32> {shard.layout = #C}) {
  %y = tensor.extract_slice %x[0, 0] [4, 2] [2, 1] : tensor<9x2xf32> to tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
