// The shard-to-llvm pipeline goes from the global view to the LLVM dialect:
// nothing but llvm ops remain, and the runtime is called.
// RUN: shard-opt %s --shard-to-llvm | FileCheck %s
// A malformed tensor.pad (a static padding of INT64_MIN) is refused by the
// first pass, -shard-propagate, not crashed on by the canonicalizer after:
// RUN: shard-opt %S/Inputs/phantom-pad.mlir -shard-propagate -verify-diagnostics -o /dev/null
// RUN: not shard-opt %S/Inputs/phantom-pad.mlir --shard-to-llvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAD
// PAD: error: 'tensor.pad' op names more dynamic paddings than it has values
// ub.poison is parsed (the ub dialect was not registered) and lowered:
// RUN: shard-opt %S/Inputs/ub-poison.mlir --shard-to-llvm | FileCheck %s --check-prefix=POISON
// POISON: llvm.func @poison
// POISON: llvm.mlir.poison : f32
// POISON-NOT: ub.poison
// An annotated program (linalg, arith, math on tensors) goes down too: it
// is propagated and partitioned first.
// RUN: shard-opt %S/../../examples/mlp_tensor_parallel.mlir --shard-to-llvm | FileCheck %s --check-prefix=PROGRAM
// The pipeline takes the cost model's options and hands them to every pass
// that plans (issue 25, item 9: before, it took none, and propagate and
// partition planned with the defaults whatever was asked).
// RUN: shard-opt %s --shard-to-llvm="link=infiniband plans=direct alpha-us=3" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTIONS
// OPTIONS: shard-propagate{alpha-us=3 {{.*}}link=infiniband {{.*}}plans=direct
// OPTIONS: shard-spmd-partition{alpha-us=3 {{.*}}link=infiniband {{.*}}plans=direct
// OPTIONS: shard-plan-redistribute{alpha-us=3 {{.*}}link=infiniband {{.*}}plans=direct
// RUN: not shard-opt %s --shard-to-llvm="link=ethernet" 2>&1 | FileCheck %s --check-prefix=BADLINK
// BADLINK: for the --link option: 'ethernet' is not a link class: nvlink or infiniband
// The pipeline --dump-pass-pipeline prints runs again as printed: every pass
// in it is registered in shard-opt.
// RUN: shard-opt %s --shard-to-llvm --dump-pass-pipeline 2>&1 >/dev/null | tail -n +2 | tr -d '\n' > %t.pipeline
// RUN: shard-opt %s --pass-pipeline="$(cat %t.pipeline)" | FileCheck %s
// RUN: shard-opt %S/../../examples/mlp_tensor_parallel.mlir --pass-pipeline="$(cat %t.pipeline)" | FileCheck %s --check-prefix=PROGRAM
// PROGRAM-LABEL: llvm.func @mlp(
// PROGRAM: llvm.call @shardrt_rank()
// PROGRAM: llvm.call @__shard_call_shardrt_mlir_group_collective_f32(
// PROGRAM-NOT: {{(func|memref|tensor|bufferization|shard|arith|scf|cf|linalg|math)\.}}

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>

// CHECK-DAG: llvm.func @shardrt_mlir_scatter_f32(i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, i32)
// CHECK-DAG: llvm.func @shardrt_mlir_all_gather_f32(i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i32)
// CHECK-DAG: llvm.func @shardrt_rank() -> i32
// The call wrappers hold the descriptors' allocas; main holds none.
// CHECK-DAG: llvm.func @__shard_call_shardrt_mlir_scatter_f32(
// CHECK-DAG: llvm.func @__shard_call_shardrt_mlir_all_gather_f32(
// CHECK-DAG: llvm.mlir.global private constant @__shard_blocks_{{[0-9a-f]+}}(dense<{{\[}}[0, 0, 0, 6, 3], [1, 0, 3, 6, 3], [2, 0, 6, 6, 3], [3, 0, 9, 6, 1]]> : tensor<4x5xi64>)
// CHECK-LABEL: llvm.func @main(
// CHECK: llvm.call @shardrt_rank()
// CHECK: llvm.call @__shard_call_shardrt_mlir_scatter_f32(
// CHECK: llvm.call @__shard_call_shardrt_mlir_all_gather_f32(
// CHECK-NOT: llvm.alloca
// CHECK-NOT: {{(func|memref|tensor|bufferization|shard|arith|scf|cf)\.}}
func.func @main(%t: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %s = shard.distribute %t from rank 0 : tensor<6x10xf32> -> !s
  %g = shard.all_gather %s : !s -> tensor<6x10xf32>
  return %g : tensor<6x10xf32>
}
