// The SPMD collectives' BufferizableOpInterface, registered with the
// dialects: an embedder's own one-shot bufferization lowers them to runtime
// calls (as -shard-lower-to-runtime does) and knows that each reads its
// input and writes a new buffer. So a write into a collective's result is
// in place when nothing reads the result later, and goes to a copy when a
// collective still reads it (issue 25, item 1: before, the later collective
// read the written values).
// RUN: shard-opt %s -one-shot-bufferize=bufferize-function-boundaries | FileCheck %s

!s = !shard.tensor<8x4xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>

// Equal tables are one global, named by their contents.
// CHECK-COUNT-1: memref.global "private" constant @__shard_blocks_{{[0-9a-f]+}} : memref<2x5xi64>
// CHECK-NOT: memref.global

// CHECK-LABEL: func.func @read_after_write(
func.func @read_after_write(%l: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  // CHECK: %[[G:.*]] = memref.alloc() {{.*}} : memref<8x4xf32>
  // CHECK: call @__shard_call_shardrt_mlir_all_gather_f32(
  // CHECK: %[[F:.*]] = memref.alloc() {{.*}} : memref<8x4xf32>
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[F]] : memref<8x4xf32>)
  // CHECK: %[[IN:.*]] = memref.cast %[[G]]
  // CHECK: call @__shard_call_shardrt_mlir_scatter_f32(%[[IN]],
  // CHECK: return %[[F]],
  %g = shard.spmd.all_gather %l over world from !s : tensor<4x4xf32> -> tensor<8x4xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%g : tensor<8x4xf32>) -> tensor<8x4xf32>
  %h = shard.spmd.scatter %g over world root 0 to !s : tensor<8x4xf32> -> tensor<4x4xf32>
  %g2 = shard.spmd.all_gather %h over world from !s : tensor<4x4xf32> -> tensor<8x4xf32>
  return %f, %g2 : tensor<8x4xf32>, tensor<8x4xf32>
}

// Nothing reads %g after the fill: the fill writes the collective's buffer.
// CHECK-LABEL: func.func @in_place(
func.func @in_place(%l: tensor<4x4xf32>) -> tensor<8x4xf32> {
  // CHECK: %[[G:.*]] = memref.alloc() {{.*}} : memref<8x4xf32>
  // CHECK: call @__shard_call_shardrt_mlir_all_gather_f32(
  // CHECK-NOT: memref.alloc
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[G]] : memref<8x4xf32>)
  // CHECK: return %[[G]]
  %g = shard.spmd.all_gather %l over world from !s : tensor<4x4xf32> -> tensor<8x4xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%g : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %f : tensor<8x4xf32>
}
