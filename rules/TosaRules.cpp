//===- TosaRules.cpp - Rules of TOSA ops ----------------------------------===//
//
// TOSA's elementwise ops (every op with the TosaElementwiseOperator trait:
// tosa.add, tosa.sigmoid, tosa.tanh, tosa.select, ...; and tosa.mul): one
// parallel loop per result dim. An operand dim of the result's size is
// indexed by that dim's loop; a dim of size 1 where the result's is larger
// is broadcast and indexed by none (the operand is needed whole along it);
// an operand of another rank (tosa.mul's shift) is indexed by none.
//
// tosa.matmul (a[N, H, C] x b[N, C, W] -> [N, H, W], with zero points a_zp
// and b_zp of one element each): loops n, h, w and the reduction c, whose
// sharded parts are summed (P(sum)): each rank's product over its part of
// c is its partial value, with no init to keep on one copy.
//
// tosa.transpose: one loop per result dim; the input's dim perms[j] is
// indexed by result dim j's loop.
//
// tosa.reduce_sum / reduce_max / reduce_min / reduce_product: one loop per
// input dim, the axis a reduction combined by sum, max, min or product (the
// result keeps it, of size 1, indexed by none); each rank's reduction of its
// part is its partial value.
//
// tosa.reshape (static shapes) that folds or splits dims: the rule of
// tensor.expand_shape / collapse_shape (shardc/Rules/Reshape.h), partitioned
// into that op on local blocks where a dim is cut; any other reshape keeps
// every dim whole.
//
// tosa.gather (values[N, K, C] at indices[N, W] -> [N, W, C], TorchDynamo's
// embedding in TOSA form): loops n, w, c and k, the rows the indices pick,
// a reduction summed. Cut along k (a vocab-parallel table), each rank picks
// the rows it holds at their local index and 0 for the others (a
// linalg.generic reading its block), and the result is Partial(sum);
// otherwise the same op on local blocks.
//
// tosa.cast and tosa.identity: elementwise. tosa.rescale: elementwise, its
// per-channel multiplier and shift indexed by the last dim's loop.
// tosa.table: elementwise in its input, the table whole. tosa.argmax, the
// logical reductions (reduce_all / reduce_any) and tosa.reverse: every dim
// but the axis parallel, the axis whole. tosa.concat: tensor.concat's rule
// (shardc/Rules/Place.h, the axis a window of its result loop in each
// operand), partitioned as that tensor.concat. tosa.pad of a constant
// padding: tensor.pad's rule (a padded dim the window of its result loop),
// partitioned as that tensor.pad.
// Convolutions and pooling: TosaWindowRules.cpp. tosa.tile, and tosa.pad
// of a padding computed otherwise: a dim they leave as it is (no
// padding, a multiple of 1) parallel, the others whole; each partitions as
// itself on local blocks. tosa.slice:
// tensor.extract_slice's rule (shardc/Rules/Slice.h, a sliced dim the
// window of its result loop), partitioned as that extract_slice.
//
// tosa.const takes any layout, each rank slicing its block out of it. The
// others run as the same op on local blocks (the default hook). The
// --shard-to-llvm pipeline lowers TOSA to linalg after partitioning.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "TosaRuleSupport.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Rules/Payload.h"
#include "shardc/Rules/Place.h"
#include "shardc/Rules/Reshape.h"
#include "shardc/Rules/Slice.h"
#include "shardc/Rules/TensorCast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::tosa_rules;

namespace {

FailureOr<ShardingRule> tosaElementwiseRule(Operation *op) {
  if (op->getNumResults() != 1)
    return op->emitOpError() << "has " << op->getNumResults()
                             << " results; an elementwise sharding rule "
                                "needs one";
  if (failed(checkStaticShapes(op)))
    return failure();
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return op->emitOpError()
           << "has no sharding rule for a result of type "
           << op->getResult(0).getType() << " (a ranked tensor is needed)";
  ShardingRule rule;
  std::vector<int64_t> dims;
  for (int64_t size : type.getShape()) {
    dims.push_back(static_cast<int64_t>(rule.loops.size()));
    rule.loops.push_back({size, false, {}});
  }
  for (Value operand : op->getOperands()) {
    auto operandType = dyn_cast<RankedTensorType>(operand.getType());
    if (!operandType) {
      rule.operands.push_back({});
      continue;
    }
    std::vector<int64_t> operandDims(operandType.getRank(), -1);
    if (operandType.getRank() == type.getRank())
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (operandType.getDimSize(d) == type.getDimSize(d))
          operandDims[d] = d;
    rule.operands.push_back(std::move(operandDims));
  }
  rule.results.push_back(dims);
  rule.combiners.push_back(std::nullopt);
  rule.inits.push_back(-1);
  return rule;
}

template <typename OpT>
struct TosaElementwiseRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaElementwiseRuleModel<OpT>,
                                             OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return tosaElementwiseRule(op);
  }
};

struct TosaMatMulRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaMatMulRuleModel,
                                             tosa::MatMulOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto matmul = cast<tosa::MatMulOp>(op);
    auto a = dyn_cast<RankedTensorType>(matmul.getA().getType());
    auto b = dyn_cast<RankedTensorType>(matmul.getB().getType());
    auto c = dyn_cast<RankedTensorType>(matmul.getResult().getType());
    if (failed(checkStaticShapes(op)))
      return failure();
    // Loops n, h, w, c.
    ShardingRule rule;
    rule.loops = {{a.getDimSize(0), false, {}},
                  {a.getDimSize(1), false, {}},
                  {b.getDimSize(2), false, {}},
                  {a.getDimSize(2), true, {}}};
    rule.operands.push_back({0, 1, 3});
    rule.operands.push_back({0, 3, 2});
    for (unsigned i = 2; i < op->getNumOperands(); ++i) {
      auto zp = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
      rule.operands.push_back(zp ? std::vector<int64_t>(zp.getRank(), -1)
                                 : std::vector<int64_t>{});
    }
    rule.results.push_back({0, 1, 2});
    rule.combiners.push_back(layout::Placement::Reduce::Sum);
    rule.inits.push_back(-1);
    return rule;
  }
};

} // namespace

std::vector<int64_t> tosa_rules::wholeDims(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type ? std::vector<int64_t>(type.getRank(), -1)
              : std::vector<int64_t>{};
}

std::vector<int64_t> tosa_rules::dimsByLoops(int64_t rank, int64_t skipped,
                                             bool dropped) {
  std::vector<int64_t> dims(rank, -1);
  for (int64_t d = 0; d < rank; ++d)
    if (d != skipped)
      dims[d] = dropped && skipped >= 0 && d > skipped ? d - 1 : d;
  return dims;
}

FailureOr<ShardingRule>
tosa_rules::resultLoopsRule(Operation *op,
                            const std::vector<std::vector<int64_t>> &given,
                            ArrayRef<int64_t> whole, StringRef why) {
  if (failed(checkStaticShapes(op)))
    return failure();
  if (op->getNumResults() != 1)
    return op->emitOpError() << "has " << op->getNumResults()
                             << " results; its sharding rule needs one";
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  ShardingRule rule = ShardingRule::elementwise(
      std::vector<int64_t>(type.getShape().begin(), type.getShape().end()), {});
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    rule.operands.push_back(i < given.size() && !given[i].empty()
                                ? given[i]
                                : wholeDims(op->getOperand(i)));
  for (int64_t loop : whole)
    rule.loops[loop].unshardable = why.str();
  return rule;
}

FailureOr<ShardingRule> tosa_rules::wholeRule(Operation *op) {
  std::vector<int64_t> loops;
  if (auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType()))
    for (int64_t d = 0; d < type.getRank(); ++d)
      loops.push_back(d);
  return resultLoopsRule(op, {}, loops,
                         "the op's rule does not know its shapes");
}

int64_t tosa_rules::rankOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type ? type.getRank() : 0;
}

namespace {

int64_t axisOf(Operation *op) {
  auto axis = op->getAttrOfType<IntegerAttr>("axis");
  return axis ? axis.getInt() : -1;
}

/// tosa.rescale: elementwise; a per-channel multiplier and shift (one per
/// element of the last dim) indexed by the last dim's loop, so a cut
/// channel dim takes its channels' scales; the zero points whole.
struct TosaRescaleRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaRescaleRuleModel,
                                             tosa::RescaleOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto rescale = cast<tosa::RescaleOp>(op);
    const int64_t rank = rankOf(rescale.getInput());
    std::vector<std::vector<int64_t>> dims = {dimsByLoops(rank)};
    auto input = dyn_cast<RankedTensorType>(rescale.getInput().getType());
    auto scales = dyn_cast<RankedTensorType>(rescale.getMultiplier().getType());
    if (rescale.getPerChannel() && input && scales && rank >= 1 &&
        scales.getRank() == 1 &&
        scales.getDimSize(0) == input.getDimSize(rank - 1)) {
      dims.push_back({rank - 1});
      dims.push_back({rank - 1});
    }
    return resultLoopsRule(op, dims);
  }
};

/// tosa.table: elementwise in its input; the table read whole.
struct TosaTableRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaTableRuleModel,
                                             tosa::TableOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return resultLoopsRule(op, {dimsByLoops(rankOf(op->getOperand(0)))});
  }
};

/// tosa.argmax: the dims but the axis parallel; the axis whole.
struct TosaArgMaxRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaArgMaxRuleModel,
                                             tosa::ArgMaxOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    const int64_t rank = rankOf(op->getOperand(0));
    const int64_t axis = axisOf(op);
    if (axis < 0 || axis >= rank)
      return wholeRule(op);
    return resultLoopsRule(op, {dimsByLoops(rank, axis, true)});
  }
};

/// tosa.concat and tosa.reverse: the dims but the axis parallel (every
/// input indexed alike); the axis whole.
template <typename OpT>
struct TosaAlongAxisRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaAlongAxisRuleModel<OpT>, OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    const int64_t rank = rankOf(op->getResult(0));
    const int64_t axis = axisOf(op);
    if (axis < 0 || axis >= rank)
      return wholeRule(op);
    std::vector<std::vector<int64_t>> dims(op->getNumOperands(),
                                           dimsByLoops(rank, axis));
    return resultLoopsRule(op, dims, {axis}, "the tensor is reversed along it");
  }
};

/// The values of a tosa.const_shape (a pad's padding, a slice's start, a
/// tile's multiples), or nothing for a shape computed otherwise.
std::optional<SmallVector<int64_t>> constShape(Value shape) {
  auto op = shape.getDefiningOp<tosa::ConstShapeOp>();
  if (!op)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : op.getValues().getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

/// tosa.pad, tosa.tile: one loop per result dim; a dim left as it is (no
/// padding either side; a multiple of 1) indexed by its loop, the others
/// whole (every dim, where the padding or multiples are not constants).
/// Each partitions as itself on local blocks: a cut dim is one the op
/// leaves alone, so its padding or multiple holds for any block.
template <typename OpT>
struct TosaUnchangedDimsRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaUnchangedDimsRuleModel<OpT>,
                                             OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    const int64_t rank = rankOf(op->getResult(0));
    constexpr bool pad = std::is_same_v<OpT, tosa::PadOp>;
    std::optional<SmallVector<int64_t>> values = constShape(op->getOperand(1));
    std::vector<int64_t> input(rank, -1), changed;
    for (int64_t d = 0; d < rank; ++d) {
      const bool same =
          values &&
          static_cast<int64_t>(values->size()) == (pad ? 2 : 1) * rank &&
          (pad ? (*values)[2 * d] == 0 && (*values)[2 * d + 1] == 0
               : (*values)[d] == 1);
      if (same)
        input[d] = d;
      else
        changed.push_back(d);
    }
    return resultLoopsRule(op, {input}, changed,
                           pad ? "the tensor is padded along it"
                               : "the tensor is tiled along it");
  }
};

/// tosa.pad of a constant padding (static shapes): tensor.pad's rule: a dim
/// left as it is cut alike in input and result, a padded one the window of
/// its result loop, so that an input cut along it stays cut and only what
/// lands in another rank's block moves (its old rule kept a padded dim
/// whole: the input gathered along it); partitioned as that tensor.pad,
/// padding with the value of its pad_const (whole on every rank). Otherwise
/// TosaUnchangedDimsRuleModel's rule, the op on local blocks.
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
      return TosaUnchangedDimsRuleModel<tosa::PadOp>().getShardingRule(op);
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
/// (staticSliceRule): a dim taken whole is cut alike in input and result,
/// a sliced one is the window of its result dim's loop, so that cutting it
/// moves only the part each rank reads (a fused q|k|v projection cut on
/// its features is sliced where it lies: 256 B where gathering it first
/// moved 4,608). A start or size that is not a tosa.const_shape: every dim
/// whole. Partitioned as that tensor.extract_slice (its hook: each rank
/// slices what its block holds, the planner moves the rest).
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
      return staticSliceRule(op, source, result, *start, *size,
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

/// tosa.const: one loop per dim and no operand, so any layout; each rank
/// takes its block as a slice of the whole constant.
struct TosaConstRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaConstRuleModel,
                                             tosa::ConstOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (failed(checkStaticShapes(op)))
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    return ShardingRule::elementwise(
        std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
        {});
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    Value whole = op->getResult(0);
    ShardedTensorType global = context.globalOf(whole);
    RankedTensorType local = getLocalType(global);
    if (local == whole.getType())
      return success();
    OpBuilder b(op);
    b.setInsertionPointAfter(op);
    Value block = sliceOwnBlock(b, op->getLoc(), op, whole, global, context);
    context.replace(whole, block, block.getDefiningOp());
    return success();
  }
};

struct TosaTransposeRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaTransposeRuleModel,
                                             tosa::TransposeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto transpose = cast<tosa::TransposeOp>(op);
    if (failed(checkStaticShapes(op)))
      return failure();
    auto result = cast<RankedTensorType>(transpose.getType());
    ShardingRule rule = ShardingRule::elementwise(
        std::vector<int64_t>(result.getShape().begin(),
                             result.getShape().end()),
        {true});
    ArrayRef<int32_t> perms = transpose.getPerms();
    std::vector<int64_t> input(perms.size(), -1);
    for (auto [j, d] : llvm::enumerate(perms))
      if (d >= 0 && d < static_cast<int32_t>(input.size()))
        input[d] = static_cast<int64_t>(j);
    rule.operands[0] = input;
    return rule;
  }
};

template <typename OpT>
struct TosaReduceRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaReduceRuleModel<OpT>, OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto reduce = cast<OpT>(op);
    if (failed(checkStaticShapes(op)))
      return failure();
    auto input = cast<RankedTensorType>(reduce.getInput().getType());
    const int64_t axis = reduce.getAxis();
    if (axis < 0 || axis >= input.getRank())
      return op->emitOpError() << "reduces axis " << axis << " of a tensor of "
                               << input.getRank() << " dims";
    ShardingRule rule = ShardingRule::elementwise(
        std::vector<int64_t>(input.getShape().begin(), input.getShape().end()),
        {true});
    rule.loops[axis].reduction = true;
    rule.results[0][axis] = -1;
    using Reduce = layout::Placement::Reduce;
    if constexpr (std::is_same_v<OpT, tosa::ReduceAllOp> ||
                  std::is_same_v<OpT, tosa::ReduceAnyOp>)
      rule.loops[axis].unshardable = "its logical reduction has no combiner";
    else if constexpr (std::is_same_v<OpT, tosa::ReduceSumOp>)
      rule.combiners[0] = Reduce::Sum;
    else if constexpr (std::is_same_v<OpT, tosa::ReduceMaxOp>)
      rule.combiners[0] = Reduce::Max;
    else if constexpr (std::is_same_v<OpT, tosa::ReduceMinOp>)
      rule.combiners[0] = Reduce::Min;
    else
      rule.combiners[0] = Reduce::Product;
    return rule;
  }
};

/// The groups folding `shape` into its dims other than 1 (a unit dim joins
/// the group of the dim before it; leading ones, the first group).
SmallVector<ReassociationIndices> squeezeGroups(ArrayRef<int64_t> shape) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (shape[d] != 1) {
      groups.push_back(leading);
      groups.back().push_back(d);
      leading.clear();
    } else if (groups.empty()) {
      leading.push_back(d);
    } else {
      groups.back().push_back(d);
    }
  }
  return groups;
}

/// The dims of `shape` other than 1.
SmallVector<int64_t> nonUnitDims(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> dims;
  for (auto [d, size] : llvm::enumerate(shape))
    if (size != 1)
      dims.push_back(static_cast<int64_t>(d));
  return dims;
}

/// Whether a reshape of `source` into `result` only drops and inserts dims
/// of 1 (both have the same dims other than 1, in order, at least one):
/// [N, 1, 1, C] into [1, N, C], as TOSA writes a pooled image's way into a
/// tosa.matmul.
bool movesUnitDims(RankedTensorType source, RankedTensorType result) {
  SmallVector<int64_t> from = nonUnitDims(source.getShape());
  SmallVector<int64_t> to = nonUnitDims(result.getShape());
  return !from.empty() && from.size() == to.size() &&
         llvm::all_of(llvm::zip(from, to), [&](auto pair) {
           return source.getDimSize(std::get<0>(pair)) ==
                  result.getDimSize(std::get<1>(pair));
         });
}

struct TosaReshapeRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaReshapeRuleModel,
                                             tosa::ReshapeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto reshape = cast<tosa::ReshapeOp>(op);
    auto source = dyn_cast<RankedTensorType>(reshape.getInput1().getType());
    auto result = dyn_cast<RankedTensorType>(reshape.getType());
    if (failed(checkStaticShapes(op)))
      return failure();
    const bool collapses = source.getRank() > result.getRank();
    RankedTensorType expanded = collapses ? source : result;
    RankedTensorType collapsed = collapses ? result : source;
    std::optional<SmallVector<ReassociationIndices>> groups =
        source.getRank() == result.getRank()
            ? std::nullopt
            : getReassociationIndicesForReshape(collapsed, expanded);
    if (groups)
      return reshapeRule(op, expanded, collapsed, *groups, collapses);
    if (movesUnitDims(source, result)) {
      // Each dim other than 1 indexed by the result dim it becomes; the
      // op is linear in its input (a Partial input stays Partial).
      ShardingRule rule = ShardingRule::elementwise(
          std::vector<int64_t>(result.getShape().begin(),
                               result.getShape().end()),
          {true, false});
      rule.operands[0].assign(source.getRank(), -1);
      for (auto [from, to] : llvm::zip(nonUnitDims(source.getShape()),
                                       nonUnitDims(result.getShape())))
        rule.operands[0][from] = to;
      rule.linear = {{0}};
      return rule;
    }
    // Neither a fold nor a split of dims: every dim whole.
    ShardingRule rule = ShardingRule::elementwise(
        std::vector<int64_t>(result.getShape().begin(),
                             result.getShape().end()),
        {true, false});
    rule.operands[0].assign(source.getRank(), -1);
    for (ShardingRule::Loop &loop : rule.loops)
      loop.unshardable = "the reshape neither folds nor splits dims";
    return rule;
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto reshape = cast<tosa::ReshapeOp>(op);
    ShardedTensorType global = context.globalOf(reshape.getResult());
    RankedTensorType local = getLocalType(global);
    if (local ==
        RankedTensorType::get(global.getDims(), global.getElementType()))
      return success(); // Whole on every rank: the op as it is.
    // A dim is cut: the same fold or split of this rank's block.
    auto whole = [](ShardedTensorType type) {
      return RankedTensorType::get(type.getDims(), type.getElementType());
    };
    RankedTensorType source = whole(context.globalOf(reshape.getInput1()));
    RankedTensorType result = whole(global);
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value localValue;
    std::optional<SmallVector<ReassociationIndices>> groups =
        source.getRank() > result.getRank()
            ? getReassociationIndicesForReshape(result, source)
        : source.getRank() < result.getRank()
            ? getReassociationIndicesForReshape(source, result)
            : std::nullopt;
    if (groups && source.getRank() > result.getRank()) {
      localValue = tensor::CollapseShapeOp::create(
          b, loc, local, reshape.getInput1(), *groups);
    } else if (groups) {
      localValue = tensor::ExpandShapeOp::create(
          b, loc, local, reshape.getInput1(), *groups,
          context.localSizes(b, loc, op, global));
    } else {
      // Dims of 1 dropped and inserted (movesUnitDims): the block folded
      // into its dims other than 1, then unfolded into the result's.
      localValue = reshape.getInput1();
      if (nonUnitDims(source.getShape()).size() <
          static_cast<size_t>(source.getRank()))
        localValue = tensor::CollapseShapeOp::create(
            b, loc, localValue, squeezeGroups(source.getShape()));
      if (nonUnitDims(result.getShape()).size() <
          static_cast<size_t>(result.getRank()))
        localValue = tensor::ExpandShapeOp::create(
            b, loc, local, localValue, squeezeGroups(result.getShape()),
            context.localSizes(b, loc, op, global));
    }
    context.replace(reshape.getResult(), localValue);
    reshape.erase();
    return success();
  }
};

struct TosaGatherRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaGatherRuleModel,
                                             tosa::GatherOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto gather = cast<tosa::GatherOp>(op);
    auto values = dyn_cast<RankedTensorType>(gather.getValues().getType());
    auto indices = dyn_cast<RankedTensorType>(gather.getIndices().getType());
    if (failed(checkStaticShapes(op)))
      return failure();
    // Loops n, w, c (the result's dims), then k.
    ShardingRule rule;
    rule.loops.push_back({values.getDimSize(0), false, {}});
    rule.loops.push_back({indices.getDimSize(1), false, {}});
    rule.loops.push_back({values.getDimSize(2), false, {}});
    rule.loops.push_back({values.getDimSize(1), true, {}});
    rule.loops.back().unstrided = "it selects rows of the values by data, "
                                  "masked by the offset of the rows each "
                                  "rank holds";
    rule.operands = {{0, 3, 2}, {0, 1}};
    rule.results = {{0, 1, 2}};
    rule.combiners = {layout::Placement::Reduce::Sum};
    rule.inits = {-1};
    return rule;
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto gather = cast<tosa::GatherOp>(op);
    ShardedTensorType table = context.globalOf(gather.getValues());
    RankedTensorType localTable = getLocalType(table);
    ShardedTensorType global = context.globalOf(gather.getOutput());
    RankedTensorType local = getLocalType(global);
    if (localTable.getDimSize(1) == table.getDims()[1]) {
      // Every row here: the same op on local blocks.
      gather.getOutput().setType(local);
      return success();
    }
    // This rank's rows at their local index, 0 for the others.
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value first = getValueOrCreateConstantIndexOp(
        b, loc, context.localOffsets(b, loc, op, table)[1]);
    Value rows = getValueOrCreateConstantIndexOp(
        b, loc, context.localSizes(b, loc, op, table)[1]);
    Type element = global.getElementType();
    Value init = tensor::EmptyOp::create(
        b, loc, context.localSizes(b, loc, op, global), element);
    MLIRContext *ctx = op->getContext();
    AffineMap indexMap = AffineMap::get(
        3, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)}, ctx);
    AffineMap outMap = AffineMap::getMultiDimIdentityMap(3, ctx);
    Value table_ = gather.getValues();
    auto generic = linalg::GenericOp::create(
        b, loc, init.getType(), ValueRange{gather.getIndices()},
        ValueRange{init}, ArrayRef<AffineMap>{indexMap, outMap},
        SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
        [&](OpBuilder &in, Location at, ValueRange args) {
          Value row =
              arith::IndexCastOp::create(in, at, in.getIndexType(), args[0]);
          Value n = linalg::IndexOp::create(in, at, 0);
          Value c = linalg::IndexOp::create(in, at, 2);
          Value picked = maskedRead(in, at, table_, ValueRange{n, row, c},
                                    {{1, first, rows}});
          linalg::YieldOp::create(in, at, picked);
        });
    context.replace(gather.getOutput(),
                    castTo(b, loc, generic.getResult(0), local));
    gather.erase();
    return success();
  }
};

template <typename OpT> void attachIfElementwise(MLIRContext *ctx) {
  if constexpr (OpT::template hasTrait<
                    OpTrait::tosa::TosaElementwiseOperator>())
    OpT::template attachInterface<TosaElementwiseRuleModel<OpT>>(*ctx);
}

template <typename... Ops> void attachElementwiseRules(MLIRContext *ctx) {
  (attachIfElementwise<Ops>(ctx), ...);
}

} // namespace

void shardc::registerTosaShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    attachElementwiseRules<
#define GET_OP_LIST
#include "mlir/Dialect/Tosa/IR/TosaOps.cpp.inc"
        >(ctx);
    // tosa.mul broadcasts as they do but lacks their trait (its shift).
    tosa::MulOp::attachInterface<TosaElementwiseRuleModel<tosa::MulOp>>(*ctx);
    tosa::MatMulOp::attachInterface<TosaMatMulRuleModel>(*ctx);
    tosa::ConstOp::attachInterface<TosaConstRuleModel>(*ctx);
    tosa::TransposeOp::attachInterface<TosaTransposeRuleModel>(*ctx);
    tosa::GatherOp::attachInterface<TosaGatherRuleModel>(*ctx);
    tosa::ReshapeOp::attachInterface<TosaReshapeRuleModel>(*ctx);
    tosa::ReduceSumOp::attachInterface<TosaReduceRuleModel<tosa::ReduceSumOp>>(
        *ctx);
    tosa::ReduceMaxOp::attachInterface<TosaReduceRuleModel<tosa::ReduceMaxOp>>(
        *ctx);
    tosa::ReduceMinOp::attachInterface<TosaReduceRuleModel<tosa::ReduceMinOp>>(
        *ctx);
    tosa::ReduceProductOp::attachInterface<
        TosaReduceRuleModel<tosa::ReduceProductOp>>(*ctx);
    tosa::ReduceAllOp::attachInterface<TosaReduceRuleModel<tosa::ReduceAllOp>>(
        *ctx);
    tosa::ReduceAnyOp::attachInterface<TosaReduceRuleModel<tosa::ReduceAnyOp>>(
        *ctx);
    // Elementwise without the trait.
    tosa::CastOp::attachInterface<TosaElementwiseRuleModel<tosa::CastOp>>(*ctx);
    tosa::IdentityOp::attachInterface<
        TosaElementwiseRuleModel<tosa::IdentityOp>>(*ctx);
    tosa::RescaleOp::attachInterface<TosaRescaleRuleModel>(*ctx);
    tosa::TableOp::attachInterface<TosaTableRuleModel>(*ctx);
    attachWindowRules(ctx); // TosaWindowRules.cpp
    tosa::ArgMaxOp::attachInterface<TosaArgMaxRuleModel>(*ctx);
    tosa::PadOp::attachInterface<TosaPadRuleModel>(*ctx);
    tosa::TileOp::attachInterface<TosaUnchangedDimsRuleModel<tosa::TileOp>>(
        *ctx);
    tosa::SliceOp::attachInterface<TosaSliceRuleModel>(*ctx);
    tosa::ConcatOp::attachInterface<TosaConcatRuleModel>(*ctx);
    tosa::ReverseOp::attachInterface<TosaAlongAxisRuleModel<tosa::ReverseOp>>(
        *ctx);
  });
}
