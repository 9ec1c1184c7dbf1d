// A 6x10 f32 tensor chunk-sharded on dim 1 over 4 ranks (sizes 3, 3, 3, 1):
// rank 0 fills it with each element's linear index, distributes it, and every
// rank all-gathers it back. Each rank prints its local block and the gathered
// tensor.
//
//   shard-opt all_gather_6x10.mlir --shard-to-llvm -o prog.mlir
//   mpirun -np 4 mlir-runner prog.mlir -e main -entry-point-result=void \
//     -shared-libs=libshardrt.so,libmlir_c_runner_utils.so,libmlir_runner_utils.so
//
// scripts/run-example.sh does all this; test/e2e/all-gather-6x10-dim1.test
// checks every element on every rank.

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
