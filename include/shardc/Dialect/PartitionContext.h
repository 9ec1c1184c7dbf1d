//===- PartitionContext.h - What an op's partition hook may ask -*- C++ -*-===//
//
// -shard-spmd-partition rewrites a function into its per-rank form op by op,
// in program order. An op with a sharding rule is rewritten by its own hook
// (ShardingRuleOpInterface::partition): when it runs, the op's operands are
// this rank's blocks already (their layouts the ones the rule asks), and the
// hook makes the op compute this rank's blocks of its results. It asks the
// partitioner, through this context, for the layouts the analysis chose and
// for the per-rank values it needs (sizes, offsets, "this rank holds the
// first partial copy"). The default hook only retypes the results to their
// local types, which is all an op whose local form is the same op on local
// blocks needs (elementwise ops, most linalg ops).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_PARTITIONCONTEXT_H
#define SHARDC_DIALECT_PARTITIONCONTEXT_H

#include "shardc/Dialect/ShardingRule.h"
#include "shardc/Layout/Mesh.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

namespace shardc {

class ShardedTensorType;
class PlacementsSpecAttr;

class PartitionContext {
public:
  virtual ~PartitionContext() = default;

  /// The global type and layout of a tensor value of the function as it was
  /// before partitioning (an operand or a result of the op being rewritten).
  virtual ShardedTensorType globalOf(mlir::Value value) const = 0;
  /// This rank's local type of that value.
  virtual mlir::RankedTensorType localOf(mlir::Value value) const = 0;

  /// This rank's block sizes and offsets of `type` as values at `b`'s
  /// insertion point (constants where every rank has the same; else read
  /// from a per-rank table by this rank's index). `inside` is the op being
  /// rewritten (it names the function whose rank is read). A dynamic dim's
  /// extent is `globalSizes[d]`, which a caller that may meet one passes
  /// (the global tensor's sizes, as tensor.getMixedSizes gives them, or
  /// globalExtent's): whole, it is the size; cut (dynamicDimCuts), the
  /// rank's torch.chunk of it, computed at run time.
  virtual llvm::SmallVector<mlir::OpFoldResult>
  localSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *inside,
             ShardedTensorType type,
             llvm::ArrayRef<mlir::OpFoldResult> globalSizes = {}) = 0;
  virtual llvm::SmallVector<mlir::OpFoldResult>
  localOffsets(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *inside,
               ShardedTensorType type,
               llvm::ArrayRef<mlir::OpFoldResult> globalSizes = {}) = 0;

  /// The global extent of dim `d` of `value` (an operand of the op being
  /// rewritten: this rank's block of a tensor of the function) as an index
  /// at `b`'s insertion point: a static dim's size; a dynamic dim's
  /// run-time extent: the block's own where its layout leaves the dim whole,
  /// else the size it was made with (extentOrigin: a tensor.empty's size
  /// operand) or, where none is in the program, the blocks' sizes summed
  /// across the mesh once, after the tensor it comes from is made.
  virtual mlir::OpFoldResult globalExtent(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value value,
                                          int64_t d) = 0;

  /// `values[rank]` as an index of this rank at `b`'s insertion point: an
  /// attribute when every rank has the same (so that shapes built from it
  /// stay static); else read from a per-rank table (0 for ranks past it).
  virtual mlir::OpFoldResult perRankIndex(mlir::OpBuilder &b,
                                          mlir::Location loc,
                                          mlir::Operation *inside,
                                          llvm::ArrayRef<int64_t> values) = 0;

  /// This rank's block of the value whose block is `local` in layout
  /// `from`, in layout `to` (same global shape): the planner's move, made by
  /// -shard-plan-redistribute, or `local` retyped when both hold the same
  /// blocks.
  virtual mlir::Value redistribute(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value local, ShardedTensorType from,
                                   ShardedTensorType to) = 0;

  /// Replaces the uses of `old` (but in `except`) with `local`, this rank's
  /// block of it, which takes its layout. A hook that replaces a result
  /// erases the op (or leaves it for `except` to use).
  virtual void replace(mlir::Value old, mlir::Value local,
                       mlir::Operation *except = nullptr) = 0;
};

/// The default partition hook: every ranked tensor result takes its local
/// type; the op itself is unchanged.
mlir::LogicalResult retypeResultsToLocal(mlir::Operation *op,
                                         PartitionContext &context);

/// The tensors `op`'s regions read that are defined outside it (an
/// embedding's table read by tensor.extract in a linalg.generic payload), in
/// the order of their first use. A sharding rule lists them after the op's
/// operands (ShardingRule::operands), and they take layouts as operands do.
llvm::SmallVector<mlir::Value> capturedTensors(mlir::Operation *op);

/// Whether `op`'s regions read a tensor from outside it (capturedTensors
/// not empty): a rule op with no tensor operand or result does so (a
/// vector.mask around a transfer_read of a tensor).
bool capturesTensors(mlir::Operation *op);

/// The op with a sharding rule whose regions hold `op` (the outermost, up
/// to its function), or null: such regions run as written, on each element
/// of a payload or whole on every rank (scf.forall, vector.mask), and the
/// passes never shard what they hold.
mlir::Operation *enclosingRuleOp(mlir::Operation *op);

/// The attribute by which an op carries its sharding rule written out
/// (#shard.rule): -shard-print-sharding-rules writes it; an op without
/// ShardingRuleOpInterface that carries it is sharded by it, partitioned as
/// the same op on local blocks; on an op with the interface it must be the
/// rule the op gives.
constexpr llvm::StringLiteral kShardingRuleAttr = "shard.sharding_rule";

/// Whether `op` has a sharding rule: ShardingRuleOpInterface, or one
/// written on it (kShardingRuleAttr) where a rule can apply (not a call, a
/// constraint, a terminator or an op whose regions use tensors).
bool hasShardingRule(mlir::Operation *op);

/// Refuses, at the op, a rule written where none can apply (above).
mlir::LogicalResult refuseMisplacedWrittenRules(mlir::Operation *root);

/// `op`'s sharding rule (ShardingRuleOpInterface, or the one written on
/// it), checked against the op (verifyRuleFor). A rule that lists only the
/// op's own operands needs the tensors its regions read from outside it
/// whole: they are added so. Every consumer of rules (propagation,
/// partition, the print pass) reads them here.
mlir::FailureOr<ShardingRule> shardingRuleOf(mlir::Operation *op);

/// Checks `rule` against `op` (after checkRule): one entry per operand (its
/// operands, then the tensors its regions read from outside it) and per
/// result; none for a value that is not a ranked tensor, one per dim for
/// one that is; each dim the size of the loop indexing it (or that size
/// times the loop's fold); an init of its result's shape.
mlir::LogicalResult verifyRuleFor(mlir::Operation *op,
                                  const ShardingRule &rule);

/// Partitions `op` by its rule: its hook (ShardingRuleOpInterface::partition)
/// or, for a rule written on an op without one, retypeResultsToLocal.
mlir::LogicalResult partitionByRule(mlir::Operation *op,
                                    const ShardingRule &rule,
                                    PartitionContext &context);

/// The one wording of a rule's refusal of a tensor type it cannot shard:
/// "has <what> of dynamic shape T; sharding needs static shapes" (unranked:
/// "of unranked type T"; an encoding: "of type T with an encoding;
/// sharding needs tensors without encodings"). Success for a static ranked
/// tensor without encoding, and for any type that is not a tensor.
mlir::LogicalResult checkStaticShape(mlir::Operation *op, mlir::Type type,
                                     llvm::StringRef what);

/// checkStaticShape of every operand ("operand #N") and result ("result
/// #N") of `op`.
mlir::LogicalResult checkStaticShapes(mlir::Operation *op);

/// Whether a tensor of `type` can take a layout: ranked, without an encoding
/// (its local blocks would lose it); dynamic dims pass (only a mesh
/// layout's Shard placements cut one: dynamicDimCuts). Propagation,
/// partition and checkRankedShapes ask this one.
bool takesLayout(mlir::Type type);

/// As checkStaticShapes, but dynamic dims pass: for the rules whose
/// partition reads a dynamic dim's extent from the local values or asks the
/// context for it (shardingRuleOf keeps every loop indexing one whole where
/// the op's hook does not compute on it cut: cutsDynamicLoop).
mlir::LogicalResult checkRankedShapes(mlir::Operation *op);

/// The identity of a reduction for elements of `type` (integer, index or
/// float): 0, 1, the lowest or the highest value.
mlir::TypedAttr identityOf(layout::Placement::Reduce reduce, mlir::Type type);

} // namespace shardc

#endif // SHARDC_DIALECT_PARTITIONCONTEXT_H
