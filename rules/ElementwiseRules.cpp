//===- ElementwiseRules.cpp - Rules of elementwise ops, constants, empty --===//
//
// Elementwise arith and math ops on tensors (every op of those dialects with
// MLIR's Elementwise trait): one parallel loop per result dim, indexing
// every tensor operand and the result alike (a scalar operand, such as
// arith.select's condition, is not indexed). Tensor constants and
// tensor.empty: one loop per dim and no tensor operand, so they take any
// layout (the partitioner builds each rank's block).
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Dialect/Shard.h"

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
  if (!type.hasStaticShape())
    return op->emitOpError() << "has a result of dynamic shape " << type
                             << "; sharding needs static shapes";
  std::vector<bool> tensors;
  for (Value operand : op->getOperands()) {
    auto operandType = dyn_cast<RankedTensorType>(operand.getType());
    if (operandType && operandType.getShape() != type.getShape())
      return op->emitOpError()
             << "has an operand of type " << operandType
             << " and a result of type " << type
             << "; an elementwise sharding rule needs equal shapes";
    tensors.push_back(operandType != nullptr);
  }
  return ShardingRule::elementwise(
      std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
      tensors);
}

template <typename OpT>
struct ElementwiseRuleModel
    : ShardingRuleOpInterface::ExternalModel<ElementwiseRuleModel<OpT>, OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return elementwiseRule(op);
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
    // A constant: any layout; the partitioner takes each rank's block.
    arith::ConstantOp::attachInterface<ElementwiseRuleModel<arith::ConstantOp>>(
        *ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachElementwiseRules<
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
        >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    // tensor.empty: its operands are the sizes of dynamic dims (which a
    // sharded result does not have: static shapes only).
    tensor::EmptyOp::attachInterface<ElementwiseRuleModel<tensor::EmptyOp>>(
        *ctx);
  });
}
