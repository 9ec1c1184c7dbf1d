//===- LoopSharding.h - Layouts of an op's tensors from its loops -*- C++
//-*-===//
//
// Which mesh axis shards which loop of an op (a LoopSharding), and what that
// means for each tensor of the op under its ShardingRule: the one place
// where propagation and partitioning turn loops into layouts and back.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_LOOPSHARDING_H
#define SHARDC_RULES_LOOPSHARDING_H

#include "shardc/Dialect/Shard.h"

#include <optional>
#include <string>
#include <vector>

namespace shardc {

/// A choice of sharding for one op: a mesh and, per mesh axis, the loop of
/// the op's rule it shards (-1: none; the axis replicates the op). Several
/// axes sharding one loop nest in mesh-axis order, as DTensor nests them.
/// `reads`, when not empty, is per operand of the rule the layout the op
/// reads it in where that is not the one the loops give (null where it
/// is): a window kept cut or several blocks read as they are
/// (operandLayoutUnder). -shard-propagate decides them with the loops
/// and writes both; -shard-spmd-partition reads both.
struct LoopSharding {
  MeshAttr mesh;
  std::vector<int64_t> axisLoop;
  /// Per mesh axis, empty where none is: the groups in which the axis cuts
  /// its loop strided (1: a plain cut). Every dim the loop indexes is then
  /// `_S(dim, split)` on that axis (DTensor's _StridedShard; a batched op
  /// over [B*H] whose heads are cut on every batch).
  std::vector<int64_t> axisSplit = {};

  /// The groups axis `axis` cuts its loop in (1: plain).
  int64_t splitOf(size_t axis) const {
    return axis < axisSplit.size() ? axisSplit[axis] : 1;
  }
  /// As OpShardingAttr writes them: per operand a layout or `unit`; null
  /// where none is named (one uniqued attribute: cheap to copy and compare).
  mlir::ArrayAttr reads = {};

  /// The layout operand `operand` is read in, where the sharding names
  /// one (null: the loops' layout).
  ShardingSpecAttrInterface readOf(size_t operand) const {
    return reads && operand < reads.size()
               ? mlir::dyn_cast<ShardingSpecAttrInterface>(reads[operand])
               : nullptr;
  }

  bool operator==(const LoopSharding &o) const {
    return mesh == o.mesh && axisLoop == o.axisLoop && splitsEqual(o) &&
           reads == o.reads;
  }
  bool splitsEqual(const LoopSharding &o) const {
    for (size_t a = 0; a < axisLoop.size(); ++a)
      if (splitOf(a) != o.splitOf(a))
        return false;
    return true;
  }
  bool operator!=(const LoopSharding &o) const { return !(*this == o); }
};

/// The folds (ShardingRule::Fold) into the tensor whose dims are `dims`,
/// which must be one of `rule`'s own operand or result vectors (as every
/// caller of layoutUnder and proposalOf passes them).
std::vector<const ShardingRule::Fold *> foldsInto(const ShardingRule &rule,
                                                  llvm::ArrayRef<int64_t> dims);

/// The layout of a tensor indexed by `dims` (one of the rule's own operand
/// or result vectors) under `sharding`: S(j) on every axis that shards the
/// loop of dim j (_S(j, n) where the axis cuts it strided in n groups, and
/// where the loop folds into dim j in n groups: ShardingRule::Fold);
/// for a result whose `combiner` is given, P(combiner) on every axis that
/// shards a reduction loop; R elsewhere (an operand that a sharded loop does
/// not index is needed whole along that axis).
PlacementsSpecAttr
layoutUnder(const ShardingRule &rule, const LoopSharding &sharding,
            llvm::ArrayRef<int64_t> dims,
            std::optional<layout::Placement::Reduce> combiner = std::nullopt);

/// Per mesh axis of `sharding`, whether it reads some operand Partial there
/// (LoopSharding::reads naming a linear group's partial reads,
/// ShardingRule::linear).
std::vector<bool> partialReadAxes(const LoopSharding &sharding);

/// The layout result #`result` of an op has under `sharding`: layoutUnder
/// with the result's combiner, and P(sum) on every axis on which the
/// sharding reads a linear group's operands P(sum) (each rank's op on its
/// parts gives its part of the result). The one place a result's layout
/// is derived from a decision.
PlacementsSpecAttr resultLayoutUnder(const ShardingRule &rule,
                                     const LoopSharding &sharding,
                                     size_t result);

/// `sharding` (whose reads name nothing) reading the operands of linear
/// group #`group` of `rule` P(sum) on every axis in `axes` (axes that
/// shard no loop), each in the layout the loops give it elsewhere; the
/// other operands as the loops give them.
LoopSharding withPartialReads(mlir::MLIRContext *ctx, const ShardingRule &rule,
                              LoopSharding sharding, size_t group,
                              llvm::ArrayRef<int64_t> axes);

/// The layout operand `operand` (of shape `shape`) needs under `sharding`
/// when it has layout `have` (null: none yet): the one the sharding reads
/// it in where it names one (LoopSharding::reads, a mesh layout; `have`
/// is then not looked at); else layoutUnder, except that a
/// window dim (ShardingRule::windows) that `have` cuts (S(dim)) on axes
/// that shard its loop or nothing stays so, when every axis of more than
/// one device then cuts the operand (one block per rank, no replicas): the
/// op's hook moves only the part of the window each rank needs.
PlacementsSpecAttr operandLayoutUnder(const ShardingRule &rule,
                                      const LoopSharding &sharding,
                                      size_t operand,
                                      ShardingSpecAttrInterface have,
                                      llvm::ArrayRef<int64_t> shape);

/// operandLayoutUnder for operand `operand` of `op`, which may also keep a
/// layout that is not a mesh layout (several blocks per rank): where the op
/// computes every result in the layout `sharding` gives it from the operand
/// as it is (ShardingRuleOpInterface::layoutInPlace), `have` itself. The
/// layout the sharding reads the operand in, where it names one.
ShardingSpecAttrInterface operandLayoutUnder(mlir::Operation *op,
                                             const ShardingRule &rule,
                                             const LoopSharding &sharding,
                                             size_t operand,
                                             ShardingSpecAttrInterface have,
                                             llvm::ArrayRef<int64_t> shape);

/// What `op` asks of its sharding when operand `operand` has `have`, a
/// layout that is not a mesh layout: the sharding that gives its results
/// the mesh form on `mesh` of the layouts it computes from that operand as
/// it is (layoutInPlace); nullopt when there is none.
std::optional<LoopSharding> inPlaceProposal(mlir::Operation *op,
                                            const ShardingRule &rule,
                                            MeshAttr mesh, size_t operand,
                                            ShardingSpecAttrInterface have);

/// What a tensor indexed by `dims` with mesh layout `layout` asks of the
/// op's sharding: on each axis where it is S(j) and dim j's loop may be
/// sharded, that loop (a window dim, `windows`, asks for its loop); -1
/// elsewhere (R and P axes ask nothing).
LoopSharding proposalOf(const ShardingRule &rule, llvm::ArrayRef<int64_t> dims,
                        PlacementsSpecAttr layout,
                        llvm::ArrayRef<int64_t> windows = {});

/// `base` with each axis it leaves free (-1) taken from `other` when both
/// are on one mesh and the loop is not sharded by base already on an axis
/// of its own; `base` unchanged otherwise.
LoopSharding mergeProposals(const LoopSharding &base,
                            const LoopSharding &other);

/// `sharding` without the mesh axes that shard a loop with an inner factor
/// (ShardingRule::Loop::innerFactor) where torch.chunk's cut of the folded
/// dim does not fall on the loop's steps (3 heads of 16 over 2 ranks: the
/// 48 rows cut 24/24, the heads 2/1): such a loop is then not sharded at
/// all, and its tensors are moved to what the rest asks. `why`, when given,
/// says what was dropped ("" when nothing was).
LoopSharding alignToFactors(const ShardingRule &rule, LoopSharding sharding,
                            std::string *why = nullptr);

/// Why loop `loop` of `rule` may not be cut strided in `split` groups (> 1),
/// or "" where it may: its partition needs one offset per rank along it
/// (ShardingRule::whyNotStrided), the groups do not split its steps whole,
/// or it indexes a folded dim (an inner factor, or folded itself), whose
/// groups are not its own. alignToFactors drops such cuts; the search
/// offers none.
std::string whyNotCutInGroups(const ShardingRule &rule, int64_t loop,
                              int64_t split);

/// A mesh layout holding the same blocks as `spec` on a tensor of `shape`:
/// `spec` itself for DTensor placements; a chunk spec over distinct ranks as
/// S(dim) on a 1-D mesh of those ranks; a device placement as R on a mesh
/// of one device; null when there is none (an enumerable spec). Devices
/// are compared by rank and kind: "rank:1/cuda:1" is "rank:1/cuda" (the
/// runtime reads no device index).
PlacementsSpecAttr asMeshLayout(ShardingSpecAttrInterface spec,
                                llvm::ArrayRef<int64_t> shape);

/// Whether two layouts of a tensor of `shape` hold the same blocks on the
/// same devices (a chunk spec and the mesh layout it is, for example).
bool sameBlocks(ShardingSpecAttrInterface a, ShardingSpecAttrInterface b,
                llvm::ArrayRef<int64_t> shape);

/// sameBlocks, or, for layouts that are not both mesh layouts, whether each
/// rank holds the same elements in both (its blocks with elements, in the
/// same order where it packs several; neither layout partial): a value's
/// local block in one is its local block in the other, up to a cast of its
/// local type (blocks without elements may lie anywhere).
bool sameElementsOnRanks(ShardingSpecAttrInterface a,
                         ShardingSpecAttrInterface b,
                         llvm::ArrayRef<int64_t> shape);

/// The mesh layout on `mesh` (R or S(dim) on each axis, no Partial) that
/// holds the same blocks on the same ranks as `spec` on a tensor of
/// `shape`, blocks without elements wherever they lie; null when there is
/// none.
PlacementsSpecAttr meshFormOn(MeshAttr mesh, ShardingSpecAttrInterface spec,
                              llvm::ArrayRef<int64_t> shape);

/// The name of mesh axis `axis` ("dp", or "axis 0" when unnamed).
std::string axisName(MeshAttr mesh, int64_t axis);

/// "d0 on dp, d2 on tp" (or "nothing sharded").
std::string describeSharding(const LoopSharding &sharding);

/// The attribute that carries an op's sharding in the IR (OpShardingAttr):
/// -shard-propagate writes it, a user may pin it, -shard-spmd-partition
/// reads it.
constexpr llvm::StringLiteral kOpShardingAttr = "shard.sharding";

/// The sharding `attr` writes, and the attribute that writes `sharding`.
LoopSharding loopShardingOf(OpShardingAttr attr);
OpShardingAttr opShardingAttrOf(const LoopSharding &sharding);

/// `sharding` with its reads decided (LoopSharding::reads): per operand of
/// `op` with a layout in `have` (null: none), the layout the op reads it in
/// where that is not the loops' (operandLayoutUnder); reads it names
/// already are kept.
LoopSharding withReads(mlir::Operation *op, const ShardingRule &rule,
                       LoopSharding sharding,
                       llvm::ArrayRef<ShardingSpecAttrInterface> have);

/// Why `sharding` is not one of `rule`'s ("" when it is): a loop the rule
/// does not have or may not shard, or one whose folded dim torch.chunk
/// does not cut at its steps (alignToFactors).
std::string invalidSharding(const ShardingRule &rule,
                            const LoopSharding &sharding);

/// The sharding pinned on `op` (its shard.sharding), checked against
/// `rule` (its loops, and each layout it reads an operand in: one the op
/// may read it in, operandLayoutUnder); nullopt when it has none; an error
/// on `op` when the attribute is not an OpShardingAttr or the rule refuses
/// it (`pass` names the pass).
mlir::FailureOr<std::optional<LoopSharding>>
pinnedSharding(mlir::Operation *op, const ShardingRule &rule,
               llvm::StringRef pass);

} // namespace shardc

#endif // SHARDC_RULES_LOOPSHARDING_H
