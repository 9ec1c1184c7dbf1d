// Collectives on a CUDA mesh of @N@ ranks (1-D, f32[@SIZE@]), lowered by
// --shard-to-llvm=device-alloc=1 and run on the simulated device
// (test/e2e/cuda-collectives-sim.test). Each rank prints
// how many elements of each result differ from the value computed here
// independently:
//   all_gather S(0) -> R           element i: i
//   all_reduce P(sum) -> R         element i: n i + 10 (0 + 1 + ... + n-1)
//   reduce_scatter P(sum) -> S(0)  the same, on this rank's chunk
//   exchange S(0) -> S(0) on the mesh's devices reversed: this rank gets
//                                  the chunk of mesh position n-1-rank
#c = #shard.mesh<shape = [@N@], device = "cuda">
#v = #shard.mesh<shape = [@N@], devices = [@REV@], device = "cuda">
!s = !shard.tensor<@SIZE@xf32, #shard.placements<mesh = #c, placements = [S(0)]>>
!r = !shard.tensor<@SIZE@xf32, #shard.placements<mesh = #c, placements = [R]>>
!p = !shard.tensor<@SIZE@xf32, #shard.placements<mesh = #c, placements = [P(sum)]>>
!v = !shard.tensor<@SIZE@xf32, #shard.placements<mesh = #v, placements = [S(0)]>>
func.func private @shardrt_rank() -> i32
func.func private @printI64(i64)
func.func private @printNewline()

// Prints how many elements i of %t differ from a (first + i) + b.
func.func @mismatches(%t: tensor<?xf32>, %first: index, %a: f32, %b: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %n = tensor.dim %t, %c0 : tensor<?xf32>
  %bad = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> i64 {
    %x = tensor.extract %t[%i] : tensor<?xf32>
    %g = arith.addi %first, %i : index
    %g64 = arith.index_cast %g : index to i64
    %gf = arith.sitofp %g64 : i64 to f32
    %ag = arith.mulf %a, %gf : f32
    %e = arith.addf %ag, %b : f32
    %ne = arith.cmpf une, %x, %e : f32
    %inc = arith.select %ne, %one, %z : i64
    %s = arith.addi %acc, %inc : i64
    scf.yield %s : i64
  }
  call @printI64(%bad) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}

// The chunk of mesh position p: its first element and size.
func.func @chunk(%p: index) -> (index, index) {
  %c10 = arith.constant @SIZE@ : index
  %n = arith.constant @N@ : index
  %size = arith.ceildivui %c10, %n : index
  %f = arith.muli %p, %size : index
  %first = arith.minui %f, %c10 : index
  %left = arith.subi %c10, %first : index
  %mine = arith.minui %size, %left : index
  return %first, %mine : index, index
}

func.func @main() {
  %r32 = call @shardrt_rank() : () -> i32
  %rank = arith.index_cast %r32 : i32 to index
  %n = arith.constant @N@ : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %first, %size = call @chunk(%rank) : (index) -> (index, index)
  // This rank's block of S(0): element i is first + i.
  %blk = tensor.generate %size {
  ^bb0(%i: index):
    %g = arith.addi %first, %i : index
    %g64 = arith.index_cast %g : index to i64
    %v = arith.sitofp %g64 : i64 to f32
    tensor.yield %v : f32
  } : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32

  %g = shard.spmd.all_gather %blk over axes [0] dim 0 from !s to !r : tensor<?xf32> -> tensor<@SIZE@xf32>
  %gd = tensor.cast %g : tensor<@SIZE@xf32> to tensor<?xf32>
  call @mismatches(%gd, %c0, %one, %zero) : (tensor<?xf32>, index, f32, f32) -> ()

  // Partial values: rank r holds i + 10 r.
  %pv = tensor.generate {
  ^bb0(%i: index):
    %ten = arith.constant 10 : index
    %tr = arith.muli %rank, %ten : index
    %x = arith.addi %i, %tr : index
    %x64 = arith.index_cast %x : index to i64
    %v = arith.sitofp %x64 : i64 to f32
    tensor.yield %v : f32
  } : tensor<@SIZE@xf32>
  %n64 = arith.index_cast %n : index to i64
  %nf = arith.sitofp %n64 : i64 to f32
  // 10 (0 + ... + n-1) = 5 n (n - 1)
  %nm1 = arith.subf %nf, %one : f32
  %five = arith.constant 5.0 : f32
  %t1 = arith.mulf %five, %nf : f32
  %offset = arith.mulf %t1, %nm1 : f32
  %ar = shard.spmd.all_reduce %pv over axes [0] reduce sum from !p to !r : tensor<@SIZE@xf32> -> tensor<@SIZE@xf32>
  %ard = tensor.cast %ar : tensor<@SIZE@xf32> to tensor<?xf32>
  call @mismatches(%ard, %c0, %nf, %offset) : (tensor<?xf32>, index, f32, f32) -> ()
  %rs = shard.spmd.reduce_scatter %pv over axes [0] dim 0 reduce sum from !p to !s : tensor<@SIZE@xf32> -> tensor<?xf32>
  call @mismatches(%rs, %first, %nf, %offset) : (tensor<?xf32>, index, f32, f32) -> ()

  // The devices reversed: this rank is mesh position n - 1 - rank.
  %x = shard.spmd.exchange %blk from !s to !v : tensor<?xf32> -> tensor<?xf32>
  %nm1i = arith.subi %n, %c1 : index
  %pos = arith.subi %nm1i, %rank : index
  %xfirst, %xsize = call @chunk(%pos) : (index) -> (index, index)
  call @mismatches(%x, %xfirst, %one, %zero) : (tensor<?xf32>, index, f32, f32) -> ()
  return
}
