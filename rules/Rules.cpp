//===- Rules.cpp - Register shardc's sharding rules -----------------------===//

#include "shardc/Rules/Rules.h"

void shardc::registerShardingRules(mlir::DialectRegistry &registry) {
  registerLinalgShardingRules(registry);
  registerElementwiseShardingRules(registry);
  registerTensorShardingRules(registry);
  registerTosaShardingRules(registry);
  registerBufferizationShardingRules(registry);
}
