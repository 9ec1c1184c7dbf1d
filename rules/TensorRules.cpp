//===- TensorRules.cpp - Rules of tensor dialect ops ----------------------===//
//
// tensor.empty: one parallel loop per dim and no tensor operand, so it takes
// any layout; partitioned into an empty tensor of this rank's block sizes.
//
// tensor.splat: likewise (its scalar is not indexed); partitioned into a
// splat of this rank's block sizes.
//
// tensor.expand_shape / tensor.collapse_shape: one parallel loop per dim of
// the expanded tensor. The collapsed tensor's dim that folds a group of them
// ([H*D] from [H, D]) is indexed by the group's outermost loop of more than
// one step, with the others' product as its inner factor: sharding the
// heads shards the folded dim where torch.chunk's cuts fall between heads
// (64 = 4 x 16 over 4 ranks: nothing moves), and nowhere else
// (alignToFactors: 3 heads of 16 over 2 ranks, where the 48 rows are cut
// 24/24, moves the tensor instead). The group's inner loops of more than
// one step fold into the dim in groups (ShardingRule::Fold: the heads of
// [B*H] in B groups): sharding one cuts the folded dim strided, each rank
// holding its heads of every batch. Partitioned as the same reshape of
// local blocks.
//
// tensor.from_elements: one loop per dim, none cut (each rank makes the
// whole small tensor of its scalar operands).
//
// tensor.generate: one parallel loop per dim; partitioned into a generate of
// the rank's block, its indices made global.
//
// tensor.reshape (static shapes): tosa.reshape's rule (a fold or split of
// dims as above, dims of 1 moved, else every dim whole), its shape whole.
//
// tensor.extract_slice (static): a source dim taken whole is cut as its
// result dim; a sliced one is needed whole, and each rank slices its part
// of the result from it.
//
// tensor.cast: one loop per dim of the shape both sides name (static where
// either side is); operand and result cut alike.
//
// tensor.dim: any layout; every rank reads the global size.
//
// tensor.gather (static) of source rows at coordinates: one parallel loop
// per dim of the indices but the last (their batch, which the result
// leads with) and per dim of the source it does not gather (the result's
// others, in order). The gathered dims and the coordinates are needed whole
// (the data selects along them): a table cut along a dim it does not gather
// stays cut (a column-parallel embedding moves nothing), and so do the
// indices along their batch. Partitioned as the same op on local blocks.
//
// tensor.extract / tensor.insert of a scalar at an index: no loop to shard;
// the tensor is read (written) whole on every rank, so a sharded or Partial
// one is made whole first.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Rules/Payload.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Rules/ExtentOrigin.h"
#include "shardc/Rules/IndexMath.h"
#include "shardc/Rules/LoopSharding.h"
#include "shardc/Rules/Reshape.h"
#include "shardc/Rules/Slice.h"
#include "shardc/Rules/TensorCast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace shardc;

/// The rule of a reshape between `expanded` and `collapsed` by
/// `reassociation` (the expanded dims each collapsed dim folds), with the
/// expanded tensor as operand (collapse_shape) or as result (expand_shape).
FailureOr<ShardingRule> shardc::reshapeRule(
    Operation *op, RankedTensorType expanded, RankedTensorType collapsed,
    ArrayRef<ReassociationIndices> reassociation, bool expandedIsOperand) {
  if (failed(checkRankedShapes(op)))
    return failure();
  ShardingRule rule;
  std::vector<int64_t> expandedDims, collapsedDims;
  for (int64_t size : expanded.getShape()) {
    expandedDims.push_back(static_cast<int64_t>(rule.loops.size()));
    rule.loops.push_back({size, false, {}});
  }
  for (auto [dim, group] : llvm::enumerate(reassociation)) {
    // A group of several dims with a dynamic one folds into a dynamic dim:
    // all of it stays whole (its loops' sizes are counted by
    // shardingRuleOf); a dynamic dim alone in its group is the other's.
    if (group.size() > 1 && llvm::any_of(group, [&](int64_t loop) {
          return expanded.isDynamicDim(loop);
        })) {
      collapsedDims.push_back(group.front());
      for (int64_t loop : group)
        rule.loops[loop].unshardable =
            "it folds into dim " + std::to_string(dim) +
            " of the reshape's collapsed tensor, which is dynamic";
      continue;
    }
    // A group with an empty dim folds into an empty dim: its first empty
    // loop indexes it (0 steps of any size are 0 elements), the others
    // nothing.
    auto empty = llvm::find_if(
        group, [&](int64_t loop) { return expanded.getDimSize(loop) == 0; });
    if (empty != group.end()) {
      collapsedDims.push_back(*empty);
      for (int64_t loop : group)
        if (loop != *empty)
          rule.loops[loop].unshardable =
              "it folds into dim " + std::to_string(dim) +
              " of the reshape's collapsed tensor, which is empty";
      continue;
    }
    // The outermost loop of more than one step indexes the folded dim (the
    // group's first when every loop has one step).
    auto outer = llvm::find_if(
        group, [&](int64_t loop) { return expanded.getDimSize(loop) > 1; });
    const int64_t chosen = outer == group.end() ? group.front() : *outer;
    collapsedDims.push_back(chosen);
    int64_t inner = 1, groups = 1;
    bool after = false;
    for (int64_t loop : group) {
      const int64_t size = expanded.getDimSize(loop);
      if (loop == chosen) {
        after = true;
        groups *= size;
        continue;
      }
      if (after) {
        inner *= size;
        if (size > 1) {
          // An inner loop of the group: the folded dim holds it in `groups`
          // groups (heads in [B*H]): cut strided.
          rule.folds.push_back({/*result=*/expandedIsOperand, 0,
                                static_cast<int64_t>(dim), loop, groups});
          groups *= size;
          continue;
        }
      }
      rule.loops[loop].unshardable =
          "it is not the outer factor of the folded dim " +
          std::to_string(dim) + " of the reshape's collapsed tensor";
    }
    rule.loops[chosen].innerFactor = inner;
  }
  // A collapse to rank 0 folds no dim: its unit loops index nothing there.
  for (ShardingRule::Loop &loop : rule.loops)
    if (collapsed.getRank() == 0)
      loop.unshardable = "the reshape's collapsed tensor has no dims";
  std::vector<int64_t> none;
  for (Value operand : op->getOperands())
    rule.operands.push_back(
        !isa<RankedTensorType>(operand.getType())
            ? none
            : (expandedIsOperand ? expandedDims : collapsedDims));
  rule.results.push_back(expandedIsOperand ? collapsedDims : expandedDims);
  rule.combiners.push_back(std::nullopt);
  rule.inits.push_back(-1);
  // Each element moved as it is: linear in the tensor it reshapes.
  if (summable(expanded))
    rule.linear = {{0}};
  return rule;
}

namespace {

/// The rule of an op that makes a tensor of its result shape from no tensor
/// (tensor.empty, tensor.splat, tensor.generate, tensor.from_elements): one
/// loop per dim, so it takes any layout; its operands (a splat's scalar, an
/// empty's dynamic sizes) are not indexed. A dynamic dim (of an op whose
/// sizes are operands: tensor.empty, tensor.generate) is cut only where the
/// op's hook computes on it cut (cutsDynamicLoop).
FailureOr<ShardingRule> anyLayoutRule(Operation *op) {
  if (failed(isa<tensor::EmptyOp, tensor::GenerateOp>(op)
                 ? checkRankedShapes(op)
                 : checkStaticShapes(op)))
    return failure();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  return ShardingRule::elementwise(
      std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
      std::vector<bool>(op->getNumOperands(), false));
}

/// Replaces such an op by the one `build` makes at this rank's block sizes
/// (`globalSizes`: the op's own, where a dynamic dim may be cut).
LogicalResult remakeAtLocalSizes(
    Operation *op, PartitionContext &context,
    function_ref<Value(OpBuilder &, Location, ArrayRef<OpFoldResult>, Type)>
        build,
    ArrayRef<OpFoldResult> globalSizes = {}) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  ShardedTensorType global = context.globalOf(op->getResult(0));
  SmallVector<OpFoldResult> sizes =
      context.localSizes(b, loc, op, global, globalSizes);
  Value local = build(b, loc, sizes, global.getElementType());
  context.replace(op->getResult(0),
                  castTo(b, loc, local, getLocalType(global)));
  op->erase();
  return success();
}

struct EmptyRuleModel
    : ShardingRuleOpInterface::ExternalModel<EmptyRuleModel, tensor::EmptyOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return anyLayoutRule(op);
  }

  /// Sizes from the tensor's own (PartitionContext::localSizes).
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    return remakeAtLocalSizes(
        op, context,
        [](OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
           Type element) -> Value {
          return tensor::EmptyOp::create(b, loc, sizes, element);
        },
        cast<tensor::EmptyOp>(op).getMixedSizes());
  }
};

/// tensor.splat of a static shape: any layout, as tensor.empty.
struct SplatRuleModel
    : ShardingRuleOpInterface::ExternalModel<SplatRuleModel, tensor::SplatOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return anyLayoutRule(op);
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    Value scalar = cast<tensor::SplatOp>(op).getInput();
    return remakeAtLocalSizes(op, context,
                              [&](OpBuilder &b, Location loc,
                                  ArrayRef<OpFoldResult> sizes, Type) -> Value {
                                return tensor::SplatOp::create(b, loc, scalar,
                                                               sizes);
                              });
  }
};

/// tensor.generate: one parallel loop per dim, its body computing each
/// element from its indices (a causal mask from iotas, a position table);
/// partitioned into a generate of this rank's block whose indices are made
/// global (plus the block's offsets). A strided cut, whose block has no one
/// offset, is not taken.
struct GenerateRuleModel
    : ShardingRuleOpInterface::ExternalModel<GenerateRuleModel,
                                             tensor::GenerateOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    FailureOr<ShardingRule> rule = anyLayoutRule(op);
    if (failed(rule))
      return failure();
    for (ShardingRule::Loop &loop : rule->loops)
      loop.unstrided = "tensor.generate's body reads the element's index, "
                       "which a strided block has no one offset for";
    return rule;
  }

  /// Sizes and offsets from its extent operands (PartitionContext).
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto generate = cast<tensor::GenerateOp>(op);
    SmallVector<OpFoldResult> globalSizes =
        getMixedValues(generate.getType().getShape(),
                       generate.getDynamicExtents(), op->getContext());
    return remakeAtLocalSizes(
        op, context,
        [&](OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
            Type element) -> Value {
          SmallVector<OpFoldResult> offsets = context.localOffsets(
              b, loc, op, context.globalOf(generate.getResult()), globalSizes);
          SmallVector<int64_t> shape;
          SmallVector<Value> extents;
          dispatchIndexOpFoldResults(sizes, extents, shape);
          auto local = tensor::GenerateOp::create(
              b, loc, RankedTensorType::get(shape, element), extents);
          local.getBody().takeBody(generate.getBody());
          Block &body = local.getBody().front();
          OpBuilder in = OpBuilder::atBlockBegin(&body);
          for (auto [d, index] : llvm::enumerate(body.getArguments())) {
            if (isConstantIntValue(offsets[d], 0))
              continue;
            Value global = arith::AddIOp::create(
                in, loc, index,
                getValueOrCreateConstantIndexOp(b, loc, offsets[d]));
            index.replaceAllUsesExcept(global, global.getDefiningOp());
          }
          return local.getResult();
        },
        globalSizes);
  }
};

struct ExpandShapeRuleModel
    : ShardingRuleOpInterface::ExternalModel<ExpandShapeRuleModel,
                                             tensor::ExpandShapeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto expand = cast<tensor::ExpandShapeOp>(op);
    return reshapeRule(op, expand.getResultType(), expand.getSrcType(),
                       expand.getReassociationIndices(),
                       /*expandedIsOperand=*/false);
  }

  /// A dynamic dim alone in its group (reshapeRule keeps the others whole):
  /// its local size from the output shape (PartitionContext::localSizes).
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto expand = cast<tensor::ExpandShapeOp>(op);
    OpBuilder b(op);
    ShardedTensorType global = context.globalOf(expand.getResult());
    // Local sizes where they differ between ranks come from the rank's
    // table; the source is this rank's block already.
    Value local = tensor::ExpandShapeOp::create(
        b, op->getLoc(), getLocalType(global), expand.getSrc(),
        expand.getReassociationIndices(),
        context.localSizes(b, op->getLoc(), op, global,
                           expand.getMixedOutputShape()));
    context.replace(expand.getResult(), local);
    expand.erase();
    return success();
  }
};

struct CollapseShapeRuleModel
    : ShardingRuleOpInterface::ExternalModel<CollapseShapeRuleModel,
                                             tensor::CollapseShapeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto collapse = cast<tensor::CollapseShapeOp>(op);
    return reshapeRule(op, collapse.getSrcType(), collapse.getResultType(),
                       collapse.getReassociationIndices(),
                       /*expandedIsOperand=*/true);
  }

  /// A dynamic dim alone in its group (reshapeRule keeps the others
  /// whole): the block's own size.
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto collapse = cast<tensor::CollapseShapeOp>(op);
    OpBuilder b(op);
    ShardedTensorType global = context.globalOf(collapse.getResult());
    Value local = tensor::CollapseShapeOp::create(
        b, op->getLoc(), getLocalType(global), collapse.getSrc(),
        collapse.getReassociationIndices());
    context.replace(collapse.getResult(), local);
    collapse.erase();
    return success();
  }
};

/// tensor.from_elements: a small tensor of scalars (a shape, a scalar made a
/// 0-d tensor, as torch-mlir and StableHLO's lowerings write them), one
/// loop per dim, none cut: every rank makes the whole tensor of the same
/// scalars (a use that needs it cut slices its block, moving nothing).
struct FromElementsRuleModel
    : ShardingRuleOpInterface::ExternalModel<FromElementsRuleModel,
                                             tensor::FromElementsOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    FailureOr<ShardingRule> rule = anyLayoutRule(op);
    if (failed(rule))
      return failure();
    for (ShardingRule::Loop &loop : rule->loops)
      loop.unshardable = "its elements are scalar operands: every rank makes "
                         "the whole tensor";
    return rule;
  }
};

/// tensor.reshape of static shapes (its shape a tensor operand: StableHLO's
/// and TOSA's lowerings of a reshape that is no fold or split of dims write
/// it): tosa.reshape's rule and partition (staticReshapeRule), the shape
/// needed whole.
struct TensorReshapeRuleModel
    : ShardingRuleOpInterface::ExternalModel<TensorReshapeRuleModel,
                                             tensor::ReshapeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return staticReshapeRule(op);
  }
  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    return partitionStaticReshape(op, context);
  }
};

/// `local` where it holds every index the slice (`offsets`, `sizes`,
/// `strides`; a dropped dim reads one index) reads, else a tensor.empty that
/// does (of `local`'s extents, raised to those the slice reads). A rank past
/// every rank a layout names (a world larger than the mesh) holds an empty
/// block of a dynamic dim, and its part is a phantom of the parts' local
/// type, which it neither sends nor receives: it slices the empty tensor
/// (before: out of bounds, where every named rank's part had one static
/// size and the table folded to it). Where `local` is of a static shape, a
/// phantom block of it holds every index already, and where the dynamic
/// dims' offsets and sizes are per-rank tables, a rank past them reads 0 at
/// 0.
Value enoughToSlice(OpBuilder &b, Location loc, Value local,
                    ArrayRef<OpFoldResult> offsets,
                    ArrayRef<OpFoldResult> sizes,
                    ArrayRef<OpFoldResult> strides,
                    const llvm::SmallBitVector &dropped) {
  auto type = cast<RankedTensorType>(local.getType());
  // Only where a dynamic dim is read at an index every rank shares (a
  // constant offset or size past 0, or a dropped dim's one index): a
  // per-rank table gives the ranks past it 0, which an empty block holds.
  bool shared = false;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    std::optional<int64_t> offset = getConstantIntValue(offsets[d]);
    std::optional<int64_t> size = getConstantIntValue(sizes[d]);
    shared |= dropped.test(d) || (offset && *offset > 0) || (size && *size > 0);
  }
  if (!shared)
    return local;
  IndexMath m(b, loc);
  Value fits;
  SmallVector<Value> extents;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    // The indices read reach offset + (size - 1) * stride + 1 (an offset
    // past the end with no index read still out of bounds).
    const OpFoldResult size = dropped.test(d) ? m.c(1) : sizes[d];
    const int64_t stride = *getConstantIntValue(strides[d]);
    OpFoldResult reach =
        m.max(m.add(m.sub(m.mul(size, stride), m.c(stride - 1)), offsets[d]),
              offsets[d]);
    OpFoldResult have = tensor::getMixedSize(b, loc, local, d);
    Value holds =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                              getValueOrCreateConstantIndexOp(b, loc, reach),
                              getValueOrCreateConstantIndexOp(b, loc, have));
    fits = fits ? arith::AndIOp::create(b, loc, fits, holds) : holds;
    if (type.isDynamicDim(d))
      extents.push_back(
          getValueOrCreateConstantIndexOp(b, loc, m.max(reach, have)));
  }
  auto choose = scf::IfOp::create(b, loc, TypeRange{type}, fits,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(choose.thenBlock());
    scf::YieldOp::create(b, loc, local);
    b.setInsertionPointToStart(choose.elseBlock());
    Value empty =
        tensor::EmptyOp::create(b, loc, type, ValueRange(extents)).getResult();
    scf::YieldOp::create(b, loc, empty);
  }
  return choose.getResult(0);
}

/// tensor.extract_slice with static offsets, sizes and strides: one loop per
/// result dim. A source dim taken whole is indexed by its result dim's loop
/// (the two are cut alike); any other source dim by none, so the source is
/// needed whole along it, and each rank slices its own part of the result
/// out of it: nothing moves for a slice along dims the source does not
/// shard. Unit dims the slice drops are indexed by none.
/// `source` sliced at `offsets`, `sizes`, `strides` (one per source dim,
/// size 1 where `dropped`) into `type` (the source's rank less the dropped
/// dims): a full-rank slice, then the dropped unit dims collapsed away, so
/// that which dims are dropped never depends on sizes that happen to be 1
/// on a rank (a stride on such a dim made the lowering pick the wrong one).
Value sliceAndDrop(OpBuilder &b, Location loc, Value source,
                   ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                   ArrayRef<OpFoldResult> strides,
                   const llvm::SmallBitVector &dropped, RankedTensorType type) {
  if (dropped.none())
    return tensor::ExtractSliceOp::create(b, loc, type, source, offsets, sizes,
                                          strides);
  SmallVector<int64_t> full;
  SmallVector<OpFoldResult> unitStrides(strides.begin(), strides.end());
  for (int64_t d = 0, k = 0; d < static_cast<int64_t>(dropped.size()); ++d) {
    if (dropped.test(d)) {
      full.push_back(1);
      unitStrides[d] = b.getIndexAttr(1);
    } else {
      full.push_back(type.getDimSize(k++));
    }
  }
  Value slice = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(full, type.getElementType()), source,
      offsets, sizes, unitStrides);
  return tensor::CollapseShapeOp::create(b, loc, type, slice,
                                         groupsAround(dropped));
}

struct ExtractSliceRuleModel
    : ShardingRuleOpInterface::ExternalModel<ExtractSliceRuleModel,
                                             tensor::ExtractSliceOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto slice = cast<tensor::ExtractSliceOp>(op);
    RankedTensorType source = slice.getSourceType();
    RankedTensorType result = slice.getType();
    // An offset only the run time knows (a loop's induction variable: a
    // time step of a recurrence) is kDynamic: the source is read whole
    // along that dim, each rank slicing it there (sliceRule).
    SmallVector<int64_t> offsets;
    for (OpFoldResult offset : slice.getMixedOffsets())
      offsets.push_back(
          getConstantIntValue(offset).value_or(ShapedType::kDynamic));
    auto strides = getConstantIntValues(slice.getMixedStrides());
    if (failed(checkRankedShapes(op)))
      return failure();
    if (!strides)
      return op->emitOpError()
             << "has dynamic strides; sharding needs static ones";
    // A dynamic size that takes a dynamic dim whole (at 0, stride 1, of
    // the source's own size) indexes it alike; any other size only the run
    // time knows (read from data) places the slice there at run time, as a
    // run-time offset does (kDynamic here: the dim read whole, each rank
    // slicing its part of the result there; sliceRule).
    for (auto [d, size] : llvm::enumerate(slice.getMixedSizes()))
      if (isa<Value>(size) &&
          !(source.isDynamicDim(d) &&
            takesDynamicDimWhole(slice, static_cast<int64_t>(d))))
        offsets[d] = ShapedType::kDynamic;
    return sliceRule(op, source, result, offsets, slice.getStaticSizes(),
                     *strides, slice.getDroppedDims());
  }

  /// A dynamic dim is taken whole (the rule): cut alike, the block's own
  /// rows (no window read is offered for such a source).
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }

  LogicalResult partition(Operation *op, const ShardingRule &rule,
                          PartitionContext &context) const {
    auto slice = cast<tensor::ExtractSliceOp>(op);
    // A dynamic dim, taken whole: the source's own size (its tensor.dim,
    // partitioned into the local tensor's).
    SmallVector<OpFoldResult> globalSizes;
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    for (auto [d, size] : llvm::enumerate(slice.getMixedSizes()))
      if (!dropped.test(d))
        globalSizes.push_back(size);
    if (llvm::is_contained(slice.getType().getShape(), 0)) {
      // No element: an empty block of the result, nothing read.
      OpBuilder b(op);
      ShardedTensorType global = context.globalOf(slice.getResult());
      Value empty = tensor::EmptyOp::create(
          b, op->getLoc(),
          context.localSizes(b, op->getLoc(), op, global, globalSizes),
          global.getElementType());
      context.replace(slice.getResult(),
                      castTo(b, op->getLoc(), empty, getLocalType(global)));
      slice.erase();
      return success();
    }
    if (cutAlongWindow(slice, rule, context)) {
      // The rule gives a slice at a run-time offset no window: the source
      // is moved whole along its sliced dims first (and layoutInPlace keeps
      // no layout of such a slice).
      if (!getConstantIntValues(slice.getMixedOffsets()) ||
          !slice.getSizes().empty())
        return slice.emitOpError()
               << "reads a source cut along a dim it slices at a run-time "
                  "offset or size, where its rule needs it whole; please "
                  "report this";
      return partitionWindow(slice, context);
    }
    OpBuilder b(op);
    Location loc = op->getLoc();
    ShardedTensorType global = context.globalOf(slice.getResult());
    SmallVector<OpFoldResult> resultOffsets =
        context.localOffsets(b, loc, op, global, globalSizes);
    SmallVector<OpFoldResult> resultSizes =
        context.localSizes(b, loc, op, global, globalSizes);
    IndexMath m(b, loc);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    // (An offset may be a run-time value: the source is whole there.)
    SmallVector<OpFoldResult> mixedOffsets = slice.getMixedOffsets();
    SmallVector<int64_t> staticStrides =
        *getConstantIntValues(slice.getMixedStrides());
    int64_t r = 0;
    for (int64_t d = 0; d < slice.getSourceType().getRank(); ++d) {
      const OpFoldResult offset = mixedOffsets[d];
      const int64_t stride = staticStrides[d];
      if (dropped.test(d)) {
        offsets.push_back(offset);
        sizes.push_back(b.getIndexAttr(1));
        strides.push_back(b.getIndexAttr(stride));
        continue;
      }
      if (rule.operands[0][d] >= 0) {
        // Cut alike: this rank's source block is its result block.
        offsets.push_back(b.getIndexAttr(0));
      } else {
        // The source is whole here: this rank's part of the slice. A rank
        // whose part is empty (torch.chunk's last chunks start at the
        // end) would start past the source's end (columns 1, 3, .., 11 of
        // 12 over 4 ranks: rank 3's at 13), which MLIR's extract_slice
        // does not allow: kept within it (its extent the local source's,
        // whole here: a dynamic dim's is known at run time only).
        offsets.push_back(
            m.min(m.add(m.mul(resultOffsets[r], stride), offset),
                  tensor::getMixedSize(b, loc, slice.getSource(), d)));
      }
      sizes.push_back(resultSizes[r]);
      strides.push_back(b.getIndexAttr(rule.operands[0][d] >= 0 ? 1 : stride));
      ++r;
    }
    Value local = sliceAndDrop(b, loc, slice.getSource(), offsets, sizes,
                               strides, dropped, getLocalType(global));
    context.replace(slice.getResult(), local);
    slice.erase();
    return success();
  }

  /// Whether the source is cut along a sliced dim (a window the rule let
  /// stay cut, operandLayoutUnder), or is not a mesh layout at all (kept as
  /// it is where the slice's parts are the result's blocks,
  /// layoutInPlace).
  static bool cutAlongWindow(tensor::ExtractSliceOp slice,
                             const ShardingRule &rule,
                             PartitionContext &context) {
    ShardedTensorType source = context.globalOf(slice.getSource());
    PlacementsSpecAttr mesh = asMeshLayout(source.getSpec(), source.getDims());
    if (!mesh)
      return true;
    const int64_t rank = source.getRank();
    for (const layout::Placement &p : mesh.getPlacements()) {
      if (p.kind != layout::Placement::Kind::Shard)
        continue;
      const int64_t dim = p.dim < 0 ? p.dim + rank : p.dim;
      if (rule.windowOf(0, static_cast<size_t>(dim)) >= 0)
        return true;
    }
    return false;
  }

  /// The part of the slice a source block holds (slicePartOf).
  static std::optional<SlicePart> partOf(tensor::ExtractSliceOp slice,
                                         const layout::Box &block) {
    return slicePartOf(SliceGeometry::of(slice), block);
  }

  ShardingSpecAttrInterface
  layoutInPlace(Operation *op, unsigned result,
                ArrayRef<ShardingSpecAttrInterface> layouts) const {
    auto slice = cast<tensor::ExtractSliceOp>(op);
    if (result != 0 || layouts.empty() || !layouts[0] ||
        !getConstantIntValues(slice.getMixedOffsets()) ||
        !getConstantIntValues(slice.getMixedStrides()) ||
        !slice.getSizes().empty() || !slice.getSourceType().hasStaticShape())
      return nullptr;
    return slicePartsLayout(op->getContext(), slice.getSourceType().getShape(),
                            SliceGeometry::of(slice), layouts[0]);
  }

  /// The source cut along a sliced dim: each rank slices the part of the
  /// slice its source block holds (a layout of one block per rank, some
  /// empty: the slice's blocks as the source has them), and the planner
  /// moves those parts to the result's layout. A source of several blocks
  /// per rank (kept as it is, layoutInPlace) first gives each rank the one
  /// block of its packed view that holds a part of the slice.
  static LogicalResult partitionWindow(tensor::ExtractSliceOp slice,
                                       PartitionContext &context) {
    OpBuilder b(slice);
    Location loc = slice.getLoc();
    MLIRContext *ctx = b.getContext();
    ShardedTensorType source = context.globalOf(slice.getSource());
    ShardedTensorType result = context.globalOf(slice.getResult());
    SmallVector<int64_t> strides =
        *getConstantIntValues(slice.getMixedStrides());
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    const size_t rank = static_cast<size_t>(source.getRank());
    auto perRank = [&](ArrayRef<int64_t> values) {
      return context.perRankIndex(b, loc, slice, values);
    };

    std::vector<layout::Block> blocks = source.getDeviceBlocks();
    // Every rank either layout names: a rank the result's layout holds a
    // block on but the source's does not must read an empty part, not
    // the constant every source rank shares (perRankIndex folds a table
    // whose entries agree).
    int64_t ranks = 0;
    for (const layout::Block &block : blocks)
      ranks = std::max(ranks, block.placement.rank + 1);
    for (const layout::Block &block : result.getDeviceBlocks())
      ranks = std::max(ranks, block.placement.rank + 1);
    Value local = slice.getSource();
    if (severalPerRank(source)) {
      // Per rank: the block holding its part (at most one, as
      // layoutInPlace promised), where it starts in the packed view, and
      // its sizes; an empty block where none does.
      std::vector<std::optional<layout::Block>> picked(ranks);
      std::vector<int64_t> packedAt(ranks, 0), volume(ranks, 0);
      std::vector<std::vector<int64_t>> blockSizes(
          rank, std::vector<int64_t>(ranks, 0));
      std::vector<int64_t> packed(ranks, 0);
      for (const layout::Block &block : blocks) {
        const int64_t p = block.placement.rank;
        const int64_t count = *layout::volume(block.box.sizes);
        std::optional<SlicePart> part = partOf(slice, block.box);
        if (part && !part->empty()) {
          if (picked[p])
            return slice.emitOpError()
                   << "reads parts of several blocks of rank " << p
                   << "'s; expected its source moved first";
          picked[p] = block;
          packedAt[p] = packed[p];
          volume[p] = count;
          for (size_t d = 0; d < rank; ++d)
            blockSizes[d][p] = block.box.sizes[d];
        }
        packed[p] += count;
      }
      // A rank holding no part: an empty block, of size 1 in the dims the
      // slice drops (it still reads one index there).
      std::vector<int64_t> none(rank, 0);
      for (size_t d = 0; d < rank; ++d)
        none[d] = dropped.test(d) ? 1 : 0;
      std::vector<layout::Block> one;
      for (int64_t p = 0; p < ranks; ++p) {
        layout::Block block;
        block.placement = layout::Device{p, blocks.front().placement.kind, -1};
        block.box = picked[p]
                        ? picked[p]->box
                        : layout::Box{std::vector<int64_t>(rank, 0), none};
        if (!picked[p])
          for (size_t d = 0; d < rank; ++d)
            blockSizes[d][p] = none[d];
        one.push_back(block);
      }
      // The block out of the packed view, at its shape.
      OpFoldResult at = perRank(packedAt), count = perRank(volume);
      Value flat = tensor::ExtractSliceOp::create(
          b, loc, local, ArrayRef<OpFoldResult>{at},
          ArrayRef<OpFoldResult>{count},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
      SmallVector<Value> dims;
      SmallVector<int64_t> shape;
      for (size_t d = 0; d < rank; ++d) {
        OpFoldResult size = perRank(blockSizes[d]);
        dims.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
        std::optional<int64_t> fixed = getConstantIntValue(size);
        shape.push_back(fixed ? *fixed : ShapedType::kDynamic);
      }
      Value shapeOf = tensor::FromElementsOp::create(b, loc, dims);
      local = tensor::ReshapeOp::create(
          b, loc, RankedTensorType::get(shape, source.getElementType()), flat,
          shapeOf);
      blocks = std::move(one);
    } else {
      // A rank below `ranks` that the source holds no block on (outside
      // its mesh, or named by the result only) reads an empty part: a
      // block of its own in the parts' layout, so that their local type
      // has the dims where its 0 differs from the others' sizes dynamic,
      // as the tables below say (a static type against a table's sizes
      // failed the slice's verifier).
      std::vector<bool> holds(ranks, false);
      for (const layout::Block &block : blocks)
        holds[block.placement.rank] = true;
      const layout::Device::Kind kind = blocks.front().placement.kind;
      for (int64_t p = 0; p < ranks; ++p) {
        if (holds[p])
          continue;
        layout::Block block;
        block.placement = layout::Device{p, kind, -1};
        block.box = layout::Box{std::vector<int64_t>(rank, 0),
                                std::vector<int64_t>(rank, 0)};
        blocks.push_back(block);
      }
    }

    // Per source dim and rank: where this rank's part starts in its block,
    // and how many indices of the slice it holds.
    std::vector<std::vector<int64_t>> localOffset(
        rank, std::vector<int64_t>(ranks, 0));
    std::vector<std::vector<int64_t>> partSize(rank,
                                               std::vector<int64_t>(ranks, 0));
    SmallVector<BlockAttr> parts;
    for (const layout::Block &block : blocks) {
      const int64_t p = block.placement.rank;
      std::optional<SlicePart> part = partOf(slice, block.box);
      for (size_t d = 0; d < rank; ++d) {
        const int64_t size = part->end[d] - part->first[d];
        if (dropped.test(d) && size != 1 && !block.box.empty())
          return slice.emitOpError()
                 << "drops dim " << d
                 << ", which the source's layout cuts; expected it whole";
        localOffset[d][p] = part->inBlock[d];
        partSize[d][p] = size;
      }
      parts.push_back(BlockAttr::get(
          ctx, part->box.offsets, part->box.sizes,
          DeviceAttr::get(ctx, layout::Device{p, block.placement.kind, -1})));
    }
    ShardedTensorType partsType =
        ShardedTensorType::get(ctx, result.getDims(), result.getElementType(),
                               EnumerableSpecAttr::get(ctx, parts));

    SmallVector<OpFoldResult> localOffsets, localSizes, localStrides;
    for (size_t d = 0; d < rank; ++d) {
      localOffsets.push_back(perRank(localOffset[d]));
      localSizes.push_back(dropped.test(d) ? b.getIndexAttr(1)
                                           : perRank(partSize[d]));
      localStrides.push_back(b.getIndexAttr(strides[d]));
    }
    local = enoughToSlice(b, loc, local, localOffsets, localSizes, localStrides,
                          dropped);
    Value part = sliceAndDrop(b, loc, local, localOffsets, localSizes,
                              localStrides, dropped, getLocalType(partsType));

    // Moved to the result's layout (nothing moves where each rank's part is
    // its block of it).
    Value moved = context.redistribute(b, loc, part, partsType, result);
    context.replace(slice.getResult(), moved);
    slice.erase();
    return success();
  }
};

/// tensor.cast: the shape that either side names where the other leaves a
/// dim dynamic; a dim dynamic on either side is kept whole.
struct CastRuleModel
    : ShardingRuleOpInterface::ExternalModel<CastRuleModel, tensor::CastOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto castOp = cast<tensor::CastOp>(op);
    auto source = dyn_cast<RankedTensorType>(castOp.getSource().getType());
    auto result = dyn_cast<RankedTensorType>(castOp.getType());
    if (!source || !result)
      return checkStaticShapes(op);
    if (failed(checkRankedShapes(op)))
      return failure();
    std::vector<int64_t> shape;
    for (int64_t d = 0; d < source.getRank(); ++d) {
      int64_t size = source.getDimSize(d);
      if (ShapedType::isDynamic(size))
        size = result.getDimSize(d);
      shape.push_back(size);
    }
    return ShardingRule::elementwise(shape, {true});
  }

  /// The block as it is, retyped.
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto castOp = cast<tensor::CastOp>(op);
    OpBuilder b(op);
    Value local = castTo(b, op->getLoc(), castOp.getSource(),
                         context.localOf(castOp.getResult()));
    context.replace(castOp.getResult(), local);
    castOp.erase();
    return success();
  }
};

/// tensor.dim: the tensor in any layout (one loop per dim, none reduced);
/// partitioned into the global size (PartitionContext::globalExtent): a
/// static one as a constant; a dynamic one's run-time extent (every rank
/// holds a block of it: -shard-spmd-partition checks so at the function's
/// entry).
struct DimRuleModel
    : ShardingRuleOpInterface::ExternalModel<DimRuleModel, tensor::DimOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto dim = cast<tensor::DimOp>(op);
    if (failed(checkRankedShapes(op)))
      return failure();
    auto type = cast<RankedTensorType>(dim.getSource().getType());
    ShardingRule rule = ShardingRule::elementwise(
        std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
        {true, false});
    rule.results.back().clear();
    return rule;
  }

  /// The global extent (PartitionContext::globalExtent).
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto dim = cast<tensor::DimOp>(op);
    OpBuilder b(op);
    Location loc = op->getLoc();
    ArrayRef<int64_t> shape = context.globalOf(dim.getSource()).getDims();
    // The global size: a static one; a dynamic one's run-time extent.
    auto sizeOf = [&](size_t d) -> Value {
      return getValueOrCreateConstantIndexOp(
          b, loc,
          context.globalExtent(b, loc, dim.getSource(),
                               static_cast<int64_t>(d)));
    };
    Value size;
    if (std::optional<int64_t> index = dim.getConstantIndex()) {
      if (*index < 0 || *index >= static_cast<int64_t>(shape.size()))
        return op->emitOpError() << "reads dim " << *index << " of a tensor of "
                                 << shape.size() << " dims";
      size = sizeOf(*index);
    } else {
      // The global sizes as a tensor, read at the index.
      SmallVector<Value> sizes;
      for (size_t d = 0; d < shape.size(); ++d)
        sizes.push_back(sizeOf(d));
      Value table = tensor::FromElementsOp::create(b, loc, sizes);
      size = tensor::ExtractOp::create(b, loc, table, dim.getIndex());
    }
    // Through the context: an extent traced to this op's result follows.
    context.replace(dim.getResult(), size);
    dim.erase();
    return success();
  }
};

struct GatherRuleModel
    : ShardingRuleOpInterface::ExternalModel<GatherRuleModel,
                                             tensor::GatherOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto gather = cast<tensor::GatherOp>(op);
    if (failed(checkStaticShapes(op)))
      return failure();
    auto source = cast<RankedTensorType>(gather.getSource().getType());
    auto indices = cast<RankedTensorType>(gather.getIndices().getType());
    auto result = cast<RankedTensorType>(gather.getResult().getType());
    ArrayRef<int64_t> gathered = gather.getGatherDims();
    const int64_t batch = indices.getRank() - 1;
    // The result keeps a gathered dim as a dim of size 1 unless it is
    // rank-reduced (the gathered dims dropped).
    const bool keepsGathered = result.getRank() == batch + source.getRank();
    ShardingRule rule;
    std::vector<int64_t> sourceDims(source.getRank(), -1), indexDims,
        resultDims;
    for (int64_t d = 0; d < batch; ++d) {
      indexDims.push_back(d);
      resultDims.push_back(d);
      rule.loops.push_back({indices.getDimSize(d), false, {}});
    }
    indexDims.push_back(-1);
    for (int64_t d = 0; d < source.getRank(); ++d) {
      if (llvm::is_contained(gathered, d)) {
        if (keepsGathered)
          resultDims.push_back(-1);
        continue;
      }
      sourceDims[d] = static_cast<int64_t>(rule.loops.size());
      resultDims.push_back(static_cast<int64_t>(rule.loops.size()));
      rule.loops.push_back({source.getDimSize(d), false, {}});
    }
    rule.operands = {sourceDims, indexDims};
    rule.results = {resultDims};
    rule.combiners = {std::nullopt};
    rule.inits = {-1};
    return rule;
  }
};

struct ExtractRuleModel
    : ShardingRuleOpInterface::ExternalModel<ExtractRuleModel,
                                             tensor::ExtractOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return wholeTensorsRule(op);
  }
};

struct InsertRuleModel
    : ShardingRuleOpInterface::ExternalModel<InsertRuleModel,
                                             tensor::InsertOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return wholeTensorsRule(op, /*init=*/1);
  }
};

} // namespace

void shardc::registerTensorShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::EmptyOp::attachInterface<EmptyRuleModel>(*ctx);
    tensor::SplatOp::attachInterface<SplatRuleModel>(*ctx);
    tensor::ExpandShapeOp::attachInterface<ExpandShapeRuleModel>(*ctx);
    tensor::CollapseShapeOp::attachInterface<CollapseShapeRuleModel>(*ctx);
    tensor::ReshapeOp::attachInterface<TensorReshapeRuleModel>(*ctx);
    tensor::FromElementsOp::attachInterface<FromElementsRuleModel>(*ctx);
    tensor::ExtractSliceOp::attachInterface<ExtractSliceRuleModel>(*ctx);
    tensor::CastOp::attachInterface<CastRuleModel>(*ctx);
    tensor::ExtractOp::attachInterface<ExtractRuleModel>(*ctx);
    tensor::GatherOp::attachInterface<GatherRuleModel>(*ctx);
    tensor::DimOp::attachInterface<DimRuleModel>(*ctx);
    tensor::GenerateOp::attachInterface<GenerateRuleModel>(*ctx);
    tensor::InsertOp::attachInterface<InsertRuleModel>(*ctx);
  });
  registerTensorPlaceShardingRules(registry);
}

SmallVector<ReassociationIndices>
shardc::groupsAround(const llvm::SmallBitVector &dropped) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t d = 0; d < static_cast<int64_t>(dropped.size()); ++d) {
    pending.push_back(d);
    if (!dropped.test(d)) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!pending.empty() && !groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

llvm::SmallBitVector shardc::droppedDims(ArrayRef<int64_t> sizes,
                                         ArrayRef<int64_t> reducedShape) {
  llvm::SmallBitVector dropped(sizes.size());
  int64_t k = static_cast<int64_t>(reducedShape.size()) - 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (k >= 0 && (sizes[d] != 1 || reducedShape[k] == 1)) {
      --k;
      continue;
    }
    dropped.set(d);
  }
  return dropped;
}
