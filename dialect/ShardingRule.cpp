//===- ShardingRule.cpp - The sharding rule interface ---------------------===//

#include "shardc/Dialect/Shard.h"

#include "shardc/Dialect/ElementTypes.h"

#include "shardc/Dialect/ShardOpInterfaces.cpp.inc"

#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

#include <set>

using namespace mlir;
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

LogicalResult shardc::retypeResultsToLocal(Operation *op,
                                           PartitionContext &context) {
  for (OpResult result : op->getResults())
    if (isa<RankedTensorType>(result.getType()))
      result.setType(context.localOf(result));
  return success();
}

SmallVector<Value> shardc::capturedTensors(Operation *op) {
  llvm::SetVector<Value> captured;
  op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
    if (inner == op)
      return;
    for (Value operand : inner->getOperands()) {
      if (!isa<RankedTensorType>(operand.getType()))
        continue;
      Region *region = operand.getParentRegion();
      if (!region || !op->isAncestor(region->getParentOp()))
        captured.insert(operand);
    }
  });
  return SmallVector<Value>(captured.begin(), captured.end());
}

bool shardc::capturesTensors(Operation *op) {
  return op->getNumRegions() > 0 && !capturedTensors(op).empty();
}

Operation *shardc::enclosingRuleOp(Operation *op) {
  Operation *found = nullptr;
  for (Operation *at = op->getParentOp(); at && !isa<FunctionOpInterface>(at);
       at = at->getParentOp())
    if (hasShardingRule(at))
      found = at;
  return found;
}

//===----------------------------------------------------------------------===//
// The rule, checked
//===----------------------------------------------------------------------===//

std::string ShardingRule::whyNotStrided(int64_t loop) const {
  if (loop < 0 || loop >= static_cast<int64_t>(loops.size()))
    return {};
  if (!loops[loop].unstrided.empty())
    return loops[loop].unstrided;
  for (size_t i = 0; i < windows.size(); ++i)
    for (size_t d = 0; d < windows[i].size(); ++d)
      if (windows[i][d] == loop)
        return "it places or reads operand #" + std::to_string(i) + "'s dim " +
               std::to_string(d) + " as a window, by offset";
  return {};
}

llvm::hash_code shardc::hash_value(const ShardingRule &rule) {
  llvm::hash_code h = llvm::hash_value(rule.loops.size());
  for (const ShardingRule::Loop &loop : rule.loops)
    h = llvm::hash_combine(h, loop.size, loop.reduction, loop.unshardable,
                           loop.innerFactor, loop.unstrided);
  for (const auto *tensors :
       {&rule.operands, &rule.windows, &rule.results, &rule.linear})
    for (const std::vector<int64_t> &dims : *tensors)
      h = llvm::hash_combine(
          h, llvm::hash_combine_range(dims.begin(), dims.end()));
  for (const auto &combiner : rule.combiners)
    h = llvm::hash_combine(h, combiner ? static_cast<int>(*combiner) : -1);
  for (const ShardingRule::Fold &f : rule.folds)
    h = llvm::hash_combine(h, f.result, f.tensor, f.dim, f.loop, f.groups);
  return llvm::hash_combine(
      h, llvm::hash_combine_range(rule.inits.begin(), rule.inits.end()));
}

/// Where no operand dim has a window, none; else one entry per operand,
/// empty where none of its dims has one: the form the parser builds, so
/// that a rule and its printed form compare equal.
static void canonicalizeWindows(ShardingRule &rule) {
  auto hasWindow = [](const std::vector<int64_t> &dims) {
    return llvm::any_of(dims, [](int64_t loop) { return loop >= 0; });
  };
  if (llvm::none_of(rule.windows, hasWindow)) {
    rule.windows.clear();
    return;
  }
  rule.windows.resize(std::max(rule.windows.size(), rule.operands.size()));
  for (std::vector<int64_t> &dims : rule.windows)
    if (!hasWindow(dims))
      dims.clear();
}

std::string shardc::ruleProblem(const ShardingRule &rule) {
  const auto numLoops = static_cast<int64_t>(rule.loops.size());
  for (auto [n, loop] : llvm::enumerate(rule.loops)) {
    if (loop.size < 0)
      return "loop d" + std::to_string(n) + " has a negative size";
    if (loop.innerFactor < 1)
      return "loop d" + std::to_string(n) + " folds over " +
             std::to_string(loop.innerFactor) + " inner elements (1 or more)";
  }
  auto badLoop = [&](const std::vector<std::vector<int64_t>> &tensors,
                     const char *what) -> std::string {
    for (auto [i, dims] : llvm::enumerate(tensors))
      for (int64_t loop : dims)
        if (loop < -1 || loop >= numLoops)
          return std::string(what) + " #" + std::to_string(i) +
                 " names loop d" + std::to_string(loop) + ", but there are " +
                 std::to_string(numLoops) + " loops";
    return {};
  };
  for (auto [tensors, what] : {std::pair{&rule.operands, "operand"},
                               {&rule.results, "result"},
                               {&rule.windows, "the window of operand"}})
    if (std::string problem = badLoop(*tensors, what); !problem.empty())
      return problem;
  for (auto [i, dims] : llvm::enumerate(rule.results))
    for (int64_t loop : dims)
      if (loop >= 0 && rule.loops[loop].reduction)
        return "result #" + std::to_string(i) + " is indexed by d" +
               std::to_string(loop) + ", a reduction loop";
  for (const ShardingRule::Fold &f : rule.folds) {
    const auto &tensors = f.result ? rule.results : rule.operands;
    const std::string which = std::string(f.result ? "result" : "operand") +
                              " #" + std::to_string(f.tensor);
    if (f.loop < 0 || f.loop >= numLoops)
      return "a fold names loop d" + std::to_string(f.loop) +
             ", but there are " + std::to_string(numLoops) + " loops";
    if (f.tensor < 0 || f.tensor >= static_cast<int64_t>(tensors.size()) ||
        f.dim < 0 || f.dim >= static_cast<int64_t>(tensors[f.tensor].size()))
      return "loop d" + std::to_string(f.loop) + " folds into " + which +
             " dim " + std::to_string(f.dim) + ", which does not exist";
    const int64_t outer = tensors[f.tensor][f.dim];
    if (outer < 0 || outer == f.loop)
      return "loop d" + std::to_string(f.loop) + " folds into " + which +
             " dim " + std::to_string(f.dim) + ", which no other loop indexes";
    const ShardingRule::Loop &o = rule.loops[outer], &l = rule.loops[f.loop];
    int64_t dimSize = 0, step = 0;
    if (f.groups < 1 || l.size < 1 ||
        llvm::MulOverflow(o.size, o.innerFactor, dimSize) ||
        llvm::MulOverflow(f.groups, l.size, step) || dimSize % step != 0)
      return "loop d" + std::to_string(f.loop) + " (" + std::to_string(l.size) +
             " steps) folds into " + which + " dim " + std::to_string(f.dim) +
             " in " + std::to_string(f.groups) +
             " groups, which do not divide it";
  }
  if (rule.windows.size() > rule.operands.size())
    return "windows are given for " + std::to_string(rule.windows.size()) +
           " operands, but there are " + std::to_string(rule.operands.size());
  for (auto [i, dims] : llvm::enumerate(rule.windows)) {
    if (dims.empty())
      continue;
    if (dims.size() != rule.operands[i].size())
      return "the window of operand #" + std::to_string(i) + " has " +
             std::to_string(dims.size()) + " dims, the operand " +
             std::to_string(rule.operands[i].size());
    for (auto [d, loop] : llvm::enumerate(dims))
      if (loop >= 0 && rule.operands[i][d] >= 0)
        return "dim " + std::to_string(d) + " of operand #" +
               std::to_string(i) + " is indexed by a loop and is a window too";
  }
  if (rule.combiners.size() != rule.results.size() ||
      rule.inits.size() != rule.results.size())
    return std::to_string(rule.combiners.size()) + " combiners and " +
           std::to_string(rule.inits.size()) + " inits for " +
           std::to_string(rule.results.size()) + " results (one each)";
  for (auto [r, init] : llvm::enumerate(rule.inits))
    if (init < -1 || init >= static_cast<int64_t>(rule.operands.size()))
      return "the init of result #" + std::to_string(r) + " is operand #" +
             std::to_string(init) + ", but there are " +
             std::to_string(rule.operands.size()) + " operands";
  for (auto [g, group] : llvm::enumerate(rule.linear)) {
    const std::string which = "linear group #" + std::to_string(g);
    if (group.empty())
      return which + " is empty";
    for (auto [k, operand] : llvm::enumerate(group)) {
      if (operand < 0 || operand >= static_cast<int64_t>(rule.operands.size()))
        return which + " names operand #" + std::to_string(operand) +
               ", but there are " + std::to_string(rule.operands.size()) +
               " operands";
      if (k > 0 && group[k - 1] >= operand)
        return which + " must list distinct operands in increasing order";
    }
    for (size_t h = 0; h < g; ++h)
      if (rule.linear[h] == group)
        return which + " is given twice";
  }
  return {};
}

LogicalResult shardc::checkStaticShape(Operation *op, Type type,
                                       StringRef what) {
  if (!isa<TensorType>(type))
    return success();
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return op->emitOpError() << "has " << what << " of unranked type " << type
                             << "; sharding needs static shapes";
  if (!ranked.hasStaticShape())
    return op->emitOpError() << "has " << what << " of dynamic shape " << type
                             << "; sharding needs static shapes";
  if (ranked.getEncoding())
    return op->emitOpError()
           << "has " << what << " of type " << type
           << " with an encoding; sharding needs tensors without encodings";
  return success();
}

bool shardc::takesLayout(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && !ranked.getEncoding();
}

LogicalResult shardc::checkRankedShapes(Operation *op) {
  auto check = [&](Type type, const std::string &what) {
    return takesLayout(type) ? success() : checkStaticShape(op, type, what);
  };
  for (OpOperand &operand : op->getOpOperands())
    if (failed(check(operand.get().getType(),
                     "operand #" + std::to_string(operand.getOperandNumber()))))
      return failure();
  for (OpResult result : op->getResults())
    if (failed(check(result.getType(),
                     "result #" + std::to_string(result.getResultNumber()))))
      return failure();
  return success();
}

LogicalResult shardc::checkStaticShapes(Operation *op) {
  for (OpOperand &operand : op->getOpOperands())
    if (failed(checkStaticShape(
            op, operand.get().getType(),
            "operand #" + std::to_string(operand.getOperandNumber()))))
      return failure();
  for (OpResult result : op->getResults())
    if (failed(checkStaticShape(op, result.getType(),
                                "result #" +
                                    std::to_string(result.getResultNumber()))))
      return failure();
  return success();
}

LogicalResult shardc::verifyRuleFor(Operation *op, const ShardingRule &rule) {
  if (std::string problem = ruleProblem(rule); !problem.empty())
    return op->emitOpError()
           << "has a sharding rule that is not valid: " << problem;
  SmallVector<Value> operands(op->getOperands());
  llvm::append_range(operands, capturedTensors(op));
  if (rule.operands.size() != operands.size() ||
      rule.results.size() != op->getNumResults())
    return op->emitOpError()
           << "has a sharding rule for " << rule.operands.size()
           << " operands and " << rule.results.size()
           << " results, but the op has " << operands.size()
           << " (its operands, then the tensors its regions read from "
              "outside it) and "
           << op->getNumResults();
  auto check = [&](Value value, const std::vector<int64_t> &dims,
                   const std::string &what) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type) {
      if (dims.empty())
        return success();
      return op->emitOpError()
             << "has a sharding rule naming " << dims.size() << " dims of "
             << what << ", which is not a ranked tensor but "
             << value.getType();
    }
    if (dims.size() != static_cast<size_t>(type.getRank()))
      return op->emitOpError() << "has a sharding rule naming " << dims.size()
                               << " dims of " << what << ", of type " << type;
    for (auto [d, loop] : llvm::enumerate(dims)) {
      const int64_t size = type.getDimSize(d);
      if (loop < 0 || ShapedType::isDynamic(size))
        continue;
      const ShardingRule::Loop &l = rule.loops[loop];
      int64_t folded = 0;
      const bool overflows = llvm::MulOverflow(l.size, l.innerFactor, folded);
      if (size != l.size && (overflows || size != folded))
        return op->emitOpError() << "has a sharding rule whose loop d" << loop
                                 << " of size " << l.size << " indexes dim "
                                 << d << " of " << what << ", of type " << type;
    }
    return success();
  };
  for (auto [i, operand] : llvm::enumerate(operands))
    if (failed(
            check(operand, rule.operands[i], "operand #" + std::to_string(i))))
      return failure();
  for (auto [i, result] : llvm::enumerate(op->getResults()))
    if (failed(check(result, rule.results[i], "result #" + std::to_string(i))))
      return failure();
  return success();
}

/// Why a rule written on `op` cannot be its rule, or null: shardc moves
/// layouts through calls, constraints, terminators and ops whose regions
/// use tensors itself.
static const char *writtenRuleMisplaced(Operation *op) {
  if (isa<CallOpInterface, ConstraintOp>(op) ||
      op->hasTrait<OpTrait::IsTerminator>())
    return "a call, a constraint or a terminator";
  if (op->getNumRegions() == 0)
    return nullptr;
  // Its regions may read tensors from outside (tensor.extract: the rule
  // lists them after the operands), but not make or pass tensors along.
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  WalkResult inside = op->walk([&](Operation *inner) {
    if (inner != op && llvm::any_of(inner->getResultTypes(), isTensor))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (isa<RegionBranchOpInterface>(op) || inside.wasInterrupted())
    return "control flow or an op whose regions make tensors (they would "
           "not be entered)";
  return nullptr;
}

bool shardc::hasShardingRule(Operation *op) {
  return isa<ShardingRuleOpInterface>(op) ||
         (op->hasAttr(kShardingRuleAttr) && !writtenRuleMisplaced(op));
}

LogicalResult shardc::refuseMisplacedWrittenRules(Operation *root) {
  WalkResult walk = root->walk([&](Operation *op) {
    if (!op->hasAttr(kShardingRuleAttr) || isa<ShardingRuleOpInterface>(op))
      return WalkResult::advance();
    if (const char *why = writtenRuleMisplaced(op)) {
      op->emitOpError() << "has " << kShardingRuleAttr
                        << ", but layouts pass through " << why
                        << " as shardc moves them, by no rule; remove it";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Loops that index a dynamic dim of one of the op's tensors stay whole
/// (its extent is known at run time only), but where the op's hook says it
/// partitions them cut (ShardingRuleOpInterface::cutsDynamicLoop), never
/// strided (Loop::unstrided). Such a loop of dynamic size is counted as
/// kNominalDynamicExtent.
static void keepDynamicDimsWhole(Operation *op, ShardingRule &rule) {
  auto iface = dyn_cast<ShardingRuleOpInterface>(op);
  std::vector<bool> cuttable(rule.loops.size(), false);
  for (size_t l = 0; l < rule.loops.size() && iface; ++l)
    cuttable[l] = iface.cutsDynamicLoop(rule, static_cast<int64_t>(l));
  SmallVector<Value> operands(op->getOperands());
  llvm::append_range(operands, capturedTensors(op));
  auto mark = [&](Value value, const std::vector<int64_t> &dims,
                  const std::string &what) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || dims.size() != static_cast<size_t>(type.getRank()))
      return;
    for (auto [d, loop] : llvm::enumerate(dims)) {
      if (loop < 0 || loop >= static_cast<int64_t>(rule.loops.size()) ||
          !type.isDynamicDim(d))
        continue;
      ShardingRule::Loop &l = rule.loops[loop];
      const std::string which =
          "it indexes dim " + std::to_string(d) + " of " + what;
      // Cut, never strided: a strided cut of a dynamic dim has groups of
      // sizes known at run time only, which no layout holds.
      if (cuttable[loop]) {
        if (l.unstrided.empty())
          l.unstrided = which + ", which is dynamic (cut, never strided)";
        continue;
      }
      if (l.unshardable.empty())
        l.unshardable = which + ", which is dynamic";
    }
  };
  for (auto [i, dims] : llvm::enumerate(rule.operands))
    if (i < operands.size())
      mark(operands[i], dims, "operand #" + std::to_string(i));
  for (auto [i, dims] : llvm::enumerate(rule.results))
    if (i < op->getNumResults())
      mark(op->getResult(i), dims, "result #" + std::to_string(i));
  for (auto [n, l] : llvm::enumerate(rule.loops))
    if (ShapedType::isDynamic(l.size)) {
      l.size = kNominalDynamicExtent;
      if (l.unshardable.empty() && !cuttable[n])
        l.unshardable = "its size is dynamic";
    }
}

/// A reduction stays whole where its results' partial values could not be
/// reduced across ranks (i1, which the runtime moves as bytes; index):
/// cutting one of its loops would leave them Partial, which no later pass
/// could move. A lookup of data-selected rows is such a reduction too.
static void keepUnreducibleWhole(Operation *op, ShardingRule &rule) {
  const bool cuttable = llvm::any_of(rule.loops, [](const auto &loop) {
    return loop.reduction && loop.unshardable.empty();
  });
  if (!cuttable)
    return;
  for (auto [r, combiner] : llvm::enumerate(rule.combiners)) {
    if (!combiner || r >= op->getNumResults())
      continue;
    auto type = dyn_cast<RankedTensorType>(op->getResult(r).getType());
    if (!type)
      continue;
    std::string why = whyNotReducible(type.getElementType());
    if (why.empty())
      continue;
    for (ShardingRule::Loop &loop : rule.loops)
      if (loop.reduction && loop.unshardable.empty())
        loop.unshardable =
            "result #" + std::to_string(r) + " would be Partial: " + why;
    return;
  }
}

/// A written rule's loops that the op itself on local blocks cannot cut:
/// a parallel loop some tensor result is not indexed by (ranks would write
/// the same elements), a reduction loop that indexes no operand (every
/// rank would compute all of it) or reduces a tensor result without a
/// combiner, or any loop reduced by avg (a mean of uneven parts is not the
/// mean).
static void markUncuttable(Operation *op, ShardingRule &rule) {
  for (auto [n, loop] : llvm::enumerate(rule.loops)) {
    if (!loop.unshardable.empty())
      continue;
    const int64_t l = static_cast<int64_t>(n);
    for (auto [r, result] : llvm::enumerate(op->getResults())) {
      if (!isa<RankedTensorType>(result.getType()))
        continue;
      const std::string which = "result #" + std::to_string(r);
      if (!loop.reduction && !llvm::is_contained(rule.results[r], l))
        loop.unshardable = which + " is not indexed by it";
      else if (loop.reduction && !rule.combiners[r])
        loop.unshardable = which + " has no combiner";
      else if (loop.reduction &&
               *rule.combiners[r] == layout::Placement::Reduce::Avg)
        loop.unshardable = which + " is averaged";
      if (!loop.unshardable.empty())
        break;
    }
    if (loop.unshardable.empty() && loop.reduction &&
        llvm::none_of(rule.operands, [&](const std::vector<int64_t> &dims) {
          return llvm::is_contained(dims, l);
        }))
      loop.unshardable = "it indexes no operand";
  }
}

/// Whether an op in `root`'s regions (or in a function one of them calls,
/// transitively) writes memory: an op whose effects are not known counts
/// as writing.
static bool regionsWrite(Operation *root,
                         llvm::SmallPtrSetImpl<Operation *> &seen) {
  bool writes = false;
  root->walk([&](Operation *inner) {
    if (inner == root || isa<RegionBranchTerminatorOpInterface>(inner))
      return WalkResult::advance();
    if (auto call = dyn_cast<CallOpInterface>(inner)) {
      // What the callee does (a scalar helper a payload calls).
      Operation *callee = call.resolveCallable();
      auto function = dyn_cast_or_null<FunctionOpInterface>(callee);
      if (!function || function.isExternal()) {
        writes = true;
      } else if (seen.insert(callee).second) {
        writes = regionsWrite(callee, seen);
      }
    } else if (auto iface = dyn_cast<MemoryEffectOpInterface>(inner)) {
      // Writes to memory a value names (a memref, a pointer) or to a
      // resource of its own; not the default resource's alone (cf.assert's,
      // vector.print's: each rank checks or prints its block's elements).
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      writes = llvm::any_of(effects, [](MemoryEffects::EffectInstance &e) {
        return isa<MemoryEffects::Write>(e.getEffect()) &&
               (e.getValue() ||
                e.getResource() != SideEffects::DefaultResource::get());
      });
    } else {
      writes = !inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
               !isPure(inner);
    }
    return writes ? WalkResult::interrupt() : WalkResult::advance();
  });
  return writes;
}

/// Why `op` must compute all it writes on every rank (null: it need not):
/// memrefs among its operands or results, or memory written in its regions.
static const char *writesWhole(Operation *op) {
  if (llvm::any_of(
          llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()),
          [](Type t) { return isa<BaseMemRefType>(t); }))
    return "the op reads or writes memrefs, which stay whole";
  if (op->getNumRegions() == 0)
    return nullptr;
  llvm::SmallPtrSet<Operation *, 4> seen;
  return regionsWrite(op, seen) ? "its regions write memory (each rank would "
                                  "write only what its block's part writes)"
                                : nullptr;
}

FailureOr<ShardingRule> shardc::shardingRuleOf(Operation *op) {
  Attribute written = op->getAttr(kShardingRuleAttr);
  auto writtenRule = dyn_cast_or_null<ShardingRuleAttr>(written);
  if (written && !writtenRule)
    return op->emitOpError() << "has " << kShardingRuleAttr << " = " << written
                             << "; a #shard.rule is expected";
  auto iface = dyn_cast<ShardingRuleOpInterface>(op);
  FailureOr<ShardingRule> rule = failure();
  if (iface) {
    rule = iface.getShardingRule();
    if (failed(rule))
      return failure();
  } else if (writtenRule) {
    // A rule written on an op shardc has none for: it shards the op's
    // tensors, so they must have static shapes; its local form is the op
    // itself on local blocks, which cannot read a window elsewhere.
    if (failed(checkStaticShapes(op)))
      return failure();
    if (const char *why = writtenRuleMisplaced(op))
      return op->emitOpError()
             << "has " << kShardingRuleAttr << ", but layouts pass through "
             << why << " as shardc moves them, by no rule; remove it";
    rule = writtenRule.getRule();
    if (!rule->windows.empty())
      return op->emitOpError()
             << "has a written sharding rule with windows, which only an "
                "op's own partition hook (ShardingRuleOpInterface) can read";
    if (llvm::any_of(rule->inits, [](int64_t i) { return i >= 0; }))
      return op->emitOpError()
             << "has a written sharding rule with inits, which only an op's "
                "own partition hook (ShardingRuleOpInterface) can make "
                "partial copies of";
  } else {
    return op->emitOpError() << "has no sharding rule";
  }
  if (rule->operands.size() == op->getNumOperands())
    for (Value tensor : capturedTensors(op))
      rule->operands.push_back(std::vector<int64_t>(
          cast<RankedTensorType>(tensor.getType()).getRank(), -1));
  canonicalizeWindows(*rule);
  // An op on memrefs (a linalg.generic whose payload reads a tensor from
  // outside it), or whose regions write memory (a histogram's atomic adds
  // into a memref), computes all of it on every rank: none of its loops is
  // cut (each rank would write its block's part only), and the tensors it
  // reads are whole.
  if (const char *why = writesWhole(op))
    for (ShardingRule::Loop &loop : rule->loops)
      if (loop.unshardable.empty())
        loop.unshardable = why;
  keepDynamicDimsWhole(op, *rule);
  keepUnreducibleWhole(op, *rule);
  if (failed(verifyRuleFor(op, *rule)))
    return failure();
  if (!iface)
    markUncuttable(op, *rule);
  if (iface && writtenRule && writtenRule.getRule() != *rule)
    return op->emitOpError()
           << "has a written sharding rule " << writtenRule
           << " that is not its own, "
           << ShardingRuleAttr::get(op->getContext(), *rule)
           << "; an op with a rule of its own is sharded by it (remove "
           << kShardingRuleAttr << ")";
  return rule;
}

LogicalResult shardc::partitionByRule(Operation *op, const ShardingRule &rule,
                                      PartitionContext &context) {
  if (auto iface = dyn_cast<ShardingRuleOpInterface>(op))
    return iface.partition(rule, context);
  // A rule written on the op: the op itself on local blocks, where every
  // rank's blocks have one shape (an op's non-tensor operands may name its
  // shape, which no rule says), and a valid op.
  for (OpResult result : op->getResults())
    if (isa<RankedTensorType>(result.getType()) &&
        !getLocalType(context.globalOf(result)).hasStaticShape())
      return op->emitOpError()
             << "is partitioned by the sharding rule written on it only "
                "where every rank's block of its results has one shape; "
                "result #"
             << result.getResultNumber() << " is " << context.globalOf(result)
             << " (give the op a partition hook: ShardingRuleOpInterface)";
  if (failed(retypeResultsToLocal(op, context)))
    return failure();
  if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
    return op->emitOpError()
           << "is not valid on this rank's blocks (its sharding rule is "
              "written on it, so it is partitioned as the same op on local "
              "blocks); give it a partition hook (ShardingRuleOpInterface)";
  return success();
}

//===----------------------------------------------------------------------===//
// #shard.rule
//===----------------------------------------------------------------------===//

LogicalResult
ShardingRuleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ShardingRule rule) {
  if (std::string problem = ruleProblem(rule); !problem.empty())
    return emitError() << "a sharding rule that is not valid: " << problem;
  return success();
}

/// `[d0, _]`: the loop indexing each dim, or none.
static void printRuleDims(AsmPrinter &printer,
                          const std::vector<int64_t> &dims) {
  printer << '[';
  llvm::interleaveComma(dims, printer, [&](int64_t loop) {
    if (loop < 0)
      printer << '_';
    else
      printer << 'd' << loop;
  });
  printer << ']';
}

void ShardingRuleAttr::print(AsmPrinter &printer) const {
  const ShardingRule &rule = getRule();
  auto tensors = [&](const std::vector<std::vector<int64_t>> &list) {
    printer << '(';
    llvm::interleaveComma(list, printer, [&](const std::vector<int64_t> &d) {
      printRuleDims(printer, d);
    });
    printer << ')';
  };
  printer << '<';
  tensors(rule.operands);
  printer << " -> ";
  tensors(rule.results);
  printer << " {";
  llvm::interleaveComma(llvm::enumerate(rule.loops), printer, [&](auto loop) {
    printer << 'd' << loop.index() << '=' << loop.value().size;
  });
  printer << '}';
  auto loopsWhere = [&](const char *name, auto pred, auto print) {
    std::vector<size_t> which;
    for (auto [n, loop] : llvm::enumerate(rule.loops))
      if (pred(loop))
        which.push_back(n);
    if (which.empty())
      return;
    printer << ' ' << name << "={";
    llvm::interleaveComma(which, printer, [&](size_t n) {
      printer << 'd' << n;
      print(rule.loops[n]);
    });
    printer << '}';
  };
  using Loop = ShardingRule::Loop;
  loopsWhere(
      "reduction", [](const Loop &l) { return l.reduction; },
      [](const Loop &) {});
  if (llvm::any_of(rule.combiners, [](auto c) { return c.has_value(); })) {
    printer << " combiners=[";
    llvm::interleaveComma(rule.combiners, printer, [&](auto c) {
      printer << (c ? layout::reduceName(*c) : "none");
    });
    printer << ']';
  }
  loopsWhere(
      "unshardable", [](const Loop &l) { return !l.unshardable.empty(); },
      [&](const Loop &l) {
        printer << ": ";
        printer.printString(l.unshardable);
      });
  loopsWhere(
      "unstrided", [](const Loop &l) { return !l.unstrided.empty(); },
      [&](const Loop &l) {
        printer << ": ";
        printer.printString(l.unstrided);
      });
  loopsWhere(
      "folds", [](const Loop &l) { return l.innerFactor != 1; },
      [&](const Loop &l) { printer << '*' << l.innerFactor; });
  if (!rule.windows.empty()) {
    printer << " windows={";
    bool first = true;
    for (auto [i, dims] : llvm::enumerate(rule.windows)) {
      if (dims.empty())
        continue;
      printer << (first ? "" : ", ") << i << ": ";
      printRuleDims(printer, dims);
      first = false;
    }
    printer << '}';
  }
  if (llvm::any_of(rule.inits, [](int64_t i) { return i != -1; })) {
    printer << " inits=[";
    llvm::interleaveComma(rule.inits, printer, [&](int64_t i) {
      if (i == -1)
        printer << "none";
      else
        printer << i;
    });
    printer << ']';
  }
  if (!rule.folds.empty()) {
    // strided={d1: r0[0] x2}: loop d1 folds into result #0's dim 0 in 2
    // groups.
    printer << " strided={";
    llvm::interleaveComma(
        rule.folds, printer, [&](const ShardingRule::Fold &f) {
          printer << 'd' << f.loop << ": " << (f.result ? 'r' : 'o') << f.tensor
                  << '[' << f.dim << "] x" << f.groups;
        });
    printer << '}';
  }
  if (!rule.linear.empty()) {
    printer << " linear=[";
    llvm::interleaveComma(rule.linear, printer,
                          [&](const std::vector<int64_t> &group) {
                            printer << '[';
                            llvm::interleaveComma(group, printer);
                            printer << ']';
                          });
    printer << ']';
  }
  printer << '>';
}

/// `dK`, or `_` where `allowNone` (then -1).
static ParseResult parseRuleLoop(AsmParser &parser, int64_t &loop,
                                 bool allowNone) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (succeeded(parser.parseOptionalKeyword(&word))) {
    if (allowNone && word == "_") {
      loop = -1;
      return success();
    }
    if (word.consume_front("d") && !word.getAsInteger(10, loop) && loop >= 0)
      return success();
  }
  return parser.emitError(loc)
         << (allowNone ? "expected a loop (d0, d1, ...) or '_'"
                       : "expected a loop (d0, d1, ...)");
}

static ParseResult parseRuleDims(AsmParser &parser,
                                 std::vector<int64_t> &dims) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        int64_t loop = -1;
        if (failed(parseRuleLoop(parser, loop, /*allowNone=*/true)))
          return failure();
        dims.push_back(loop);
        return success();
      });
}

static ParseResult parseRuleTensors(AsmParser &parser,
                                    std::vector<std::vector<int64_t>> &list) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Paren, [&]() -> ParseResult {
        list.emplace_back();
        return parseRuleDims(parser, list.back());
      });
}

/// An integer, never `true` or `false` (which MLIR's parseInteger reads
/// as 1 and 0).
static ParseResult parseRuleInteger(AsmParser &parser, int64_t &value) {
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalKeyword("true")) ||
      succeeded(parser.parseOptionalKeyword("false")))
    return parser.emitError(loc) << "expected an integer";
  return parser.parseInteger(value);
}

/// `={dK..., ...}`: a set of loops, each once, each followed by what
/// `entry` parses.
static ParseResult
parseLoopSet(AsmParser &parser, ShardingRule &rule,
             function_ref<ParseResult(ShardingRule::Loop &)> entry) {
  if (parser.parseEqual())
    return failure();
  std::set<int64_t> seen;
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Braces, [&]() -> ParseResult {
        SMLoc loc = parser.getCurrentLocation();
        int64_t loop = -1;
        if (failed(parseRuleLoop(parser, loop, /*allowNone=*/false)))
          return failure();
        if (loop >= static_cast<int64_t>(rule.loops.size()))
          return parser.emitError(loc)
                 << "loop d" << loop << " is not among the rule's "
                 << rule.loops.size() << " loops";
        if (!seen.insert(loop).second)
          return parser.emitError(loc) << "loop d" << loop << " is given twice";
        return entry(rule.loops[loop]);
      });
}

Attribute ShardingRuleAttr::parse(AsmParser &parser, Type) {
  ShardingRule rule;
  if (parser.parseLess() || parseRuleTensors(parser, rule.operands) ||
      parser.parseArrow() || parseRuleTensors(parser, rule.results))
    return {};
  // {d0=8, d1=4, ...}: every loop in order.
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Braces, [&]() -> ParseResult {
            SMLoc loc = parser.getCurrentLocation();
            int64_t loop = -1, size = 0;
            if (failed(parseRuleLoop(parser, loop, /*allowNone=*/false)))
              return failure();
            if (loop != static_cast<int64_t>(rule.loops.size()))
              return parser.emitError(loc)
                     << "expected loop d" << rule.loops.size()
                     << " (loops are listed in order)";
            if (parser.parseEqual() || parseRuleInteger(parser, size))
              return failure();
            rule.loops.push_back({size, false, {}});
            return success();
          }))
    return {};
  rule.combiners.assign(rule.results.size(), std::nullopt);
  rule.inits.assign(rule.results.size(), -1);
  // The optional parts, each at most once, in any order.
  llvm::StringSet<> seen;
  StringRef key;
  while (succeeded(parser.parseOptionalKeyword(
      &key, {"reduction", "combiners", "unshardable", "unstrided", "folds",
             "windows", "inits", "linear", "strided"}))) {
    if (!seen.insert(key).second) {
      parser.emitError(parser.getCurrentLocation())
          << "'" << key << "' is given twice";
      return {};
    }
    ParseResult parsed = success();
    if (key == "reduction") {
      parsed = parseLoopSet(parser, rule, [](ShardingRule::Loop &loop) {
        loop.reduction = true;
        return success();
      });
    } else if (key == "unshardable" || key == "unstrided") {
      // {dK: "why"}: a loop that may not be cut (strided), with its reason.
      const bool cut = key == "unshardable";
      parsed = parseLoopSet(
          parser, rule, [&](ShardingRule::Loop &loop) -> ParseResult {
            std::string &why = cut ? loop.unshardable : loop.unstrided;
            if (parser.parseColon())
              return failure();
            SMLoc at = parser.getCurrentLocation();
            if (parser.parseString(&why))
              return failure();
            if (why.empty())
              return parser.emitError(at)
                     << "a loop that may not be cut " << (cut ? "" : "strided ")
                     << "needs its reason";
            return success();
          });
    } else if (key == "folds") {
      parsed = parseLoopSet(parser, rule, [&](ShardingRule::Loop &loop) {
        return failure(parser.parseStar() ||
                       parseRuleInteger(parser, loop.innerFactor));
      });
    } else if (key == "strided") {
      // strided={dK: rN[D] xG, ...}
      parsed = failure(
          parser.parseEqual() ||
          parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Braces, [&]() -> ParseResult {
                ShardingRule::Fold fold;
                SMLoc loc = parser.getCurrentLocation();
                StringRef tensor, groups;
                if (failed(parseRuleLoop(parser, fold.loop,
                                         /*allowNone=*/false)) ||
                    parser.parseColon() || parser.parseKeyword(&tensor))
                  return failure();
                fold.result = tensor.consume_front("r");
                if (!fold.result && !tensor.consume_front("o"))
                  return parser.emitError(loc)
                         << "expected a tensor (o0, o1, ... or r0, r1, ...)";
                if (tensor.getAsInteger(10, fold.tensor))
                  return parser.emitError(loc) << "expected a tensor number";
                if (parser.parseLSquare() ||
                    parseRuleInteger(parser, fold.dim) ||
                    parser.parseRSquare() || parser.parseKeyword(&groups))
                  return failure();
                if (!groups.consume_front("x") ||
                    groups.getAsInteger(10, fold.groups))
                  return parser.emitError(loc)
                         << "expected the groups (x2, x3, ...)";
                rule.folds.push_back(fold);
                return success();
              }));
    } else if (key == "linear") {
      // linear=[[0, 2], [1, 2]]: groups of operand numbers.
      parsed =
          failure(parser.parseEqual() ||
                  parser.parseCommaSeparatedList(
                      AsmParser::Delimiter::Square, [&]() -> ParseResult {
                        rule.linear.emplace_back();
                        return parser.parseCommaSeparatedList(
                            AsmParser::Delimiter::Square, [&]() -> ParseResult {
                              int64_t operand = -1;
                              if (parseRuleInteger(parser, operand))
                                return failure();
                              rule.linear.back().push_back(operand);
                              return success();
                            });
                      }));
    } else if (key == "combiners" || key == "inits") {
      std::vector<std::string> words;
      size_t index = 0;
      parsed =
          failure(parser.parseEqual() ||
                  parser.parseCommaSeparatedList(
                      AsmParser::Delimiter::Square, [&]() -> ParseResult {
                        SMLoc loc = parser.getCurrentLocation();
                        if (index >= rule.results.size())
                          return parser.emitError(loc)
                                 << "more " << key << " than the rule's "
                                 << rule.results.size() << " results";
                        const size_t r = index++;
                        if (succeeded(parser.parseOptionalKeyword("none")))
                          return success();
                        if (key == "inits")
                          return parseRuleInteger(parser, rule.inits[r]);
                        StringRef name;
                        if (failed(parser.parseOptionalKeyword(&name)))
                          return parser.emitError(loc)
                                 << "expected a combiner (sum, avg, max, min, "
                                    "product) or 'none'";
                        rule.combiners[r] = layout::parseReduce(name.str());
                        if (!rule.combiners[r])
                          return parser.emitError(loc)
                                 << "expected a combiner (sum, avg, max, min, "
                                    "product) or 'none', got '"
                                 << name << "'";
                        return success();
                      }));
      if (succeeded(parsed) && index != rule.results.size()) {
        parser.emitError(parser.getCurrentLocation())
            << index << " " << key << " for the rule's " << rule.results.size()
            << " results (one each)";
        return {};
      }
    } else {
      // windows={N: [_, dK], ...}
      parsed = failure(
          parser.parseEqual() ||
          parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Braces, [&]() -> ParseResult {
                SMLoc loc = parser.getCurrentLocation();
                int64_t operand = -1;
                if (parseRuleInteger(parser, operand) || parser.parseColon())
                  return failure();
                if (operand < 0 ||
                    operand >= static_cast<int64_t>(rule.operands.size()))
                  return parser.emitError(loc)
                         << "operand #" << operand << " is not among the "
                         << rule.operands.size() << " operands";
                rule.windows.resize(rule.operands.size());
                if (!rule.windows[operand].empty())
                  return parser.emitError(loc)
                         << "operand #" << operand << " is given twice";
                return parseRuleDims(parser, rule.windows[operand]);
              }));
    }
    if (failed(parsed))
      return {};
  }
  if (parser.parseGreater())
    return {};
  canonicalizeWindows(rule);
  return parser.getChecked<ShardingRuleAttr>(parser.getContext(),
                                             std::move(rule));
}

TypedAttr shardc::identityOf(layout::Placement::Reduce reduce, Type type) {
  using Reduce = layout::Placement::Reduce;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (reduce) {
    case Reduce::Sum:
    case Reduce::Avg:
      return FloatAttr::get(type, APFloat::getZero(sem));
    case Reduce::Product:
      return FloatAttr::get(type, APFloat::getOne(sem));
    case Reduce::Max:
      return FloatAttr::get(type, APFloat::getInf(sem, /*Negative=*/true));
    case Reduce::Min:
      return FloatAttr::get(type, APFloat::getInf(sem, /*Negative=*/false));
    }
  }
  unsigned width = type.isIndex() ? 64 : cast<IntegerType>(type).getWidth();
  switch (reduce) {
  case Reduce::Sum:
  case Reduce::Avg:
    return IntegerAttr::get(type, APInt::getZero(width));
  case Reduce::Product:
    return IntegerAttr::get(type, APInt(width, 1));
  case Reduce::Max:
    return IntegerAttr::get(type, APInt::getSignedMinValue(width));
  case Reduce::Min:
    return IntegerAttr::get(type, APInt::getSignedMaxValue(width));
  }
  return nullptr;
}
