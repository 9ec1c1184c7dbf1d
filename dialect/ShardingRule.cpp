//===- ShardingRule.cpp - The sharding rule interface ---------------------===//

#include "shardc/Dialect/Shard.h"

#include "shardc/Dialect/ShardOpInterfaces.cpp.inc"

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
