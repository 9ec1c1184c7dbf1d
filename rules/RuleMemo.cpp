//===- RuleMemo.cpp - One rule for ops alike ------------------------------===//
//
// Declared, and described, in shardc/Rules/RuleMemo.h.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/RuleMemo.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace shardc;

/// Whether `op`'s rule is a function of the op alone (RuleMemo).
static bool ruleOfTheOpAlone(Operation *op) {
  if (!isa<linalg::LinalgOp, linalg::SoftmaxOp>(op) ||
      op->hasAttr(kShardingRuleAttr))
    return false;
  // Nothing from outside read in its regions (a captured table, a scalar
  // whose value a payload's linearity depends on).
  bool captures = false;
  op->walk([&](Operation *inner) {
    if (inner == op || captures)
      return;
    for (Value operand : inner->getOperands()) {
      Region *defined = operand.getParentRegion();
      if (!defined || !op->isAncestor(defined->getParentOp())) {
        captures = true;
        return;
      }
    }
  });
  return !captures;
}

static constexpr OperationEquivalence::Flags kAlike =
    OperationEquivalence::IgnoreLocations |
    OperationEquivalence::IgnoreDiscardableAttrs;

FailureOr<ShardingRule> RuleMemo::ruleOf(Operation *op) {
  if (!ruleOfTheOpAlone(op))
    return shardingRuleOf(op);
  const size_t hash = OperationEquivalence::computeHash(
      op, [](Value v) { return hash_value(v.getType()); },
      OperationEquivalence::ignoreHashValue, kAlike);
  std::vector<std::pair<Operation *, ShardingRule>> &bucket = seen[hash];
  for (auto &[other, rule] : bucket) {
    // Values inside the two ops are matched as their definitions are met
    // (block arguments, results); the ops' own operands by type.
    llvm::DenseMap<Value, Value> matched;
    auto mark = [&](Value a, Value b) { matched[a] = b; };
    auto check = [&](Value a, Value b) -> LogicalResult {
      if (auto it = matched.find(a); it != matched.end())
        return success(it->second == b);
      return success(a.getType() == b.getType() &&
                     llvm::is_contained(other->getOperands(), a) &&
                     llvm::is_contained(op->getOperands(), b));
    };
    if (OperationEquivalence::isEquivalentTo(other, op, check, mark, kAlike))
      return rule;
  }
  FailureOr<ShardingRule> rule = shardingRuleOf(op);
  if (succeeded(rule))
    bucket.push_back({op, *rule});
  return rule;
}
