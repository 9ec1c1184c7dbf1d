//===- Rules.cpp - Register shardc's sharding rules -----------------------===//

#include "shardc/Rules/Rules.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

using namespace mlir;

void shardc::registerShardingRules(mlir::DialectRegistry &registry) {
  registerLinalgShardingRules(registry);
  registerElementwiseShardingRules(registry);
  registerTensorShardingRules(registry);
  registerTosaShardingRules(registry);
  registerBufferizationShardingRules(registry);
  registerVectorShardingRules(registry);
  registerRegionShardingRules(registry);
  registerPackShardingRules(registry);
}

shardc::ShardingRule shardc::wholeTensorsRule(Operation *op, int64_t init) {
  auto whole = [](Type type) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    return ranked ? std::vector<int64_t>(ranked.getRank(), -1)
                  : std::vector<int64_t>{};
  };
  ShardingRule rule;
  for (Type type : op->getOperandTypes())
    rule.operands.push_back(whole(type));
  for (Type type : op->getResultTypes()) {
    rule.results.push_back(whole(type));
    rule.combiners.push_back(std::nullopt);
    rule.inits.push_back(isa<RankedTensorType>(type) ? init : -1);
  }
  return rule;
}
