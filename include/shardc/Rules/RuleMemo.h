//===- RuleMemo.h - One rule for ops alike ----------------------*- C++ -*-===//
//
// A pass that asks for the rules of thousands of ops alike (the matmuls of
// a chain of blocks) computes each once.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_RULEMEMO_H
#define SHARDC_RULES_RULEMEMO_H

#include "shardc/Dialect/PartitionContext.h"
#include "shardc/Rules/Payload.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace shardc {

/// shardingRuleOf, once per class of ops alike. An op's rule is taken from
/// an op seen before where both are linalg structured ops (or
/// linalg.softmax) whose regions read nothing from outside them and that
/// carry no written rule, and they are equivalent (OperationEquivalence:
/// name, inherent attributes and properties, operand and result types
/// (operands made of constants, constantKeyOf, the same constant: a
/// payload's product by it passes partial values only where its elements
/// are small), and
/// their regions op by op with their uses matched; and every discardable
/// attribute but shardc's own, which linalg may read as the op's own:
/// linalg.memoized_indexing_maps): all that the linalg
/// rules read of such an op (LinalgRules.cpp reads the values around an op
/// only through the tensors and scalars its payload captures). Any other
/// op's rule is computed. Failures are not kept (each op is told).
///
/// It holds the ops it saw, their operands' keys and which values are made
/// of constants: clear it before any of them may be erased, or anything
/// upstream of them rewritten.
class RuleMemo {
public:
  mlir::FailureOr<ShardingRule> ruleOf(mlir::Operation *op);
  /// The same rule, shared with the ops alike rather than copied (a rule's
  /// copy was a quarter of a 6,000-op search's rule lookups); it outlives
  /// clear().
  mlir::FailureOr<std::shared_ptr<const ShardingRule>>
  sharedRuleOf(mlir::Operation *op);
  void clear() {
    seen.clear();
    keys.clear();
    origins.clear();
  }

private:
  /// constantKeyOf, once per operand compared (each op of a chain is
  /// compared with the ops alike before it).
  mlir::Attribute keyOf(mlir::Value value);

  std::unordered_map<
      size_t, std::vector<std::pair<mlir::Operation *,
                                    std::shared_ptr<const ShardingRule>>>>
      seen;
  llvm::DenseMap<mlir::Value, mlir::Attribute> keys;
  /// Which values are made of constants: asked by keyOf and by the rules
  /// it computes (their products), answered for a function at once.
  ConstantOrigins origins;
};

} // namespace shardc

#endif // SHARDC_RULES_RULEMEMO_H
