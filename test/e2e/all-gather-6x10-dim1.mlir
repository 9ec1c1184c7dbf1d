// The foundation's end-to-end case: a 6x10 tensor chunk-sharded on dim 1 over
// 4 ranks (sizes 3, 3, 3, 1), distributed from rank 0, all-gathered, lowered
// to LLVM and run on 4 MPI ranks. Every element of every rank's local block
// and gathered tensor is checked against its global linear index.
// REQUIRES: mpi
// RUN: shard-opt %s --shard-to-llvm -o %t.ll.mlir
// RUN: rm -f %t.rank.*
// RUN: %mpirun -np 4 %per-rank %t.rank %mlir-run %t.ll.mlir
// RUN: %python %S/Inputs/check_ranks.py --prefix %t.rank --world 4 --shape 6x10 --dim 1 --placements 0,1,2,3 | FileCheck %s

// CHECK-DAG: rank 0: OK (60 elements
// CHECK-DAG: rank 1: OK (60 elements
// CHECK-DAG: rank 2: OK (60 elements
// CHECK-DAG: rank 3: OK (60 elements

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu", "rank:2/cpu", "rank:3/cpu"]>>

func.func private @shardrt_rank() -> i32
func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%t: tensor<6x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<6x?xf32> to memref<6x?xf32>
  %u = memref.cast %m : memref<6x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  // Rank 0 holds the tensor, each element its linear index; the others hold
  // -1 everywhere, so that data that did not move shows.
  %rank32 = call @shardrt_rank() : () -> i32
  %zero = arith.constant 0 : i32
  %is_src = arith.cmpi eq, %rank32, %zero : i32
  %full = tensor.generate {
  ^bb0(%i: index, %j: index):
    %c10 = arith.constant 10 : index
    %row = arith.muli %i, %c10 : index
    %lin = arith.addi %row, %j : index
    %lin64 = arith.index_cast %lin : index to i64
    %v = arith.sitofp %lin64 : i64 to f32
    %none = arith.constant -1.0 : f32
    %x = arith.select %is_src, %v, %none : f32
    tensor.yield %x : f32
  } : tensor<6x10xf32>

  %s = shard.distribute %full from rank 0 : tensor<6x10xf32> -> !s
  %local = shard.local_shards %s : !s -> tensor<6x?xf32>
  %gathered = shard.all_gather %s : !s -> tensor<6x10xf32>

  call @print(%local) : (tensor<6x?xf32>) -> ()
  %g = tensor.cast %gathered : tensor<6x10xf32> to tensor<6x?xf32>
  call @print(%g) : (tensor<6x?xf32>) -> ()
  return
}
