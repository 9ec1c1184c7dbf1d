//===- PropagateWriteBack.cpp - -shard-propagate's layouts into the IR ---===//
//
// Propagation::writeBack: every argument's and result's layout as
// shard.layout, each value's own layout as a constraint after its
// definition, and each layout a use needs made once per value, from the
// cheapest source (the value or another of its copies: the planner's
// cheapest tree of moves), just before the first op that needs it.
//
//===----------------------------------------------------------------------===//

#include "ControlFlow.h"
#include "FunctionAttrs.h"
#include "Propagation.h"

#include "shardc/Planning/Choice.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::propagation;

/// The layout each use needs (a tensor a rule op's regions read from
/// outside it: all its uses there), gathered before the IR changes.
std::vector<UseNeed> Propagation::neededLayouts() {
  std::vector<UseNeed> needs;
  for (Node &node : nodes) {
    if (node.isRule) {
      if (!node.decision)
        continue;
      const unsigned own = node.op->getNumOperands();
      SmallVector<Value> captured;
      if (node.operandSlots.size() > own)
        captured = capturedTensors(node.op);
      for (auto [i, slot] : llvm::enumerate(node.operandSlots)) {
        if (slot < 0)
          continue;
        // The layout the decision reads it in (its reads are decided:
        // decideReads), not one derived again from the operand's.
        UseNeed need;
        need.layout = operandLayoutUnder(node.op, *node.rule, *node.decision, i,
                                         nullptr, slots[slot].type.getShape());
        if (i < own) {
          need.uses.push_back(&node.op->getOpOperand(i));
        } else {
          for (OpOperand &use : captured[i - own].getUses())
            if (node.op->isProperAncestor(use.getOwner()))
              need.uses.push_back(&use);
        }
        if (!need.uses.empty())
          needs.push_back(std::move(need));
      }
      continue;
    }
    // A constraint's input is a use like any other (the cost model counts
    // it so: each value moved once per distinct layout it is needed in),
    // so that two constraints of one value to one layout make one copy.
    if (slots[node.to].layout)
      needs.push_back({{node.use}, slots[node.to].layout});
  }
  return needs;
}

/// A result pinned to partial values reduced with different operations on
/// two axes (DTensor allows it) is a layout no move makes yet: said at the
/// return, naming the result, not by the partition at the constraint the
/// write-back makes there.
LogicalResult Propagation::checkMixedResults() {
  for (const Node &node : nodes) {
    auto ret = node.use ? dyn_cast<func::ReturnOp>(node.use->getOwner())
                        : func::ReturnOp();
    if (node.isRule || !ret || node.from < 0 || node.to < 0)
      continue;
    auto pinned = dyn_cast_or_null<PlacementsSpecAttr>(slots[node.to].layout);
    bool mixed = false;
    if (pinned)
      layout::partialReduce(
          {pinned.getPlacements().begin(), pinned.getPlacements().end()},
          mixed);
    if (mixed && slots[node.from].layout != slots[node.to].layout)
      return ret.emitOpError()
             << "returns result #" << node.use->getOperandNumber() << " in "
             << slots[node.from].layout << ", but its function pins it to "
             << pinned
             << ", whose Partial axes reduce with different operations: no "
                "move makes such a layout yet";
  }
  return success();
}

/// The layouts written: every function's arguments and results, each
/// value's own layout as a constraint after its definition (unless its one
/// use is a constraint with that layout already), and each decided op's
/// sharding on the op, for -shard-spmd-partition to read.
void Propagation::pinLayouts() {
  MLIRContext *ctx = module.getContext();
  // Arguments and results of functions.
  // (All of a function's at once: FunctionAttrs.h.)
  for (auto [index, func] : llvm::enumerate(funcs)) {
    auto layoutOf = [&](const auto &slotsOf, unsigned i, NamedAttrList &attrs) {
      const auto slot = slotsOf[i];
      if (slot >= 0 && slots[slot].layout)
        attrs.set(kLayoutAttr, slots[slot].layout);
    };
    editFunctionAttrs(
        func,
        [&](unsigned i, NamedAttrList &attrs) {
          layoutOf(argSlots[index], i, attrs);
        },
        [&](unsigned i, NamedAttrList &attrs) {
          layoutOf(resultSlots[index], i, attrs);
        });
  }

  // Each value's own layout, as a constraint after its definition (unless
  // its one use is a constraint with that layout already).
  OpBuilder builder(ctx);
  auto pin = [&](Value value, ShardingSpecAttrInterface layout) {
    if (value.hasOneUse()) {
      auto user = dyn_cast<ConstraintOp>(*value.getUsers().begin());
      if (user && user.getLayout() == layout)
        return;
    }
    if (auto arg = dyn_cast<BlockArgument>(value))
      builder.setInsertionPointToStart(arg.getOwner());
    else
      builder.setInsertionPointAfter(value.getDefiningOp());
    auto constraint = ConstraintOp::create(builder, value.getLoc(),
                                           value.getType(), value, layout);
    value.replaceAllUsesExcept(constraint.getResult(), constraint);
  };
  for (Node &node : nodes) {
    if (!node.isRule || !node.decision)
      continue;
    // The decision, on the op, for -shard-spmd-partition to read.
    node.op->setAttr(kOpShardingAttr, opShardingAttrOf(*node.decision));
    for (auto [i, result] : llvm::enumerate(node.op->getResults()))
      if (node.resultSlots[i] >= 0)
        pin(result, resultLayoutUnder(*node.rule, *node.decision, i));
  }
  for (func::FuncOp func : funcs) {
    func.walk([&](Operation *op) {
      // What control flow passes along (ControlFlow.h): the region
      // arguments, then the results.
      if (carriesLayouts(op))
        for (Region &region : op->getRegions())
          if (!region.empty())
            for (BlockArgument arg : region.front().getArguments())
              if (int s = existingSlot(arg); s >= 0 && slots[s].layout)
                pin(arg, slots[s].layout);
      if (carriesLayouts(op) || isa<func::CallOp>(op))
        for (Value result : op->getResults())
          if (int s = existingSlot(result); s >= 0 && slots[s].layout)
            pin(result, slots[s].layout);
    });
  }
}

/// How deep rebuildableProducer follows tensor operands made alone (a fill
/// of a tensor.empty: 1).
static constexpr int kRebuildDepth = 4;

/// The op making `value` (through constraints) where it has the form of
/// one every rank may make alone: one result, a rule (its memory effects,
/// the costlier question, not asked).
static Operation *aloneInForm(Value value) {
  while (auto constraint = value.getDefiningOp<ConstraintOp>())
    value = constraint.getInput();
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumResults() != 1 || !isa<ShardingRuleOpInterface>(op))
    return nullptr;
  return op;
}

/// The op making `value` (through constraints) where it is one every rank
/// may make alone on its own: one result, a rule, no memory effects.
static Operation *madeAlone(Value value) {
  Operation *op = aloneInForm(value);
  return op && isMemoryEffectFree(op) ? op : nullptr;
}

static Operation *rebuildable(Value value, int depth) {
  Operation *op = aloneInForm(value);
  if (!op)
    return nullptr;
  // Every tensor operand made alone too: the cheap tests first, its form
  // on each operand, then the memory effects (an op of a chain reads an
  // argument or a value of effects long before its operands' operands
  // end; asking a linalg op's effects walks its payload).
  for (Value operand : op->getOperands())
    if (isa<TensorType>(operand.getType()) &&
        (depth == 0 || !aloneInForm(operand)))
      return nullptr;
  if (!isMemoryEffectFree(op))
    return nullptr;
  for (Value operand : op->getOperands())
    if (isa<TensorType>(operand.getType()) && !madeAlone(operand))
      return nullptr;
  // Its regions (a linalg payload) read no tensor from outside.
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  if (llvm::any_of(above, [](Value v) { return isa<TensorType>(v.getType()); }))
    return nullptr;
  for (Value operand : op->getOperands())
    if (isa<TensorType>(operand.getType()) && !rebuildable(operand, depth - 1))
      return nullptr;
  return op;
}

Operation *shardc::propagation::rebuildableProducer(Value value) {
  return rebuildable(value, kRebuildDepth);
}

/// A copy of `producer` (rebuildableProducer) made where `before` is, whose
/// result has `layout` with nothing moved: each rank builds its own part
/// (the op's sharding cuts its loops as the layout cuts its dims); a
/// Partial layout's whole form (the planner's move to a Partial layout
/// reaches it, then keeps the first copy: local). Null where its rule gives
/// no such sharding (an enumerable layout).
std::optional<LoopSharding>
shardc::propagation::rebuildSharding(Operation *producer,
                                     ShardingSpecAttrInterface layout) {
  auto mesh = dyn_cast<PlacementsSpecAttr>(layout);
  if (!mesh)
    return std::nullopt;
  mesh = withoutPartial(mesh);
  FailureOr<ShardingRule> rule = shardingRuleOf(producer);
  if (failed(rule) || rule->results.size() != 1)
    return std::nullopt;
  auto type = cast<RankedTensorType>(producer->getResult(0).getType());
  LoopSharding sharding = proposalOf(*rule, rule->results[0], mesh);
  // A sharding partition would refuse (a folded dim torch.chunk does not
  // cut between the steps of its loops, as a collapse_shape into 16 rows on
  // 3 ranks) is no way to make it: the value moves instead.
  if (!invalidSharding(*rule, sharding).empty())
    return std::nullopt;
  PlacementsSpecAttr made = resultLayoutUnder(*rule, sharding, 0);
  if (!made || !sameBlocks(made, mesh, type.getShape()))
    return std::nullopt;
  // Its tensor operands (made alone too) in the layouts it reads them in.
  for (auto [i, operand] : llvm::enumerate(producer->getOperands()))
    if (isa<TensorType>(operand.getType())) {
      Operation *from = rebuildableProducer(operand);
      if (!from || i >= rule->operands.size() ||
          !rebuildSharding(from,
                           layoutUnder(*rule, sharding, rule->operands[i])))
        return std::nullopt;
    }
  return sharding;
}

static Value rebuildIn(OpBuilder &builder, Operation *producer,
                       ShardingSpecAttrInterface layout, Operation *before) {
  std::optional<LoopSharding> sharding = rebuildSharding(producer, layout);
  if (!sharding)
    return nullptr;
  auto type = cast<RankedTensorType>(producer->getResult(0).getType());
  // Its tensor operands made first, each in the layout it is read in (an
  // operand read twice in one layout, `addf %k, %k`, made once; in two
  // layouts, once in each).
  SmallVector<std::pair<unsigned, Value>> operands;
  llvm::SmallDenseMap<std::pair<Value, Attribute>, Value> madeIn;
  FailureOr<ShardingRule> rule = shardingRuleOf(producer);
  for (auto [i, operand] : llvm::enumerate(producer->getOperands()))
    if (isa<TensorType>(operand.getType())) {
      ShardingSpecAttrInterface read =
          layoutUnder(*rule, *sharding, rule->operands[i]);
      Value &made = madeIn[{operand, read}];
      if (!made)
        made = rebuildIn(builder, rebuildableProducer(operand), read, before);
      if (!made)
        return nullptr;
      operands.emplace_back(i, made);
    }
  builder.setInsertionPoint(before);
  Operation *copy = builder.clone(*producer);
  for (auto [i, made] : operands)
    copy->setOperand(i, made);
  copy->setAttr(kOpShardingAttr, opShardingAttrOf(*sharding));
  // A Partial layout: its whole form made, then kept on the first copy.
  auto whole = withoutPartial(cast<PlacementsSpecAttr>(layout));
  Value made = ConstraintOp::create(builder, before->getLoc(), type,
                                    copy->getResult(0), whole);
  if (whole == layout)
    return made;
  return ConstraintOp::create(builder, before->getLoc(), type, made, layout);
}

/// Makes again, in each layout a use needs, each value every rank can make
/// alone (rebuildableProducer), where first needed; those layouts leave
/// `layoutsOf` (nothing moves the value to them). Returns the producers.
static llvm::SetVector<Operation *> rebuildWhereNeeded(
    OpBuilder &builder,
    llvm::MapVector<Value, SmallVector<Attribute>> &layoutsOf,
    llvm::MapVector<std::pair<Value, Attribute>, SmallVector<OpOperand *>>
        &moves) {
  llvm::SetVector<Operation *> rebuilt;
  for (auto &[value, layouts] : layoutsOf) {
    Operation *producer = rebuildableProducer(value);
    if (!producer)
      continue;
    Block *block = value.getParentBlock();
    SmallVector<Attribute> kept;
    for (Attribute layout : layouts) {
      SmallVector<OpOperand *> &uses = moves[{value, layout}];
      Operation *first = nullptr;
      for (OpOperand *use : uses) {
        Operation *at = block->findAncestorOpInBlock(*use->getOwner());
        if (at && (!first || at->isBeforeInBlock(first)))
          first = at;
      }
      Value copy =
          first ? rebuildIn(builder, producer,
                            cast<ShardingSpecAttrInterface>(layout), first)
                : nullptr;
      if (!copy) {
        kept.push_back(layout);
        continue;
      }
      for (OpOperand *use : uses)
        use->set(copy);
    }
    layouts = std::move(kept);
    rebuilt.insert(producer);
  }
  return rebuilt;
}

/// A value made again for every use is not made where it was: its
/// constraints and the op itself go, once nothing reads them.
static void eraseUnread(Operation *producer,
                        llvm::DenseSet<Operation *> &erased) {
  SmallVector<Operation *> chain;
  for (Operation *user = producer; user;) {
    chain.push_back(user);
    Value result = user->getResult(0);
    user = result.hasOneUse() && isa<ConstraintOp>(*result.user_begin())
               ? *result.user_begin()
               : nullptr;
  }
  // Each tensor operand's makers (its constraints, then the op under them
  // where every rank makes it alone), read before anything goes: an operand
  // read twice (`addf %k, %k`), or one that a constraint of another reads,
  // is not looked at after its maker went.
  SmallVector<SmallVector<Operation *, 2>> paths;
  for (Value operand : producer->getOperands()) {
    if (!isa<TensorType>(operand.getType()))
      continue;
    SmallVector<Operation *, 2> &path = paths.emplace_back();
    while (auto constraint = operand.getDefiningOp<ConstraintOp>()) {
      path.push_back(constraint);
      operand = constraint.getInput();
    }
    Operation *maker = operand.getDefiningOp();
    path.push_back(maker && rebuildableProducer(operand) == maker ? maker
                                                                  : nullptr);
  }
  for (Operation *op : llvm::reverse(chain)) {
    if (!op->use_empty())
      return;
    erased.insert(op);
    op->erase();
  }
  // Gone: the tensor operands made alone for it (a fill's tensor.empty)
  // may be unread now too.
  for (ArrayRef<Operation *> path : paths) {
    bool unread = true;
    for (Operation *constraint : path.drop_back()) {
      if (erased.contains(constraint))
        continue; // gone with another operand
      if (!constraint->use_empty()) {
        unread = false;
        break;
      }
      erased.insert(constraint);
      constraint->erase();
    }
    Operation *maker = path.back();
    if (unread && maker && !erased.contains(maker) && maker->use_empty())
      eraseUnread(maker, erased);
  }
}

static void eraseUnread(const llvm::SetVector<Operation *> &rebuilt) {
  llvm::DenseSet<Operation *> erased;
  for (Operation *producer : rebuilt)
    if (!erased.contains(producer))
      eraseUnread(producer, erased);
}

/// A value is moved once per layout it is needed in, just before the first
/// op of its block that needs it so (an FSDP weight is gathered where it is
/// used, not held from the start), for every use that needs it so. A value
/// every rank can make alone (a constant) is made again in each layout
/// instead, where first needed: no collective ever carries it.
void Propagation::moveToNeeds(std::vector<UseNeed> &needs) {
  OpBuilder builder(module.getContext());
  // The layout each value has now: its constraint's, or its argument's.
  auto layoutOfValue = [&](Value value) -> ShardingSpecAttrInterface {
    if (auto constraint = value.getDefiningOp<ConstraintOp>())
      return constraint.getLayout();
    int s = existingSlot(value);
    return s >= 0 ? slots[s].layout : nullptr;
  };
  // A value is moved once per layout it is needed in, just before the first
  // op of its block that needs it so (an FSDP weight is gathered where it
  // is used, not held from the start), for every use that needs it so.
  llvm::MapVector<std::pair<Value, Attribute>, SmallVector<OpOperand *>> moves;
  for (UseNeed &need : needs) {
    // The value as it is now (a pin may have taken its uses).
    Value value = need.uses.front()->get();
    ShardingSpecAttrInterface have = layoutOfValue(value);
    if (!need.layout || !have ||
        sameBlocks(have, need.layout,
                   cast<RankedTensorType>(value.getType()).getShape()))
      continue;
    llvm::append_range(moves[{value, need.layout}], need.uses);
  }
  // Each layout from the cheapest source: the value itself or another of
  // its copies (a gathered copy that another need slices for free), the
  // planner's cheapest tree of moves (planning::cheapestMoves); a copy is
  // made before the first op that needs it or a copy made of it.
  llvm::MapVector<Value, SmallVector<Attribute>> layoutsOf;
  for (auto &[key, uses] : moves)
    layoutsOf[key.first].push_back(key.second);
  llvm::SetVector<Operation *> rebuilt =
      rebuildWhereNeeded(builder, layoutsOf, moves);
  for (auto &[value, layouts] : layoutsOf) {
    if (layouts.empty())
      continue;
    Block *block = value.getParentBlock();
    auto type = cast<RankedTensorType>(value.getType());
    const size_t k = layouts.size();
    // Ids: the value's own layout, then each needed one.
    std::vector<Attribute> ids{layoutOfValue(value)};
    ids.insert(ids.end(), layouts.begin(), layouts.end());
    std::vector<std::vector<double>> cost(k + 1,
                                          std::vector<double>(k + 1, 0.0));
    if (k > 1)
      for (size_t a = 0; a <= k; ++a)
        for (size_t b = 1; b <= k; ++b)
          if (a != b) {
            Move m =
                cachedMoveCost(type, cast<ShardingSpecAttrInterface>(ids[a]),
                               cast<ShardingSpecAttrInterface>(ids[b]));
            cost[a][b] =
                m.possible ? m.us : planning::ChoiceProblem::kImpossible;
          }
    std::vector<int> needIds(k);
    for (size_t i = 0; i < k; ++i)
      needIds[i] = static_cast<int>(i) + 1;
    planning::MoveTree tree = planning::cheapestMoves(cost, 0, needIds);
    auto parentOf = [&](size_t i) -> int {
      return tree.from[i] <= 0 ? -1 : tree.from[i] - 1;
    };
    // The first op of the block that needs each copy, or a copy made of it.
    std::vector<Operation *> first(k, nullptr);
    auto earlier = [](Operation *a, Operation *b) {
      return !a ? b : !b ? a : b->isBeforeInBlock(a) ? b : a;
    };
    for (size_t i = 0; i < k; ++i)
      for (OpOperand *use : moves[{value, layouts[i]}])
        first[i] =
            earlier(first[i], block->findAncestorOpInBlock(*use->getOwner()));
    for (size_t i = 0; i < k; ++i)
      for (int p = parentOf(i); p >= 0 && first[i]; p = parentOf(p))
        first[p] = earlier(first[p], first[i]);
    // Parents first.
    std::vector<Value> made(k);
    for (size_t round = 0; round < k; ++round)
      for (size_t i = 0; i < k; ++i) {
        const int p = parentOf(i);
        if (made[i] || !first[i] || (p >= 0 && !made[p]))
          continue;
        Value source = p >= 0 ? made[p] : value;
        // A constraint the program wrote to this layout is the copy itself,
        // moved to where the copy is made; the other uses (other
        // constraints to this layout among them, which then change
        // nothing) read it. Otherwise a new constraint is the copy.
        ConstraintOp own;
        for (OpOperand *use : moves[{value, layouts[i]}])
          if (auto c = dyn_cast<ConstraintOp>(use->getOwner());
              c && c.getLayout() == layouts[i]) {
            own = c;
            break;
          }
        if (own) {
          if (own.getOperation() != first[i])
            own->moveBefore(first[i]);
          own.getInputMutable().set(source);
          made[i] = own.getResult();
        } else {
          builder.setInsertionPoint(first[i]);
          made[i] = ConstraintOp::create(
              builder, first[i]->getLoc(), value.getType(), source,
              cast<ShardingSpecAttrInterface>(layouts[i]));
        }
        for (OpOperand *use : moves[{value, layouts[i]}])
          if (use->getOwner() != own.getOperation())
            use->set(made[i]);
      }
  }
  eraseUnread(rebuilt);
}

/// Each decided op's reads (LoopSharding::reads): the layouts it reads
/// operands in that are not its loops' (a window kept cut, blocks read as
/// they are), from what the operands have (where the search decided the
/// op, the ones it chose to read as they are, in the layout it chose, and
/// no other), unless pinned; the decision
/// written says them, and moves (neededLayouts) and -shard-spmd-partition
/// read them.
void Propagation::decideReads() {
  for (Node &node : nodes) {
    if (!node.isRule || !node.decision)
      continue;
    std::vector<ShardingSpecAttrInterface> have;
    for (auto [i, slot] : llvm::enumerate(node.operandSlots)) {
      // The operands the search chose to read as they are, in the layout
      // it chose, and no other: it priced the others' moves to its
      // loops' layouts (a concat read as it lay the operand whose gather
      // the search had priced; slices of a copy gathered for another use
      // moved their windows besides: 25 of 82 random programs moved more
      // than modelled, test/Passes/shard-propagate-runs-as-modelled.test).
      if (keepsOperand(node.keptOperand, *node.rule, i))
        have.push_back(node.keptLayout);
      else if (!node.searched && slotKnown(slot))
        have.push_back(slots[slot].layout);
      else
        have.push_back(nullptr);
    }
    node.decision = withReads(node.op, *node.rule, *node.decision, have);
  }
}

void Propagation::writeBack() {
  rules.clear();
  decideReads();
  std::vector<UseNeed> needs = neededLayouts();
  pinLayouts();
  moveToNeeds(needs);
}
