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
// tosa.reshape (static shapes): the rule and partition of a static reshape
// (staticReshapeRule, shardc/Rules/Reshape.h), as tensor.reshape's.
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
// but the axis parallel, the axis whole. tosa.slice, tosa.pad (of a
// tosa.const_shape padding) and tosa.concat: tensor.extract_slice's,
// tensor.pad's and tensor.concat's rules, partitioned as those ops
// (TosaPlaceRules.cpp). Convolutions and pooling: TosaWindowRules.cpp.
// tosa.scatter: the batch and channels parallel, the rows the indices pick
// (K) whole. tosa.resize: TosaWindowRules.cpp.
// tosa.tile, and tosa.pad of another padding: a dim they leave as it is (a
// multiple of 1, no padding) parallel, the others whole; each partitions as
// itself on local blocks.
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
#include "shardc/Rules/Reshape.h"
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
  // Dims of run-time size are taken (a TFLite-born model's batch): their
  // loops stay whole (shardingRuleOf), the op computing on whole dims there.
  if (failed(checkRankedShapes(op)))
    return failure();
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return op->emitOpError()
           << "has no sharding rule for a result of type "
           << op->getResult(0).getType() << " (a ranked tensor is needed)";
  // An operand's dim of run-time size where the result's is static above
  // 1 may be 1 (broadcast) or not as the run decides: which is not known
  // here, and cutting the dim would give such an operand a chunk of a dim
  // it does not have.
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (auto ranked = dyn_cast<RankedTensorType>(operand.getType());
        ranked && ranked.getRank() == type.getRank())
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (ranked.isDynamicDim(d) && !type.isDynamicDim(d) &&
            type.getDimSize(d) != 1)
          return op->emitOpError()
                 << "has operand #" << i << " of run-time size in dim " << d
                 << ", where its result's is " << type.getDimSize(d)
                 << ": it broadcasts there or not as the run decides; "
                    "sharding needs it static";
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
    const bool perChannel = rescale.getPerChannel() && input && scales &&
                            rank >= 1 && scales.getRank() == 1 &&
                            scales.getDimSize(0) == input.getDimSize(rank - 1);
    if (perChannel) {
      dims.push_back({rank - 1});
      dims.push_back({rank - 1});
    }
    FailureOr<ShardingRule> rule = resultLoopsRule(op, dims);
    // A cut channel dim makes a splat constant a smaller splat and any
    // other multiplier or shift a slice at the rank's offset. MLIR 22's
    // tosa-to-linalg lowers a multiplier that is not a constant beside a
    // shift that is with an empty shift table, which the loop reads past
    // (every element wrong, differently from run to run): where the cut
    // would leave one of them a constant and the other not, the channels
    // stay whole.
    auto staysConstant = [](Value v) {
      DenseElementsAttr values;
      return matchPattern(v, m_Constant(&values)) && values.isSplat();
    };
    if (succeeded(rule) && perChannel &&
        staysConstant(rescale.getMultiplier()) !=
            staysConstant(rescale.getShift()) &&
        static_cast<int64_t>(rule->loops.size()) >= rank)
      rule->loops[rank - 1].unshardable =
          "its per-channel multiplier and shift would be one a constant and "
          "the other not once its channels are cut, which MLIR 22's "
          "tosa-to-linalg lowers wrongly (an empty shift table)";
    return rule;
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

/// tosa.scatter (values_in[N, K, C], indices[N, W], input[N, W, C] ->
/// values_out[N, K, C]): the batch and channels parallel; K whole (the
/// indices pick the rows written), the indices and the rows written whole.
struct TosaScatterRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaScatterRuleModel,
                                             tosa::ScatterOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (rankOf(op->getOperand(0)) != 3 || rankOf(op->getOperand(1)) != 2 ||
        rankOf(op->getOperand(2)) != 3)
      return wholeRule(op);
    return resultLoopsRule(op, {{0, 1, 2}, {0, -1}, {0, -1, 2}}, {1},
                           "the indices pick the rows written along it");
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

/// tosa.tile, and tosa.pad of a padding tosa.const_shape does not give
/// (unchangedDimsRule): each partitions as itself on local blocks.
struct TosaTileRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaTileRuleModel, tosa::TileOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return unchangedDimsRule(op, /*pad=*/false);
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
    else if constexpr (std::is_same_v<OpT, tosa::ReduceMaxOp> ||
                       std::is_same_v<OpT, tosa::ReduceMinOp>) {
      // nan_mode IGNORE: the max or min of the numbers, which the
      // runtime's max and min (NaN propagating) would not give where a
      // rank's block is all NaN.
      // (Read as an attribute: a nan_mode written as a string parses into
      // a property of no mode, and getNanMode() then dereferences null;
      // TOSA's lowering takes that as the default, PROPAGATE, as here.)
      if (tosa::NanPropagationModeAttr mode = reduce.getNanModeAttr();
          mode && mode.getValue() == tosa::NanPropagationMode::IGNORE)
        rule.loops[axis].unshardable =
            "its nan_mode IGNORE skips NaN, which the runtime's max and min "
            "propagate";
      else
        rule.combiners[0] =
            std::is_same_v<OpT, tosa::ReduceMaxOp> ? Reduce::Max : Reduce::Min;
    } else
      rule.combiners[0] = Reduce::Product;
    return rule;
  }
};

struct TosaReshapeRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaReshapeRuleModel,
                                             tosa::ReshapeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return staticReshapeRule(op);
  }
  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    return partitionStaticReshape(op, context);
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
                                    {{1, first, rows, table.getDims()[1]}});
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

int64_t tosa_rules::axisOf(Operation *op) {
  auto axis = op->getAttrOfType<IntegerAttr>("axis");
  return axis ? axis.getInt() : -1;
}

std::optional<SmallVector<int64_t>> tosa_rules::constShape(Value shape) {
  auto op = shape.getDefiningOp<tosa::ConstShapeOp>();
  if (!op)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : op.getValues().getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

FailureOr<ShardingRule> tosa_rules::unchangedDimsRule(Operation *op, bool pad) {
  const int64_t rank = rankOf(op->getResult(0));
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
    tosa::TileOp::attachInterface<TosaTileRuleModel>(*ctx);
    attachPlaceRules(ctx); // TosaPlaceRules.cpp
    tosa::ReverseOp::attachInterface<TosaAlongAxisRuleModel<tosa::ReverseOp>>(
        *ctx);
    tosa::ScatterOp::attachInterface<TosaScatterRuleModel>(*ctx);
  });
}
