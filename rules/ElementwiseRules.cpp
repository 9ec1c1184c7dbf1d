//===- ElementwiseRules.cpp - Rules of elementwise ops and constants ------===//
//
// Elementwise arith and math ops on tensors (every op of those dialects with
// MLIR's Elementwise trait): one parallel loop per result dim, indexing
// every tensor operand and the result alike (a scalar operand, such as
// arith.select's condition, is not indexed); partitioned as the same op on
// local blocks. Tensor constants: one loop per dim and no tensor operand, so
// they take any layout; partitioned into each rank's block of the constant.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Rules/Payload.h"
#include "shardc/Rules/TensorCast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace shardc;

namespace {

/// One loop per dim of the op's (single) ranked tensor result, indexing every
/// ranked tensor operand alike.
FailureOr<ShardingRule> elementwiseRule(Operation *op) {
  if (op->getNumResults() != 1)
    return op->emitOpError() << "has " << op->getNumResults()
                             << " results; an elementwise sharding rule "
                                "needs one";
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return op->emitOpError()
           << "has no sharding rule for a result of type "
           << op->getResult(0).getType() << " (a ranked tensor is needed)";
  if (failed(checkRankedShapes(op)))
    return failure();
  // Elementwise ops' tensors have compatible shapes: equal where static
  // (and verifyRuleFor checks every size against its loop); a loop of a
  // dynamic dim is kept whole (shardingRuleOf).
  std::vector<bool> tensors;
  std::vector<int64_t> candidates;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    tensors.push_back(isa<RankedTensorType>(operand.getType()));
    if (tensors.back() && summable(operand.getType()))
      candidates.push_back(static_cast<int64_t>(i));
  }
  // A dim dynamic in the result but static in an operand has that size.
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  for (Value operand : op->getOperands())
    if (auto ranked = dyn_cast<RankedTensorType>(operand.getType()))
      for (size_t d = 0; d < shape.size() && ranked.getRank() == type.getRank();
           ++d)
        if (ShapedType::isDynamic(shape[d]) && !ranked.isDynamicDim(d))
          shape[d] = ranked.getDimSize(d);
  ShardingRule rule = ShardingRule::elementwise(shape, tensors);
  // The groups of tensor operands the result is linear in (an add in both,
  // a product in either factor).
  if (summable(type))
    rule.linear = linearGroups(candidates, [&](ArrayRef<int64_t> group) {
      std::vector<Degree> degrees(op->getNumOperands(), Degree::None);
      for (int64_t i : group)
        degrees[i] = Degree::Linear;
      return degreeOf(op, degrees) == Degree::Linear;
    });
  return rule;
}

template <typename OpT>
struct ElementwiseRuleModel
    : ShardingRuleOpInterface::ExternalModel<ElementwiseRuleModel<OpT>, OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return elementwiseRule(op);
  }
  /// The same op on local blocks, whatever their sizes.
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }
};

/// arith.constant of a tensor: each rank's block of it, a splat resized, or
/// a slice of the whole constant at this rank's offsets.
struct ConstantRuleModel
    : ShardingRuleOpInterface::ExternalModel<ConstantRuleModel,
                                             arith::ConstantOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return elementwiseRule(op);
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto constant = cast<arith::ConstantOp>(op);
    ShardedTensorType global = context.globalOf(constant.getResult());
    RankedTensorType local = getLocalType(global);
    if (local == constant.getType())
      return success();
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    Value result;
    if (dense && dense.isSplat() && local.hasStaticShape()) {
      result = arith::ConstantOp::create(b, loc, dense.resizeSplat(local));
    } else if (cast<RankedTensorType>(constant.getType()).getNumElements() ==
               0) {
      // No elements: nothing to slice (and a slice at an offset of a dim of
      // size 0 is invalid IR); every rank's block is empty too.
      result = castTo(b, loc,
                      tensor::EmptyOp::create(
                          b, loc, context.localSizes(b, loc, op, global),
                          global.getElementType()),
                      local);
    } else {
      // Slice this rank's block out of the whole constant.
      b.setInsertionPointAfter(op);
      result = sliceOwnBlock(b, loc, op, constant.getResult(), global, context);
    }
    context.replace(constant.getResult(), result, result.getDefiningOp());
    return success();
  }
};

template <typename OpT> void attachIfElementwise(MLIRContext *ctx) {
  if constexpr (OpT::template hasTrait<OpTrait::Elementwise>())
    OpT::template attachInterface<ElementwiseRuleModel<OpT>>(*ctx);
}

template <typename... Ops> void attachElementwiseRules(MLIRContext *ctx) {
  (attachIfElementwise<Ops>(ctx), ...);
}

} // namespace

void shardc::registerElementwiseShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachElementwiseRules<
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
        >(ctx);
    arith::ConstantOp::attachInterface<ConstantRuleModel>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachElementwiseRules<
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
        >(ctx);
  });
  // tensor.bitcast: each element reinterpreted where it is (not linear: the
  // bits of a sum are not the sum of the bits).
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::BitcastOp::attachInterface<ElementwiseRuleModel<tensor::BitcastOp>>(
        *ctx);
  });
}
