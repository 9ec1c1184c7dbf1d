//===- TosaPlaceRules.cpp - TOSA's slices, pads and concats ---------------===//
//
// tosa.slice, tosa.pad (of a tosa.const_shape padding) and tosa.concat take
// the rules of tensor.extract_slice, tensor.pad and tensor.concat
// (shardc/Rules/Slice.h, Place.h: a sliced, padded or concatenated dim the
// window of its result loop), so that a tensor cut along such a dim stays
// cut and only the elements another rank's block needs move; each is
// partitioned as that tensor op, built on the op's global types, through
// its hook. (Their old rules kept such a dim whole: the tensor gathered
// first.)
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "TosaRuleSupport.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Rules/Place.h"
#include "shardc/Rules/Slice.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::tosa_rules;

namespace {

/// tosa.pad of a constant padding (static shapes): tensor.pad's rule: a dim
/// left as it is cut alike in input and result, a padded one the window of
/// its result loop, so that an input cut along it stays cut and only what
/// lands in another rank's block moves (its old rule kept a padded dim
/// whole: the input gathered along it); partitioned as that tensor.pad,
/// padding with the value of its pad_const (whole on every rank). Otherwise
/// unchangedDimsRule, the op on local blocks.
struct TosaPadRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaPadRuleModel, tosa::PadOp> {
  /// The padding, low and high per dim, where it is a constant and the
  /// shapes static (the input's and result's global shapes `input` and
  /// `result`: a partition hook's operands are local).
  struct Padding {
    SmallVector<int64_t> lows, highs;
  };
  static std::optional<Padding> paddingOf(tosa::PadOp pad,
                                          ArrayRef<int64_t> input,
                                          ArrayRef<int64_t> result) {
    auto value = dyn_cast<RankedTensorType>(pad.getPadConst().getType());
    std::optional<SmallVector<int64_t>> padding = constShape(pad.getPadding());
    if (!value || !value.hasStaticShape() || value.getNumElements() != 1 ||
        ShapedType::isDynamicShape(input) ||
        ShapedType::isDynamicShape(result) || !padding ||
        padding->size() != 2 * input.size())
      return std::nullopt;
    Padding p;
    for (size_t d = 0; d < input.size(); ++d) {
      p.lows.push_back((*padding)[2 * d]);
      p.highs.push_back((*padding)[2 * d + 1]);
    }
    return p;
  }

  /// paddingOf, with the op's own types (global, as the search sees them).
  static std::optional<Padding> paddingOf(tosa::PadOp pad) {
    auto input = dyn_cast<RankedTensorType>(pad.getInput1().getType());
    auto result = dyn_cast<RankedTensorType>(pad.getType());
    if (!input || !result)
      return std::nullopt;
    return paddingOf(pad, input.getShape(), result.getShape());
  }

  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    std::optional<Padding> p = paddingOf(cast<tosa::PadOp>(op));
    if (!p)
      return unchangedDimsRule(op, /*pad=*/true);
    const int64_t rank = static_cast<int64_t>(p->lows.size());
    std::vector<int64_t> input(rank, -1), windows(rank, -1);
    for (int64_t d = 0; d < rank; ++d)
      (p->lows[d] == 0 && p->highs[d] == 0 ? input : windows)[d] = d;
    FailureOr<ShardingRule> rule = resultLoopsRule(op, {input});
    if (failed(rule))
      return failure();
    rule->windows = {windows, {}, {}};
    return rule;
  }

  ShardingSpecAttrInterface
  layoutToPlace(Operation *op, unsigned operand, ShardingSpecAttrInterface have,
                ShardingSpecAttrInterface result) const {
    std::optional<Padding> p = paddingOf(cast<tosa::PadOp>(op));
    if (operand != 0 || !p)
      return nullptr;
    return padLayoutToPlace(op, p->lows, p->highs, have, result);
  }

  LogicalResult partition(Operation *op, const ShardingRule &rule,
                          PartitionContext &context) const {
    auto pad = cast<tosa::PadOp>(op);
    ShardedTensorType global = context.globalOf(pad.getResult());
    std::optional<Padding> p = paddingOf(
        pad, context.globalOf(pad.getInput1()).getDims(), global.getDims());
    if (!p)
      return retypeResultsToLocal(op, context);
    // The same padding as a tensor.pad of the whole (global) types, its
    // result taking this op's layout, partitioned by its hook; the value
    // is pad_const's one element (whole here).
    OpBuilder b(op);
    Location loc = op->getLoc();
    SmallVector<OpFoldResult> lows, highs;
    for (auto [low, high] : llvm::zip(p->lows, p->highs)) {
      lows.push_back(b.getIndexAttr(low));
      highs.push_back(b.getIndexAttr(high));
    }
    Value padConst = pad.getPadConst();
    auto valueType = cast<RankedTensorType>(padConst.getType());
    SmallVector<Value> zeros(valueType.getRank(),
                             arith::ConstantIndexOp::create(b, loc, 0));
    Value value = tensor::ExtractOp::create(b, loc, padConst, zeros);
    auto same = tensor::PadOp::create(
        b, loc,
        RankedTensorType::get(global.getDims(), global.getElementType()),
        pad.getInput1(), lows, highs, value);
    context.replace(pad.getResult(), same.getResult());
    pad.erase();
    return cast<ShardingRuleOpInterface>(same.getOperation())
        .partition(rule, context);
  }
};

/// tosa.slice: the rule of a tensor.extract_slice at its start and size
/// (sliceRule): a dim taken whole is cut alike in input and result,
/// a sliced one is the window of its result dim's loop, so that cutting it
/// moves only the part each rank reads (a fused q|k|v projection cut on
/// its features takes tensor.extract_slice's plans, the search choosing
/// between the windows' moves and one move of the projection; its old
/// rule could only gather it). A start or size that is not a
/// tosa.const_shape: every dim whole. Partitioned as that tensor.extract_slice
/// (its hook: each rank slices what its block holds, the planner moves the
/// rest).
struct TosaSliceRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaSliceRuleModel,
                                             tosa::SliceOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (failed(checkStaticShapes(op)))
      return failure();
    auto slice = cast<tosa::SliceOp>(op);
    auto source = cast<RankedTensorType>(slice.getInput1().getType());
    auto result = cast<RankedTensorType>(slice.getType());
    std::optional<SmallVector<int64_t>> start = constShape(slice.getStart());
    std::optional<SmallVector<int64_t>> size = constShape(slice.getSize());
    const int64_t rank = result.getRank();
    if (start && size && static_cast<int64_t>(start->size()) == rank &&
        static_cast<int64_t>(size->size()) == rank &&
        source.getRank() == rank && llvm::equal(*size, result.getShape()))
      return sliceRule(op, source, result, *start, *size,
                       SmallVector<int64_t>(rank, 1),
                       llvm::SmallBitVector(rank));
    std::vector<int64_t> sliced;
    for (int64_t d = 0; d < rank; ++d)
      sliced.push_back(d);
    return resultLoopsRule(op, {std::vector<int64_t>(rank, -1)}, sliced,
                           "the tensor is sliced along it");
  }

  /// As tensor.extract_slice's: the parts of the slice each rank's block
  /// holds.
  ShardingSpecAttrInterface
  layoutInPlace(Operation *op, unsigned result,
                ArrayRef<ShardingSpecAttrInterface> layouts) const {
    auto slice = cast<tosa::SliceOp>(op);
    std::optional<SmallVector<int64_t>> start = constShape(slice.getStart());
    auto source = cast<RankedTensorType>(slice.getInput1().getType());
    if (result != 0 || layouts.empty() || !layouts[0] || !start ||
        !source.hasStaticShape() ||
        static_cast<int64_t>(start->size()) != source.getRank())
      return nullptr;
    SliceGeometry geometry;
    geometry.offsets = *start;
    geometry.sizes.assign(slice.getType().getShape().begin(),
                          slice.getType().getShape().end());
    geometry.strides.assign(start->size(), 1);
    geometry.dropped = llvm::SmallBitVector(start->size());
    return slicePartsLayout(op->getContext(), source.getShape(), geometry,
                            layouts[0]);
  }

  LogicalResult partition(Operation *op, const ShardingRule &rule,
                          PartitionContext &context) const {
    auto slice = cast<tosa::SliceOp>(op);
    ShardedTensorType global = context.globalOf(slice.getResult());
    ShardedTensorType input = context.globalOf(slice.getInput1());
    if (!constShape(slice.getStart()) ||
        (getLocalType(global).getShape() == global.getShape() &&
         getLocalType(input).getShape() == input.getShape()))
      return success(); // Whole on every rank: the op as it is.
    // The same slice as a tensor.extract_slice of the whole (global) types,
    // its result taking this op's layout, partitioned by its own hook.
    OpBuilder b(op);
    SmallVector<int64_t> start = *constShape(slice.getStart());
    SmallVector<int64_t> ones(start.size(), 1);
    auto same = tensor::ExtractSliceOp::create(
        b, op->getLoc(), slice.getType(), slice.getInput1(),
        /*offsets=*/ValueRange(), /*sizes=*/ValueRange(),
        /*strides=*/ValueRange(), start, slice.getType().getShape(), ones);
    context.replace(slice.getResult(), same.getResult());
    slice.erase();
    return cast<ShardingRuleOpInterface>(same.getOperation())
        .partition(rule, context);
  }
};

/// tosa.concat (static shapes): tensor.concat's rule (concatRule): the axis
/// is, in each operand, the window of its result loop, so that an operand
/// cut along it stays cut and only what lands in another rank's block moves
/// (its old rule kept the axis whole: every operand gathered). Partitioned
/// as that tensor.concat.
struct TosaConcatRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaConcatRuleModel,
                                             tosa::ConcatOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    const int64_t rank = rankOf(op->getResult(0));
    const int64_t axis = axisOf(op);
    if (axis < 0 || axis >= rank)
      return wholeRule(op);
    if (failed(checkStaticShapes(op)))
      return failure();
    return concatRule(op, axis);
  }

  ShardingSpecAttrInterface
  layoutToPlace(Operation *op, unsigned operand, ShardingSpecAttrInterface have,
                ShardingSpecAttrInterface result) const {
    return concatLayoutToPlace(op, axisOf(op), operand, have, result);
  }

  LogicalResult partition(Operation *op, const ShardingRule &rule,
                          PartitionContext &context) const {
    const int64_t axis = axisOf(op);
    if (axis < 0 || axis >= rankOf(op->getResult(0)))
      return success(); // Whole on every rank: the op as it is.
    // The same concatenation as a tensor.concat of the whole (global)
    // types, its result taking this op's layout, partitioned by its hook.
    OpBuilder b(op);
    auto same = tensor::ConcatOp::create(
        b, op->getLoc(), op->getResult(0).getType(), axis, op->getOperands());
    context.replace(op->getResult(0), same.getResult());
    op->erase();
    return cast<ShardingRuleOpInterface>(same.getOperation())
        .partition(rule, context);
  }
};

} // namespace

void tosa_rules::attachPlaceRules(MLIRContext *ctx) {
  tosa::PadOp::attachInterface<TosaPadRuleModel>(*ctx);
  tosa::SliceOp::attachInterface<TosaSliceRuleModel>(*ctx);
  tosa::ConcatOp::attachInterface<TosaConcatRuleModel>(*ctx);
}
