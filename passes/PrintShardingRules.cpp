//===- PrintShardingRules.cpp - shard-print-sharding-rules ----------------===//
//
// Attaches each op's sharding rule to it as a string attribute, so that the
// rules of rules/ are lit-tested directly.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDPRINTSHARDINGRULES
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// Loop `n`'s name: i, j, k, ..., y, then z1, z2, ...
std::string loopName(int64_t n) {
  static const char names[] = "ijklmnopqrstuvwxy";
  constexpr int64_t kLetters = sizeof(names) - 1;
  if (n < kLetters)
    return std::string(1, names[n]);
  return "z" + std::to_string(n - kLetters + 1);
}

const char *combinerName(layout::Placement::Reduce reduce) {
  switch (reduce) {
  case layout::Placement::Reduce::Sum:
    return "sum";
  case layout::Placement::Reduce::Avg:
    return "avg";
  case layout::Placement::Reduce::Product:
    return "product";
  case layout::Placement::Reduce::Max:
    return "max";
  case layout::Placement::Reduce::Min:
    return "min";
  }
  return "?";
}

/// "[i, _]" for a tensor's dims; "-" for an operand that is not a tensor.
void printDims(llvm::raw_ostream &os, Value value,
               const std::vector<int64_t> &dims) {
  if (!isa<RankedTensorType>(value.getType())) {
    os << "-";
    return;
  }
  os << "[";
  llvm::interleaveComma(dims, os, [&](int64_t loop) {
    os << (loop < 0 ? std::string("_") : loopName(loop));
  });
  os << "]";
}

std::string describeRule(Operation *op, const ShardingRule &rule) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "(";
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    if (i > 0)
      os << ", ";
    printDims(os, operand,
              i < rule.operands.size() ? rule.operands[i]
                                       : std::vector<int64_t>{});
  }
  // The tensors its regions read from outside it, after "captures".
  SmallVector<Value> captured = capturedTensors(op);
  for (auto [k, tensor] : llvm::enumerate(captured)) {
    const size_t i = op->getNumOperands() + k;
    os << (k == 0 ? "; captures " : ", ");
    printDims(os, tensor,
              i < rule.operands.size() ? rule.operands[i]
                                       : std::vector<int64_t>{});
  }
  os << ") -> (";
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    if (i > 0)
      os << ", ";
    printDims(os, result,
              i < rule.results.size() ? rule.results[i]
                                      : std::vector<int64_t>{});
  }
  os << ") {";
  std::vector<std::string> reductions, unshardable;
  for (auto [n, loop] : llvm::enumerate(rule.loops)) {
    if (n > 0)
      os << ", ";
    os << loopName(n) << "=" << loop.size;
    if (loop.reduction)
      reductions.push_back(loopName(n));
    if (!loop.unshardable.empty())
      unshardable.push_back(loopName(n) + ": " + loop.unshardable);
  }
  os << "}";
  if (!reductions.empty())
    os << " reduction={" << llvm::join(reductions, ", ") << "}";
  if (llvm::any_of(rule.combiners, [](auto c) { return c.has_value(); })) {
    os << " combiners=[";
    llvm::interleaveComma(rule.combiners, os, [&](auto c) {
      os << (c ? combinerName(*c) : "none");
    });
    os << "]";
  }
  if (!unshardable.empty())
    os << " unshardable={" << llvm::join(unshardable, "; ") << "}";
  std::vector<std::string> folds;
  for (auto [n, loop] : llvm::enumerate(rule.loops))
    if (loop.innerFactor > 1)
      folds.push_back(loopName(n) + "*" + std::to_string(loop.innerFactor));
  if (!folds.empty())
    os << " folds={" << llvm::join(folds, ", ") << "}";
  // Window dims: needed whole, or kept cut for the hook to move a window.
  std::vector<std::string> windows;
  for (auto [i, dims] : llvm::enumerate(rule.windows)) {
    if (llvm::none_of(dims, [](int64_t l) { return l >= 0; }))
      continue;
    std::string one = "#" + std::to_string(i) + " [";
    for (auto [d, loop] : llvm::enumerate(dims))
      one +=
          (d > 0 ? ", " : "") + (loop < 0 ? std::string("_") : loopName(loop));
    windows.push_back(one + "]");
  }
  if (!windows.empty())
    os << " windows={" << llvm::join(windows, "; ") << "}";
  if (llvm::any_of(rule.inits, [](int64_t i) { return i >= 0; })) {
    os << " inits=[";
    llvm::interleaveComma(rule.inits, os, [&](int64_t i) {
      if (i < 0)
        os << "none";
      else
        os << i;
    });
    os << "]";
  }
  return text;
}

struct PrintShardingRulesPass
    : shardc::impl::ShardPrintShardingRulesBase<PrintShardingRulesPass> {
  void runOnOperation() override {
    bool failedAny = false;
    getOperation().walk([&](ShardingRuleOpInterface op) {
      // Rules are of ops on tensors: scalar ops (in payloads, or of index
      // arithmetic) have none to print.
      auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
      if (!llvm::any_of(op->getOperandTypes(), isTensor) &&
          !llvm::any_of(op->getResultTypes(), isTensor))
        return;
      FailureOr<ShardingRule> rule = shardingRuleOf(op);
      if (failed(rule)) {
        failedAny = true;
        return;
      }
      op->setAttr("shard.sharding_rule",
                  StringAttr::get(op->getContext(), describeRule(op, *rule)));
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
