//===- PrintShardingRules.cpp - shard-print-sharding-rules ----------------===//
//
// Writes each op's sharding rule on it (shard.sharding_rule =
// #shard.rule<...>), so that the rules of rules/ are lit-tested directly, and
// so that a rule can be read, copied onto another op or checked: the written
// rule is the rule (an op with a rule of its own must carry exactly it).
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"
#include "shardc/Rules/RuleMemo.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDPRINTSHARDINGRULES
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct PrintShardingRulesPass
    : shardc::impl::ShardPrintShardingRulesBase<PrintShardingRulesPass> {
  void runOnOperation() override {
    if (failed(refuseMisplacedWrittenRules(getOperation())))
      return signalPassFailure();
    bool failedAny = false;
    RuleMemo rules;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!hasShardingRule(op))
        return WalkResult::advance();
      // Rules are of ops on tensors: scalar ops (of index arithmetic) have
      // none to print; nor have the ops inside a rule op (its payload
      // computes each element where it is held, tensors of one element
      // wrapping a scalar included).
      auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
      if (!llvm::any_of(op->getOperandTypes(), isTensor) &&
          !llvm::any_of(op->getResultTypes(), isTensor) && !capturesTensors(op))
        return WalkResult::advance();
      FailureOr<ShardingRule> rule = rules.ruleOf(op);
      if (failed(rule)) {
        failedAny = true;
        return WalkResult::skip();
      }
      op->setAttr(kShardingRuleAttr,
                  ShardingRuleAttr::get(op->getContext(), std::move(*rule)));
      return WalkResult::skip();
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
