//===- Passes.td - shard passes ----------------------------*- tablegen -*-===//

#ifndef SHARDC_PASSES_PASSES_TD
#define SHARDC_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def ShardPlanRedistribute : Pass<"shard-plan-redistribute", "mlir::ModuleOp"> {
  let summary = "Plan global shard ops into SPMD collectives";
  let description = [{
    Rewrites the global view (values of the sharded tensor type) into what
    each rank runs: every sharded value becomes this rank's block, an
    ordinary tensor of the spec's local type, and every global op becomes
    SPMD collectives on those blocks. Function signatures are converted too.

    Before:
    ```mlir
    func.func @f(%s: !shard.tensor<6x10xf32, #shard.chunk<dim = 1,
        placements = ["rank:0/cpu", "rank:1/cpu", "rank:2/cpu", "rank:3/cpu"]>>)
        -> tensor<6x10xf32> {
      %t = shard.all_gather %s : !shard.tensor<...> -> tensor<6x10xf32>
      return %t : tensor<6x10xf32>
    }
    ```
    After:
    ```mlir
    func.func @f(%l: tensor<6x?xf32>) -> tensor<6x10xf32> {
      %t = shard.spmd.all_gather %l layout !shard.tensor<...>
          : tensor<6x?xf32> -> tensor<6x10xf32>
      return %t : tensor<6x10xf32>
    }
    ```
    In this version: all_gather and distribute of chunk and enumerable specs
    with at most one block per rank (uneven and empty blocks included), any
    dim; redistribute between equal specs. Anything else is reported as not
    supported yet, never planned wrongly.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def ShardLowerToRuntime : Pass<"shard-lower-to-runtime", "mlir::ModuleOp"> {
  let summary = "Lower SPMD collectives to calls of the shardrt C ABI";
  let description = [{
    Each SPMD collective becomes a `func.call` of the runtime
    (`shardrt_mlir_<collective>_<dtype>`) on unranked memrefs, with the
    layout's block table as a constant global:

    Before:
    ```mlir
    %t = shard.spmd.all_gather %l layout !shard.tensor<...>
        : tensor<6x?xf32> -> tensor<6x10xf32>
    ```
    After:
    ```mlir
    memref.global "private" constant @__shard_blocks_0 : memref<4x5xi64> = dense<...>
    ...
    %in = bufferization.to_buffer %l read_only : tensor<6x?xf32> to memref<6x?xf32, strided<[?, ?], offset: ?>>
    %out = memref.alloc() : memref<6x10xf32>
    %table = memref.get_global @__shard_blocks_0 : memref<4x5xi64>
    call @shardrt_mlir_all_gather_f32(%in_u, %out_u, %table_u, %cpu) : (...) -> ()
    %t = bufferization.to_tensor %out restrict writable : memref<6x10xf32> to tensor<6x10xf32>
    ```
    Blocks on "cuda" placements pass the CUDA device code (NCCL backend).
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect",
    "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect",
  ];
}

#endif // SHARDC_PASSES_PASSES_TD
