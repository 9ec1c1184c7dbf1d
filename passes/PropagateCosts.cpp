//===- PropagateCosts.cpp - search=whole's values and what they cost ------===//
//
// The last two steps of building a function's whole-function search
// (PropagateSearch.cpp builds its nodes and groups): the values (each
// tensor's source per option of its producer and the layout each use needs
// per option of its user), then what each costs: the planner's modelled
// time of every move between two of a value's layouts (one table per type,
// layouts and block, shared by the values alike), what a rank holds in
// each layout and where each value is live. Also the compute time and bytes
// held that the groups' options are priced with.
//
//===----------------------------------------------------------------------===//

#include "ControlFlow.h"
#include "FunctionAttrs.h"
#include "PropagateSearch.h"

#include "shardc/Layout/Mesh.h"
#include "shardc/Planning/Choice.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace shardc;
using namespace shardc::propagation;

/// The most pairs of layouts a search plans moves between, times the
/// devices of its mesh (each plan lists every device's blocks): 1-3 s of
/// planning (0.8 us per device and pair on a 1-D mesh, 3 us on a 2-D
/// one). The Megatron chain on a 2x4 mesh plans 612 pairs (4,896), its
/// transformer 10,059 (80,472).
static constexpr double kMostPlannedDeviceBlocks = 1 << 20;

/// An op's compute time per rank under `sharding`: its local iterations
/// (two flops each where it reduces: a multiply and an add) over the peak
/// rate; 0 when the rate is 0.
double shardc::propagation::computeUs(const ShardingRule &rule,
                                      const LoopSharding &sharding,
                                      double peakGflops) {
  if (!(peakGflops > 0))
    return 0;
  double iterations = 1;
  bool reduces = false;
  for (size_t l = 0; l < rule.loops.size(); ++l) {
    int64_t ways = 1;
    for (size_t a = 0; a < sharding.axisLoop.size(); ++a)
      if (sharding.axisLoop[a] == static_cast<int64_t>(l))
        ways *= sharding.mesh.getShape()[a];
    const int64_t size = rule.loops[l].size;
    iterations *= static_cast<double>(size / ways + (size % ways != 0));
    reduces |= rule.loops[l].reduction;
  }
  return iterations * (reduces ? 2 : 1) / (peakGflops * 1e3);
}

/// The bytes a rank holds of a tensor of `type` in `layout`: its largest
/// block (the first device's: a chunk is never larger than the one before
/// it); the whole tensor where the layout is not a mesh layout.
double shardc::propagation::heldBytes(RankedTensorType type, Attribute layout) {
  const double bytes = static_cast<double>(elementBytes(type.getElementType()));
  std::vector<int64_t> shape = layoutShape(type.getShape());
  auto spec = cast<ShardingSpecAttrInterface>(layout);
  if (PlacementsSpecAttr mesh = asMeshLayout(spec, type.getShape())) {
    const layout::Mesh &m = mesh.getMesh().getMesh();
    std::vector<int64_t> origin(m.shape.size(), 0);
    std::vector<layout::Placement> placements(mesh.getPlacements().begin(),
                                              mesh.getPlacements().end());
    shape =
        layout::hasStrided(placements)
            ? layout::rowsShape(layout::meshRows(shape, m, placements, origin))
            : layout::meshBox(shape, m, placements, origin).sizes;
  }
  double elements = 1;
  for (int64_t n : shape)
    elements *= static_cast<double>(n);
  return elements * bytes;
}

/// The values: each tensor with a definition the search knows, its source
/// per option, and the layout each use needs per option.
LogicalResult Propagation::searchValues(FunctionSearch &fs) {
  func::FuncOp func = fs.func;
  MeshAttr mesh = fs.mesh;
  const int index = fs.index;
  std::vector<int> &ruleNodes = fs.ruleNodes;
  std::vector<int> &edgeNodes = fs.edgeNodes;
  std::vector<int> &calleeSlots = fs.calleeSlots;
  planning::ChoiceProblem &problem = fs.problem;
  std::vector<SearchGroup> &groups = fs.groups;
  llvm::DenseMap<int, int> &groupOfNode = fs.groupOfNode;
  llvm::DenseMap<int, int> &groupOfSlot = fs.groupOfSlot;
  std::vector<FunctionSearch::Carried> &carried = fs.carried;
  std::vector<SearchValue> &infos = fs.infos;
  llvm::DenseMap<Value, int> &valueOf = fs.valueOf;
  auto leave = [&](const Twine &why) { return leaveSearch(fs, why); };
  auto fixedLayout = [&](int slot) { return searchFixedLayout(fs, slot); };
  auto valueFor = [&](Value value) { return searchValueFor(fs, value); };
  auto operandValue = [](const Node &node, size_t i) {
    return searchOperandValue(node, i);
  };
  // The values: each tensor with a definition the search knows, its source
  // per option, and the layout each use needs per option. Room for them
  // first (a SearchValue grown into a larger vector is copied: its map's
  // move may throw).
  size_t expected = edgeNodes.size();
  for (int body : fs.bodies)
    expected += argSlots[body].size();
  for (const FunctionSearch::Carried &c : carried)
    expected += c.values.size();
  for (int id : ruleNodes)
    expected += nodes[id].resultSlots.size();
  infos.reserve(expected);
  problem.values.reserve(expected);
  auto addValue = [&](int slot, Value value) -> SearchValue & {
    valueOf[value] = static_cast<int>(infos.size());
    SearchValue info;
    info.slot = slot;
    info.value = value;
    infos.push_back(std::move(info));
    problem.values.emplace_back();
    return infos.back();
  };
  // A value whose slot is pinned, another function's, or a free group's.
  auto addSlotValue = [&](int slot, Value value) {
    SearchValue &info = addValue(slot, value);
    planning::ChoiceProblem::Value &v = problem.values.back();
    if (ShardingSpecAttrInterface fixed = fixedLayout(slot)) {
      v.source = {info.id(fixed)};
      return true;
    }
    auto group = groupOfSlot.find(slot);
    if (group == groupOfSlot.end())
      return false;
    v.producer = group->second;
    for (ShardingSpecAttrInterface layout : groups[group->second].layouts)
      v.source.push_back(info.id(layout));
    return true;
  };
  for (int body : fs.bodies)
    for (auto [i, slot] : llvm::enumerate(argSlots[body]))
      if (slot >= 0)
        addSlotValue(slot, funcs[body].getArgument(i));
  for (const FunctionSearch::Carried &c : carried)
    for (Value value : c.values)
      addSlotValue(c.slot, value);
  // The layouts a rule's shardings give its operands and results: a
  // function of the rule (its class), the shardings (one list shares its
  // buffer among ops alike) and the tensor's index alone, so computed once
  // per class and list.
  using LayoutsKey = std::tuple<int, const void *, bool, size_t>;
  std::map<LayoutsKey, std::vector<Attribute>> layoutsOf;
  auto layoutsUnder = [&](const Node &node, const SearchGroup &g, bool result,
                          size_t i) -> const std::vector<Attribute> & {
    auto [at, fresh] = layoutsOf.try_emplace(
        LayoutsKey{g.ruleClass >= 0 ? g.ruleClass : -2 - g.node,
                   g.shardings.identity(), result, i});
    if (fresh)
      for (const LoopSharding &s : g.shardings)
        at->second.push_back(
            result ? Attribute(resultLayoutUnder(*node.rule, s, i))
                   : Attribute(operandLayoutUnder(node.op, *node.rule, s, i,
                                                  nullptr, {})));
    return at->second;
  };
  for (int id : ruleNodes) {
    Node &node = nodes[id];
    const SearchGroup &g = groups[groupOfNode[id]];
    for (auto [i, slot] : llvm::enumerate(node.resultSlots)) {
      if (slot < 0)
        continue;
      SearchValue &info = addValue(slot, node.op->getResult(i));
      planning::ChoiceProblem::Value &v = problem.values.back();
      v.producer = groupOfNode[id];
      const std::vector<Attribute> &made = layoutsUnder(node, g, true, i);
      v.source.reserve(made.size());
      for (Attribute layout : made)
        v.source.push_back(info.id(layout));
    }
  }
  for (int id : edgeNodes) {
    Node &node = nodes[id];
    if (isa<ConstraintOp>(node.op)) {
      SearchValue &info = addValue(node.to, node.op->getResult(0));
      problem.values.back().source = {info.id(slots[node.to].layout)};
    }
  }
  // What calls return: the callee's result layouts.
  WalkResult calls = WalkResult::advance();
  for (int body : fs.bodies)
    if (!calls.wasInterrupted())
      calls = funcs[body].walk([&](func::CallOp call) {
        for (Value result : call.getResults()) {
          const int slot = existingSlot(result);
          if (slot < 0)
            continue;
          calleeSlots.push_back(slot);
          if (!addSlotValue(slot, result)) {
            (void)leave("its call to " + call.getCallee() +
                        " returns a tensor whose layout that function does "
                        "not have yet (it has no mesh of its own)");
            return WalkResult::interrupt();
          }
        }
        return WalkResult::advance();
      });
  if (calls.wasInterrupted())
    return success(); // left (fs.done)
  for (int id : edgeNodes)
    if (isa<func::CallOp>(nodes[id].op))
      calleeSlots.push_back(nodes[id].to);
  for (int id : ruleNodes) {
    Node &node = nodes[id];
    const SearchGroup &g = groups[groupOfNode[id]];
    for (auto [i, slot] : llvm::enumerate(node.operandSlots)) {
      if (slot < 0)
        continue;
      int value = valueFor(operandValue(node, i));
      if (value < 0)
        return leave("a value it uses has no producer the search knows");
      planning::ChoiceProblem::Use use;
      use.group = groupOfNode[id];
      const std::vector<Attribute> &needs = layoutsUnder(node, g, false, i);
      use.need.reserve(g.shardings.size());
      for (size_t o = 0; o < g.shardings.size(); ++o)
        use.need.push_back(
            infos[value].id(keepsOperand(g.keptOperand[o], *node.rule, i)
                                ? Attribute(g.keptLayout[o])
                                : needs[o]));
      problem.values[value].uses.push_back(std::move(use));
    }
  }
  for (int id : edgeNodes) {
    Node &node = nodes[id];
    int value = valueFor(node.use->get());
    if (value < 0)
      return leave("a value it uses has no producer the search knows");
    planning::ChoiceProblem::Use use;
    if (ShardingSpecAttrInterface fixed = fixedLayout(node.to)) {
      use.need = {infos[value].id(fixed)};
    } else {
      auto found = groupOfSlot.find(node.to);
      if (found == groupOfSlot.end())
        return leave("a value it uses has no producer the search knows");
      use.group = found->second;
      for (ShardingSpecAttrInterface layout : groups[found->second].layouts)
        use.need.push_back(infos[value].id(layout));
    }
    problem.values[value].uses.push_back(std::move(use));
  }
  return success();
}

/// An option reading an operand's window as it is: the op's hook moves the
/// parts of the window each rank holds to the result's layout (a slice's,
/// layoutInPlace), or the operand's parts to the elements each rank's block
/// of the result takes (a placement's: pad, insert_slice, concat,
/// layoutToPlace), which the planner prices like any move (counted as
/// nothing, a window read looked free: 80 B moved where reading rows first
/// moved 64), added to `own` (which ops alike share without it).
void Propagation::priceWindows(const Node &node, SearchGroup &group,
                               std::vector<double> &own, double times,
                               WindowPrices &windowPrices) {
  // Read through a const view: SharedVector's non-const operator[] copies a
  // list ops alike share (and the memos keyed by its buffer then miss: a
  // 1,000-op chain's search took 75 M instructions more).
  const SearchGroup &read = group;
  // The prices are a function of the op as written but for its SSA
  // operands (their types, and the values of those that are constants:
  // a tosa.slice's start) and of its options: made once per such op
  // (thousands of slices alike), never shared with ops alike whose
  // windows lie elsewhere.
  std::optional<WindowPrices::key_type> priceKey;
  // Per operand, the window option k reads as it is (null: none): its kept
  // operand's, or those its sharding's reads name where they are windows
  // the loops would not give (a pinned sharding's: the search's own choice
  // written back and pinned again was priced as moving nothing).
  const size_t operands = node.rule->operands.size();
  auto windowLayouts = [&](size_t k) {
    SmallVector<ShardingSpecAttrInterface> layouts(operands, nullptr);
    if (node.resultSlots.empty() || node.resultSlots[0] < 0 ||
        !isa<ShardingRuleOpInterface>(node.op))
      return layouts;
    if (read.keptOperand[k] != -1) {
      for (size_t i = 0; i < operands; ++i)
        if (keepsOperand(read.keptOperand[k], *node.rule, i))
          layouts[i] = read.keptLayout[k];
      return layouts;
    }
    const LoopSharding &s = read.shardings[k];
    if (!s.reads)
      return layouts;
    LoopSharding plain = s;
    plain.reads = {};
    for (size_t i = 0; i < operands && i < node.op->getNumOperands(); ++i) {
      ShardingSpecAttrInterface have = s.readOf(i);
      auto type = dyn_cast<RankedTensorType>(node.op->getOperand(i).getType());
      if (!have || !type || !type.hasStaticShape() ||
          !keepsOperand(kEveryWindow, *node.rule, i) ||
          have == layoutUnder(*node.rule, plain, node.rule->operands[i]) ||
          operandLayoutUnder(node.op, *node.rule, plain, i, have,
                             type.getShape()) != have)
        continue;
      layouts[i] = have;
    }
    return layouts;
  };
  auto windowed = [&](size_t k) {
    return llvm::any_of(windowLayouts(k),
                        [](ShardingSpecAttrInterface l) { return bool(l); });
  };
  for (size_t k = 0; k < group.shardings.size() && !priceKey; ++k)
    if (windowed(k)) {
      priceKey.emplace();
      priceKey->first = {
          node.op->getName().getAsOpaquePointer(),
          node.op->getRawDictionaryAttrs().getAsOpaquePointer(),
          node.op->getPropertiesAsAttribute().getAsOpaquePointer(),
          group.shardings.identity(), group.keptLayout.identity()};
      for (Value operand : node.op->getOperands()) {
        // A tensor by its type; anything else (an offset) by its value.
        Attribute constant;
        priceKey->first.push_back(operand.getType().getAsOpaquePointer());
        if (!isa<TensorType>(operand.getType()))
          priceKey->first.push_back(matchPattern(operand, m_Constant(&constant))
                                        ? constant.getAsOpaquePointer()
                                        : operand.getAsOpaquePointer());
      }
      priceKey->second = times;
    }
  if (priceKey)
    if (auto seen = windowPrices.find(*priceKey); seen != windowPrices.end()) {
      group.windowUs = seen->second;
      for (size_t k = 0; k < own.size() && k < group.windowUs.size(); ++k)
        own[k] += group.windowUs[k];
      priceKey.reset();
    }
  auto iface = dyn_cast<ShardingRuleOpInterface>(node.op);
  for (size_t k = 0; priceKey && k < group.shardings.size(); ++k) {
    SmallVector<ShardingSpecAttrInterface> layouts = windowLayouts(k);
    if (!llvm::any_of(layouts,
                      [](ShardingSpecAttrInterface l) { return bool(l); }))
      continue;
    // A slice's parts move to the result's layout; each placed operand's
    // (pad, insert_slice, concat) to the elements each rank's block of the
    // result takes (as the op's hook moves them).
    ShardingSpecAttrInterface result =
        resultLayoutUnder(*node.rule, read.shardings[k], 0);
    std::optional<double> us;
    auto add = [&](const Move &m) {
      us = !m.possible ? planning::ChoiceProblem::kImpossible
                       : us.value_or(0.0) + m.us;
    };
    if (ShardingSpecAttrInterface parts = iface.layoutInPlace(0, layouts))
      add(cachedMoveCost(slots[node.resultSlots[0]].type, parts, result));
    else
      for (auto [i, layout] : llvm::enumerate(layouts))
        if (layout && i < node.op->getNumOperands())
          if (ShardingSpecAttrInterface placed =
                  iface.layoutToPlace(static_cast<unsigned>(i), layout, result))
            add(cachedMoveCost(
                cast<RankedTensorType>(node.op->getOperand(i).getType()),
                layout, placed));
    if (!us)
      continue;
    if (group.windowUs.empty())
      group.windowUs.assign(group.shardings.size(), 0);
    // Less one part in a million: the parts move at most the slice, so
    // where moving the operand first takes as long (a gather of the whole
    // tensor, say), reading the window wins (a slice of a call's
    // result on 4 ranks: 144 B in all, not 576).
    group.windowUs[k] = std::isinf(*us) ? *us : times * *us * (1 - 1e-6);
    own[k] += group.windowUs[k];
  }
  if (priceKey)
    windowPrices[*priceKey] = group.windowUs;
}

/// What each value's moves cost, what it holds and where it is live.
LogicalResult Propagation::searchCosts(FunctionSearch &fs) {
  func::FuncOp func = fs.func;
  planning::ChoiceProblem &problem = fs.problem;
  std::vector<SearchValue> &infos = fs.infos;
  std::vector<planning::SharedRows<int64_t>> &bytes = fs.bytes;
  bool &budgeted = fs.budgeted;
  auto runsOf = [&](Block *block) { return searchRuns(fs, block); };
  // Where each value is held: program points are the function's ops in
  // order (nested ones included). An argument is held throughout (its
  // caller holds it); another value from its definition (a loop's or
  // branch's result: the loop's end; a loop's region argument: its start)
  // to its last use, where a use nested in a loop or branch of the value's
  // block holds it to that op's end. Its copies are counted with it.
  // A callee searched with its call is numbered at the call, as if
  // inlined there (its arguments from the call's point).
  llvm::DenseMap<Operation *, std::pair<int, int>> pointOf; // op -> (at, end)
  int points = 0;
  auto inlinedCallee = [&](Operation *op) -> func::FuncOp {
    auto call = dyn_cast<func::CallOp>(op);
    func::FuncOp callee = call ? calleeOf(call) : nullptr;
    return callee && fs.callOfBody.count(callee) ? callee : nullptr;
  };
  std::function<void(Region &)> number = [&](Region &region) {
    region.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // (Not {points, points++}: pair's constructor takes its first by
      // reference and read it after the increment, numbering the ops from
      // 1 with `points` their last, one past what liveRange assumed.)
      const int at = points++;
      pointOf[op] = {at, at};
      if (func::FuncOp callee = inlinedCallee(op)) {
        pointOf[callee] = pointOf[op];
        number(callee.getBody());
      }
    });
  };
  number(func.getBody());
  // Callees before their callers: a call ends where its callee does.
  for (int body : llvm::reverse(fs.bodies))
    funcs[body].getBody().walk<WalkOrder::PostOrder>([&](Operation *op) {
      int end = pointOf[op].first;
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Operation &inner : block)
            end = std::max(end, pointOf[&inner].second);
      if (func::FuncOp callee = inlinedCallee(op))
        for (Block &block : callee.getBody())
          for (Operation &inner : block)
            end = std::max(end, pointOf[&inner].second);
      pointOf[op].second = end;
    });
  auto liveRange = [&](Value value) -> std::pair<int, int> {
    Block *block = value.getParentBlock();
    Operation *parent = block->getParentOp();
    if (isa<BlockArgument>(value) && parent == func.getOperation())
      return {0, std::max(points - 1, 0)};
    int first = 0;
    if (isa<BlockArgument>(value))
      first = pointOf[parent].first;
    else if (Operation *def = value.getDefiningOp(); def->getNumRegions() > 0)
      first = pointOf[def].second;
    else if (inlinedCallee(def))
      // A call's result is the block its callee returns, held by the
      // callee's value to its return (the callee's last point): the result
      // holds it from the op after the call.
      first = std::min(pointOf[def].second + 1, std::max(points - 1, 0));
    else
      first = pointOf[def].first;
    int last = first;
    for (OpOperand &use : value.getUses()) {
      Operation *owner = use.getOwner();
      Operation *at = block->findAncestorOpInBlock(*owner);
      if (!at)
        continue;
      // A callee searched with its call reads what the call passes (its
      // arguments' blocks: sourceHeld) to its end.
      last = std::max(last, at == owner && !inlinedCallee(owner)
                                ? pointOf[at].first
                                : pointOf[at].second);
    }
    return {first, last};
  };

  // What each move costs: the planner's modelled time. Values of one
  // type and layouts, in blocks that run as often and made again in the
  // same layouts at the same cost, have the same tables: each is computed
  // once and shared (a chain of thousands of blocks has a few).
  struct Tables {
    planning::SharedRows<double> move;
    planning::SharedRows<int64_t> bytes;
    std::vector<double> held;
  };
  using TableKey = std::tuple<const void *, std::vector<const void *>, double,
                              std::vector<std::pair<bool, double>>>;
  std::map<TableKey, Tables> tables;
  bytes.assign(infos.size(), {});
  // Each plan lists every device's blocks: past kMostPlannedDeviceBlocks
  // (the pairs of layouts its values of one type may take, times the
  // mesh's devices) the tables would take from seconds to hours and
  // gigabytes (a 3-op program on a 128x128 mesh: 20 s; one op on a mesh of
  // 2^24 devices: killed at 200 s and 16 GB), and op by op goes on instead.
  {
    double devices = 1;
    for (int64_t extent : fs.mesh.getShape())
      devices *= static_cast<double>(extent);
    llvm::DenseMap<Type, llvm::DenseSet<Attribute>> layoutsOfType;
    for (const SearchValue &info : infos)
      layoutsOfType[slots[info.slot].type].insert(info.layouts.begin(),
                                                  info.layouts.end());
    double pairs = 0;
    for (const auto &[type, layouts] : layoutsOfType)
      pairs += static_cast<double>(layouts.size()) *
               static_cast<double>(layouts.size() - 1);
    if (pairs * devices > kMostPlannedDeviceBlocks)
      return leaveSearch(
          fs, "planning the moves between its values' layouts would list "
              "the blocks of its mesh's " +
                  Twine(static_cast<int64_t>(devices)) + " devices for " +
                  Twine(static_cast<int64_t>(pairs)) +
                  " pairs of layouts (past " +
                  Twine(static_cast<int64_t>(kMostPlannedDeviceBlocks)) +
                  " devices' blocks in all)");
  }
  for (size_t v = 0; v < infos.size(); ++v) {
    SearchValue &info = infos[v];
    const size_t n = info.layouts.size();
    // Copies are made in the value's own block.
    const double times = runsOf(info.value.getParentBlock());
    // A value every rank can make alone (a constant) is made again in each
    // layout write-back can make it in: nothing moves there, and making it
    // costs what the op computes under that layout's sharding.
    Operation *producer = rebuildableProducer(info.value);
    std::vector<std::optional<double>> remade(n);
    FailureOr<ShardingRule> producerRule = failure();
    if (producer)
      producerRule = shardingRuleOf(producer);
    if (succeeded(producerRule))
      for (size_t to = 0; to < n; ++to)
        if (std::optional<LoopSharding> s = rebuildSharding(
                producer, cast<ShardingSpecAttrInterface>(info.layouts[to])))
          remade[to] = times * computeUs(*producerRule, *s, search.peakGflops);
    info.remade.assign(n, false);
    for (size_t to = 0; to < n; ++to)
      info.remade[to] = remade[to].has_value();
    // Made again in every layout a use may need: the solvers price it as
    // that (each layout made once), not as a tree of moves.
    problem.values[v].madeByEveryRank =
        producer &&
        llvm::all_of(planning::layoutsUsesMayNeed(problem.values[v]),
                     [&](int to) { return remade[to].has_value(); });
    RankedTensorType type = slots[info.slot].type;
    TableKey key{type.getAsOpaquePointer(), {}, times, {}};
    std::get<1>(key).reserve(n);
    std::get<3>(key).reserve(n);
    for (Attribute layout : info.layouts)
      std::get<1>(key).push_back(layout.getAsOpaquePointer());
    for (const std::optional<double> &cost : remade)
      std::get<3>(key).push_back({cost.has_value(), cost.value_or(0.0)});
    auto [at, fresh] = tables.try_emplace(std::move(key));
    Tables &made = at->second;
    if (fresh) {
      std::vector<std::vector<double>> move(n, std::vector<double>(n, 0.0));
      std::vector<std::vector<int64_t>> received(n, std::vector<int64_t>(n, 0));
      for (size_t from = 0; from < n; ++from)
        for (size_t to = 0; to < n; ++to) {
          if (from == to)
            continue;
          if (remade[to]) {
            move[from][to] = *remade[to];
            continue;
          }
          Move m = cachedMoveCost(
              type, cast<ShardingSpecAttrInterface>(info.layouts[from]),
              cast<ShardingSpecAttrInterface>(info.layouts[to]));
          move[from][to] =
              m.possible ? times * m.us : planning::ChoiceProblem::kImpossible;
          received[from][to] = m.bytes;
        }
      made.move = std::move(move);
      made.bytes = std::move(received);
      for (Attribute layout : info.layouts)
        made.held.push_back(heldBytes(type, layout));
    }
    problem.values[v].move = made.move;
    bytes[v] = made.bytes;
    problem.values[v].held = made.held;
    std::tie(problem.values[v].first, problem.values[v].last) =
        liveRange(info.value);
    // A callee's argument (a callee searched with its call) is the block
    // the call passes: the caller's operand, or the copy of it the call
    // needs, held by that value (its uses at the call hold it to the
    // callee's end); only the layouts made of the argument inside count.
    if (auto arg = dyn_cast<BlockArgument>(info.value))
      if (Operation *owner = arg.getOwner()->getParentOp();
          isa<func::FuncOp>(owner) && owner != func.getOperation())
        problem.values[v].sourceHeld = false;
  }
  fs.budget = budgetFor(fs.mesh);
  budgeted = fs.budget > 0;
  if (budgeted)
    problem.memoryBudget = static_cast<double>(fs.budget);
  if (std::string problemText = problem.check(); !problemText.empty())
    return func.emitOpError() << "search=whole built an inconsistent problem ("
                              << problemText << "); please report this";
  return success();
}
