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
// tosa.const takes any layout, each rank slicing its block out of it. The
// others run as the same op on local blocks (the default hook). The
// --shard-to-llvm pipeline lowers TOSA to linalg after partitioning.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

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
    if constexpr (std::is_same_v<OpT, tosa::ReduceSumOp>)
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
    if (source.getRank() > result.getRank()) {
      auto groups = *getReassociationIndicesForReshape(result, source);
      localValue = tensor::CollapseShapeOp::create(b, loc, local,
                                                   reshape.getInput1(), groups);
    } else {
      auto groups = *getReassociationIndicesForReshape(source, result);
      localValue = tensor::ExpandShapeOp::create(
          b, loc, local, reshape.getInput1(), groups,
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
  });
}
