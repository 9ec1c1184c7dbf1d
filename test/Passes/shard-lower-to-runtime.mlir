// RUN: shard-opt %s -shard-lower-to-runtime -split-input-file -verify-diagnostics | FileCheck %s

!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>

// The block table: rows [owner, offsets..., sizes...], chunks 3, 3, 3, 1.
// CHECK-DAG: memref.global "private" constant @[[TABLE:__shard_blocks_[0-9a-f]+]] : memref<4x5xi64> = dense<{{\[}}[0, 0, 0, 6, 3], [1, 0, 3, 6, 3], [2, 0, 6, 6, 3], [3, 0, 9, 6, 1]]>
// CHECK-DAG: func.func private @shardrt_mlir_all_gather_f32(memref<*xf32>, memref<*xf32>, memref<*xi64>, i32)
// CHECK-DAG: func.func private @shardrt_mlir_scatter_f32(memref<*xf32>, memref<*xf32>, memref<*xi64>, i64, i32)
// CHECK-DAG: func.func private @shardrt_rank() -> i32
// One wrapper per runtime function and argument types: the casts and the
// call. Memrefs are passed with every size and stride dynamic, so one
// wrapper serves every shape.
// CHECK-DAG: func.func private @[[AGWRAP:__shard_call_shardrt_mlir_all_gather_f32]](%[[A0:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[A1:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[A2:.*]]: memref<?x?xi64, strided<[?, ?], offset: ?>>, %[[A3:.*]]: i32) {
// CHECK-DAG:   %[[C0:.*]] = memref.cast %[[A0]] : memref<?x?xf32, strided<[?, ?], offset: ?>> to memref<*xf32>
// CHECK-DAG:   %[[C1:.*]] = memref.cast %[[A1]] : memref<?x?xf32, strided<[?, ?], offset: ?>> to memref<*xf32>
// CHECK-DAG:   %[[C2:.*]] = memref.cast %[[A2]] : memref<?x?xi64, strided<[?, ?], offset: ?>> to memref<*xi64>
// CHECK-DAG:   call @shardrt_mlir_all_gather_f32(%[[C0]], %[[C1]], %[[C2]], %[[A3]])

// The module is bufferized: a collective reads its input's buffer and
// writes a new one, its result.
// CHECK-LABEL: func.func @all_gather(
// CHECK-SAME: %[[L:.*]]: memref<6x?xf32>) -> memref<6x10xf32>
func.func @all_gather(%l: tensor<6x?xf32>) -> tensor<6x10xf32> {
  // CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<6x10xf32>
  // CHECK: %[[T:.*]] = memref.get_global @[[TABLE]] : memref<4x5xi64>
  // CHECK: %[[CPU:.*]] = arith.constant 0 : i32
  // CHECK: %[[IN:.*]] = memref.cast %[[L]] : memref<6x?xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  // CHECK: %[[O:.*]] = memref.cast %[[OUT]] : memref<6x10xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  // CHECK: %[[TT:.*]] = memref.cast %[[T]] : memref<4x5xi64> to memref<?x?xi64, strided<[?, ?], offset: ?>>
  // The casts to unranked memrefs and the call sit in a wrapper function:
  // the descriptors the casts put on the stack are freed when it returns,
  // so a collective in a loop does not grow the stack.
  // CHECK: call @[[AGWRAP]](%[[IN]], %[[O]], %[[TT]], %[[CPU]])
  // CHECK: return %[[OUT]]
  %t = shard.spmd.all_gather %l over world from !s : tensor<6x?xf32> -> tensor<6x10xf32>
  return %t : tensor<6x10xf32>
}

// CHECK-LABEL: func.func @scatter(
func.func @scatter(%t: tensor<6x10xf32>) -> tensor<6x?xf32> {
  // The local block's dynamic size comes from this rank's row of the block
  // table, found by a scan (0 when the rank owns no block).
  // CHECK: %[[RANK32:.*]] = call @shardrt_rank() : () -> i32
  // CHECK: %[[RANK:.*]] = arith.extsi %[[RANK32]] : i32 to i64
  // CHECK: %[[T:.*]] = memref.get_global @[[TABLE]] : memref<4x5xi64>
  // CHECK: %[[N:.*]] = scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[CUR:.*]] = %{{.*}}) -> (index) {
  // CHECK:   %[[OWNER:.*]] = memref.load %[[T]][%[[ROW]], %{{.*}}] : memref<4x5xi64>
  // CHECK:   %[[MINE:.*]] = arith.cmpi eq, %[[OWNER]], %[[RANK]] : i64
  // CHECK:   %[[SZ64:.*]] = memref.load %[[T]][%[[ROW]], %{{.*}}] : memref<4x5xi64>
  // CHECK:   %[[SZ:.*]] = arith.index_cast %[[SZ64]] : i64 to index
  // CHECK:   %[[NEXT:.*]] = arith.select %[[MINE]], %[[SZ]], %[[CUR]] : index
  // CHECK:   scf.yield %[[NEXT]] : index
  // CHECK: %[[OUT:.*]] = memref.alloc(%[[N]]) {{.*}}: memref<6x?xf32>
  // CHECK: %[[ROOT:.*]] = arith.constant 2 : i64
  // CHECK: call @__shard_call_shardrt_mlir_scatter_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ROOT]], %{{.*}})
  %l = shard.spmd.scatter %t over world root 2 to !s : tensor<6x10xf32> -> tensor<6x?xf32>
  return %l : tensor<6x?xf32>
}

// -----

// CUDA placements select the NCCL backend (device code 1); ui8 has its own
// entry point.
!s = !shard.tensor<8xui8, #shard.chunk<dim = 0, placements = ["rank:0/cuda:0", "rank:1/cuda:1"]>>
// CHECK-LABEL: func.func @cuda(
func.func @cuda(%l: tensor<4xui8>) -> tensor<8xui8> {
  // CHECK: %[[CUDA:.*]] = arith.constant 1 : i32
  // CHECK: call @__shard_call_shardrt_mlir_all_gather_ui8(%{{.*}}, %{{.*}}, %{{.*}}, %[[CUDA]])
  %t = shard.spmd.all_gather %l over world from !s : tensor<4xui8> -> tensor<8xui8>
  return %t : tensor<8xui8>
}

// -----

// A type the runtime has no entry points for at all.
!s = !shard.tensor<8xcomplex<f32>, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func @dtype(%l: tensor<4xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  // expected-error @+1 {{element type 'complex<f32>' is not supported by the runtime (supported: f32, f64, f16, bf16, f8E4M3FN, f8E5M2, i8, i16, i32, i64, ui8, ui16, ui32, ui64, i1, index, si8, si16, si32, si64, si1)}}
  %t = shard.spmd.all_gather %l over world from !s : tensor<4xcomplex<f32>> -> tensor<8xcomplex<f32>>
  return %t : tensor<8xcomplex<f32>>
}

// -----

// i16 and the unsigned integers have runtime dtypes of their own; types
// with none move as the bytes of one of their width, through entry points
// of their own: signed integers (their signless peers'), f8 (bytes). Those
// are never reduced.
!s16 = !shard.tensor<8xi16, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!ss8 = !shard.tensor<8xsi8, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!su32 = !shard.tensor<8xui32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!sf8 = !shard.tensor<8xf8E4M3FN, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
// CHECK-LABEL: func.func @bytes(
func.func @bytes(%a: tensor<4xi16>, %b: tensor<4xsi8>, %c: tensor<4xui32>, %d: tensor<4xf8E4M3FN>) -> (tensor<8xi16>, tensor<8xsi8>, tensor<8xui32>, tensor<8xf8E4M3FN>) {
  // CHECK: call @__shard_call_shardrt_mlir_all_gather_i16(
  // CHECK: call @__shard_call_shardrt_mlir_all_gather_si8(
  // CHECK: call @__shard_call_shardrt_mlir_all_gather_ui32(
  // CHECK: call @__shard_call_shardrt_mlir_all_gather_f8E4M3FN(
  %0 = shard.spmd.all_gather %a over world from !s16 : tensor<4xi16> -> tensor<8xi16>
  %1 = shard.spmd.all_gather %b over world from !ss8 : tensor<4xsi8> -> tensor<8xsi8>
  %2 = shard.spmd.all_gather %c over world from !su32 : tensor<4xui32> -> tensor<8xui32>
  %3 = shard.spmd.all_gather %d over world from !sf8 : tensor<4xf8E4M3FN> -> tensor<8xf8E4M3FN>
  return %0, %1, %2, %3 : tensor<8xi16>, tensor<8xsi8>, tensor<8xui32>, tensor<8xf8E4M3FN>
}

// -----

#m = #shard.mesh<shape = [2]>
!p = !shard.tensor<4xsi32, #shard.placements<mesh = #m, placements = [P(sum)]>>
!r = !shard.tensor<4xsi32, #shard.placements<mesh = #m, placements = [R]>>
func.func @reduce_signed(%p: tensor<4xsi32>) -> tensor<4xsi32> {
  // expected-error @+1 {{cannot reduce 'si32' values: the runtime moves them as bytes and does not reduce them}}
  %0 = shard.spmd.all_reduce %p over axes [0] reduce sum from !p to !r : tensor<4xsi32> -> tensor<4xsi32>
  return %0 : tensor<4xsi32>
}

// -----

// Unsigned integers and i16 are reduced by the runtime (as unsigned and
// signed numbers).
#m = #shard.mesh<shape = [2]>
!pu = !shard.tensor<4xui32, #shard.placements<mesh = #m, placements = [P(max)]>>
!ru = !shard.tensor<4xui32, #shard.placements<mesh = #m, placements = [R]>>
!pi = !shard.tensor<4xi16, #shard.placements<mesh = #m, placements = [P(sum)]>>
!ci = !shard.tensor<4xi16, #shard.placements<mesh = #m, placements = [S(0)]>>
// CHECK-LABEL: func.func @reduce_unsigned_and_i16(
func.func @reduce_unsigned_and_i16(%p: tensor<4xui32>, %q: tensor<4xi16>) -> (tensor<4xui32>, tensor<2xi16>) {
  // CHECK: call @__shard_call_shardrt_mlir_group_collective_ui32(
  // CHECK: call @__shard_call_shardrt_mlir_redistribute_reduce_i16(
  %0 = shard.spmd.all_reduce %p over axes [0] reduce max from !pu to !ru : tensor<4xui32> -> tensor<4xui32>
  %1 = shard.spmd.exchange %q from !pi to !ci : tensor<4xi16> -> tensor<2xi16>
  return %0, %1 : tensor<4xui32>, tensor<2xi16>
}

// -----

// i1 moves as bytes (one per element, as MLIR stores it) through the
// runtime's i1 entry points, which move ui8's.
!s = !shard.tensor<8xi1, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
// CHECK-LABEL: func.func @mask(
func.func @mask(%l: tensor<4xi1>) -> tensor<8xi1> {
  // CHECK: call @__shard_call_shardrt_mlir_all_gather_i1(
  %t = shard.spmd.all_gather %l over world from !s : tensor<4xi1> -> tensor<8xi1>
  return %t : tensor<8xi1>
}

// -----

// ... but bytes are not reduced: a sum of i1 is not a sum of bytes.
#m = #shard.mesh<shape = [2]>
!p = !shard.tensor<4xi1, #shard.placements<mesh = #m, placements = [P(sum)]>>
!r = !shard.tensor<4xi1, #shard.placements<mesh = #m, placements = [R]>>
!c = !shard.tensor<4xi1, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func @reduce_bytes(%p: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{cannot reduce 'i1' values: the runtime moves them as bytes and does not reduce them}}
  %0 = shard.spmd.all_reduce %p over axes [0] reduce sum from !p to !r : tensor<4xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

#m = #shard.mesh<shape = [2]>
!p = !shard.tensor<4xi1, #shard.placements<mesh = #m, placements = [P(sum)]>>
!c = !shard.tensor<4xi1, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func @reduce_bytes_exchange(%p: tensor<4xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{cannot reduce the partial values of '!shard.tensor<4xi1, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [P(sum)]>>': the runtime moves 'i1' as bytes and does not reduce it}}
  %1 = shard.spmd.exchange %p from !p to !c : tensor<4xi1> -> tensor<2xi1>
  return %1 : tensor<2xi1>
}

// -----

// A function in its global view (never partitioned): refused up front, where
// bufferization then failed on its own output ("a layout annotates a ranked
// tensor, not 'memref<8xf32>'").
// expected-error @+1 {{'shard.layout' of argument #0: the function is in its global view; run -shard-propagate and -shard-spmd-partition before -shard-lower-to-runtime}}
func.func @global_view(%x: tensor<8xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>}) -> tensor<8xf32> {
  %y = math.tanh %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// expected-error @+1 {{'shard.layout' of result #0: the function is in its global view; run -shard-propagate and -shard-spmd-partition before -shard-lower-to-runtime}}
func.func @global_result(%x: tensor<8xf32>) -> (tensor<8xf32> {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>}) {
  return %x : tensor<8xf32>
}

// -----

!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func @unplanned(%s: !s) -> tensor<8xf32> {
  // expected-error @+1 {{'shard.all_gather' must be planned first: run -shard-plan-redistribute before -shard-lower-to-runtime}}
  %t = shard.all_gather %s : !s -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// Functions and tables go into the nearest symbol table: a nested module
// sees its own.
!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
// CHECK-LABEL: module @inner
module @inner {
  // CHECK-DAG: memref.global "private" constant @__shard_blocks
  // CHECK-DAG: func.func private @shardrt_mlir_all_gather_f32
  // CHECK: func.func @nested
  func.func @nested(%l: tensor<4xf32>) -> tensor<8xf32> {
    %t = shard.spmd.all_gather %l over world from !s : tensor<4xf32> -> tensor<8xf32>
    return %t : tensor<8xf32>
  }
}

// -----

// A nested module beside a function of the outer one: each module's
// functions are bufferized with their module (the outer module's analysis
// met the nested collective as an op of unknown effects, and the file did
// not lower). Both get their runtime calls; the nested mesh goes too.
!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
// CHECK-LABEL: func.func @outer
// CHECK: call @__shard_call_shardrt_mlir_all_gather_f32
func.func @outer(%l: tensor<4xf32>) -> tensor<8xf32> {
  %t = shard.spmd.all_gather %l over world from !s : tensor<4xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}
// CHECK-LABEL: module @beside
// CHECK-NOT: shard.mesh
// CHECK: func.func @nested_beside
// CHECK: call @__shard_call_shardrt_mlir_all_gather_f32
module @beside {
  shard.mesh @m = #shard.mesh<shape = [2]>
  func.func @nested_beside(%l: tensor<4xf32>) -> tensor<8xf32> {
    %t = shard.spmd.all_gather %l over world from !s : tensor<4xf32> -> tensor<8xf32>
    return %t : tensor<8xf32>
  }
}

// -----

// A user's symbol of the runtime's name with another type is an error, not a
// mismatched call.
!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func private @shardrt_mlir_all_gather_f32(memref<*xf32>)
func.func @clash(%l: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{cannot call the runtime: the symbol 'shardrt_mlir_all_gather_f32' is already defined with another type; expected a func.func of type '(memref<*xf32>, memref<*xf32>, memref<*xi64>, i32) -> ()'}}
  // expected-error @+1 {{failed to bufferize op}}
  %t = shard.spmd.all_gather %l over world from !s : tensor<4xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// With replicas, a scatter, an all_gather and the exchange to the world pass
// every device's row (4 rows): the scatter fills every replica; the
// exchange to the world (what the planner makes of an all_gather with
// replicas) calls its own entry point, so that replica holders receive only
// what they lack. Devices [3, 2, 1, 0]: axis 0 replicates, axis 1 shards.
!s = !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2], devices = [3, 2, 1, 0]>, placements = [R, S(0)]>>
// CHECK-DAG: memref.global "private" constant @[[ALL:.*]] : memref<4x5xi64> = dense<{{\[}}[3, 0, 0, 4, 6], [2, 4, 0, 4, 6], [1, 0, 0, 4, 6], [0, 4, 0, 4, 6]]>
// CHECK-LABEL: func.func @replicas(
func.func @replicas(%t: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // CHECK: memref.get_global @[[ALL]]
  // CHECK: call @__shard_call_shardrt_mlir_scatter_f32
  // CHECK: memref.get_global @[[ALL]]
  // CHECK: call @__shard_call_shardrt_mlir_all_gather_f32
  // CHECK: memref.get_global @[[ALL]]
  // CHECK: call @__shard_call_shardrt_mlir_exchange_to_world_f32
  %l = shard.spmd.scatter %t over world root 0 to !s : tensor<8x6xf32> -> tensor<4x6xf32>
  %g = shard.spmd.all_gather %l over world from !s : tensor<4x6xf32> -> tensor<8x6xf32>
  %w = shard.spmd.exchange %l from !s to world : tensor<4x6xf32> -> tensor<8x6xf32>
  %s = arith.addf %g, %w : tensor<8x6xf32>
  return %s : tensor<8x6xf32>
}

// -----

// Mesh declarations have no run-time meaning: they are dropped.
// CHECK-LABEL: module
// CHECK-NOT: shard.mesh
shard.mesh @m = #shard.mesh<shape = [2]>

// -----

// A redistribution passes both block tables, replicas included: (R, S(0)) on
// a 2x2 mesh to chunks over 4 ranks.
!a = !shard.tensor<8x6xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [R, S(0)]>>
!b = !shard.tensor<8x6xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1", "rank:2", "rank:3"]>>
// CHECK-DAG: memref.global "private" constant @[[FROM:.*]] : memref<4x5xi64> = dense<{{\[}}[0, 0, 0, 4, 6], [1, 4, 0, 4, 6], [2, 0, 0, 4, 6], [3, 4, 0, 4, 6]]>
// CHECK-DAG: memref.global "private" constant @[[TO:.*]] : memref<4x5xi64> = dense<{{\[}}[0, 0, 0, 8, 2], [1, 0, 2, 8, 2], [2, 0, 4, 8, 2], [3, 0, 6, 8, 0]]>
// CHECK-DAG: func.func private @shardrt_mlir_redistribute_f32(memref<*xf32>, memref<*xf32>, memref<*xi64>, memref<*xi64>, i32)
// CHECK-LABEL: func.func @exchange(
func.func @exchange(%l: tensor<4x6xf32>) -> tensor<8x?xf32> {
  // CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {{.*}}: memref<8x?xf32>
  // CHECK: memref.get_global @[[FROM]]
  // CHECK: memref.get_global @[[TO]]
  // CHECK: call @__shard_call_shardrt_mlir_redistribute_f32(
  %r = shard.spmd.exchange %l from !a to !b : tensor<4x6xf32> -> tensor<8x?xf32>
  return %r : tensor<8x?xf32>
}

// -----

// A Partial source passes each device's partial index (row-major over the
// Partial axes; replicas share theirs) and the reduction: (R, P(avg)) on a
// 2x2 mesh, to chunks of dim 0 over 2 ranks (a reduce_scatter).
!p = !shard.tensor<4x2xf32, #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [R, P(avg)]>>
!c = !shard.tensor<4x2xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
// CHECK-DAG: memref.global "private" constant @[[PART:__shard_partial.*]] : memref<4xi64> = dense<[0, 1, 0, 1]>
// CHECK-DAG: func.func private @shardrt_mlir_redistribute_reduce_f32(memref<*xf32>, memref<*xf32>, memref<*xi64>, memref<*xi64>, memref<*xi64>, i32, i32)
// CHECK-LABEL: func.func @reduce(
func.func @reduce(%l: tensor<4x2xf32>) -> tensor<2x2xf32> {
  // CHECK: memref.get_global @[[PART]]
  // CHECK: %[[AVG:.*]] = arith.constant 1 : i32
  // CHECK: call @__shard_call_shardrt_mlir_redistribute_reduce_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[AVG]], %{{.*}})
  %r = shard.spmd.exchange %l from !p to !c : tensor<4x2xf32> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// A named collective over mesh axes: one call of the runtime's group
// collective (kind 1: reduce_scatter; op 2: max; root -1), with both block
// tables and the groups as rows [rank, group, position]: on a 2x2 mesh,
// axis 0's groups are ranks {0, 2} and {1, 3}.
#m = #shard.mesh<shape = [2, 2]>
!p = !shard.tensor<8x6xf32, #shard.placements<mesh = #m, placements = [P(max), S(1)]>>
!s = !shard.tensor<8x6xf32, #shard.placements<mesh = #m, placements = [S(0), S(1)]>>
// CHECK: memref.global "private" constant @__shard_groups{{.*}} : memref<4x3xi64> = dense<{{\[}}[0, 0, 0], [2, 0, 1], [1, 1, 0], [3, 1, 1]]>
// CHECK-LABEL: func.func @reduce_scatter(
func.func @reduce_scatter(%l: tensor<8x3xf32>) -> tensor<4x3xf32> {
  // CHECK-DAG: %[[KIND:.*]] = arith.constant 1 : i32
  // CHECK-DAG: %[[ROOT:.*]] = arith.constant -1 : i64
  // CHECK-DAG: %[[OP:.*]] = arith.constant 2 : i32
  // CHECK: call @__shard_call_shardrt_mlir_group_collective_f32(%[[KIND]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ROOT]], %[[OP]], %{{.*}})
  %r = shard.spmd.reduce_scatter %l over axes [0] dim 0 reduce max from !p to !s : tensor<8x3xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// Every kind of runtime call (RuntimeCalls.cpp, runtimeCallOf): the other
// named collectives run as the group collective with their kind (2
// all_reduce, 3 all_to_all, 4 broadcast, 5 gather), root and reduction (4
// product); an exchange from Partial values as redistribute_reduce; a named
// collective on CUDA blocks as the group collective too, with the device
// (1, cuda) last.
#m2 = #shard.mesh<shape = [2]>
#c2 = #shard.mesh<shape = [2], device = "cuda">
!p = !shard.tensor<4xf32, #shard.placements<mesh = #m2, placements = [P(product)]>>
!r = !shard.tensor<4xf32, #shard.placements<mesh = #m2, placements = [R]>>
!s0 = !shard.tensor<4x2xf32, #shard.placements<mesh = #m2, placements = [S(0)]>>
!s1 = !shard.tensor<4x2xf32, #shard.placements<mesh = #m2, placements = [S(1)]>>
!one = !shard.tensor<4xf32, #shard.device_placement<"rank:1">>
!cs = !shard.tensor<4xf32, #shard.placements<mesh = #c2, placements = [S(0)]>>
!cr = !shard.tensor<4xf32, #shard.placements<mesh = #c2, placements = [R]>>
!ch = !shard.tensor<4xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
// CHECK-LABEL: func.func @kinds(
func.func @kinds(%p: tensor<4xf32>, %s: tensor<2x2xf32>, %w: tensor<4xf32>,
                 %c: tensor<2xf32>) {
  // CHECK-DAG: %[[K2:.*]] = arith.constant 2 : i32
  // CHECK-DAG: %[[OP4:.*]] = arith.constant 4 : i32
  // CHECK: call @__shard_call_shardrt_mlir_group_collective_f32{{(_[0-9]+)?}}(%[[K2]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[OP4]], %{{.*}})
  %0 = shard.spmd.all_reduce %p over axes [0] reduce product from !p to !r : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[K3:.*]] = arith.constant 3 : i32
  // CHECK: call @__shard_call_shardrt_mlir_group_collective_f32{{(_[0-9]+)?}}(%[[K3]],
  %1 = shard.spmd.all_to_all %s over axes [0] split 1 concat 0 from !s0 to !s1 : tensor<2x2xf32> -> tensor<4x1xf32>
  // CHECK: %[[K4:.*]] = arith.constant 4 : i32
  // CHECK: %[[ROOT:.*]] = arith.constant 1 : i64
  // CHECK: call @__shard_call_shardrt_mlir_group_collective_f32{{(_[0-9]+)?}}(%[[K4]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ROOT]],
  %2 = shard.spmd.broadcast %w over ranks [0, 1] root 1 from !one to !r : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[K5:.*]] = arith.constant 5 : i32
  // CHECK: call @__shard_call_shardrt_mlir_group_collective_f32{{(_[0-9]+)?}}(%[[K5]],
  %3 = shard.spmd.gather %c over ranks [0, 1] root 1 from !ch to !one : tensor<2xf32> -> tensor<4xf32>
  // CHECK: call @__shard_call_shardrt_mlir_redistribute_reduce_f32(
  %4 = shard.spmd.exchange %p from !p to !r : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[K0:.*]] = arith.constant 0 : i32
  // CHECK: %[[CUDA:.*]] = arith.constant 1 : i32
  // CHECK: call @__shard_call_shardrt_mlir_group_collective_f32{{(_[0-9]+)?}}(%[[K0]], {{.*}}, %[[CUDA]])
  %5 = shard.spmd.all_gather %c over axes [0] dim 0 from !cs to !cr : tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

// The runtime's all_gather, scatter and exchange to the world take one
// block per rank; a layout of several per rank (a packed local view) is an
// error here (-shard-plan-redistribute moves such a layout with an
// exchange between two layouts first).
!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:0", "rank:1"]>>
func.func @packed_all_gather(%l: tensor<?xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot lower 'shard.spmd.all_gather' of '!shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0/cpu", "rank:1/cpu", "rank:0/cpu", "rank:1/cpu"]>>': a rank owns several blocks, which this collective does not support yet}}
  %t = shard.spmd.all_gather %l over world from !s : tensor<?xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:0", "rank:1"]>>
func.func @packed_scatter(%t: tensor<8xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{cannot lower 'shard.spmd.scatter' of}}
  %l = shard.spmd.scatter %t over world root 0 to !s : tensor<8xf32> -> tensor<?xf32>
  return %l : tensor<?xf32>
}

// -----

!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1", "rank:0", "rank:1"]>>
func.func @packed_exchange_to_world(%l: tensor<?xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot lower 'shard.spmd.exchange' of}}
  %t = shard.spmd.exchange %l from !s to world : tensor<?xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// The runtime reads and writes host or device memory as the layout says,
// through memrefs in the default memory space.
!s = !shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
func.func @memory_space(%m: memref<4xf32, 1>) -> tensor<8xf32> {
  %l = bufferization.to_tensor %m restrict : memref<4xf32, 1> to tensor<4xf32>
  // expected-error @+2 {{cannot call the runtime on a buffer of type 'memref<4xf32, 1>': it takes memrefs in the default memory space}}
  // expected-error @+1 {{failed to bufferize op}}
  %t = shard.spmd.all_gather %l over world from !s : tensor<4xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// A negative padding (tensor.pad's verifier lets one through that overflows
// the result's size) segfaulted upstream's bufferization of the pad: refused.
func.func @negative_pad(%x: tensor<10x16xf32>) -> tensor<12x16xf32> {
  %cst = arith.constant 0.5 : f32
  // expected-error @+1 {{'tensor.pad' op pads by -1; -shard-lower-to-runtime lowers non-negative padding only}}
  %p = tensor.pad %x low[1, -1] high[1, 1] {
  ^bb0(%a: index, %b: index):
    tensor.yield %cst : f32
  } : tensor<10x16xf32> to tensor<12x16xf32>
  return %p : tensor<12x16xf32>
}

// -----

// A static padding of INT64_MIN reads as a dynamic one with no value (a
// fuzzed input; bufferization read an operand that is not there): refused.
func.func @phantom_dynamic_pad(%x: tensor<10x16xf32>) -> tensor<12x16xf32> {
  %cst = arith.constant 0.5 : f32
  // expected-error @+1 {{'tensor.pad' op names more dynamic paddings than it has values (a static padding of -9223372036854775808 reads as a dynamic one)}}
  %p = tensor.pad %x low[-9223372036854775808, 0] high[3, 0] {
  ^bb0(%a: index, %b: index):
    tensor.yield %cst : f32
  } : tensor<10x16xf32> to tensor<12x16xf32>
  return %p : tensor<12x16xf32>
}

// -----

// A tensor with a dynamic dim (whole in every block): the result is
// allocated at the input's extent, and the block table (the same for both
// layouts here: one copy) gets that extent in the dim's size column, on
// every row, at run time.
// CHECK-LABEL: func.func @dynamic_all_reduce(
// CHECK: %[[N:.*]] = memref.dim %arg0, %{{.*}} : memref<?x4xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%[[N]]) {{.*}} : memref<?x4xf32>
// CHECK: %[[CONST:.*]] = memref.get_global @__shard_blocks_{{.*}} : memref<2x5xi64>
// CHECK: %[[TABLE:.*]] = memref.alloc() : memref<2x5xi64>
// CHECK: memref.copy %[[CONST]], %[[TABLE]]
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[COL:.*]] = arith.constant 3 : index
// CHECK: %[[EXTENT:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: memref.store %[[EXTENT]], %[[TABLE]][%[[ROW]], %[[COL]]]
// CHECK-NOT: memref.get_global @__shard_blocks
// CHECK: memref.cast %[[TABLE]]
// CHECK: memref.cast %[[TABLE]]
// CHECK: call @__shard_call_shardrt_mlir_group_collective_f32
#m = #shard.mesh<shape = [2], axes = ["x"]>
!p = !shard.tensor<?x4xf32, #shard.placements<mesh = #m, placements = [P(sum)]>>
!r = !shard.tensor<?x4xf32, #shard.placements<mesh = #m, placements = [R]>>
func.func @dynamic_all_reduce(%p: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = shard.spmd.all_reduce %p over axes [0] reduce sum from !p to !r : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A dynamic dim a layout cuts: the extent is the op's operand; each row of
// the source table gets torch.chunk's offset and size of it at the row's
// mesh coordinate (a table of coordinates by row), at run time; the
// destination (the whole tensor) is allocated at the extent.
// CHECK-LABEL: func.func @dynamic_cut_all_gather(
// CHECK-SAME: %[[L:.*]]: memref<?x4xf32>, %[[N:.*]]: index
// CHECK: %[[OUT:.*]] = memref.alloc(%[[N]]) {{.*}} : memref<?x4xf32>
// CHECK: %[[TABLE:.*]] = memref.alloc() : memref<2x5xi64>
// CHECK: %[[COORDS:.*]] = memref.get_global @__shard_coords_{{.*}} : memref<2x1xi64>
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: memref.load %[[COORDS]][%[[ROW]], %{{.*}}]
// CHECK: arith.ceildivui %[[N]], %{{.*}} : index
// CHECK: memref.store %{{.*}}, %[[TABLE]][%[[ROW]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %[[TABLE]][%[[ROW]], %{{.*}}]
// CHECK: call @__shard_call_shardrt_mlir_group_collective_f32
#m = #shard.mesh<shape = [2], axes = ["x"]>
!s = !shard.tensor<?x4xf32, #shard.placements<mesh = #m, placements = [S(0)]>>
!r = !shard.tensor<?x4xf32, #shard.placements<mesh = #m, placements = [R]>>
func.func @dynamic_cut_all_gather(%l: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %0 = shard.spmd.all_gather %l extents(%n) over axes [0] dim 0 from !s to !r : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// One zero fill (as CSE leaves it) is the init of two matmuls: each gets a
// fill of its own (what bufferization would otherwise make as a copy of the
// shared one), so one-shot's analysis does not weigh every write against
// every other use of one buffer (quadratic in the matmuls).
// CHECK-LABEL: func.func @shared_fill(
// CHECK-NOT: memref.copy
// CHECK-COUNT-2: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<4x4xf32>)
// CHECK-NOT: memref.copy
// CHECK: linalg.matmul ins(%arg0, %arg1 : memref<4x4xf32>, memref<4x4xf32>) outs(%[[X:.*]] : memref<4x4xf32>)
// CHECK-NEXT: linalg.matmul ins(%arg1, %arg0 : memref<4x4xf32>, memref<4x4xf32>) outs(%[[Y:.*]] : memref<4x4xf32>)
// CHECK-NEXT: return %[[X]], %[[Y]] :
func.func @shared_fill(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %x = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = linalg.matmul ins(%b, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %x, %y : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A function returning a constant returns a copy of its own: one-shot
// bufferization takes a call's result to be a new buffer, so a caller
// computing in place on it would write into the constant's global, which
// every call returns.
// CHECK-LABEL: func.func private @constant_result(
// CHECK: %[[G:.*]] = memref.get_global
// CHECK-NEXT: %[[A:.*]] = memref.alloc()
// CHECK-NEXT: memref.copy %[[G]], %[[A]]
// CHECK-NEXT: return %[[A]]
// CHECK-LABEL: func.func @writes_constant_result(
// CHECK: %[[R:.*]] = call @constant_result()
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[R]] : memref<4xf32>)
func.func private @constant_result() -> tensor<4xf32> {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func @writes_constant_result() -> (tensor<4xf32>, tensor<4xf32>) {
  %v = func.call @constant_result() : () -> tensor<4xf32>
  %w = arith.addf %v, %v : tensor<4xf32>
  %u = func.call @constant_result() : () -> tensor<4xf32>
  return %w, %u : tensor<4xf32>, tensor<4xf32>
}

// -----

// An integer avg is the copies' sum in their type, then divided (as NCCL's):
// said where it may wrap; a float's is not (its sum does not wrap), nor an
// integer sum's (it wraps as the type's sum does).
#m = #shard.mesh<shape = [2]>
!pa = !shard.tensor<4xui8, #shard.placements<mesh = #m, placements = [P(avg)]>>
!ra = !shard.tensor<4xui8, #shard.placements<mesh = #m, placements = [R]>>
!ca = !shard.tensor<4xui8, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!pf = !shard.tensor<4xf32, #shard.placements<mesh = #m, placements = [P(avg)]>>
!rf = !shard.tensor<4xf32, #shard.placements<mesh = #m, placements = [R]>>
!ps = !shard.tensor<4xi32, #shard.placements<mesh = #m, placements = [P(sum)]>>
!rs = !shard.tensor<4xi32, #shard.placements<mesh = #m, placements = [R]>>
// CHECK-LABEL: func.func @average_integers
func.func @average_integers(%a: tensor<4xui8>, %f: tensor<4xf32>, %s: tensor<4xi32>) -> (tensor<4xui8>, tensor<2xui8>, tensor<4xf32>, tensor<4xi32>) {
  // expected-warning @+1 {{averages 'ui8' copies as the runtime does: their sum in 'ui8', then divided; where the sum passes the type's range it wraps around first and the average is wrong (docs/runtime.md)}}
  %0 = shard.spmd.all_reduce %a over axes [0] reduce avg from !pa to !ra : tensor<4xui8> -> tensor<4xui8>
  // expected-warning @+1 {{averages 'ui8' copies as the runtime does}}
  %1 = shard.spmd.exchange %a from !pa to !ca : tensor<4xui8> -> tensor<2xui8>
  %2 = shard.spmd.all_reduce %f over axes [0] reduce avg from !pf to !rf : tensor<4xf32> -> tensor<4xf32>
  %3 = shard.spmd.all_reduce %s over axes [0] reduce sum from !ps to !rs : tensor<4xi32> -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xui8>, tensor<2xui8>, tensor<4xf32>, tensor<4xi32>
}
