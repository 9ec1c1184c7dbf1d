//===- PlanRedistribute.cpp - shard-plan-redistribute ---------------------===//
//
// Global view -> SPMD view: every sharded tensor value becomes this rank's
// block (an ordinary tensor of the spec's local type) and every global op
// becomes SPMD collectives on those blocks.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"

#include "ControlFlow.h"
#include "CostModelOptions.h"

#include "shardc/Dialect/PartitionContext.h"
#include "shardc/Passes/RuntimeCalls.h"
#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Rules/TensorCast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ToolOutputFile.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDPLANREDISTRIBUTE
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using planning::ShardPlanner;

namespace {

/// The whole tensor on every rank of the world, from this rank's block of
/// `from`.
Value worldAllGather(OpBuilder &b, Location loc, Value local,
                     ValueRange extents, ShardedTensorType from) {
  auto whole = RankedTensorType::get(from.getDims(), from.getElementType());
  return SpmdAllGatherOp::create(b, loc, whole, local, extents,
                                 DenseI64ArrayAttr(), IntegerAttr(),
                                 TypeAttr::get(from), TypeAttr());
}

/// The general exchange from `from` to `to`.
Value exchange(OpBuilder &b, Location loc, Type result, Value local,
               ValueRange extents, ShardedTensorType from,
               ShardedTensorType to) {
  return SpmdExchangeOp::create(b, loc, result, local, extents,
                                TypeAttr::get(from), TypeAttr::get(to));
}

/// The SPMD op of collective `c` from `from` to `to` (which it takes one to
/// the other: layout/Collectives.h): `shard.spmd.<name>` with the attributes
/// its row of the collective table names; the exchange where none fits.
Value namedCollective(OpBuilder &b, Location loc, const layout::Collective &c,
                      Type result, Value local, ValueRange extents,
                      ShardedTensorType from, ShardedTensorType to) {
  if (c.kind == layout::CollectiveKind::Exchange)
    return exchange(b, loc, result, local, extents, from, to);
  const layout::CollectiveTraits &row = layout::collectiveTraits(c.kind);
  OperationState state(loc, std::string("shard.spmd.") + row.name);
  state.addOperands(local);
  state.addOperands(extents);
  state.addTypes(result);
  state.addAttribute(row.overAxes ? "axes" : "ranks",
                     b.getDenseI64ArrayAttr(row.overAxes ? c.axes : c.ranks));
  if (row.dimAttr)
    state.addAttribute(row.dimAttr, b.getI64IntegerAttr(c.dim));
  if (row.concatAttr)
    state.addAttribute(row.concatAttr, b.getI64IntegerAttr(c.concatDim));
  if (row.rootAttr)
    state.addAttribute(row.rootAttr, b.getI64IntegerAttr(c.root));
  if (row.reduceAttr)
    state.addAttribute(
        row.reduceAttr,
        ReductionAttr::get(b.getContext(), reductionOf(*c.reduce)));
  state.addAttribute("from", TypeAttr::get(from));
  state.addAttribute("to", TypeAttr::get(to));
  return b.create(state)->getResult(0);
}

/// The SPMD ops of the planner's steps for a global op (ShardPlanner::
/// stepsOf), applied to `local` (this rank's block of the op's source, or
/// the whole tensor for a distribute): the op's result, of `resultType`.
/// `local` (this rank's block of the value whole on `to`'s Partial axes)
/// as `to`'s partial copies, moving nothing: the ranks holding each
/// group's first copy keep it, the others hold `reduce`'s identity
/// (planning::decideMove).
Value identityPastFirstCopy(OpBuilder &b, Location loc, Value local,
                            ShardedTensorType to,
                            layout::Placement::Reduce reduce) {
  auto type = cast<RankedTensorType>(local.getType());
  // Whether this rank keeps it: a table by rank, read at the rank (ranks
  // past it, which hold no block, read its last entry: false); where the
  // ranks named are few and far apart (a mesh naming rank 2^31 - 1), the
  // rank compared with each of them instead.
  const std::vector<int64_t> firsts = planning::firstCopyRanks(to);
  const int64_t ranks = firsts.empty() ? 0 : firsts.back() + 1;
  Value rank = SpmdRankOp::create(b, loc, b.getIndexType());
  Value keep;
  if (ranks <= 4096 || ranks <= 4 * static_cast<int64_t>(firsts.size())) {
    SmallVector<bool> first(static_cast<size_t>(ranks) + 1, false);
    for (int64_t r : firsts)
      first[static_cast<size_t>(r)] = true;
    auto tableType = RankedTensorType::get({static_cast<int64_t>(first.size())},
                                           b.getI1Type());
    Value table = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(tableType, ArrayRef<bool>(first)));
    Value last = arith::ConstantIndexOp::create(b, loc, ranks);
    Value at = arith::MinUIOp::create(b, loc, rank, last);
    keep = tensor::ExtractOp::create(b, loc, table, ValueRange{at});
  } else {
    keep = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    for (int64_t r : firsts) {
      Value is =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rank,
                                arith::ConstantIndexOp::create(b, loc, r));
      keep = arith::OrIOp::create(b, loc, keep, is);
    }
  }
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(
        type.isDynamicDim(d)
            ? OpFoldResult(tensor::DimOp::create(b, loc, local, d).getResult())
            : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  Value identity = arith::ConstantOp::create(
      b, loc, identityOf(reduce, type.getElementType()));
  Value filled =
      linalg::FillOp::create(b, loc, identity, castTo(b, loc, empty, type))
          .getResult(0);
  return arith::SelectOp::create(b, loc, keep, local, filled);
}

Value emitSteps(OpBuilder &builder, Location loc, ShardPlanner &planner,
                const std::vector<planning::OpStep> &steps, Value local,
                ValueRange extents, Type resultType) {
  using Kind = planning::OpStep::Kind;
  for (const planning::OpStep &step : steps) {
    switch (step.kind) {
    case Kind::WorldAllGather:
      local = worldAllGather(builder, loc, local, extents, step.from);
      break;
    case Kind::ExchangeToWorld:
      local = SpmdExchangeOp::create(
          builder, loc,
          RankedTensorType::get(step.from.getDims(),
                                step.from.getElementType()),
          local, extents, TypeAttr::get(step.from), TypeAttr());
      break;
    case Kind::Scatter:
      local = SpmdScatterOp::create(
          builder, loc, planner.localType(step.to), local, extents,
          builder.getI64IntegerAttr(step.root), TypeAttr::get(step.to));
      break;
    case Kind::Collective:
      local = namedCollective(builder, loc, *step.collective,
                              planner.localType(step.to), local, extents,
                              step.from, step.to);
      break;
    case Kind::Exchange:
      local = exchange(builder, loc, planner.localType(step.to), local, extents,
                       step.from, step.to);
      break;
    case Kind::MakePartial:
      local = castTo(builder, loc, local, planner.localType(step.to));
      if (step.identityPastFirstCopy)
        local = identityPastFirstCopy(builder, loc, local, step.to,
                                      *step.identityPastFirstCopy);
      break;
    }
  }
  // Layouts alike but for the spec's form (the same blocks), and a whole
  // tensor gathered as such.
  return castTo(builder, loc, local, resultType);
}

/// The run-time extents of the dynamic dims of a sharded tensor value: the
/// `extents` of the shard.from_local_shards it comes from (through
/// redistributions); empty where none gives them.
SmallVector<Value> extentsOf(Value sharded) {
  for (int steps = 0; steps < 1024 && sharded; ++steps) {
    Operation *def = sharded.getDefiningOp();
    if (auto from = dyn_cast_or_null<FromLocalShardsOp>(def))
      return SmallVector<Value>(from.getExtents());
    auto redistribute = dyn_cast_or_null<RedistributeOp>(def);
    if (!redistribute)
      break;
    sharded = redistribute.getSource();
  }
  return {};
}

/// The sharded tensor a global op moves (its source; a distribute's
/// result).
ShardedTensorType movedType(Operation *op) {
  if (isa<DistributeOp>(op))
    return cast<ShardedTensorType>(op->getResult(0).getType());
  return cast<ShardedTensorType>(op->getOperand(0).getType());
}

/// Reports, before converting anything, every use of sharded tensors this
/// version cannot plan. Returns failure if it reported anything.
LogicalResult checkSupported(ModuleOp module) {
  bool ok = true;
  // Each unplannable type is reported once, at its first (innermost) use.
  llvm::DenseSet<Type> reported;
  llvm::DenseMap<Type, bool> nestsSharded;
  module.walk([&](Operation *op) {
    // Partial placements: the planning library decides what can move.
    auto emit = [op] { return op->emitError(); };
    // A layout that cuts a dynamic dim needs the tensor's run-time extent,
    // which only a from_local_shards with `extents` gives here.
    if (isa<DistributeOp, RedistributeOp, AllGatherOp, GatherOp>(op)) {
      ShardedTensorType moved = movedType(op);
      ShardedTensorType result =
          dyn_cast<ShardedTensorType>(op->getResult(0).getType());
      if ((cutsDynamicDim(moved) || (result && cutsDynamicDim(result))) &&
          (isa<DistributeOp>(op) || extentsOf(op->getOperand(0)).empty())) {
        op->emitError() << "cannot plan a move of " << moved
                        << ": a layout cuts a dynamic dim, and its run-time "
                           "extent is not known here (a "
                           "shard.from_local_shards with `extents` gives it)";
        ok = false;
        return;
      }
    }
    if (auto redistribute = dyn_cast<RedistributeOp>(op)) {
      ShardedTensorType from = redistribute.getSource().getType();
      ShardedTensorType to = redistribute.getType();
      if (failed(planning::decideMove(from, to, emit))) {
        ok = false;
        return;
      }
    }
    if (auto gather = dyn_cast<GatherOp>(op)) {
      ShardedTensorType from = gather.getSource().getType();
      if (failed(planning::decideMove(
              from, wholeOnRank(from, gather.getDstRank()), emit))) {
        ok = false;
        return;
      }
    }
    if (isa<DistributeOp, AllGatherOp>(op)) {
      Type type = isa<DistributeOp>(op) ? op->getResult(0).getType()
                                        : op->getOperand(0).getType();
      auto sharded = cast<ShardedTensorType>(type);
      if (sharded.getSpec().hasPartial()) {
        op->emitError() << "'" << op->getName() << "' of " << sharded
                        << " needs a reduction of its Partial placements, "
                           "which is not supported yet";
        ok = false;
        return;
      }
    }
    bool handled = isa_and_nonnull<ShardDialect>(op->getDialect()) ||
                   isa<func::FuncOp, func::CallOp, func::ReturnOp>(op);
    auto check = [&](Type type) {
      auto sharded = dyn_cast<ShardedTensorType>(type);
      if (!sharded) {
        // Sharded tensors inside other types (a function type, a tuple)
        // would keep their global type while their values change. (Each
        // type walked once: a walk allocates, and every op's tensor types
        // were walked again, a third of the partition's own time on a
        // 6,000-op chain.)
        auto [known, fresh] = nestsSharded.try_emplace(type, false);
        if (fresh)
          type.walk([&](ShardedTensorType) { known->second = true; });
        if (known->second) {
          op->emitError() << "cannot plan " << type
                          << ": sharded tensors nested in other types are "
                             "not supported";
          ok = false;
        }
        return;
      }
      if (!handled) {
        op->emitError() << "'" << op->getName()
                        << "' with sharded tensor values cannot be planned "
                           "yet; only shard ops, func.func, func.call and "
                           "func.return may carry them";
        ok = false;
        handled = true; // one message per op
        return;
      }
      if (!reported.insert(sharded).second)
        return;
      if (failed(verifyPlannable(sharded, [&] {
            return op->emitError() << "cannot plan " << sharded << ": ";
          })))
        ok = false;
    };
    for (Type t : op->getOperandTypes())
      check(t);
    for (Type t : op->getResultTypes())
      check(t);
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      for (Type t : func.getFunctionType().getInputs())
        check(t);
      for (Type t : func.getFunctionType().getResults())
        check(t);
    }
  });
  return success(ok);
}

/// Global view -> SPMD view in place. checkSupported guarantees that
/// sharded tensors appear only in shard ops and in func.func, func.call and
/// func.return, so every value of sharded type can take its local type where
/// it is, and every global op is replaced by its planned steps, without the
/// dialect-conversion framework (which cost most of the pass's time on large
/// modules: bench/compile_time.py).
void localize(ModuleOp module, ShardPlanner &planner) {
  // What every shard op becomes, read before any type changes: a global op's
  // steps, the local types of its result.
  struct Pending {
    Operation *op;
    std::vector<planning::OpStep> steps;
    Type result;
    /// The moved tensor's run-time extents (extentsOf), read before the
    /// ops that give them are replaced.
    SmallVector<Value> extents;
  };
  std::vector<Pending> pending;
  auto local = [&](Type type) -> Type {
    if (auto sharded = dyn_cast<ShardedTensorType>(type))
      return planner.localType(sharded);
    return type;
  };
  module.walk([&](Operation *op) {
    if (isa<DistributeOp, RedistributeOp, AllGatherOp, GatherOp>(op))
      pending.push_back({op, planner.stepsOf(op),
                         local(op->getResult(0).getType()),
                         isa<DistributeOp>(op) ? SmallVector<Value>()
                                               : extentsOf(op->getOperand(0))});
    else if (isa<LocalShardsOp, FromLocalShardsOp>(op))
      pending.push_back({op, {}, local(op->getResult(0).getType())});
  });
  // Every value of sharded type takes its local type: function signatures,
  // block arguments, call results.
  MLIRContext *ctx = module.getContext();
  module.walk([&](Operation *op) {
    if (auto fn = dyn_cast<func::FuncOp>(op)) {
      FunctionType type = fn.getFunctionType();
      SmallVector<Type> inputs, results;
      for (Type t : type.getInputs())
        inputs.push_back(local(t));
      for (Type t : type.getResults())
        results.push_back(local(t));
      fn.setFunctionType(FunctionType::get(ctx, inputs, results));
      for (Block &block : fn.getBody())
        for (BlockArgument arg : block.getArguments())
          arg.setType(local(arg.getType()));
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      for (OpResult result : call->getResults())
        result.setType(local(result.getType()));
    }
  });
  // Every shard op replaced, in program order: its operand already holds
  // this rank's block (or, for a distribute, the whole tensor).
  for (Pending &p : pending) {
    OpBuilder builder(p.op);
    Location loc = p.op->getLoc();
    Value input = p.op->getOperand(0);
    Value result = isa<LocalShardsOp, FromLocalShardsOp>(p.op)
                       ? castTo(builder, loc, input, p.result)
                       : emitSteps(builder, loc, planner, p.steps, input,
                                   p.extents, p.result);
    p.op->getResult(0).replaceAllUsesWith(result);
    p.op->erase();
  }
}

/// How many times an op runs per call of each function that no function
/// calls (shard-run's entry): its function's calls, through every chain of
/// calls, times the static trip count of each loop around it (scf.for,
/// affine.for). Not known (nullopt, and why) under an scf.while, an scf.if,
/// a loop without static bounds or another op with regions, in a function that
/// calls itself (directly or not) or whose symbol is used other than by
/// func.call, or past 2^63 - 1.
class TimesRun {
public:
  using Count = std::pair<std::optional<int64_t>, std::string>;
  explicit TimesRun(ModuleOp module) : module(module) {}

  Count of(Operation *op) {
    auto fn = op->getParentOfType<func::FuncOp>();
    if (!fn)
      return inFunction(op);
    return times(callsOf(fn), inFunction(op));
  }

private:
  static Count times(const Count &a, const Count &b) {
    if (!a.first)
      return a;
    if (!b.first)
      return b;
    int64_t n = 0;
    if (llvm::MulOverflow(*a.first, *b.first, n))
      return {std::nullopt, "it runs more than 2^63 - 1 times"};
    return {n, ""};
  }

  /// Runs of `op` per run of its function.
  static Count inFunction(Operation *op) {
    Count n{1, ""};
    for (Operation *p = op->getParentOp(); p && !isa<func::FuncOp>(p);
         p = p->getParentOp()) {
      const std::string name = p->getName().getStringRef().str();
      auto loop = dyn_cast<LoopLikeOpInterface>(p);
      if (loop && loop.getLoopInductionVars() &&
          loop.getLoopInductionVars()->size() == 1) {
        // scf.for, affine.for: their trip count, as the search counts it.
        Region *region = op->getParentRegion();
        while (region->getParentOp() != p)
          region = region->getParentOp()->getParentRegion();
        std::optional<uint64_t> trips = runsPerEntry(p, *region);
        if (!trips || *trips > uint64_t(INT64_MAX))
          return {std::nullopt,
                  "in '" + name + "' without a static trip count"};
        n = times(n, {static_cast<int64_t>(*trips), ""});
      } else if (isa<scf::ExecuteRegionOp>(p)) {
        continue;
      } else if (!loop && isa<RegionBranchOpInterface>(p)) {
        return {std::nullopt, "in '" + name +
                                  "', whose regions run or not as the run "
                                  "decides"};
      } else {
        return {std::nullopt,
                "in '" + name + "', which may run it any number of times"};
      }
      if (!n.first)
        return n;
    }
    return n;
  }

  /// Runs of `func` per call of the functions no function calls.
  Count callsOf(func::FuncOp fn) {
    Operation *key = fn.getOperation();
    const std::string name = "@" + fn.getSymName().str();
    if (auto it = calls.find(key); it != calls.end())
      return it->second;
    if (!visiting.insert(key).second)
      return {std::nullopt, name + " calls itself"};
    Count total{0, ""};
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(key, module.getOperation());
    if (!uses) {
      total = {std::nullopt, "the uses of " + name + " are not known"};
    } else if (uses->empty()) {
      total = {1, ""}; // called by no function: once per its own call
    } else {
      for (const SymbolTable::SymbolUse &use : *uses) {
        auto call = dyn_cast<func::CallOp>(use.getUser());
        Count here =
            call ? of(call)
                 : Count{std::nullopt,
                         name + " is used by '" +
                             use.getUser()->getName().getStringRef().str() +
                             "'"};
        if (!here.first) {
          total = here;
          break;
        }
        if (llvm::AddOverflow(*total.first, *here.first, *total.first)) {
          total = {std::nullopt, "it runs more than 2^63 - 1 times"};
          break;
        }
      }
    }
    visiting.erase(key);
    calls[key] = total;
    return total;
  }

  ModuleOp module;
  llvm::DenseMap<Operation *, Count> calls;
  llvm::DenseSet<Operation *> visiting;
};

/// Checks that world-size `worldSize` (an MPI world's size: the planner
/// checked it) holds every rank the global ops name (their layouts'
/// blocks, a distribute's source, a gather's destination). Emits at each
/// op that names a rank beyond it.
static LogicalResult checkWorld(ModuleOp module, int64_t worldSize) {
  // The largest rank of each type, computed once.
  llvm::DenseMap<Type, int64_t> largestOf;
  auto largest = [&](Type type) -> int64_t {
    auto sharded = dyn_cast<ShardedTensorType>(type);
    if (!sharded)
      return -1;
    auto [it, inserted] = largestOf.try_emplace(type, -1);
    if (inserted)
      for (const layout::Block &b : sharded.getDeviceBlocks())
        it->second = std::max(it->second, b.placement.rank);
    return it->second;
  };
  bool ok = true;
  module.walk([&](Operation *op) {
    if (!isa<DistributeOp, RedistributeOp, AllGatherOp, GatherOp>(op))
      return;
    int64_t rank = -1;
    for (Type t : op->getOperandTypes())
      rank = std::max(rank, largest(t));
    for (Type t : op->getResultTypes())
      rank = std::max(rank, largest(t));
    if (auto d = dyn_cast<DistributeOp>(op))
      rank = std::max(rank, static_cast<int64_t>(d.getSrcRank()));
    if (auto g = dyn_cast<GatherOp>(op))
      rank = std::max(rank, static_cast<int64_t>(g.getDstRank()));
    layout::Result<void> problem = layout::checkWorldSize(worldSize, rank);
    if (problem.ok())
      return;
    op->emitError() << "-shard-plan-redistribute: world-size "
                    << problem.error();
    ok = false;
  });
  return success(ok);
}

struct PlanRedistributePass
    : shardc::impl::ShardPlanRedistributeBase<PlanRedistributePass> {
  using ShardPlanRedistributeBase::ShardPlanRedistributeBase;
  PlanRedistributePass() = default;
  PlanRedistributePass(const PlanRedistributePass &other)
      : ShardPlanRedistributeBase(other), shared(other.shared) {}
  PlanRedistributePass(const ShardPlanRedistributeOptions &options,
                       ShardPlanner &shared)
      : ShardPlanRedistributeBase(options), shared(&shared) {}

  /// The caller's planner, or null: the pass plans with its own.
  ShardPlanner *shared = nullptr;
  /// The cost model's options, which its own planner is built with.
  PassCostModel costModel{*this};

  /// The planner the options describe; emits and returns null for bad ones.
  std::unique_ptr<ShardPlanner> createPlanner() {
    return costModel.planner([&] {
      return emitError(getOperation().getLoc()) << "-shard-plan-redistribute: ";
    });
  }

  void runOnOperation() override {
    std::unique_ptr<ShardPlanner> own;
    if (!shared && !(own = createPlanner()))
      return signalPassFailure();
    if (failed(planRedistributions(getOperation(), shared ? *shared : *own,
                                   report, /*recordAll=*/shared != nullptr)))
      return signalPassFailure();
  }
};

} // namespace

int64_t shardc::largestNamedRank(Operation *root) {
  int64_t largest = -1;
  llvm::DenseSet<Type> seen;
  root->walk([&](Operation *op) {
    op->getAttrDictionary().walk([&](ShardedTensorType t) {
      if (!seen.insert(t).second)
        return;
      for (const layout::Block &block : t.getDeviceBlocks())
        largest = std::max<int64_t>(largest, block.placement.rank);
    });
  });
  return largest;
}

LogicalResult shardc::planRedistributions(ModuleOp module,
                                          ShardPlanner &planner,
                                          StringRef report, bool recordAll) {
  if (failed(checkSupported(module)))
    return failure();
  if (planner.worldSize() != 0 &&
      failed(checkWorld(module, planner.worldSize())))
    return failure();
  if (recordAll || !report.empty()) {
    bool reported = true;
    TimesRun timesRun(module);
    module.walk([&](Operation *op) {
      // A collective written in the program (before the partition's are
      // made): its bytes are not counted, and the total is not known.
      if (isSpmdCollective(op) && !isa<SpmdAllReduceOp>(op)) {
        planner.addUncounted(
            op, "'" + op->getName().getStringRef().str() +
                    "' written in the program: the report counts the "
                    "collectives the partition makes");
        return;
      }
      if (!isa<DistributeOp, RedistributeOp, AllGatherOp, GatherOp,
               SpmdAllReduceOp>(op))
        return;
      auto [count, why] = timesRun.of(op);
      reported &= succeeded(planner.add(op, count, why));
    });
    if (!reported)
      return failure();
  }
  localize(module, planner);
  if (report.empty())
    return success();
  // Every rank the program's layouts name is listed in the total, 0 where
  // nothing reaches it.
  planner.noteRanks(
      std::max<int64_t>(planner.worldSize(), largestNamedRank(module) + 1));
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(report, &error);
  if (!out)
    return emitError(module.getLoc())
           << "-shard-plan-redistribute: cannot write the report: " << error;
  out->os() << planner.json();
  out->keep();
  return success();
}

std::unique_ptr<Pass>
shardc::createShardPlanRedistribute(const ShardPlanRedistributeOptions &options,
                                    ShardPlanner &shared) {
  return std::make_unique<PlanRedistributePass>(options, shared);
}

std::unique_ptr<Pass> shardc::createShardPlanRedistribute(
    const ShardPlanRedistributeOptions &options,
    const planning::PlanningOptions &costModel) {
  auto pass = std::make_unique<PlanRedistributePass>(options);
  pass->costModel.assign(costModel);
  return pass;
}
