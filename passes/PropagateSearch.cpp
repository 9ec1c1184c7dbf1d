//===- PropagateSearch.cpp - -shard-propagate's whole-function search ----===//
//
// search=whole (the default): every op's loop sharding and every free
// argument's and result's layout of a function chosen together, at the
// least modelled time, within a memory budget where one is given, by the
// solvers of shardc/Planning/Choice.h (docs/partition.md, "Whole-function
// search"). This file builds each function's problem: its nodes and
// groups (PropagateCosts.cpp its values and their costs); PropagateSolve.cpp
// solves it and writes the choice back, and explain=true's remarks are
// PropagateExplain.cpp's.
//
//===----------------------------------------------------------------------===//

#include "PropagateSearch.h"
#include "ControlFlow.h"
#include "FunctionAttrs.h"

#include "shardc/Layout/Mesh.h"
#include "shardc/Planning/Choice.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AsmState.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>

using namespace mlir;
using namespace shardc;
using namespace shardc::propagation;

/// Calls `fn` with every pick of one element per list of `choices`, the
/// first list's element changing fastest.
template <typename T, typename Fn>
static void forEachPick(const std::vector<std::vector<T>> &choices, Fn fn) {
  std::vector<size_t> at(choices.size(), 0);
  std::vector<T> pick(choices.size());
  while (true) {
    for (size_t a = 0; a < choices.size(); ++a)
      pick[a] = choices[a][at[a]];
    fn(pick);
    size_t a = 0;
    for (; a < choices.size(); ++a) {
      if (++at[a] < choices[a].size())
        break;
      at[a] = 0;
    }
    if (a == choices.size())
      return;
  }
}

/// The most groups a reshape's fold offers the search to cut a loop
/// strided in: each device of such a layout holds that many pieces of the
/// dim, and planning a move into or out of it takes time linear in them
/// (a collapse of 112 x 112 x 64 pixels offered 12,544 groups, and its
/// search ran for minutes on a 2 x 2 mesh). Heads folded with a batch of
/// up to this many ([B*H]) are within it; a pinned strided layout's split
/// is offered whatever it is.
static constexpr int64_t kMostFoldGroupsSearched = 64;

/// Whether cutting `loop` would cut a dim it is folded into in more than
/// kMostFoldGroupsSearched groups (the channels of [N, H*W*C]: H*W pieces
/// on each device): not searched.
static bool foldsTooFinely(const ShardingRule &rule, int64_t loop) {
  return llvm::any_of(rule.folds, [&](const ShardingRule::Fold &f) {
    return f.loop == loop && f.groups > kMostFoldGroupsSearched;
  });
}

/// Every loop sharding of `rule` on `mesh`: each axis of more than one
/// device shards one shardable loop or none (alignToFactors applied; each
/// once), "nothing sharded" first. An axis may also cut a loop strided in
/// each of `splits` groups (the groups the function's reshapes fold loops
/// in: a batched op over [B*H] keeping the heads of every batch cut; the
/// splits of the strided layouts pinned in it: FSDP2 + TP's), where
/// the loop allows it (whyNotCutInGroups: the groups split it whole, no
/// offset per rank is needed along it, no folded dim is indexed by it);
/// and in those groups over the sizes of axes
/// that may cut the batches before it.
static std::vector<LoopSharding> everySharding(const ShardingRule &rule,
                                               MeshAttr mesh,
                                               ArrayRef<int64_t> splits = {}) {
  const size_t axes = mesh.getShape().size();
  // Each fold's groups, and what is left of them in a piece of axes that
  // cut the batches first (dp on B of [B*H] leaves B / dp groups to cut the
  // heads in): divided by each product of axes' sizes that divides them.
  std::vector<int64_t> groups;
  for (int64_t split : splits)
    for (uint64_t subset = 0;
         subset < (uint64_t(1) << std::min<size_t>(axes, 8)); ++subset) {
      int64_t product = 1;
      for (size_t a = 0; a < std::min<size_t>(axes, 8); ++a)
        if (subset >> a & 1)
          product *= mesh.getShape()[a];
      if (split % product == 0 && split / product > 1 &&
          !llvm::is_contained(groups, split / product))
        groups.push_back(split / product);
    }
  using Cut = std::pair<int64_t, int64_t>; // loop, split
  std::vector<std::vector<Cut>> choices(axes, {{-1, 1}});
  for (size_t a = 0; a < axes; ++a)
    if (mesh.getShape()[a] > 1)
      for (size_t l = 0; l < rule.loops.size(); ++l) {
        const auto loop = static_cast<int64_t>(l);
        if (!rule.shardable(loop) || foldsTooFinely(rule, loop))
          continue;
        choices[a].push_back({loop, 1});
        for (int64_t split : groups)
          if (rule.loops[l].size > split &&
              whyNotCutInGroups(rule, loop, split).empty())
            choices[a].push_back({loop, split});
      }
  std::vector<LoopSharding> out;
  forEachPick(choices, [&](const std::vector<Cut> &cuts) {
    LoopSharding s{mesh, {}};
    bool strided = false;
    for (auto [loop, split] : cuts) {
      s.axisLoop.push_back(loop);
      s.axisSplit.push_back(split);
      strided |= split > 1;
    }
    if (!strided)
      s.axisSplit.clear();
    s = alignToFactors(rule, std::move(s));
    if (!llvm::is_contained(out, s))
      out.push_back(std::move(s));
  });
  return out;
}

/// Every layout of a tensor of `shape` on `mesh` without Partial: each axis
/// of more than one device replicates it or cuts a dim of more than one
/// element (a dynamic one included: torch.chunk of its run-time extent),
/// or a static one strided in each of `splits` groups (everySharding's);
/// replicated first.
static std::vector<ShardingSpecAttrInterface>
everyLayout(MeshAttr mesh, ArrayRef<int64_t> shape,
            ArrayRef<int64_t> splits = {}) {
  const size_t axes = mesh.getShape().size();
  std::vector<std::vector<layout::Placement>> choices(
      axes, {layout::Placement::replicate()});
  for (size_t a = 0; a < axes; ++a)
    if (mesh.getShape()[a] > 1)
      for (size_t d = 0; d < shape.size(); ++d) {
        const auto dim = static_cast<int64_t>(d);
        if (shape[d] > 1 || ShapedType::isDynamic(shape[d]))
          choices[a].push_back(layout::Placement::shard(dim));
        if (!ShapedType::isDynamic(shape[d]))
          for (int64_t split : splits)
            if (split > 1 && split < shape[d])
              choices[a].push_back(layout::Placement::strided(dim, split));
      }
  std::vector<ShardingSpecAttrInterface> out;
  forEachPick(choices, [&](const std::vector<layout::Placement> &placements) {
    out.push_back(PlacementsSpecAttr::get(mesh.getContext(), mesh, placements));
  });
  return out;
}

/// What a strided cut adds to its op's time in the objective: nothing a
/// move or a computation costs (an element at 150 GB/s is 2.7e-5 us), but
/// more than the solvers' tolerance (1e-9), so that where a plain cut costs
/// the same the plain one is taken: its moves are named collectives, a
/// strided layout's are general exchanges.
static constexpr double kStridedTieUs = 1e-6;

/// Whether `sharding` cuts a loop strided: in groups, or folded into a dim
/// (ShardingRule::Fold).
static bool cutsStrided(const ShardingRule &rule, const LoopSharding &s) {
  for (size_t a = 0; a < s.axisLoop.size(); ++a)
    if (s.axisLoop[a] >= 0 &&
        (s.splitOf(a) > 1 || llvm::any_of(rule.folds, [&](const auto &f) {
           return f.loop == s.axisLoop[a];
         })))
      return true;
  return false;
}

/// A slot of another function (a callee's argument or result) has the
/// layout that function's search or pins gave it; one without a body takes
/// and gives whole tensors: replicated on the function's mesh.
ShardingSpecAttrInterface
Propagation::searchFixedLayout(const FunctionSearch &fs, int slot) {
  MeshAttr mesh = fs.mesh;
  if (slots[slot].layout)
    return slots[slot].layout;
  if (!slots[slot].whole)
    return nullptr;
  return PlacementsSpecAttr::get(
      mesh.getContext(), mesh,
      std::vector<layout::Placement>(mesh.getShape().size()));
}

/// How many times `block` runs per call of the function: a loop's
/// static trip count (loop-trips where it has none: scf.while, dynamic
/// bounds), multiplied down nested loops; each branch of an scf.if as if
/// it ran (ControlFlow.h's runsPerEntry). Moves and compute inside count that
/// many times; a value's copies are made in its own block (before the loop
/// that uses it).
double Propagation::searchRuns(FunctionSearch &fs, Block *block) {
  Operation *parent = block->getParentOp();
  if (!parent || parent == fs.func.getOperation())
    return 1;
  // A callee searched with its call runs as often as the call.
  if (auto call = fs.callOfBody.find(parent); call != fs.callOfBody.end())
    return searchRuns(fs, call->second->getBlock());
  auto [it, fresh] = fs.runs.try_emplace(block, 1.0);
  if (!fresh)
    return it->second;
  double n = searchRuns(fs, parent->getBlock());
  std::optional<uint64_t> trips = runsPerEntry(parent, *block->getParent());
  n *= trips ? static_cast<double>(*trips)
             : static_cast<double>(search.loopTrips);
  n = std::min(n, 1e15);
  fs.runs[block] = n;
  return n;
}

/// The value a rule node's operand #i reads (past its own operands: the
/// tensors its regions capture).
Value Propagation::searchOperandValue(const Node &node, size_t i) {
  const unsigned own = node.op->getNumOperands();
  if (i < own)
    return node.op->getOperand(i);
  return capturedTensors(node.op)[i - own];
}

int Propagation::searchValueFor(const FunctionSearch &fs, Value value) {
  auto it = fs.valueOf.find(value);
  return it == fs.valueOf.end() ? -1 : it->second;
}

LogicalResult Propagation::leaveSearch(FunctionSearch &fs, const Twine &why) {
  // auto=true was asked to shard it (a mesh, no layout pinned): op by op,
  // from no layout, it stays as written, replicated on every rank.
  if (search.autoShard && fs.func->hasAttr(kMeshAttr) &&
      llvm::none_of(slotsOfFunc[fs.index],
                    [&](int slot) { return bool(slots[slot].layout); }))
    mlir::emitWarning(fs.func.getLoc())
        << "auto=true leaves this function as written, every rank running "
           "all of it: search=whole cannot search it ("
        << why << ")";
  else if (explain)
    mlir::emitRemark(fs.func.getLoc())
        << "search=whole leaves this function to op-by-op "
           "propagation: "
        << why;
  fs.done = true;
  return success();
}

/// The function's nodes: rule ops, and the edges of constraints, returns,
/// calls, loops and branches; left to op-by-op propagation where it passes
/// tensors through an op neither kind covers.
LogicalResult Propagation::searchNodes(FunctionSearch &fs) {
  MeshAttr mesh = fs.mesh;
  const int index = fs.index;
  std::vector<int> &ruleNodes = fs.ruleNodes;
  std::vector<int> &edgeNodes = fs.edgeNodes;
  auto leave = [&](const Twine &why) { return leaveSearch(fs, why); };
  auto fixedLayout = [&](int slot) { return searchFixedLayout(fs, slot); };
  // The callees searched with it, as if inlined at their calls.
  fs.bodies = {index};
  for (size_t b = 0; b < fs.bodies.size(); ++b)
    funcs[fs.bodies[b]].walk([&](func::CallOp call) {
      auto found = funcIndex.find(calleeOf(call));
      // (A call inside a rule op's regions passes whole tensors: not one.)
      if (found == funcIndex.end() || enclosingRuleOp(call) ||
          !searchedWithItsCall(found->second) ||
          fs.callOfBody.count(funcs[found->second]) || found->second == index)
        return;
      fs.bodies.push_back(found->second);
      fs.callOfBody[funcs[found->second]] = call;
    });
  // Every tensor it searches takes layouts: a quantized one cannot.
  for (int body : fs.bodies)
    if (failed(checkElementTypes(funcs[body])))
      return failure();
  auto searchedWithIt = [&](func::CallOp call) {
    return fs.callOfBody.count(calleeOf(call)) > 0;
  };
  // Its nodes: rule ops, and the edges of constraints, returns, calls,
  // loops and branches.
  for (int body : fs.bodies)
    for (int id : nodesOfFunc[body]) {
      Node &node = nodes[id];
      if (node.isRule) {
        ruleNodes.push_back(id);
        continue;
      }
      if (!isa<ConstraintOp, func::ReturnOp, func::CallOp>(node.op) &&
          !carriesLayouts(node.op) && !forwardsLayouts(node.op))
        return leave("it passes tensors through '" +
                     node.op->getName().getStringRef() + "'");
      edgeNodes.push_back(id);
    }
  if (llvm::any_of(fs.bodies, [&](int body) { return uncoveredIn[body]; })) {
    fs.done = true; // an error once it gets layouts (checkCovered)
    // auto=true was asked to shard this function (it carries a mesh and
    // no layout): say why it stays as written, replicated on every rank.
    if (search.autoShard && fs.func->hasAttr(kMeshAttr) &&
        llvm::none_of(slotsOfFunc[index],
                      [&](int slot) { return bool(slots[slot].layout); })) {
      // The op and why; then whether the function can stay as written: not
      // where it calls a function whose search gave it layouts (callees
      // are searched first), whose tensors the call would pass in them.
      Operation *at = nullptr;
      std::string why;
      if (auto refused = ruleRefusedIn.find(index);
          refused != ruleRefusedIn.end()) {
        at = refused->second.first;
        why = refused->second.second;
      } else {
        // The op that keeps it as written: one without a rule that is not
        // the same op on whole tensors (those run whole where it is the
        // only kind: writeWholeRules).
        for (Operation *op : uncovered)
          if (llvm::is_contained(
                  fs.bodies, funcIndex[op->getParentOfType<func::FuncOp>()]) &&
              (!at || !sameOpOnWholeTensors(op))) {
            at = op;
            why = ("'" + op->getName().getStringRef() +
                   "' op has no sharding rule")
                      .str();
            if (!sameOpOnWholeTensors(op))
              break;
          }
      }
      func::FuncOp laidOut;
      for (int body : fs.bodies)
        funcs[body].walk([&](func::CallOp call) {
          auto found = funcIndex.find(calleeOf(call));
          if (!laidOut && found != funcIndex.end() && !enclosingRuleOp(call) &&
              !fs.callOfBody.count(funcs[found->second]) &&
              llvm::any_of(slotsOfFunc[found->second],
                           [&](int slot) { return bool(slots[slot].layout); }))
            laidOut = funcs[found->second];
        });
      if (at && laidOut)
        return mlir::emitError(at->getLoc())
               << why
               << ": auto=true cannot leave its function as written, which "
                  "calls @"
               << laidOut.getSymName()
               << ", sharded by its own search (its tensors would reach the "
                  "call in its layouts); give the op a rule, or take "
               << kMeshAttr << " off @" << laidOut.getSymName();
      if (at) {
        InFlightDiagnostic warning = mlir::emitWarning(at->getLoc());
        warning << why
                << ": auto=true leaves its function as written, every rank "
                   "running all of it";
        if (!ruleRefusedIn.count(index))
          warning << " (give the op a rule: ShardingRuleOpInterface or a "
                     "written "
                  << kShardingRuleAttr << ", docs/partition.md)";
      }
    }
    return success();
  }
  for (int body : fs.bodies)
    for (int s : slotsOfFunc[body])
      if (slots[s].layout &&
          !asMeshLayout(slots[s].layout, slots[s].type.getShape()))
        return leave("a pinned layout holds several blocks per rank");
  if (ruleNodes.empty()) {
    fs.done = true;
    return success();
  }
  for (int id : edgeNodes)
    if (auto call = dyn_cast<func::CallOp>(nodes[id].op);
        call && !fixedLayout(nodes[id].to) && !searchedWithIt(call))
      return leave("its call to " + call.getCallee() +
                   " passes a tensor whose layout that function does not "
                   "have yet (it has no mesh of its own)");
  return success();
}

/// The bytes a rank may hold in a function on `mesh`: memory-budget where
/// it is given; else, under auto=true on a mesh of CUDA devices, an 80 GB
/// data-center GPU's memory (kDefaultDeviceMemory); else none (0).
int64_t Propagation::budgetFor(MeshAttr mesh) const {
  if (search.memoryBudget > 0)
    return search.memoryBudget;
  if (search.autoShard && mesh && mesh.getKind() == layout::Device::Kind::CUDA)
    return kDefaultDeviceMemory;
  return 0;
}

/// Options that read one of `node`'s linear groups P(sum) (the group
/// holding a value that may be Partial) on axes its loop sharding leaves
/// free, each nonempty set of them, for every sharding `group` has so
/// far; `mayBePartial` gains the node's results that may be Partial.
/// Where the op has no windows, its options so far are its rule class's
/// (`ruleClass`, >= 0), and those added a function of the class and of
/// the groups read partial: computed once per pair (`memo`).
std::vector<size_t>
Propagation::partialReadGroups(const Node &node,
                               const llvm::DenseSet<Value> &mayBePartial) {
  std::vector<size_t> groups;
  for (auto [g, operands] : llvm::enumerate(node.rule->linear))
    if (llvm::any_of(operands, [&](int64_t i) {
          return static_cast<size_t>(i) < node.operandSlots.size() &&
                 node.operandSlots[i] >= 0 &&
                 mayBePartial.contains(searchOperandValue(node, i));
        }))
      groups.push_back(g);
  return groups;
}

bool Propagation::addPartialReads(const Node &node, MeshAttr mesh,
                                  llvm::DenseSet<Value> &mayBePartial,
                                  SearchGroup &group, int ruleClass,
                                  PartialReadsMemo &memo) {
  const ShardingRule &rule = *node.rule;
  bool partialResults = false;
  for (auto [r, combiner] : llvm::enumerate(rule.combiners))
    if (combiner == layout::Placement::Reduce::Sum &&
        llvm::any_of(llvm::seq<int64_t>(0, rule.loops.size()), [&](int64_t l) {
          return rule.loops[l].reduction && rule.shardable(l);
        }))
      partialResults = true;
  std::vector<size_t> groups = partialReadGroups(node, mayBePartial);
  const bool memoized = ruleClass >= 0 && rule.windows.empty();
  std::vector<LoopSharding> *known = nullptr;
  if (!groups.empty() && memoized) {
    auto [at, fresh] = memo.try_emplace({ruleClass, groups});
    known = &at->second;
    if (!fresh) {
      partialResults = true;
      for (const LoopSharding &s : *known) {
        group.shardings.push_back(s);
        group.keptOperand.push_back(-1);
        group.keptLayout.push_back(nullptr);
      }
      groups.clear();
    }
  }
  if (!groups.empty()) {
    partialResults = true;
    const size_t base = group.shardings.size();
    for (size_t o = 0; o < base; ++o) {
      if (std::as_const(group.keptOperand)[o] != -1 ||
          std::as_const(group.shardings)[o].reads)
        continue;
      const LoopSharding s = std::as_const(group.shardings)[o];
      std::vector<int64_t> free;
      for (auto [a, loop] : llvm::enumerate(s.axisLoop))
        if (loop < 0 && mesh.getShape()[a] > 1)
          free.push_back(static_cast<int64_t>(a));
      if (free.empty() || free.size() > 4)
        continue;
      for (unsigned set = 1; set < (1u << free.size()); ++set) {
        std::vector<int64_t> axes;
        for (auto [k, a] : llvm::enumerate(free))
          if (set & (1u << k))
            axes.push_back(a);
        for (size_t g : groups) {
          group.shardings.push_back(
              withPartialReads(mesh.getContext(), rule, s, g, axes));
          group.keptOperand.push_back(-1);
          group.keptLayout.push_back(nullptr);
          if (known)
            known->push_back(group.shardings.back());
        }
      }
    }
  }
  if (partialResults)
    for (Value result : node.op->getResults())
      mayBePartial.insert(result);
  return partialResults;
}

namespace {
/// One buffer per distinct list (SharedVector): the lists of ops alike
/// (each of thousands of matmuls of one shape has the same options) are
/// held once. Lists are equal where their elements are, exactly.
template <typename T> class Interner {
public:
  Interner(std::function<llvm::hash_code(const T &)> hash,
           std::function<bool(const T &, const T &)> equal)
      : hash(std::move(hash)), equal(std::move(equal)) {}
  void intern(planning::SharedVector<T> &list) {
    llvm::hash_code h = llvm::hash_value(list.size());
    for (const T &element : list)
      h = llvm::hash_combine(h, hash(element));
    std::vector<planning::SharedVector<T>> &bucket = buckets[h];
    for (const planning::SharedVector<T> &seen : bucket)
      if (std::equal(seen.begin(), seen.end(), list.begin(), list.end(),
                     equal)) {
        list = seen;
        return;
      }
    list.shrink_to_fit();
    bucket.push_back(list);
  }

private:
  std::function<llvm::hash_code(const T &)> hash;
  std::function<bool(const T &, const T &)> equal;
  std::unordered_map<size_t, std::vector<planning::SharedVector<T>>> buckets;
};
} // namespace

/// The groups: every rule op (its shardings and their compute), then every
/// free argument and result, then every free value a loop carries or a
/// branch yields (their layouts).
LogicalResult Propagation::searchGroups(FunctionSearch &fs) {
  func::FuncOp func = fs.func;
  MeshAttr mesh = fs.mesh;
  const int index = fs.index;
  std::vector<int> &ruleNodes = fs.ruleNodes;
  planning::ChoiceProblem &problem = fs.problem;
  std::vector<SearchGroup> &groups = fs.groups;
  llvm::DenseMap<int, int> &groupOfNode = fs.groupOfNode;
  llvm::DenseMap<int, int> &groupOfSlot = fs.groupOfSlot;
  size_t &carriedGroups = fs.carriedGroups;
  std::vector<FunctionSearch::Carried> &carried = fs.carried;
  std::vector<planning::SharedRows<int64_t>> &bytes = fs.bytes;
  auto runsOf = [&](Block *block) { return searchRuns(fs, block); };
  // The values that may be P(sum): arguments pinned Partial, results of a
  // sum that may be sharded, and of an op that may read a linear group
  // Partial.
  llvm::DenseSet<Value> mayBePartial;
  for (auto [i, slot] : llvm::enumerate(argSlots[index]))
    if (slot >= 0)
      if (auto pinned =
              dyn_cast_or_null<PlacementsSpecAttr>(slots[slot].layout);
          pinned && pinned.hasPartial())
        mayBePartial.insert(func.getArgument(i));
  // The groups in which the function's reshapes fold loops: the splits an
  // op may cut a loop strided in (at most kMostFoldGroupsSearched).
  std::vector<int64_t> splits;
  for (int id : ruleNodes) {
    if (failed(ruleOf(nodes[id])))
      return failure();
    for (const ShardingRule::Fold &f : nodes[id].rule->folds)
      if (nodes[id].rule->shardable(f.loop) &&
          f.groups <= kMostFoldGroupsSearched &&
          !llvm::is_contained(splits, f.groups))
        splits.push_back(f.groups);
  }
  // And the splits of the strided layouts pinned in the function (FSDP2 +
  // TP's [_S(0, tp), S(0)] on a parameter): an op may keep such a value
  // cut as it is, and so may a loop carrying it.
  std::vector<int64_t> pinnedSplits;
  for (const Slot &slot : slots)
    if (slot.func == index || llvm::is_contained(fs.bodies, slot.func))
      if (auto pinned = dyn_cast_or_null<PlacementsSpecAttr>(slot.layout))
        for (const layout::Placement &p : pinned.getPlacements())
          if (p.kind == layout::Placement::Kind::StridedShard && p.split > 1 &&
              !llvm::is_contained(pinnedSplits, p.split))
            pinnedSplits.push_back(p.split);
  for (int64_t split : pinnedSplits)
    if (!llvm::is_contained(splits, split))
      splits.push_back(split);
  // The groups: every rule op, then every free argument and result, then
  // every free value a loop carries or a branch yields.
  Interner<LoopSharding> shardingLists(
      [](const LoopSharding &s) {
        return llvm::hash_combine(
            s.mesh.getAsOpaquePointer(),
            llvm::hash_combine_range(s.axisLoop.begin(), s.axisLoop.end()),
            llvm::hash_combine_range(s.axisSplit.begin(), s.axisSplit.end()),
            s.reads.getAsOpaquePointer());
      },
      [](const LoopSharding &a, const LoopSharding &b) {
        return a.mesh == b.mesh && a.axisLoop == b.axisLoop &&
               a.axisSplit == b.axisSplit && a.reads == b.reads;
      });
  Interner<int> keptOperands([](int i) { return llvm::hash_value(i); },
                             std::equal_to<int>());
  Interner<ShardingSpecAttrInterface> keptLayouts(
      [](ShardingSpecAttrInterface a) {
        return llvm::hash_value(a.getAsOpaquePointer());
      },
      std::equal_to<ShardingSpecAttrInterface>());
  // Ops of equal rules (ShardingRule's ==, as its attribute compares
  // them: thousands of matmuls of one shape) are one class: what is a
  // function of the rule alone (its shardings here, the layouts they give
  // in searchValues) is computed once per class.
  std::unordered_map<size_t, std::vector<int>> classesByHash;
  std::vector<int> classNode;
  std::vector<std::vector<LoopSharding>> classShardings;
  auto classOf = [&](int id) {
    const ShardingRule &rule = *nodes[id].rule;
    std::vector<int> &same = classesByHash[hash_value(rule)];
    for (int c : same)
      if (*nodes[classNode[c]].rule == rule)
        return c;
    same.push_back(static_cast<int>(classNode.size()));
    classNode.push_back(id);
    classShardings.push_back(everySharding(rule, mesh, splits));
    return same.back();
  };
  PartialReadsMemo partialReadsMemo;
  // An op's options with the windows they keep, by class and operand types.
  struct WindowOptions {
    planning::SharedVector<LoopSharding> shardings;
    planning::SharedVector<int> keptOperand;
    planning::SharedVector<ShardingSpecAttrInterface> keptLayout;
  };
  using WindowsKey = std::pair<int, std::vector<const void *>>;
  std::map<WindowsKey, WindowOptions> windowsMemo;
  // Ops alike: of one class, their operands and results of one type each,
  // the same linear groups possibly read Partial, doing work (or not) in
  // blocks run as often. Their groups are one, made (and interned) once:
  // below is a function of these alone where the op is not pinned and its
  // kept windows are mesh layouts.
  struct Alike {
    int ruleClass;
    std::vector<const void *> types;
    std::vector<size_t> partialGroups;
    bool computes;
    double times;
    bool operator<(const Alike &o) const {
      return std::tie(ruleClass, types, partialGroups, computes, times) <
             std::tie(o.ruleClass, o.types, o.partialGroups, o.computes,
                      o.times);
    }
  };
  struct AlikeGroup {
    WindowOptions options;
    std::vector<double> own;
    bool partialResults;
  };
  std::map<Alike, AlikeGroup> alikeMemo;
  WindowPrices windowPrices;
  for (int id : ruleNodes) {
    Node &node = nodes[id];
    if (failed(ruleOf(node)))
      return failure();
    SearchGroup group;
    group.node = id;
    const int ruleClass = classOf(id);
    groupOfNode[id] = static_cast<int>(groups.size());
    group.ruleClass = ruleClass;
    const double times = runsOf(node.op->getBlock());
    // An op with no tensor result (tensor.dim, tensor.extract) reads a
    // size or an element: no work per element of its operands, however
    // they are cut (else reading a size would look cheaper from a cut
    // copy, moved there for it).
    const bool computes = llvm::any_of(
        node.op->getResultTypes(), [](Type t) { return isa<TensorType>(t); });
    Alike alike{ruleClass, {}, {}, computes, times};
    if (!node.pinned) {
      for (int slot : llvm::concat<int>(node.operandSlots, node.resultSlots))
        alike.types.push_back(slot < 0 ? nullptr
                                       : slots[slot].type.getAsOpaquePointer());
      alike.partialGroups = partialReadGroups(node, mayBePartial);
      if (auto seen = alikeMemo.find(alike); seen != alikeMemo.end()) {
        group.shardings = seen->second.options.shardings;
        group.keptOperand = seen->second.options.keptOperand;
        group.keptLayout = seen->second.options.keptLayout;
        if (seen->second.partialResults)
          for (Value result : node.op->getResults())
            mayBePartial.insert(result);
        std::vector<double> own = seen->second.own;
        priceWindows(node, group, own, times, windowPrices);
        groups.push_back(std::move(group));
        problem.own.push_back(std::move(own));
        continue;
      }
    }
    // Each sharding reading every operand in the layout it needs; then,
    // for an operand with window dims, each sharding reading it in a layout
    // that cuts a window dim, kept as it is (the op's hook moves only the
    // part of the window each rank needs): the option op by op takes.
    // A pinned sharding is the only one (its tensors move to it).
    const std::vector<LoopSharding> pinnedOnly =
        node.pinned ? std::vector<LoopSharding>{*node.pinned}
                    : std::vector<LoopSharding>{};
    const std::vector<LoopSharding> &options =
        node.pinned ? pinnedOnly : classShardings[ruleClass];
    // Where the op is not pinned, its options and the windows kept are a
    // function of its class and its operands' types (a kept layout is a
    // mesh layout, which operandLayoutUnder weighs without the op): made
    // once per pair (thousands of slices alike).
    WindowsKey windowsKey{ruleClass, {}};
    for (int slot : node.operandSlots)
      windowsKey.second.push_back(
          slot < 0 ? nullptr : slots[slot].type.getAsOpaquePointer());
    auto known = node.pinned ? windowsMemo.end() : windowsMemo.find(windowsKey);
    if (known != windowsMemo.end()) {
      group.shardings = known->second.shardings;
      group.keptOperand = known->second.keptOperand;
      group.keptLayout = known->second.keptLayout;
    }
    bool pure = !node.pinned;
    for (size_t k = 0; known == windowsMemo.end() && k < options.size(); ++k) {
      const LoopSharding &s = options[k];
      group.shardings.push_back(s);
      group.keptOperand.push_back(-1);
      group.keptLayout.push_back(nullptr);
      // Per operand with a window: the layouts it may be read in as it is.
      std::vector<std::vector<ShardingSpecAttrInterface>> keepable;
      for (auto [i, slot] : llvm::enumerate(node.operandSlots)) {
        if (!keepsOperand(kEveryWindow, *node.rule, i))
          continue;
        keepable.emplace_back();
        // A window read of a tensor with dynamic dims (a hook's parts of
        // its blocks, which have sizes) is not offered: it is moved whole.
        if (slot < 0 || s.reads || !slots[slot].type.hasStaticShape())
          continue;
        ArrayRef<int64_t> shape = slots[slot].type.getShape();
        PlacementsSpecAttr plain =
            layoutUnder(*node.rule, s, node.rule->operands[i]);
        for (ShardingSpecAttrInterface have : everyLayout(mesh, shape)) {
          pure &= isa<PlacementsSpecAttr>(have);
          if (have == plain || operandLayoutUnder(node.op, *node.rule, s, i,
                                                  have, shape) != have)
            continue;
          group.shardings.push_back(s);
          group.keptOperand.push_back(static_cast<int>(i));
          group.keptLayout.push_back(have);
          keepable.back().push_back(have);
        }
      }
      // Several operands with windows (a concat's): each read as it is in
      // one layout, where every one of them may be.
      if (keepable.size() > 1)
        for (ShardingSpecAttrInterface have : keepable[0])
          if (llvm::all_of(keepable, [&](const auto &layouts) {
                return llvm::is_contained(layouts, have);
              })) {
            group.shardings.push_back(s);
            group.keptOperand.push_back(kEveryWindow);
            group.keptLayout.push_back(have);
          }
    }
    if (known == windowsMemo.end() && pure)
      windowsMemo[windowsKey] = {group.shardings, group.keptOperand,
                                 group.keptLayout};
    bool partialResults = false;
    if (!node.pinned)
      partialResults = addPartialReads(node, mesh, mayBePartial, group,
                                       ruleClass, partialReadsMemo);
    // A tensor with dynamic dims takes only layouts its type accepts and
    // the partition holds it in: no strided cut (its rows are several
    // blocks per rank, whose sizes in a dynamic dim are not known before
    // it runs), and it is read in no other layout than its own (the
    // partition's reads need static shapes): such options go.
    if (!node.pinned) {
      SearchGroup kept;
      kept.node = group.node;
      kept.ruleClass = group.ruleClass;
      for (size_t k = 0; k < group.shardings.size(); ++k) {
        const LoopSharding &s = std::as_const(group.shardings)[k];
        if (!holdsDynamicTensors(node, s))
          continue;
        kept.shardings.push_back(s);
        kept.keptOperand.push_back(group.keptOperand[k]);
        kept.keptLayout.push_back(group.keptLayout[k]);
      }
      if (!kept.shardings.empty())
        group = std::move(kept);
    }
    std::vector<double> own;
    for (const LoopSharding &s : group.shardings)
      own.push_back(
          (computes ? times * computeUs(*node.rule, s, search.peakGflops) : 0) +
          (cutsStrided(*node.rule, s) ? kStridedTieUs : 0));
    // Held until the search ends, for thousands of ops: one list per
    // distinct one.
    shardingLists.intern(group.shardings);
    keptOperands.intern(group.keptOperand);
    keptLayouts.intern(group.keptLayout);
    if (!node.pinned && pure)
      alikeMemo[alike] = {
          {group.shardings, group.keptOperand, group.keptLayout},
          own,
          partialResults};
    priceWindows(node, group, own, times, windowPrices);
    groups.push_back(std::move(group));
    problem.own.push_back(std::move(own));
  }
  // The values with a slot of their own that no op produces: what a loop
  // carries (its inits, region arguments, yields and results share one
  // layout) and what a branch yields; the values of each.
  for (int body : fs.bodies)
    funcs[body].walk([&](Operation *op) {
      if (!carriesLayouts(op))
        return;
      for (FlowGroup &group : flowGroups(op)) {
        const int slot = existingSlot(group.values.front());
        if (slot >= 0)
          carried.push_back({slot, op, group.what, std::move(group.values)});
      }
    });
  // A free argument or result takes plain layouts only (strided ones for
  // every free value made a GPT-2 block's solve 14 times slower); a value
  // a loop carries or a branch yields, the pinned splits too.
  auto addLayoutGroup = [&](int slot, ArrayRef<int64_t> strided = {}) {
    SearchGroup group;
    group.slot = slot;
    group.layouts = everyLayout(mesh, slots[slot].type.getShape(), strided);
    // The fewest bytes per rank first: where two layouts cost the same time
    // (a replicated argument every user slices locally, say), the choice
    // keeps the first, the one that holds less.
    llvm::stable_sort(group.layouts, [&](ShardingSpecAttrInterface a,
                                         ShardingSpecAttrInterface b) {
      return heldBytes(slots[slot].type, a) < heldBytes(slots[slot].type, b);
    });
    return group;
  };
  for (int slot : llvm::concat<int>(argSlots[index], resultSlots[index])) {
    if (slot < 0 || slots[slot].layout)
      continue;
    SearchGroup group = addLayoutGroup(slot);
    // An argument's batch dim (auto=true): cut on the mesh's first axis.
    auto arg = llvm::find(argSlots[index], slot);
    if (search.autoShard && arg != argSlots[index].end()) {
      const unsigned i = arg - argSlots[index].begin();
      if (Attribute hint = func.getArgAttr(i, kBatchAttr)) {
        auto dim = dyn_cast<IntegerAttr>(hint);
        const int64_t rank = slots[slot].type.getRank();
        // A dynamic batch is cut by torch.chunk of its run-time extent.
        if (!dim || dim.getInt() < 0 || dim.getInt() >= rank ||
            mesh.getShape()[0] < 2 ||
            (!slots[slot].type.isDynamicDim(dim.getInt()) &&
             slots[slot].type.getShape()[dim.getInt()] < 2))
          return func.emitOpError()
                 << "argument #" << i << " has " << kBatchAttr << " = " << hint
                 << "; it must name a dim of more than one element "
                 << "(0 to " << rank - 1
                 << ") for the first axis of a mesh whose first axis has "
                    "more than one device";
        auto batched = [&](ShardingSpecAttrInterface layout) {
          auto p = cast<PlacementsSpecAttr>(layout).getPlacements();
          return p[0].kind == layout::Placement::Kind::Shard &&
                 p[0].dim == dim.getInt();
        };
        llvm::erase_if(group.layouts, [&](ShardingSpecAttrInterface l) {
          return !batched(l);
        });
      }
    }
    groupOfSlot[slot] = static_cast<int>(groups.size());
    problem.own.emplace_back(group.layouts.size(), 0.0);
    groups.push_back(std::move(group));
  }
  // A callee searched with its call: its arguments and results are values
  // of their own, chosen as a loop's carried values are (a move at the
  // call where a layout changes there).
  for (int body : llvm::drop_begin(fs.bodies))
    for (int slot : llvm::concat<int>(argSlots[body], resultSlots[body])) {
      if (slot < 0 || slots[slot].layout || groupOfSlot.count(slot))
        continue;
      groupOfSlot[slot] = static_cast<int>(groups.size());
      SearchGroup group = addLayoutGroup(slot);
      problem.own.emplace_back(group.layouts.size(), 0.0);
      groups.push_back(std::move(group));
    }
  for (const FunctionSearch::Carried &c : carried) {
    if (slots[c.slot].layout || groupOfSlot.count(c.slot))
      continue;
    SearchGroup group = addLayoutGroup(c.slot, pinnedSplits);
    group.carrier = c.carrier;
    group.what = c.what;
    groupOfSlot[c.slot] = static_cast<int>(groups.size());
    problem.own.emplace_back(group.layouts.size(), 0.0);
    groups.push_back(std::move(group));
    ++carriedGroups;
  }
  return success();
}

/// search=whole on one function: built (its nodes, groups, values and
/// their costs), solved and applied, each step a method; a step may leave
/// the function to op-by-op propagation (FunctionSearch::done).
LogicalResult Propagation::searchFunction(int index) {
  FunctionSearch fs;
  fs.index = index;
  fs.func = funcs[index];
  fs.mesh = funcMesh[index];
  if (fs.func.isExternal() || opaque[index] || !fs.mesh)
    return success();
  for (auto step : {&Propagation::searchNodes, &Propagation::searchGroups,
                    &Propagation::searchValues, &Propagation::searchCosts}) {
    if (failed((this->*step)(fs)))
      return failure();
    if (fs.done)
      return success();
  }
  planning::ChoiceSolution solution;
  if (failed(searchSolve(fs, solution)))
    return failure();
  if (!fs.done)
    searchApply(fs, solution);
  return success();
}
