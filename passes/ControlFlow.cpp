//===- ControlFlow.cpp - Where layouts flow through control flow ---------===//

#include "ControlFlow.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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
/// order; then, for a loop (LoopLikeOpInterface), each init and yield with
/// its region argument, whatever trips the op says it makes (affine.for
/// with constant bounds leaves out the edges of a loop of 0 or 1 trips,
/// though the verifier ties the four values' types all the same).
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
  auto loop = dyn_cast<LoopLikeOpInterface>(branch.getOperation());
  if (!loop)
    return;
  Block::BlockArgListType args = loop.getRegionIterArgs();
  MutableArrayRef<OpOperand> inits = loop.getInitsMutable();
  std::optional<MutableArrayRef<OpOperand>> yields =
      loop.getYieldedValuesMutable();
  for (size_t i = 0; i < args.size(); ++i) {
    if (i < inits.size())
      fn(args[i], inits[i]);
    if (yields && i < yields->size())
      fn(args[i], (*yields)[i]);
  }
}

/// A union-find over indices.
struct Sets {
  SmallVector<unsigned> parent;
  unsigned add() {
    parent.push_back(parent.size());
    return parent.size() - 1;
  }
  unsigned find(unsigned x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(unsigned a, unsigned b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent[std::max(a, b)] = std::min(a, b);
  }
};

} // namespace

bool carriesLayouts(Operation *op) {
  auto branch = dyn_cast_or_null<RegionBranchOpInterface>(op);
  // A loop whose iterations may run at once (scf.parallel; scf.forall and
  // affine.parallel fail the tests below) would issue a partitioned body's
  // collectives concurrently.
  if (!branch || hasShardingRule(op) || isa<scf::ParallelOp>(op))
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
  // Targets in the order they first appear; targets that receive a common
  // operand are one group (the operand reaches both in one layout).
  SmallVector<Value> targets;
  llvm::DenseMap<Value, unsigned> indexOf;
  llvm::DenseMap<OpOperand *, unsigned> firstTarget;
  SmallVector<SmallVector<OpOperand *, 2>> sourcesOf;
  Sets sets;
  forEachForward(branch, [&](Value target, OpOperand &source) {
    auto [it, fresh] = indexOf.try_emplace(target, targets.size());
    if (fresh) {
      targets.push_back(target);
      sourcesOf.emplace_back();
      sets.add();
    }
    if (!llvm::is_contained(sourcesOf[it->second], &source))
      sourcesOf[it->second].push_back(&source);
    auto [seen, first] = firstTarget.try_emplace(&source, it->second);
    if (!first)
      sets.join(seen->second, it->second);
  });
  // Sources by (the op's own, then each region's terminator; operand).
  auto rank = [&](OpOperand *use) {
    Operation *owner = use->getOwner();
    unsigned place = 0;
    if (owner != op)
      place = owner->getParentRegion()->getRegionNumber() + 1;
    return std::make_pair(place, use->getOperandNumber());
  };
  SmallVector<FlowGroup> groups;
  llvm::DenseMap<unsigned, unsigned> groupOf;
  for (auto [i, target] : llvm::enumerate(targets)) {
    auto [it, fresh] = groupOf.try_emplace(sets.find(i), groups.size());
    if (fresh)
      groups.emplace_back();
    FlowGroup &group = groups[it->second];
    group.values.push_back(target);
    for (OpOperand *source : sourcesOf[i])
      if (!llvm::is_contained(group.sources, source))
        group.sources.push_back(source);
  }
  // Results first, then region arguments (by region, then number).
  auto key = [](Value v) {
    if (auto result = dyn_cast<OpResult>(v))
      return std::make_tuple(0u, 0u, result.getResultNumber());
    auto arg = cast<BlockArgument>(v);
    return std::make_tuple(1u, arg.getOwner()->getParent()->getRegionNumber(),
                           arg.getArgNumber());
  };
  for (FlowGroup &group : groups) {
    llvm::stable_sort(group.values,
                      [&](Value a, Value b) { return key(a) < key(b); });
    llvm::stable_sort(group.sources, [&](OpOperand *a, OpOperand *b) {
      return rank(a) < rank(b);
    });
    // Named by a result, else by the argument's place among those its
    // region receives (an induction variable is not counted).
    if (auto result = dyn_cast<OpResult>(group.values.front())) {
      group.what = "result #" + std::to_string(result.getResultNumber());
    } else {
      auto arg = cast<BlockArgument>(group.values.front());
      unsigned number = 0;
      for (BlockArgument other : arg.getOwner()->getArguments()) {
        if (other == arg)
          break;
        if (indexOf.count(other))
          ++number;
      }
      group.what = "carried value #" + std::to_string(number);
    }
  }
  return groups;
}

std::optional<uint64_t> runsPerEntry(Operation *op, Region &region) {
  auto branch = dyn_cast<RegionBranchOpInterface>(op);
  if (!branch || !branch.isRepetitiveRegion(region.getRegionNumber()))
    return 1;
  auto loop = dyn_cast<LoopLikeOpInterface>(op);
  if (!loop)
    return std::nullopt;
  if (std::optional<APInt> trips = loop.getStaticTripCount())
    return trips->getActiveBits() <= 63
               ? std::optional<uint64_t>(trips->getZExtValue())
               : std::nullopt;
  // One induction variable of constant bounds and step (affine.for does not
  // give getStaticTripCount).
  std::optional<SmallVector<OpFoldResult>> lbs = loop.getLoopLowerBounds(),
                                           ubs = loop.getLoopUpperBounds(),
                                           steps = loop.getLoopSteps();
  if (!lbs || !ubs || !steps || lbs->size() != 1 || ubs->size() != 1 ||
      steps->size() != 1)
    return std::nullopt;
  std::optional<int64_t> lb = getConstantIntValue(lbs->front()),
                         ub = getConstantIntValue(ubs->front()),
                         step = getConstantIntValue(steps->front());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  if (*ub <= *lb)
    return 0;
  // (ub - lb + step - 1) / step without overflow.
  const uint64_t span = static_cast<uint64_t>(*ub) - static_cast<uint64_t>(*lb);
  return span / static_cast<uint64_t>(*step) +
         (span % static_cast<uint64_t>(*step) != 0);
}

} // namespace shardc
