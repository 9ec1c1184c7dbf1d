//===- ShardingRule.h - How an op's tensors are indexed by its loops -*- C++
//-*-===//
//
// The sharding rule of a compute op: its loops (a linalg op's iteration
// space, an elementwise op's result dims) and, per tensor operand and
// result, which loop indexes each dim. Propagation (-shard-propagate) and
// partitioning (-shard-spmd-partition) derive every layout of the op from it:
// sharding a loop on a mesh axis shards every dim that loop indexes, alike
// (torch.chunk on every operand, so local ops are the same op on local
// blocks); an operand that a sharded loop does not index is needed whole
// along that axis; a sharded reduction loop leaves each result partial,
// to be combined with the result's combiner (docs/partition.md).
//
// Ops give their rule through ShardingRuleOpInterface; shardc attaches it to
// every linalg structured op, the elementwise arith and math ops, constants
// and tensor.empty (registerShardingRules), and an embedder attaches it to
// its own ops the same way.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDINGRULE_H
#define SHARDC_DIALECT_SHARDINGRULE_H

#include "shardc/Layout/Mesh.h"

#include "llvm/ADT/Hashing.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardc {

struct ShardingRule {
  /// A loop of the op.
  struct Loop {
    /// Its trip count (every dim it indexes has this size).
    int64_t size = 0;
    /// Whether it is a reduction loop (results are not indexed by it).
    bool reduction = false;
    /// Why it may not be sharded (empty: it may): some operand indexes it
    /// through an expression other than the loop itself (a convolution
    /// window), or it reduces a result whose combiner is not known.
    std::string unshardable;
    /// How many elements of a folded dim each step of the loop covers: a
    /// reshape's dim [H*D] holds its head loop h as the outer factor of
    /// the inner D (innerFactor D). Sharding the loop then cuts that dim at
    /// multiples of D, which is torch.chunk's cut of the dim only where the
    /// two align (alignToFactors, shardc/Rules/LoopSharding.h). 1: the loop
    /// indexes whole dims only.
    int64_t innerFactor = 1;
    /// Why it may not be cut strided (empty: it may): the op's partition
    /// needs one offset per rank along it (a payload reading its index, a
    /// lookup masking the rows each rank holds, a constant's values), and
    /// a strided cut holds rows of several groups, at no one offset. A loop
    /// of a window (`windows`) may not either (whyNotStrided).
    std::string unstrided;

    bool operator==(const Loop &other) const {
      return size == other.size && reduction == other.reduction &&
             unshardable == other.unshardable &&
             innerFactor == other.innerFactor && unstrided == other.unstrided;
    }
  };
  std::vector<Loop> loops;
  /// Per operand of the op, in order: per dim, the loop that indexes it, or
  /// -1 when the dim may not be sharded (indexed by a constant or an
  /// expression). Empty for operands that are not ranked tensors. Then,
  /// likewise, per tensor the op's regions read from outside it
  /// (capturedTensors, shardc/Dialect/PartitionContext.h).
  std::vector<std::vector<int64_t>> operands;
  /// Per operand, optionally (empty: none): per dim, the loop whose window
  /// of that dim the op reads or places (an extract_slice's sliced source
  /// dim follows the result dim's loop), or -1. Such a dim is indexed by no
  /// loop (-1 in `operands`), so it is needed whole by default; but the op's
  /// partition hook also takes it as it is where it is cut (S(dim)) on axes
  /// that shard that loop or nothing, and then moves only the part of the
  /// window each rank needs (operandLayoutUnder,
  /// shardc/Rules/LoopSharding.h).
  std::vector<std::vector<int64_t>> windows;
  /// Per result, likewise.
  std::vector<std::vector<int64_t>> results;
  /// Per result: the reduction that combines partial results computed over
  /// parts of the reduction loops (sum, max, min, product), when the op
  /// reduces and the combiner is known.
  std::vector<std::optional<layout::Placement::Reduce>> combiners;
  /// Per result: the operand that holds its initial value (a linalg op's
  /// init), or -1.
  std::vector<int64_t> inits;
  /// Groups of operands (each sorted, none empty) in which the op is
  /// linear: every result is a sum of terms each of which is the product
  /// of exactly one element of the group's tensors with values the other
  /// operands give (a matmul's `acc + a * b` in {a, acc} and in {b, acc};
  /// an add in {lhs, rhs}; a lookup in its table). Where those operands
  /// are P(sum) on a mesh axis that shards no loop, the others whole on
  /// it, each rank's op on its parts gives its part of every result: the
  /// results are P(sum) on that axis too, and nothing moves
  /// (LoopSharding::reads names the partial reads; resultLayoutUnder,
  /// shardc/Rules/LoopSharding.h). DTensor's (Partial, Replicate) ->
  /// Partial of a matmul and its linear pointwise ops.
  std::vector<std::vector<int64_t>> linear;

  /// A loop that indexes a dim folded from several loops as an inner
  /// factor, in `groups` groups: a collapse of [B, H] into [B*H] indexes
  /// the folded dim by its batch loop b (with innerFactor H) and folds its
  /// head loop h in B groups. Cutting h then cuts the folded dim strided,
  /// each device holding its heads of every batch (DTensor's
  /// _StridedShard: layout::Placement::StridedShard), and each group is cut
  /// at multiples of the fold's inner elements (dimSize / (groups * size))
  /// only where torch.chunk's cut falls there (alignToFactors).
  struct Fold {
    /// The folded tensor: result #tensor, or operand #tensor.
    bool result = false;
    int64_t tensor = 0;
    int64_t dim = 0;
    int64_t loop = 0;
    int64_t groups = 1;

    bool operator==(const Fold &o) const {
      return result == o.result && tensor == o.tensor && dim == o.dim &&
             loop == o.loop && groups == o.groups;
    }
  };
  std::vector<Fold> folds;

  /// The elements of the folded dim within one step of fold `fold`'s loop.
  int64_t foldInner(const Fold &fold) const {
    const auto &dims = fold.result ? results : operands;
    const Loop &outer = loops[dims[fold.tensor][fold.dim]];
    return outer.size * outer.innerFactor /
           (fold.groups * loops[fold.loop].size);
  }

  /// A rule of `rank` parallel loops of sizes `shape`, indexing every dim of
  /// `operands` (dims per operand, -1 for non-tensors) and of one result
  /// alike: the rule of elementwise ops, constants and tensor.empty.
  static ShardingRule elementwise(const std::vector<int64_t> &shape,
                                  const std::vector<bool> &tensorOperands);

  /// The loop whose window dim `dim` of operand `operand` is, or -1.
  int64_t windowOf(size_t operand, size_t dim) const {
    if (operand >= windows.size() || dim >= windows[operand].size())
      return -1;
    return windows[operand][dim];
  }

  /// Why `loop` may not be cut strided (empty: it may): its own reason
  /// (Loop::unstrided), else the window of an operand's dim it places or
  /// reads by offset. alignToFactors drops such cuts, in every search and
  /// in the verifier alike.
  std::string whyNotStrided(int64_t loop) const;

  /// Whether a loop may be sharded.
  bool shardable(int64_t loop) const {
    return loop >= 0 && loop < static_cast<int64_t>(loops.size()) &&
           loops[loop].unshardable.empty();
  }

  bool operator==(const ShardingRule &other) const {
    return loops == other.loops && operands == other.operands &&
           windows == other.windows && results == other.results &&
           combiners == other.combiners && inits == other.inits &&
           linear == other.linear && folds == other.folds;
  }
  bool operator!=(const ShardingRule &other) const { return !(*this == other); }
};

/// For the rule's attribute (#shard.rule, ShardingRuleAttr).
llvm::hash_code hash_value(const ShardingRule &rule);

/// Checks a rule alone: every loop it names exists, sizes are not negative,
/// a reduction loop indexes no result, one combiner and one init per
/// result (an init names an operand), windows only on dims no loop indexes,
/// linear groups of distinct operands in increasing order, folds of
/// existing tensors' dims that a loop indexes, in groups that divide them.
/// The first problem found, or empty. The verifier of #shard.rule, and of
/// every rule an op gives (verifyRuleFor, shardc/Dialect/PartitionContext.h).
std::string ruleProblem(const ShardingRule &rule);

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDINGRULE_H
