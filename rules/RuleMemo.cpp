//===- RuleMemo.cpp - One rule for ops alike ------------------------------===//
//
// Declared, and described, in shardc/Rules/RuleMemo.h.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/RuleMemo.h"

#include "shardc/Rules/Payload.h"

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

/// Whether `a` and `b`, and the ops in them in order, carry the same
/// discardable attributes but shardc's own (a sharding pinned on one,
/// which its rule does not read): another dialect's may be read as the
/// op's own (linalg.memoized_indexing_maps is what a named op's
/// getIndexingMaps returns).
static bool sameOtherAttrs(Operation *a, Operation *b) {
  auto others = [](Operation *op) {
    SmallVector<NamedAttribute> kept;
    op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
      for (NamedAttribute attr : inner->getDiscardableAttrs())
        if (!attr.getName().getValue().starts_with("shard."))
          kept.push_back(attr);
      // Where each op's list ends.
      kept.push_back(NamedAttribute(StringAttr::get(op->getContext(), ""),
                                    UnitAttr::get(op->getContext())));
    });
    return kept;
  };
  return others(a) == others(b);
}

Attribute RuleMemo::keyOf(Value value) {
  auto [at, fresh] = keys.try_emplace(value);
  if (fresh) {
    ConstantOrigins::Scope scope(origins);
    at->second = constantKeyOf(value);
  }
  return at->second;
}

FailureOr<ShardingRule> RuleMemo::ruleOf(Operation *op) {
  FailureOr<std::shared_ptr<const ShardingRule>> rule = sharedRuleOf(op);
  if (failed(rule))
    return failure();
  return **rule;
}

FailureOr<std::shared_ptr<const ShardingRule>>
RuleMemo::sharedRuleOf(Operation *op) {
  auto computed = [&]() -> FailureOr<std::shared_ptr<const ShardingRule>> {
    ConstantOrigins::Scope scope(origins);
    FailureOr<ShardingRule> rule = shardingRuleOf(op);
    if (failed(rule))
      return failure();
    return std::make_shared<const ShardingRule>(std::move(*rule));
  };
  if (!ruleOfTheOpAlone(op))
    return computed();
  const size_t hash = OperationEquivalence::computeHash(
      op, [](Value v) { return hash_value(v.getType()); },
      OperationEquivalence::ignoreHashValue, kAlike);
  std::vector<std::pair<Operation *, std::shared_ptr<const ShardingRule>>>
      &bucket = seen[hash];
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
                     llvm::is_contained(op->getOperands(), b) &&
                     (a == b || keyOf(a) == keyOf(b)));
    };
    if (sameOtherAttrs(other, op) &&
        OperationEquivalence::isEquivalentTo(other, op, check, mark, kAlike))
      return rule;
  }
  FailureOr<std::shared_ptr<const ShardingRule>> rule = computed();
  if (succeeded(rule))
    bucket.push_back({op, *rule});
  return rule;
}
