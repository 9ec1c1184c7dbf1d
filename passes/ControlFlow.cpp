//===- ControlFlow.cpp - Where layouts flow through control flow ---------===//

#include "ControlFlow.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;

namespace shardc {
namespace {

bool isTensor(Type type) { return isa<TensorType>(type); }

/// Calls `fn` with each (successor input, forwarded operand) pair of
/// `branch`, from its own operands first, then its terminators' in region
/// order.
void forEachForward(RegionBranchOpInterface branch,
                    llvm::function_ref<void(Value, OpOperand &)> fn) {
  for (RegionBranchPoint point : branch.getAllRegionBranchPoints()) {
    Operation *from = point.isParent() ? branch.getOperation()
                                       : point.getTerminatorPredecessorOrNull();
    SmallVector<RegionSuccessor> successors;
    branch.getSuccessorRegions(point, successors);
    for (const RegionSuccessor &successor : successors) {
      ValueRange inputs = successor.getSuccessorInputs();
      OperandRange forwarded = branch.getSuccessorOperands(point, successor);
      if (forwarded.empty())
        continue;
      const unsigned first = forwarded.getBeginOperandIndex();
      const size_t n = std::min<size_t>(inputs.size(), forwarded.size());
      for (size_t i = 0; i < n; ++i)
        fn(inputs[i], from->getOpOperand(first + static_cast<unsigned>(i)));
    }
  }
}

} // namespace

std::string FlowGroup::what() const {
  for (Value v : values)
    if (auto result = dyn_cast<OpResult>(v))
      return "result #" + std::to_string(result.getResultNumber());
  return "carried value #" +
         std::to_string(cast<BlockArgument>(values.front()).getArgNumber());
}

bool carriesLayouts(Operation *op) {
  auto branch = dyn_cast_or_null<RegionBranchOpInterface>(op);
  if (!branch || isa<ShardingRuleOpInterface>(op))
    return false;
  for (Region &region : op->getRegions()) {
    if (region.empty())
      continue;
    if (!region.hasOneBlock() || region.front().empty() ||
        !isa<RegionBranchTerminatorOpInterface>(region.front().back()))
      return false;
  }
  // Every tensor defined here receives forwarded values, and every tensor
  // used here (by the op or its terminators) is forwarded.
  llvm::DenseSet<Value> targets;
  llvm::DenseSet<OpOperand *> sources;
  forEachForward(branch, [&](Value target, OpOperand &source) {
    targets.insert(target);
    sources.insert(&source);
  });
  auto covered = [&](Value v) {
    return !isTensor(v.getType()) || targets.contains(v);
  };
  auto forwarded = [&](OpOperand &use) {
    return !isTensor(use.get().getType()) || sources.contains(&use);
  };
  if (!llvm::all_of(op->getResults(), covered) ||
      !llvm::all_of(op->getOpOperands(), forwarded))
    return false;
  for (Region &region : op->getRegions()) {
    if (region.empty())
      continue;
    if (!llvm::all_of(region.front().getArguments(), covered) ||
        !llvm::all_of(region.front().back().getOpOperands(), forwarded))
      return false;
  }
  return true;
}

bool forwardsLayouts(Operation *op) {
  return isa<RegionBranchTerminatorOpInterface>(op) &&
         carriesLayouts(op->getParentOp());
}

SmallVector<FlowGroup> flowGroups(Operation *op) {
  auto branch = cast<RegionBranchOpInterface>(op);
  // Each target's sources, targets in the order they first appear.
  SmallVector<Value> targets;
  llvm::DenseMap<Value, SmallVector<OpOperand *, 2>> sourcesOf;
  forEachForward(branch, [&](Value target, OpOperand &source) {
    auto [it, fresh] = sourcesOf.try_emplace(target);
    if (fresh)
      targets.push_back(target);
    if (!llvm::is_contained(it->second, &source))
      it->second.push_back(&source);
  });
  // Targets with the same sources are one group: the sources sorted by
  // (owner's place, operand number) as the key, so that the same set
  // matches whatever order it was found in.
  auto rank = [&](OpOperand *use) {
    Operation *owner = use->getOwner();
    unsigned place = 0;
    if (owner != op)
      place = owner->getParentRegion()->getRegionNumber() + 1;
    return std::make_pair(place, use->getOperandNumber());
  };
  SmallVector<FlowGroup> groups;
  SmallVector<SmallVector<std::pair<unsigned, unsigned>>> keys;
  for (Value target : targets) {
    SmallVector<OpOperand *, 2> &sources = sourcesOf[target];
    llvm::stable_sort(
        sources, [&](OpOperand *a, OpOperand *b) { return rank(a) < rank(b); });
    SmallVector<std::pair<unsigned, unsigned>> key;
    for (OpOperand *use : sources)
      key.push_back(rank(use));
    auto found = llvm::find(keys, key);
    if (found == keys.end()) {
      keys.push_back(key);
      groups.push_back({{target}, sources});
      continue;
    }
    groups[found - keys.begin()].values.push_back(target);
  }
  // Results first, then region arguments (by region, then number).
  for (FlowGroup &group : groups)
    llvm::stable_sort(group.values, [](Value a, Value b) {
      auto key = [](Value v) {
        if (auto result = dyn_cast<OpResult>(v))
          return std::make_tuple(0u, 0u, result.getResultNumber());
        auto arg = cast<BlockArgument>(v);
        return std::make_tuple(1u,
                               arg.getOwner()->getParent()->getRegionNumber(),
                               arg.getArgNumber());
      };
      return key(a) < key(b);
    });
  return groups;
}

std::optional<uint64_t> runsPerEntry(Operation *op, Region &region) {
  auto branch = dyn_cast<RegionBranchOpInterface>(op);
  if (!branch || !branch.isRepetitiveRegion(region.getRegionNumber()))
    return 1;
  if (auto loop = dyn_cast<LoopLikeOpInterface>(op))
    if (std::optional<APInt> trips = loop.getStaticTripCount();
        trips && trips->getActiveBits() <= 63)
      return trips->getZExtValue();
  return std::nullopt;
}

} // namespace shardc
