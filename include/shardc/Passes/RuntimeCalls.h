//===- RuntimeCalls.h - The runtime call of each SPMD op ---------*- C++
//-*-===//
//
// Which function of the runtime's C ABI runs an SPMD collective, and with
// which constant arguments: block tables, partial indices, groups, root,
// reduction, device. Bufferization (the collectives' BufferizableOpInterface,
// which -shard-lower-to-runtime runs) materializes it as a call of the
// function's MLIR entry point, in every compiled program (shard-run's and
// shard-plan --execute's included: they run the lowered program). Tested
// through the pass's test,
// test/Passes/shard-lower-to-runtime.mlir (a case per kind of call).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_RUNTIMECALLS_H
#define SHARDC_PASSES_RUNTIMECALLS_H

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/Operation.h"

#include <string>
#include <vector>

namespace shardc {

struct RuntimeCall {
  enum class Function {
    /// shardrt_all_gather: the whole tensor on every rank of the world.
    AllGather,
    /// shardrt_exchange_to_world: the same from a layout with replicas,
    /// each rank receiving only what it lacks.
    ExchangeToWorld,
    /// shardrt_scatter: the root's whole tensor to every owner.
    Scatter,
    /// shardrt_redistribute (or _packed when a rank owns several blocks).
    Redistribute,
    /// shardrt_redistribute_reduce (or _packed): from Partial values.
    RedistributeReduce,
    /// shardrt_group_collective: a named collective within groups.
    GroupCollective,
  };
  Function function = Function::Redistribute;
  /// The element type's runtime dtype code and entry-point suffix ("f32").
  int32_t dtype = 0;
  std::string suffix;
  /// The blocks' device (shardrt_device).
  int32_t device = 0;
  /// The op's input: this rank's block (or, for scatter, the whole tensor).
  mlir::Value input;
  /// The layouts: the source (all_gather: the only one) and the destination
  /// (scatter: the only one).
  ShardedTensorType from, to;
  /// Rows [owner, offsets..., sizes...] of every device's block of `from`
  /// and of `to` (empty where the function takes no such table).
  std::vector<int64_t> fromTable, toTable;
  /// redistribute_reduce: each source row's partial index.
  std::vector<int64_t> partial;
  /// group_collective: its kind (shardrt_collective) and rows [rank, group,
  /// position].
  int32_t kind = -1;
  std::vector<int64_t> groups;
  /// scatter, broadcast, gather: the root; -1 otherwise.
  int64_t root = -1;
  /// redistribute_reduce, reduce_scatter, all_reduce: shardrt_reduce.
  int32_t reduce = 0;
  /// Whether a rank owns several blocks of either layout (the _packed
  /// functions).
  bool packed = false;

  /// "shardrt_mlir_<function>_<suffix>".
  std::string entryPoint() const;
  /// The columns of a block table: 1 + 2 * the tensor's rank.
  int64_t tableColumns() const;
};

/// Rows [owner, offsets..., sizes...] of every device's block of `type`
/// (replicas included): the block tables the runtime reads.
std::vector<int64_t> deviceTableRows(ShardedTensorType type);

/// The runtime call of an SPMD collective (spmd.all_gather, scatter,
/// exchange, reduce_scatter, all_reduce, all_to_all, broadcast, gather), or
/// failure after emitting why it has none: an element type or a layout the
/// runtime does not take (cpu and cuda blocks mixed, several blocks per rank
/// for all_gather and scatter). A named collective with one block per rank
/// is shardrt_group_collective on CPU and CUDA blocks alike (MPI's or NCCL's
/// collective per group); with several blocks per rank, the exchange
/// between its layouts.
mlir::FailureOr<RuntimeCall> runtimeCallOf(mlir::Operation *op);

/// Whether `op` is an SPMD collective (one of those above), the ops that
/// have a runtime call; runtimeCallOf emits an error for any other.
bool isSpmdCollective(mlir::Operation *op);

} // namespace shardc

#endif // SHARDC_PASSES_RUNTIMECALLS_H
