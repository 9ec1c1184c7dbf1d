//===- ShardingRule.cpp - The sharding rule interface ---------------------===//

#include "shardc/Dialect/Shard.h"

#include "shardc/Dialect/ShardOpInterfaces.cpp.inc"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace shardc;

ShardingRule
ShardingRule::elementwise(const std::vector<int64_t> &shape,
                          const std::vector<bool> &tensorOperands) {
  ShardingRule rule;
  std::vector<int64_t> dims;
  for (int64_t size : shape) {
    dims.push_back(static_cast<int64_t>(rule.loops.size()));
    rule.loops.push_back({size, false, {}});
  }
  for (bool tensor : tensorOperands)
    rule.operands.push_back(tensor ? dims : std::vector<int64_t>{});
  rule.results.push_back(dims);
  rule.combiners.push_back(std::nullopt);
  rule.inits.push_back(-1);
  return rule;
}

LogicalResult shardc::retypeResultsToLocal(Operation *op,
                                           PartitionContext &context) {
  for (OpResult result : op->getResults())
    if (isa<RankedTensorType>(result.getType()))
      result.setType(context.localOf(result));
  return success();
}

SmallVector<Value> shardc::capturedTensors(Operation *op) {
  llvm::SetVector<Value> captured;
  op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
    if (inner == op)
      return;
    for (Value operand : inner->getOperands()) {
      if (!isa<RankedTensorType>(operand.getType()))
        continue;
      Region *region = operand.getParentRegion();
      if (!region || !op->isAncestor(region->getParentOp()))
        captured.insert(operand);
    }
  });
  return SmallVector<Value>(captured.begin(), captured.end());
}

FailureOr<ShardingRule> shardc::shardingRuleOf(Operation *op) {
  FailureOr<ShardingRule> rule =
      cast<ShardingRuleOpInterface>(op).getShardingRule();
  if (failed(rule))
    return failure();
  if (rule->operands.size() == op->getNumOperands())
    for (Value tensor : capturedTensors(op))
      rule->operands.push_back(std::vector<int64_t>(
          cast<RankedTensorType>(tensor.getType()).getRank(), -1));
  return rule;
}

TypedAttr shardc::identityOf(layout::Placement::Reduce reduce, Type type) {
  using Reduce = layout::Placement::Reduce;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (reduce) {
    case Reduce::Sum:
    case Reduce::Avg:
      return FloatAttr::get(type, APFloat::getZero(sem));
    case Reduce::Product:
      return FloatAttr::get(type, APFloat::getOne(sem));
    case Reduce::Max:
      return FloatAttr::get(type, APFloat::getInf(sem, /*Negative=*/true));
    case Reduce::Min:
      return FloatAttr::get(type, APFloat::getInf(sem, /*Negative=*/false));
    }
  }
  unsigned width = type.isIndex() ? 64 : cast<IntegerType>(type).getWidth();
  switch (reduce) {
  case Reduce::Sum:
  case Reduce::Avg:
    return IntegerAttr::get(type, APInt::getZero(width));
  case Reduce::Product:
    return IntegerAttr::get(type, APInt(width, 1));
  case Reduce::Max:
    return IntegerAttr::get(type, APInt::getSignedMinValue(width));
  case Reduce::Min:
    return IntegerAttr::get(type, APInt::getSignedMaxValue(width));
  }
  return nullptr;
}
