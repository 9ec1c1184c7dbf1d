//===- Partition.cpp - Annotated functions -> what each rank runs ---------===//
//
// -shard-spmd-partition. First reads, without changing anything, the global
// layout of every tensor value of each function that has layouts (its
// arguments' shard.layout, each constraint's layout, each compute op's
// results from the sharding its operands' layouts give under its rule), and
// checks that every compute op's operands have exactly the layouts its
// sharding needs. Then rewrites in place: every value takes its local type
// (getLocalType), tensor.empty and constants build this rank's block,
// sharded reductions start from the identity on all but the first copy,
// and each constraint that changes the layout becomes from_local_shards ->
// redistribute -> local_shards, which -shard-plan-redistribute (run here on
// the module) turns into the planner's collectives.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"

#include "ControlFlow.h"
#include "CostModelOptions.h"
#include "DynamicExtents.h"
#include "FunctionAttrs.h"

#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Rules/ExtentOrigin.h"
#include "shardc/Rules/LoopSharding.h"
#include "shardc/Rules/RuleMemo.h"
#include "shardc/Rules/TensorCast.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>

namespace shardc {
#define GEN_PASS_DEF_SHARDPARTITION
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using layout::Placement;

namespace {

/// Ranks of the per-rank tables at most (2^20: 8 MiB of index values).
constexpr int64_t kMaxTableRanks = int64_t(1) << 20;

/// A layout's sharded tensor type for a value of global type `type`.
ShardedTensorType shardedType(RankedTensorType type,
                              ShardingSpecAttrInterface layout) {
  return ShardedTensorType::get(type.getContext(), type.getShape(),
                                type.getElementType(), layout);
}

class Partitioner : public PartitionContext {
public:
  explicit Partitioner(ModuleOp module) : module(module) {}

  /// Reads every layout of the functions to partition; emits and fails on
  /// the first problem.
  LogicalResult analyze();
  /// Rewrites them into their per-rank form.
  LogicalResult rewrite();

private:
  ModuleOp module;
  /// The rules of ops alike, computed once while analyzing (cleared
  /// before the rewrite, which erases ops).
  RuleMemo ruleMemo;
  std::vector<func::FuncOp> funcs;
  /// Each partitioned function's argument and result layouts (null: not a
  /// tensor with a layout).
  llvm::DenseMap<Operation *, std::vector<ShardingSpecAttrInterface>>
      argLayouts, resultLayouts;
  /// The global type and layout of every tensor value of those functions.
  llvm::DenseMap<Value, std::pair<RankedTensorType, ShardingSpecAttrInterface>>
      layouts;
  /// The rule of each compute op, read once.
  llvm::DenseMap<Operation *, ShardingRule> rules;
  /// The largest rank holding a block of each layout seen.
  llvm::DenseMap<Attribute, int64_t> largestRank;
  /// Per function: this rank (shard.spmd.rank), made on first use.
  llvm::DenseMap<Operation *, Value> rankOf;
  /// Per function, the ranks holding a block of its tensors with dynamic
  /// dims (one set for all of them), and the first such layout: a rank
  /// learns a dynamic dim's extent only from a block it holds.
  struct DynamicHolders {
    std::vector<int64_t> ranks;
    ShardedTensorType first;
  };
  llvm::DenseMap<Operation *, DynamicHolders> dynamicHolders;

  LogicalResult analyzeBlock(Block &block);
  /// An op that carries layouts through its regions (ControlFlow.h).
  LogicalResult analyzeFlow(Operation &op);
  /// Checks that each tensor of `values` has the layout of the same index
  /// in `needs` (null: none), as -shard-propagate leaves them; `what`
  /// names the use ("result", "argument", ...) for `where`'s diagnostic,
  /// numbered from `first`.
  LogicalResult checkPassed(Operation *where, ValueRange values,
                            ArrayRef<ShardingSpecAttrInterface> needs,
                            StringRef what, unsigned first = 0);
  LogicalResult analyzeRuleOp(Operation *op);
  LogicalResult setLayout(Value value, ShardingSpecAttrInterface layout,
                          Operation *where);
  ShardingSpecAttrInterface layoutOf(Value value) const {
    auto it = layouts.find(value);
    return it == layouts.end() ? nullptr : it->second.second;
  }

public:
  // The partition hooks' context (shardc/Dialect/PartitionContext.h).
  ShardedTensorType globalOf(Value value) const override {
    auto it = layouts.find(value);
    if (it == layouts.end())
      llvm::report_fatal_error("shardc: a partition hook asked for the "
                               "layout of a value the partition never saw");
    return shardedType(it->second.first, it->second.second);
  }
  RankedTensorType localOf(Value value) const override {
    return getLocalType(globalOf(value));
  }
  void replace(Value old, Value local, Operation *except = nullptr) override {
    if (auto it = layouts.find(old); it != layouts.end()) {
      auto layout = it->second;
      layouts[local] = layout;
    }
    if (old != local)
      renameInOrigins(old, local);
    if (except)
      old.replaceAllUsesExcept(local, except);
    else
      old.replaceAllUsesWith(local);
  }
  SmallVector<OpFoldResult>
  localSizes(OpBuilder &b, Location loc, Operation *inside,
             ShardedTensorType type,
             ArrayRef<OpFoldResult> globalSizes = {}) override;
  SmallVector<OpFoldResult>
  localOffsets(OpBuilder &b, Location loc, Operation *inside,
               ShardedTensorType type,
               ArrayRef<OpFoldResult> globalSizes = {}) override;
  OpFoldResult globalExtent(OpBuilder &b, Location loc, Value value,
                            int64_t d) override;
  OpFoldResult perRankIndex(OpBuilder &b, Location loc, Operation *inside,
                            ArrayRef<int64_t> values) override {
    if (llvm::all_equal(values))
      return b.getIndexAttr(values.empty() ? 0 : values.front());
    return perRank(b, loc, inside, values, b.getIndexType());
  }
  Value redistribute(OpBuilder &b, Location loc, Value local,
                     ShardedTensorType from, ShardedTensorType to) override;
  /// `local`, a value a move made, as this rank's block of a value of
  /// type `global`: hooks ask for the layouts of the values they move (a
  /// linalg op's init moved to its Partial copies is read again for its
  /// loops' offsets). A value the partition knows keeps its own.
  Value record(Value local, ShardedTensorType global) {
    layouts.try_emplace(
        local, RankedTensorType::get(global.getDims(), global.getElementType()),
        global.getSpec());
    return local;
  }

private:
  Value rank(OpBuilder &b, Operation *inside);
  /// This rank's offset and size in each dim of `type` its layout cuts
  /// though it is dynamic: torch.chunk of `globalSizes[d]` at this rank's
  /// mesh coordinates (null where the dim is not such a dim, or `skip`
  /// says so).
  SmallVector<std::pair<Value, Value>>
  dynamicChunks(OpBuilder &b, Location loc, Operation *inside,
                ShardedTensorType type, ArrayRef<OpFoldResult> globalSizes,
                ArrayRef<bool> skip = {});
  /// The tensor (this rank's block of it) and dim the extent `extent` was
  /// summed from, where its layout cuts that dim as `type`'s layout cuts a
  /// dim (`cut`): the same mesh and axes, so the same chunk on every rank;
  /// null otherwise.
  std::pair<Value, int64_t>
  alikeBlock(const DimCut &cut, ShardedTensorType type, OpFoldResult extent);
  /// The run-time extent of dim `d` of `root`, an origin of extents
  /// (extentOrigin) that its layout cuts: the blocks' sizes summed across
  /// the mesh once, right after `root` is made.
  Value extentOfRoot(Value root, int64_t d);
  /// Where dim `d` of each tensor whose layout cuts that dynamic dim gets
  /// its extent (extentOrigin), read before anything is rewritten: by the
  /// ids of the values (track), which follow a value a hook replaces.
  llvm::DenseMap<std::pair<unsigned, int64_t>, std::pair<unsigned, int64_t>>
      origins;
  /// Each value `origins` names: its id, and each id's value now.
  llvm::DenseMap<Value, unsigned> tracked;
  std::vector<Value> current;
  unsigned track(Value value) {
    auto [it, inserted] = tracked.try_emplace(value, current.size());
    if (inserted)
      current.push_back(value);
    return it->second;
  }
  /// Each extent summed by extentOfRoot, and back: the tensor and dim it
  /// was summed from, and the ops that sum it (erased where nothing uses
  /// it in the end: localSizes read its chunks from blocks cut alike).
  llvm::DenseMap<std::pair<Value, int64_t>, Value> summed;
  llvm::DenseMap<Value, std::pair<Value, int64_t>> summedFrom;
  llvm::DenseMap<Value, SmallVector<Operation *>> summing;
  /// Makes `local` what `old` was in `origins` (as a tensor asked of and
  /// as an origin): `old` is erased next, and a value made later may take
  /// its place in memory.
  void renameInOrigins(Value old, Value local) {
    auto it = tracked.find(old);
    if (it == tracked.end())
      return;
    const unsigned id = it->second;
    tracked.erase(it);
    tracked[local] = id;
    current[id] = local;
  }
  /// Per function, the op after which its arguments' extents are summed
  /// (the entry's check that the rank holds its dynamic tensors).
  llvm::DenseMap<Operation *, Operation *> entryAnchor;
  Value perRank(OpBuilder &b, Location loc, Operation *inside,
                ArrayRef<int64_t> values, Type elementType);
  LogicalResult rewriteFunction(func::FuncOp func);
  LogicalResult rewriteConstraint(ConstraintOp op);
};

/// Whether `func` has layouts to partition (and is not partitioned yet).
bool hasLayouts(func::FuncOp func) {
  auto any = [](ArrayAttr attrs, StringRef name) {
    return attrs && llvm::any_of(attrs, [&](Attribute a) {
             auto dict = dyn_cast_or_null<DictionaryAttr>(a);
             return dict && dict.get(name);
           });
  };
  if (any(func.getAllArgAttrs(), kGlobalAttr) ||
      any(func.getAllResultAttrs(), kGlobalAttr))
    return false;
  if (any(func.getAllArgAttrs(), kLayoutAttr) ||
      any(func.getAllResultAttrs(), kLayoutAttr))
    return true;
  bool constrained = false;
  func.walk([&](ConstraintOp) { constrained = true; });
  return constrained;
}

LogicalResult Partitioner::setLayout(Value value,
                                     ShardingSpecAttrInterface layout,
                                     Operation *where) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return success();
  if (!takesLayout(type))
    return where->emitOpError()
           << "has a tensor of type " << type
           << " in a function that gets layouts; sharding needs tensors "
              "without encodings";
  if (!layout)
    return where->emitOpError() << "has a tensor value without a layout ("
                                << type << "); run -shard-propagate first";
  // A layout read from the IR on a dynamic shape must leave its dynamic
  // dims whole (the attribute was checked against the tensor's type where
  // the verifier saw it; a pass may have written it since).
  if (!type.hasStaticShape()) {
    if (failed(ShardedTensorType::verify([&] { return where->emitOpError(); },
                                         type.getShape(), type.getElementType(),
                                         layout)))
      return failure();
    // Every rank of the world must hold a block of each such tensor (its
    // run-time extent is read from the block): one set of ranks for all
    // of a function's, checked at its entry (rewriteFunction).
    ShardedTensorType global = shardedType(type, layout);
    if (severalPerRank(global)) {
      // Named where it is a function's argument (else the op's own value).
      std::string which;
      if (auto arg = dyn_cast<BlockArgument>(value);
          arg && isa<func::FuncOp>(where) &&
          arg.getOwner() == &cast<func::FuncOp>(where).getBody().front())
        which = "argument #" + std::to_string(arg.getArgNumber()) + " of type ";
      return where->emitOpError()
             << "has " << which << global
             << ", of which a rank holds several blocks: packed, their sizes "
                "in a dynamic dim are not known before it runs";
    }
    std::vector<int64_t> ranks = holdingRanks(global);
    Operation *func = isa<func::FuncOp>(where)
                          ? where
                          : where->getParentOfType<func::FuncOp>();
    DynamicHolders &holders = dynamicHolders[func];
    if (!holders.first) {
      holders.ranks = ranks;
      holders.first = global;
    } else if (holders.ranks != ranks) {
      return where->emitOpError()
             << "has " << global << ", held on ranks "
             << layout::formatList(ranks) << ", and " << holders.first
             << ", held on ranks " << layout::formatList(holders.ranks)
             << ", in one function; tensors with dynamic dims must all be "
                "held on the same ranks (a rank knows a dynamic dim's extent "
                "only from a block it holds)";
    }
  }
  // This rank's part is read from tables indexed by rank (perRank).
  auto [known, fresh] = largestRank.try_emplace(layout, -1);
  if (fresh)
    for (const layout::Block &block :
         shardedType(type, layout).getDeviceBlocks())
      known->second = std::max(known->second, block.placement.rank);
  if (known->second >= kMaxTableRanks)
    return where->emitOpError()
           << "has a layout on devices up to rank " << known->second
           << "; -shard-spmd-partition reads each rank's part from tables "
              "indexed "
              "by rank, which it makes for ranks below "
           << kMaxTableRanks;
  layouts[value] = {type, layout};
  return success();
}

LogicalResult Partitioner::analyze() {
  module.walk([&](func::FuncOp func) {
    if (hasLayouts(func))
      funcs.push_back(func);
  });
  for (func::FuncOp func : funcs) {
    auto read = [](ArrayAttr all, size_t i) -> ShardingSpecAttrInterface {
      if (!all)
        return nullptr;
      auto dict = dyn_cast_or_null<DictionaryAttr>(all[i]);
      return dict ? dyn_cast_or_null<ShardingSpecAttrInterface>(
                        dict.get(kLayoutAttr))
                  : nullptr;
    };
    auto &args = argLayouts[func];
    for (size_t i = 0; i < func.getNumArguments(); ++i)
      args.push_back(read(func.getAllArgAttrs(), i));
    auto &results = resultLayouts[func];
    for (size_t i = 0; i < func.getNumResults(); ++i)
      results.push_back(read(func.getAllResultAttrs(), i));
  }
  for (func::FuncOp func : funcs) {
    if (func.isExternal())
      continue;
    if (!func.getBody().hasOneBlock())
      return func.emitOpError() << "has " << func.getBody().getBlocks().size()
                                << " blocks; -shard-spmd-partition handles "
                                   "functions of one block";
    for (BlockArgument arg : func.getArguments()) {
      if (isa<RankedTensorType>(arg.getType()) &&
          !argLayouts[func][arg.getArgNumber()])
        return func.emitOpError()
               << "argument #" << arg.getArgNumber() << " (" << arg.getType()
               << ") has no layout; run -shard-propagate first";
      if (failed(setLayout(arg, argLayouts[func][arg.getArgNumber()], func)))
        return failure();
    }
    if (failed(analyzeBlock(func.getBody().front())))
      return failure();
  }
  // Where each cut dynamic dim gets its extent, on the program as written.
  for (auto &[value, layout] : layouts) {
    if (layout.first.hasStaticShape())
      continue;
    std::vector<DimCut> cuts =
        dynamicDimCuts(shardedType(layout.first, layout.second));
    for (auto [d, cut] : llvm::enumerate(cuts))
      if (cut.cuts()) {
        auto [origin, dim] = extentOrigin(value, static_cast<int64_t>(d));
        origins[{track(value), static_cast<int64_t>(d)}] = {track(origin), dim};
      }
  }
  return success();
}

LogicalResult Partitioner::analyzeBlock(Block &block) {
  for (Operation &op : block) {
    if (auto constraint = dyn_cast<ConstraintOp>(op)) {
      if (failed(
              setLayout(constraint.getResult(), constraint.getLayout(), &op)))
        return failure();
      // A value made partial holds the reduction's identity off its first
      // copy: an arith constant of its element type.
      auto partial = dyn_cast<PlacementsSpecAttr>(constraint.getLayout());
      Type element = getElementTypeOrSelf(constraint.getType());
      if (partial && partial.hasPartial() &&
          !isa<FloatType, IntegerType, IndexType>(element))
        return op.emitOpError() << "asks for the Partial layout " << partial
                                << " of elements of type " << element
                                << ", whose reduction identity "
                                   "-shard-spmd-partition cannot make "
                                   "(floats, integers and index only)";
      continue;
    }
    if (carriesLayouts(&op)) {
      if (failed(analyzeFlow(op)))
        return failure();
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      auto args = argLayouts.find(callee);
      if (args == argLayouts.end()) {
        if (llvm::any_of(call.getOperands(), [&](Value v) {
              return static_cast<bool>(layoutOf(v));
            }))
          return op.emitOpError()
                 << "passes a tensor with a layout to " << call.getCalleeAttr()
                 << ", which has no layouts; run -shard-propagate first";
      } else if (failed(checkPassed(&op, call.getOperands(), args->second,
                                    "argument"))) {
        return failure();
      }
      auto it = resultLayouts.find(callee);
      for (OpResult result : call.getResults())
        if (failed(setLayout(result,
                             it == resultLayouts.end()
                                 ? nullptr
                                 : it->second[result.getResultNumber()],
                             &op)))
          return failure();
      continue;
    }
    if (isa<func::ReturnOp>(op)) {
      auto func = op.getParentOfType<func::FuncOp>();
      if (failed(checkPassed(&op, op.getOperands(), resultLayouts[func],
                             "result")))
        return failure();
      continue;
    }
    if (forwardsLayouts(&op))
      continue;
    auto touches = [](Type t) { return isa<TensorType>(t); };
    // Only the regions of ops that carry layouts are entered (a rule op's
    // hold scalars): a tensor used in another op's regions would keep its
    // global type.
    if (op.getNumRegions() > 0 && !hasShardingRule(&op)) {
      Operation *inside = nullptr;
      op.walk([&](Operation *inner) {
        if (inner != &op && (isa<ConstraintOp>(inner) ||
                             llvm::any_of(inner->getOperandTypes(), touches) ||
                             llvm::any_of(inner->getResultTypes(), touches))) {
          inside = inner;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (inside)
        return inside->emitOpError()
               << "uses tensors inside '" << op.getName()
               << "', whose regions -shard-spmd-partition does not enter "
                  "(it enters those whose values RegionBranchOpInterface "
                  "says it forwards, as scf.for's and affine.for's), and its "
                  "function gets layouts";
    }
    if (llvm::none_of(op.getOperandTypes(), touches) &&
        llvm::none_of(op.getResultTypes(), touches) &&
        !(hasShardingRule(&op) && capturesTensors(&op)))
      continue;
    for (Type type :
         llvm::concat<Type>(op.getOperandTypes(), op.getResultTypes())) {
      if (isa<TensorType>(type) && !takesLayout(type))
        return op.emitOpError()
               << "has a tensor of type " << type
               << " in a function that gets layouts; sharding needs ranked "
                  "tensors without encodings";
    }
    if (!hasShardingRule(&op))
      return op.emitOpError() << "has no sharding rule, and its function "
                                 "gets layouts; run -shard-propagate first "
                                 "for the whole diagnosis";
    // A rule op's regions run as written (a payload on each element, or
    // whole on every rank): a layout pinned there pins nothing.
    if (op.getNumRegions() > 0) {
      Operation *pin = nullptr;
      op.walk([&](Operation *inner) {
        if (inner == &op ||
            !(isa<ConstraintOp>(inner) || inner->hasAttr(kOpShardingAttr)))
          return WalkResult::advance();
        pin = inner;
        return WalkResult::interrupt();
      });
      if (pin)
        return pin->emitOpError()
               << "pins a "
               << (isa<ConstraintOp>(pin)
                       ? std::string("layout")
                       : "sharding (" + std::string(kOpShardingAttr) + ")")
               << " inside '" << op.getName()
               << "', whose regions -shard-spmd-partition leaves as written "
                  "(the op's sharding rule covers them); remove it";
    }
    if (failed(analyzeRuleOp(&op)))
      return failure();
  }
  return success();
}

LogicalResult Partitioner::analyzeFlow(Operation &op) {
  // Each group's layout is that of its first source whose layout is known:
  // the op's own (an init), else a terminator's in a region analyzed
  // already (a condition's values, a branch's yield).
  SmallVector<FlowGroup> groups = flowGroups(&op);
  SmallVector<ShardingSpecAttrInterface> layout(groups.size());
  SmallVector<bool> known(groups.size(), false);
  SmallVector<Region *> analyzed;
  auto settle = [&]() -> LogicalResult {
    for (auto [g, group] : llvm::enumerate(groups)) {
      if (known[g])
        continue;
      for (OpOperand *source : group.sources) {
        Operation *owner = source->getOwner();
        if (owner != &op &&
            !llvm::is_contained(analyzed, owner->getParentRegion()))
          continue;
        layout[g] = layoutOf(source->get());
        known[g] = true;
        for (Value value : group.values)
          if (failed(setLayout(value, layout[g], &op)))
            return failure();
        break;
      }
    }
    return success();
  };
  if (failed(settle()))
    return failure();
  for (Region &region : op.getRegions()) {
    if (region.empty())
      continue;
    for (BlockArgument arg : region.front().getArguments())
      if (isa<RankedTensorType>(arg.getType()) && !layouts.count(arg))
        return op.emitOpError()
               << "passes carried value #" << arg.getArgNumber()
               << " into region #" << region.getRegionNumber()
               << " only from a region after it; -shard-spmd-partition "
                  "cannot tell its layout";
    if (failed(analyzeBlock(region.front())))
      return failure();
    analyzed.push_back(&region);
    if (failed(settle()))
      return failure();
  }
  // Every forwarded tensor reaches its group in the group's layout.
  auto branch = cast<RegionBranchOpInterface>(op);
  for (auto [g, group] : llvm::enumerate(groups)) {
    const bool carried = llvm::any_of(group.values, [&](Value v) {
      auto arg = dyn_cast<BlockArgument>(v);
      return arg && branch.isRepetitiveRegion(
                        arg.getOwner()->getParent()->getRegionNumber());
    });
    for (OpOperand *source : group.sources)
      if (failed(checkPassed(source->getOwner(), ValueRange{source->get()},
                             {layout[g]},
                             carried ? "loop-carried value"
                                     : "result (as another branch yields it)",
                             source->getOperandNumber())))
        return failure();
  }
  return success();
}

LogicalResult
Partitioner::checkPassed(Operation *where, ValueRange values,
                         ArrayRef<ShardingSpecAttrInterface> needs,
                         StringRef what, unsigned first) {
  for (auto [i, value] : llvm::enumerate(values)) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      continue;
    ShardingSpecAttrInterface have = layoutOf(value);
    ShardingSpecAttrInterface need = i < needs.size() ? needs[i] : nullptr;
    if (!have || !need)
      return where->emitOpError()
             << "passes " << what << " #" << first + i << " (" << type << ") "
             << (have ? "with" : "without") << " a layout where "
             << (need ? "one is" : "none is")
             << " expected; run -shard-propagate first";
    if (!sameBlocks(have, need, type.getShape()))
      return where->emitOpError()
             << "passes " << what << " #" << first + i << " with layout "
             << have << " where layout " << need
             << " is expected; run -shard-propagate first (it moves the "
                "value between them)";
  }
  return success();
}

LogicalResult Partitioner::analyzeRuleOp(Operation *op) {
  FailureOr<ShardingRule> rule = ruleMemo.ruleOf(op);
  if (failed(rule))
    return failure();
  // The op's operands, then the tensors its regions read from outside it.
  SmallVector<Value> operands(op->getOperands());
  llvm::append_range(operands, capturedTensors(op));
  // The decision -shard-propagate wrote on the op (or a user pinned).
  FailureOr<std::optional<LoopSharding>> decided =
      pinnedSharding(op, *rule, "-shard-spmd-partition");
  if (failed(decided))
    return failure();
  std::optional<LoopSharding> sharding = std::move(*decided);
  if (!sharding)
    return op->emitOpError() << "has no sharding (" << kOpShardingAttr
                             << "); run -shard-propagate first, or write one";
  for (auto [i, operand] : llvm::enumerate(operands)) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type)
      continue;
    ShardingSpecAttrInterface have = layoutOf(operand);
    // The layout the decision reads it in (its loops', or one it names).
    ShardingSpecAttrInterface need =
        operandLayoutUnder(op, *rule, *sharding, i, nullptr, type.getShape());
    std::string which = i < op->getNumOperands()
                            ? "operand #" + std::to_string(i)
                            : "the tensor its region reads from outside it (#" +
                                  std::to_string(i - op->getNumOperands()) +
                                  ")";
    if (!have)
      return op->emitOpError()
             << which << " has no layout; run -shard-propagate first";
    if (!sameBlocks(have, need, type.getShape()))
      return op->emitOpError()
             << which << " has layout " << have << ", but the op's sharding ("
             << describeSharding(*sharding) << ") needs " << need
             << "; run -shard-propagate first";
    if (need != have && severalPerRank(shardedType(type, need)))
      return op->emitOpError()
             << which << " would hold several blocks per rank";
  }
  for (OpResult result : op->getResults())
    if (failed(setLayout(
            result,
            resultLayoutUnder(*rule, *sharding, result.getResultNumber()), op)))
      return failure();
  rules[op] = std::move(*rule);
  return success();
}

Value Partitioner::rank(OpBuilder &b, Operation *inside) {
  auto func = inside->getParentOfType<func::FuncOp>();
  Value &r = rankOf[func];
  if (!r) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&func.getBody().front());
    r = SpmdRankOp::create(b, func.getLoc(), b.getIndexType());
  }
  return r;
}

/// `values[rank]` as a value of this rank (0 for ranks past the table):
/// `tensor.extract` from a constant table, indexed by the rank clamped to
/// the table's last entry, a 0.
Value Partitioner::perRank(OpBuilder &b, Location loc, Operation *inside,
                           ArrayRef<int64_t> values, Type elementType) {
  SmallVector<Attribute> entries;
  for (int64_t v : values)
    entries.push_back(b.getIntegerAttr(elementType, v));
  entries.push_back(b.getIntegerAttr(elementType, 0));
  auto tableType = RankedTensorType::get({static_cast<int64_t>(entries.size())},
                                         elementType);
  Value table = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(tableType, entries));
  Value last = arith::ConstantIndexOp::create(b, loc, values.size());
  Value index = arith::MinUIOp::create(b, loc, rank(b, inside), last);
  return tensor::ExtractOp::create(b, loc, table, ValueRange{index});
}

/// Each rank's box of `type` (ranks holding none: an empty box), indexed by
/// rank: the box of its local tensor, its block's; for a strided
/// layout, whose rank holds a block per group of a strided dim, laid one
/// after the other in its local tensor, the first block's offsets (no one
/// offset makes such a dim's local index global: hooks that need one refuse
/// strided cuts) and the local tensor's sizes, every group's rows (the
/// last block's alone made a tensor.empty of one group: ops writing into
/// it overran it).
static std::vector<layout::Box> boxesByRank(ShardedTensorType type) {
  std::vector<layout::Block> blocks = type.getDeviceBlocks();
  int64_t ranks = 0;
  for (const layout::Block &block : blocks)
    ranks = std::max(ranks, block.placement.rank + 1);
  const size_t rank = static_cast<size_t>(type.getRank());
  std::vector<layout::Box> boxes(ranks,
                                 layout::Box{std::vector<int64_t>(rank, 0),
                                             std::vector<int64_t>(rank, 0)});
  std::vector<bool> seen(ranks, false);
  for (const layout::Block &block : blocks)
    if (!seen[block.placement.rank]) {
      seen[block.placement.rank] = true;
      boxes[block.placement.rank] = block.box;
    }
  if (auto strided = stridedLocalShapes(type))
    for (const auto &[r, shape] : *strided)
      if (r >= 0 && r < ranks)
        boxes[r].sizes = shape;
  return boxes;
}

SmallVector<OpFoldResult>
Partitioner::localSizes(OpBuilder &b, Location loc, Operation *inside,
                        ShardedTensorType type,
                        ArrayRef<OpFoldResult> globalSizes) {
  RankedTensorType local = getLocalType(type);
  std::vector<layout::Box> boxes = boxesByRank(type);
  SmallVector<OpFoldResult> sizes;
  // Packed blocks of a tensor with dynamic dims have no size before it
  // runs: setLayout refuses them.
  if (severalPerRank(type) && !type.hasStaticShape())
    llvm::report_fatal_error("shardc: packed blocks of a tensor with dynamic "
                             "dims reached the partition");
  // A cut dynamic dim: this rank's chunk of its extent, or the size of
  // its block of the tensor the extent was summed from where that is cut
  // alike (no extent needed: data parallelism).
  std::vector<DimCut> cuts = dynamicDimCuts(type);
  SmallVector<std::pair<Value, int64_t>> alike(type.getRank());
  SmallVector<bool> skip(type.getRank(), false);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d) && static_cast<size_t>(d) < globalSizes.size()) {
      alike[d] = alikeBlock(cuts[d], type, globalSizes[d]);
      skip[d] = alike[d].first != nullptr;
    }
  SmallVector<std::pair<Value, Value>> chunks =
      dynamicChunks(b, loc, inside, type, globalSizes, skip);
  for (int64_t d = 0; d < local.getRank(); ++d) {
    if (type.isDynamicDim(d)) {
      if (alike[d].first)
        sizes.push_back(
            tensor::DimOp::create(b, loc, alike[d].first, alike[d].second)
                .getResult());
      else // whole: the extent
        sizes.push_back(chunks[d].second ? OpFoldResult(chunks[d].second)
                                         : globalSizes[d]);
      continue;
    }
    if (!local.isDynamicDim(d)) {
      sizes.push_back(b.getIndexAttr(local.getDimSize(d)));
      continue;
    }
    std::vector<int64_t> perRankSize;
    for (const layout::Box &box : boxes)
      perRankSize.push_back(box.sizes[d]);
    sizes.push_back(perRank(b, loc, inside, perRankSize, b.getIndexType()));
  }
  return sizes;
}

SmallVector<OpFoldResult>
Partitioner::localOffsets(OpBuilder &b, Location loc, Operation *inside,
                          ShardedTensorType type,
                          ArrayRef<OpFoldResult> globalSizes) {
  std::vector<layout::Box> boxes = boxesByRank(type);
  SmallVector<std::pair<Value, Value>> chunks =
      dynamicChunks(b, loc, inside, type, globalSizes);
  SmallVector<OpFoldResult> offsets;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (chunks[d].first) {
      offsets.push_back(chunks[d].first);
      continue;
    }
    if (type.isDynamicDim(d)) {
      offsets.push_back(b.getIndexAttr(0)); // whole
      continue;
    }
    std::vector<int64_t> perRankOffset;
    for (const layout::Box &box : boxes)
      perRankOffset.push_back(box.offsets[d]);
    if (llvm::all_equal(perRankOffset))
      offsets.push_back(b.getIndexAttr(perRankOffset.front()));
    else
      offsets.push_back(
          perRank(b, loc, inside, perRankOffset, b.getIndexType()));
  }
  return offsets;
}

SmallVector<std::pair<Value, Value>> Partitioner::dynamicChunks(
    OpBuilder &b, Location loc, Operation *inside, ShardedTensorType type,
    ArrayRef<OpFoldResult> globalSizes, ArrayRef<bool> skip) {
  SmallVector<std::pair<Value, Value>> chunks(type.getRank());
  if (type.hasStaticShape())
    return chunks;
  std::vector<DimCut> cuts = dynamicDimCuts(type);
  std::map<int64_t, std::vector<int64_t>> coords;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d) || !cuts[d].cuts() || (!skip.empty() && skip[d]))
      continue;
    if (static_cast<size_t>(d) >= globalSizes.size())
      llvm::report_fatal_error(
          "shardc: the local size or offset of a cut dynamic dim was asked "
          "without the tensor's sizes (a partition hook whose op may cut a "
          "dynamic loop must pass them)");
    if (coords.empty())
      coords = meshCoordinatesByRank(type);
    // This rank's coordinate on each axis cutting the dim, from a table by
    // rank (ranks outside the mesh: 0; the function's entry stops them).
    int64_t ranks = coords.empty() ? 0 : coords.rbegin()->first + 1;
    SmallVector<Value> indices;
    for (int64_t axis : cuts[d].axes) {
      std::vector<int64_t> byRank(ranks, 0);
      for (const auto &[r, at] : coords)
        byRank[r] = at[axis];
      indices.push_back(getValueOrCreateConstantIndexOp(
          b, loc, perRankIndex(b, loc, inside, byRank)));
    }
    Value extent = getValueOrCreateConstantIndexOp(b, loc, globalSizes[d]);
    chunks[d] = buildMeshChunk(b, loc, extent, cuts[d].counts, indices);
  }
  return chunks;
}

OpFoldResult Partitioner::globalExtent(OpBuilder &b, Location loc, Value value,
                                       int64_t d) {
  ShardedTensorType type = globalOf(value);
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDims()[d]);
  if (!dynamicDimCuts(type)[d].cuts())
    return tensor::DimOp::create(b, loc, value, d).getResult();
  auto id = tracked.find(value);
  auto it = id == tracked.end() ? origins.end() : origins.find({id->second, d});
  if (it == origins.end())
    llvm::report_fatal_error("shardc: the extent of a cut dynamic dim was "
                             "asked of a value the partition never saw");
  Value origin = current[it->second.first];
  const int64_t dim = it->second.second;
  if (dim < 0)
    return origin; // an index of the program, the same on every rank
  return extentOfRoot(origin, dim);
}

std::pair<Value, int64_t> Partitioner::alikeBlock(const DimCut &cut,
                                                  ShardedTensorType type,
                                                  OpFoldResult extent) {
  auto value = dyn_cast_or_null<Value>(extent);
  auto it = value ? summedFrom.find(value) : summedFrom.end();
  if (!cut.cuts() || it == summedFrom.end())
    return {};
  auto [root, dim] = it->second;
  ShardedTensorType from = globalOf(root);
  const DimCut theirs = dynamicDimCuts(from)[dim];
  auto mesh = [](ShardedTensorType t) {
    return cast<PlacementsSpecAttr>(t.getSpec()).getMesh();
  };
  if (mesh(from) != mesh(type) || theirs.axes != cut.axes)
    return {};
  return {root, dim};
}

Value Partitioner::extentOfRoot(Value root, int64_t d) {
  if (Value done = summed.lookup({root, d}))
    return done;
  OpBuilder b(root.getContext());
  Location loc = root.getLoc();
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    Operation *anchor = entryAnchor.lookup(arg.getOwner()->getParentOp());
    if (anchor && anchor->getBlock() == arg.getOwner())
      b.setInsertionPointAfter(anchor);
    else
      b.setInsertionPointToStart(arg.getOwner());
  } else {
    b.setInsertionPointAfter(root.getDefiningOp());
  }
  ShardedTensorType type = globalOf(root);
  Value extent;
  if (!type.isDynamicDim(d))
    extent = arith::ConstantIndexOp::create(b, loc, type.getDims()[d]);
  else if (!dynamicDimCuts(type)[d].cuts())
    extent = tensor::DimOp::create(b, loc, root, d);
  SmallVector<Operation *> made;
  if (!extent) {
    extent = buildExtentFromBlocks(b, loc, root, type, d, &made);
    summing[extent] = std::move(made);
  }
  summed[{root, d}] = extent;
  summedFrom[extent] = {root, d};
  return extent;
}

/// Whether every rank's block has the same sizes in both types; true where
/// a rank packs several blocks (its packed view has as many elements in
/// both where they hold the same). A rank a type names no block on holds a
/// value of its local type all the same: of the size every block agrees on
/// in a static dim (a single-block enumerable layout of tensor<1xf32> gives
/// every rank a tensor<1xf32>), 0 in a dynamic one (localSizes' tables).
static bool sameBlockSizes(ShardedTensorType a, ShardedTensorType b) {
  if (severalPerRank(a) || severalPerRank(b))
    return true;
  auto sizesByRank = [](ShardedTensorType type) {
    std::map<int64_t, std::vector<int64_t>> sizes;
    for (const layout::Block &block : type.getDeviceBlocks())
      sizes[block.placement.rank] = block.box.sizes;
    return sizes;
  };
  std::map<int64_t, std::vector<int64_t>> sa = sizesByRank(a),
                                          sb = sizesByRank(b);
  auto noneOf = [](ShardedTensorType type) {
    RankedTensorType local = getLocalType(type);
    std::vector<int64_t> sizes;
    for (int64_t d = 0; d < local.getRank(); ++d)
      sizes.push_back(local.isDynamicDim(d) ? 0 : local.getDimSize(d));
    return sizes;
  };
  const std::vector<int64_t> noneA = noneOf(a), noneB = noneOf(b);
  for (const auto *side : {&sa, &sb})
    for (const auto &[rank, sizes] : *side) {
      auto x = sa.find(rank), y = sb.find(rank);
      if ((x == sa.end() ? noneA : x->second) !=
          (y == sb.end() ? noneB : y->second))
        return false;
    }
  return true;
}

Value Partitioner::redistribute(OpBuilder &b, Location loc, Value local,
                                ShardedTensorType from, ShardedTensorType to) {
  // The same elements on every rank: nothing moves, but a rank whose
  // block is empty in both may hold it at other sizes (0x5 replicated,
  // 0x3 and 0x2 cut), which only the planner's move makes.
  // Where a layout cuts a dynamic dim, blocks at the nominal extent prove
  // nothing of the run time's: only the same layout moves nothing.
  const bool cutDynamic = cutsDynamicDim(from) || cutsDynamicDim(to);
  if (from == to || (!cutDynamic &&
                     sameElementsOnRanks(from.getSpec(), to.getSpec(),
                                         from.getLayoutShape()) &&
                     sameBlockSizes(from, to)))
    return record(castTo(b, loc, local, getLocalType(to)), to);
  // The tensor's extents, where a layout cuts a dynamic dim.
  SmallVector<Value> extents;
  if (cutDynamic) {
    if (!layouts.count(local))
      llvm::report_fatal_error("shardc: a partition hook moved a value the "
                               "partition never saw, whose layout cuts a "
                               "dynamic dim");
    for (int64_t d = 0; d < from.getRank(); ++d)
      if (from.isDynamicDim(d))
        extents.push_back(getValueOrCreateConstantIndexOp(
            b, loc, globalExtent(b, loc, local, d)));
  }
  Value global = FromLocalShardsOp::create(b, loc, from, local, extents);
  Value moved = RedistributeOp::create(b, loc, to, global);
  return record(LocalShardsOp::create(b, loc, getLocalType(to), moved), to);
}

LogicalResult Partitioner::rewriteConstraint(ConstraintOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value input = op.getInput();
  ShardedTensorType from = globalOf(input);
  ShardedTensorType to = globalOf(op.getResult());
  RankedTensorType type = layouts[input].first;
  if (typeFacts(from).kind != typeFacts(to).kind &&
      !sameBlocks(from.getSpec(), to.getSpec(), type.getShape()))
    return op.emitOpError()
           << "moves a value between devices of different kinds (" << from
           << " to " << to << "), which no collective does";
  // How it moves is the planner's one decision (a Partial destination
  // included: the value whole on its Partial axes, then the partial copies
  // made where it is); refused, with its message.
  if (failed(planning::decideMove(from, to, [&] { return op.emitOpError(); })))
    return failure();
  Value result = redistribute(b, loc, input, from, to);
  replace(op.getResult(), result);
  op.erase();
  return success();
}

LogicalResult Partitioner::rewriteFunction(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  // The signature: local types, the global types kept as shard.global.
  FunctionType type = func.getFunctionType();
  SmallVector<Type> inputs(type.getInputs()), results(type.getResults());
  // Every argument's and result's attributes at once (FunctionAttrs.h).
  SmallVector<ShardedTensorType> argGlobal(inputs.size()),
      resultGlobal(results.size());
  for (auto [i, layout] : llvm::enumerate(argLayouts[func])) {
    auto tensor = dyn_cast<RankedTensorType>(inputs[i]);
    if (!layout || !tensor)
      continue;
    argGlobal[i] = shardedType(tensor, layout);
    inputs[i] = getLocalType(argGlobal[i]);
  }
  for (auto [i, layout] : llvm::enumerate(resultLayouts[func])) {
    auto tensor = dyn_cast<RankedTensorType>(results[i]);
    if (!layout || !tensor)
      continue;
    resultGlobal[i] = shardedType(tensor, layout);
    results[i] = getLocalType(resultGlobal[i]);
  }
  // Propagation's hints (auto=true) have served once layouts are chosen.
  func->removeAttr(kMeshAttr);
  auto relabel = [](ShardedTensorType global, NamedAttrList &attrs) {
    attrs.erase(kBatchAttr);
    if (!global)
      return;
    attrs.erase(kLayoutAttr);
    attrs.set(kGlobalAttr, TypeAttr::get(global));
  };
  editFunctionAttrs(
      func,
      [&](unsigned i, NamedAttrList &attrs) { relabel(argGlobal[i], attrs); },
      [&](unsigned i, NamedAttrList &attrs) {
        relabel(resultGlobal[i], attrs);
      });
  func.setFunctionType(FunctionType::get(ctx, inputs, results));
  if (func.isExternal())
    return success();
  for (BlockArgument arg : func.getArguments())
    arg.setType(inputs[arg.getArgNumber()]);

  // The body's ops as written, in program order (collected before any op
  // is made here: a new op may take the memory of one erased before, which
  // `rules` and `layouts` still name).
  SmallVector<Operation *> ops;
  func.getBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) { ops.push_back(op); });

  // Tensors with dynamic dims: every rank runs the function only where it
  // holds a block of each (it reads their extents from its blocks).
  if (auto it = dynamicHolders.find(func); it != dynamicHolders.end()) {
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    Location loc = func.getLoc();
    const std::vector<int64_t> &ranks = it->second.ranks;
    std::vector<int64_t> holds(ranks.empty() ? 0 : ranks.back() + 1, 0);
    for (int64_t r : ranks)
      holds[r] = 1;
    Value held =
        perRank(b, loc, &func.getBody().front().front(), holds, b.getI1Type());
    entryAnchor[func] = cf::AssertOp::create(
        b, loc, held,
        "shardc: this rank holds no block of " +
            llvm::formatv("{0}", it->second.first).str() +
            ", a tensor with dynamic dims, whose extents only the ranks "
            "holding a block know; run the program on exactly ranks " +
            layout::formatList(ranks));
  }

  // The body, in program order: each op's operands are local already.
  for (Operation *op : ops) {
    if (auto constraint = dyn_cast<ConstraintOp>(op)) {
      if (failed(rewriteConstraint(constraint)))
        return failure();
    } else if (auto it = rules.find(op); it != rules.end()) {
      // The op's own hook (its rule's file in rules/), on this rank's
      // blocks: its decision, read, is no longer the op's.
      op->removeAttr(kOpShardingAttr);
      op->removeAttr(kShardingRuleAttr);
      ShardingRule rule = std::move(it->second);
      rules.erase(it); // the op may be erased: its key freed
      if (failed(partitionByRule(op, rule, *this)))
        return failure();
    } else if (carriesLayouts(op)) {
      // What it passes along, as each rank holds it.
      for (Region &region : op->getRegions())
        if (!region.empty())
          for (BlockArgument arg : region.front().getArguments())
            if (layouts.count(arg))
              arg.setType(localOf(arg));
      for (OpResult result : op->getResults())
        if (layouts.count(result))
          result.setType(localOf(result));
    } else if (isa<func::CallOp>(op)) {
      for (OpResult result : op->getResults())
        if (layouts.count(result))
          result.setType(localOf(result));
    }
  }
  return success();
}

/// Erases the ops that, through side-effect free ops only, compute from
/// `value` what nothing reads (an offset a hook computed and dropped), but
/// those in `kept`.
static void eraseDeadUsers(Value value,
                           const llvm::DenseSet<Operation *> &kept) {
  SetVector<Operation *> slice;
  getForwardSlice(value, &slice); // users before their users
  for (Operation *op : llvm::reverse(slice))
    if (!kept.contains(op) && isOpTriviallyDead(op))
      op->erase();
}

LogicalResult Partitioner::rewrite() {
  ruleMemo.clear();
  for (func::FuncOp func : funcs)
    if (failed(rewriteFunction(func)))
      return failure();
  // Extents summed but, in the end, read by nothing (blocks cut alike gave
  // every chunk): their collectives go.
  // The ops that sum them are erased only as a whole, below (an extent's
  // users may reach the sum of another: a tensor sized by one, whose extent
  // is summed again).
  llvm::DenseSet<Operation *> sums;
  for (auto &[extent, ops] : summing)
    sums.insert(ops.begin(), ops.end());
  for (auto &[extent, ops] : summing)
    eraseDeadUsers(extent, sums);
  // A sum read only by another sum goes once that one has: to a fixed
  // point.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &[extent, ops] : summing) {
      if (ops.empty() || !extent.use_empty())
        continue;
      for (Operation *op : llvm::reverse(ops))
        if (op->use_empty())
          op->erase();
      ops.clear();
      changed = true;
    }
  }
  return success();
}

struct PartitionPass : shardc::impl::ShardPartitionBase<PartitionPass> {
  using ShardPartitionBase::ShardPartitionBase;
  PartitionPass() = default;
  PartitionPass(const PartitionPass &other) : ShardPartitionBase(other) {}
  /// The cost model's options, which the redistributions are planned with.
  PassCostModel costModel{*this};

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The cost model is checked first, as the planner checks it.
    auto emit = [&] {
      return emitError(module.getLoc()) << "-shard-spmd-partition: ";
    };
    std::optional<planning::PlanningOptions> model = costModel.model(emit);
    std::unique_ptr<planning::ShardPlanner> planner;
    if (!model || !(planner = planning::ShardPlanner::create(*model, emit)))
      return signalPassFailure();
    Partitioner partitioner(module);
    if (failed(refuseMisplacedWrittenRules(module)) ||
        failed(partitioner.analyze()) || failed(partitioner.rewrite()))
      return signalPassFailure();
    // The redistributions, planned as -shard-plan-redistribute plans them
    // (its function, not a nested pipeline: the module is verified once,
    // after this pass).
    if (failed(planRedistributions(module, *planner, report,
                                   /*recordAll=*/false)))
      return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass>
shardc::createShardPartition(const ShardPartitionOptions &options,
                             const planning::PlanningOptions &costModel) {
  auto pass = std::make_unique<PartitionPass>(options);
  pass->costModel.assign(costModel);
  return pass;
}
