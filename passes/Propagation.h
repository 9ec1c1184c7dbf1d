//===- Propagation.h - -shard-propagate's state, shared by its files -----===//
//
// The slots, nodes and the Propagation class behind -shard-propagate
// (Propagate.cpp: building, op-by-op propagation, write-back;
// PropagateSearch.cpp: the whole-function search). Internal to the passes.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_PROPAGATION_H
#define SHARDC_PASSES_PROPAGATION_H

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"
#include "shardc/Planning/Choice.h"
#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Rules/LoopSharding.h"
#include "shardc/Rules/RuleMemo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <optional>
#include <queue>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace shardc::propagation {

using namespace mlir;
using planning::ShardPlanner;

struct SearchOutcome;
struct FunctionSearch;

/// Whether `op` (one without a rule) is the same op on whole tensors: no
/// regions, no memory effects, static shapes; auto=true then runs it whole
/// on every rank (Propagate.cpp's writeWholeRules).
bool sameOpOnWholeTensors(mlir::Operation *op);

struct SearchWords;
struct SearchGroup;

/// auto=true's memory budget on a mesh of CUDA devices where none is given:
/// the memory of an 80 GB data-center GPU (A100 80GB, H100), per rank.
constexpr int64_t kDefaultDeviceMemory = int64_t(80) * 1000 * 1000 * 1000;

/// A layout some uses of one value need (writeBack's gathering).
struct UseNeed {
  llvm::SmallVector<OpOperand *, 1> uses;
  ShardingSpecAttrInterface layout;
};

/// A layout shared by values that must have the same one.
struct Slot {
  RankedTensorType type;
  ShardingSpecAttrInterface layout;
  /// The function it belongs to (index into Propagation::funcs).
  int func = -1;
  /// An argument or result of a function without a body and without a pin:
  /// it takes or gives the whole tensor on every rank.
  bool whole = false;
};

/// A search option's kept operand (SearchGroup::keptOperand, Node::
/// keptOperand) that reads every operand with a window as it is, each in
/// the kept layout (a concat's operands, each cut where it lands).
constexpr int kEveryWindow = -2;
/// Whether an option whose kept operand is `kept` reads operand `i` of an
/// op of rule `rule` as it is.
inline bool keepsOperand(int kept, const ShardingRule &rule, size_t i) {
  if (kept == kEveryWindow)
    return i < rule.windows.size() &&
           llvm::any_of(rule.windows[i],
                        [](int64_t loop) { return loop >= 0; });
  return kept >= 0 && static_cast<size_t>(kept) == i;
}

/// A compute op with a sharding rule, or an edge.
struct Node {
  Operation *op = nullptr;
  bool isRule = false;
  // A rule node: the rule (computed when first needed), the slot of each
  // operand and result (-1: not a ranked tensor), and the sharding chosen.
  std::shared_ptr<const ShardingRule> rule;
  std::vector<int> operandSlots, resultSlots;
  std::optional<LoopSharding> decision;
  // The operand the whole-function search chose to read as it is, in
  // keptLayout (-1: none; kEveryWindow: every operand with a window);
  // write-back decides the decision's reads from it (Propagation::
  // decideReads): where the search decided the op (`searched`), from it
  // alone, as the search priced them; else from the operands' layouts too.
  int keptOperand = -1;
  ShardingSpecAttrInterface keptLayout;
  bool searched = false;
  // The sharding a user pinned on the op (its shard.sharding), checked
  // against its rule: the only one it may take.
  bool hasPin = false;
  std::optional<LoopSharding> pinned;
  // Known tensors, none with a mesh layout, and no mesh yet to shard on:
  // waits for one (a layout reaching a result through a call).
  bool waiting = false;
  // An edge: the use, its value's slot and the slot it must match.
  OpOperand *use = nullptr;
  int from = -1, to = -1;
};

/// What moving a value costs: the planner's modelled time and bytes.
struct Move {
  double us = 0;
  int64_t bytes = 0;
  /// False when the planner cannot move it (never chosen then).
  bool possible = true;
};

/// The op that makes `value` (through the constraints written on it) where
/// every rank can make any part of it alone: a pure op with a rule and one
/// result whose tensor operands are made so too and whose regions read no
/// tensor from outside (a constant, tensor.empty, a splat, a linalg.fill
/// of a tensor.empty, an iota mask). Null otherwise.
Operation *rebuildableProducer(Value value);

/// The sharding under which every rank makes its own part of `layout` of
/// such a producer's result, nothing moved; nullopt where its rule gives
/// none (an enumerable layout); a Partial layout is made as its whole form,
/// then kept on its first copy (nothing moved). Write-back makes the value
/// again so in each layout a use needs, and the search prices such a copy at
/// what the op computes under that sharding, not as a move.
std::optional<LoopSharding> rebuildSharding(Operation *producer,
                                            ShardingSpecAttrInterface layout);

/// An option's number as a user writes it (60000, 0.5, nan, inf), not as a
/// diagnostic streams a double (6.000000e+04).
inline std::string numberText(double value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

/// search=whole's options (Passes.td).
struct SearchOptions {
  PropagationSearch mode = PropagationSearch::Greedy;
  /// auto=true: a function's shard.mesh gives it its mesh.
  bool autoShard = false;
  double peakGflops = 60000;
  int64_t exactOps = 200;
  /// Each integer program's branch-and-bound nodes: the deterministic
  /// limit.
  int64_t solverNodes = 20000;
  /// Each integer program's relaxation's simplex iterations: the
  /// deterministic limit on its root.
  int64_t solverIterations = 50000;
  /// Bytes a rank may hold per function; 0: no budget (but see
  /// kDefaultDeviceMemory).
  int64_t memoryBudget = 0;
  /// How many times a loop without a static trip count is counted to run.
  int64_t loopTrips = 10;
};

class Propagation {
public:
  Propagation(ModuleOp module, ShardPlanner &planner, bool explain,
              SearchOptions search)
      : module(module), planner(planner), explain(explain), search(search) {}

  LogicalResult run();

private:
  ModuleOp module;
  ShardPlanner &planner;
  bool explain;
  SearchOptions search;
  /// moveCost's answers, by (type, from, to).
  llvm::DenseMap<std::tuple<Type, Attribute, Attribute>, struct Move> moveCache;
  /// plannableLayout's answers.
  llvm::DenseMap<std::pair<Type, Attribute>, bool> plannable;
  /// Whether a tensor type takes a layout (ShardedTensorType::verify),
  /// asked once per type and layout (a search asks it of every option of
  /// every op, and of every pair of a type's layouts).
  bool typeTakesLayout(RankedTensorType type, ShardingSpecAttrInterface spec);
  llvm::DenseMap<std::pair<Type, Attribute>, bool> layoutAccepted;
  /// Whether the partition holds every tensor of `node` with dynamic dims
  /// in the layout sharding `s` gives it: no strided cut (its rows would
  /// be several blocks per rank, whose sizes in a dynamic dim are not
  /// known before it runs), a layout its type takes, and no operand read
  /// in another layout (the partition's reads need static shapes). Both
  /// searches keep only such shardings.
  bool holdsDynamicTensors(const Node &node, const LoopSharding &s);

  std::vector<func::FuncOp> funcs;
  /// The module's symbol tables, built once: a call's callee is found in
  /// constant time (a lookup without them scans the module: quadratic in
  /// the number of functions).
  SymbolTableCollection symbolTables;
  func::FuncOp calleeOf(func::CallOp call) {
    return symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
  }
  /// Per function: the mesh of its first pinned mesh layout, for ops whose
  /// tensors have none (an enumerable layout); null when it has none.
  std::vector<MeshAttr> funcMesh;
  /// Per function: the calls of it in the module.
  std::vector<int> callsOf;
  /// Whether function `target` is searched with its one call's function,
  /// as if inlined there: a body of one block, no mesh of its own, called
  /// once (specializeCallees gives each call its own callee).
  bool searchedWithItsCall(int target) {
    return !funcMesh[target] && !funcs[target].isExternal() &&
           !opaque[target] && callsOf[target] == 1;
  }
  /// Functions of several blocks, left out unless layouts reach them.
  std::vector<bool> opaque;
  llvm::DenseMap<Operation *, int> funcIndex;
  std::vector<std::vector<int>> argSlots, resultSlots;
  std::vector<Slot> slots;
  llvm::DenseMap<Value, int> slotOf;
  std::vector<Node> nodes;
  /// The rules of ops alike, computed once (cleared before write-back,
  /// which erases ops).
  RuleMemo rules;
  std::vector<std::vector<int>> nodesOf; // per slot
  /// Ops that touch tensors and have no rule: an error once a layout
  /// reaches them.
  std::vector<Operation *> uncovered;
  /// Ops that use tensors (or pin a layout) inside the regions of an op
  /// that propagation does not enter (an affine.for, scf.while or
  /// scf.execute_region, say), each with that op.
  std::vector<std::pair<Operation *, Operation *>> unentered;
  /// Nodes to visit because an operand (forward: earliest first) or a
  /// result (backward: latest first) got a layout; node ids are in program
  /// order.
  std::priority_queue<int, std::vector<int>, std::greater<int>> forward;
  std::priority_queue<int> backward;
  std::vector<bool> queuedForward, queuedBackward;
  void enqueue(int node, bool isForward) {
    if (isForward && !queuedForward[node]) {
      queuedForward[node] = true;
      forward.push(node);
    } else if (!isForward && !queuedBackward[node]) {
      queuedBackward[node] = true;
      backward.push(node);
    }
  }
  /// Whether `slot` is among the inputs of node `id` (its operands, an
  /// edge's used value): a layout it gets flows forward through the node.
  bool isInput(int id, int slot) const {
    const Node &node = nodes[id];
    return node.from == slot || llvm::is_contained(node.operandSlots, slot);
  }
  bool failedRule = false;

  int newSlot(Type type, int func) {
    slots.push_back({dyn_cast<RankedTensorType>(type), nullptr, func});
    nodesOf.emplace_back();
    return static_cast<int>(slots.size()) - 1;
  }
  /// Whether values of `type` get layouts: ranked tensors without an
  /// encoding (others, in a function that gets layouts, are an error); a
  /// dynamic dim stays whole (the rules keep loops indexing one whole).
  static bool hasLayout(Type type) { return takesLayout(type); }
  int slotFor(Value value, int func) {
    if (!hasLayout(value.getType()))
      return -1;
    auto [it, inserted] = slotOf.try_emplace(value, -1);
    if (inserted)
      it->second = newSlot(value.getType(), func);
    return it->second;
  }
  int existingSlot(Value value) const {
    auto it = slotOf.find(value);
    return it == slotOf.end() ? -1 : it->second;
  }
  int addNode(Node node) {
    int id = static_cast<int>(nodes.size());
    auto touch = [&](int slot) {
      if (slot >= 0 && (nodesOf[slot].empty() || nodesOf[slot].back() != id))
        nodesOf[slot].push_back(id);
    };
    for (int s : node.operandSlots)
      touch(s);
    for (int s : node.resultSlots)
      touch(s);
    touch(node.from);
    touch(node.to);
    nodes.push_back(std::move(node));
    return id;
  }
  void addEdge(OpOperand &use, int func, int to) {
    int from = slotFor(use.get(), func);
    if (from < 0 || to < 0)
      return;
    Node node;
    node.op = use.getOwner();
    node.use = &use;
    node.from = from;
    node.to = to;
    addNode(std::move(node));
  }

  LogicalResult build();
  LogicalResult buildFunction(int index);
  void assign(int slot, ShardingSpecAttrInterface layout);
  LogicalResult process(int node);
  LogicalResult ruleOf(Node &node);
  LogicalResult processRule(Node &node);
  /// processRule's steps and helpers (Propagate.cpp).
  bool slotKnown(int slot) const;
  ShardingSpecAttrInterface requiredLayout(const Node &node,
                                           const LoopSharding &s, int slotIndex,
                                           bool result) const;
  std::vector<LoopSharding> greedyCandidates(Node &node);
  size_t chooseCandidate(Node &node,
                         const std::vector<LoopSharding> &candidates);
  /// search=whole, per function: its nodes and slots (in order), and
  /// whether an op of it that touches tensors has no rule (each found once,
  /// so that searching every function stays linear in their number).
  std::vector<std::vector<int>> nodesOfFunc, slotsOfFunc;
  std::vector<bool> uncoveredIn;
  /// auto=true: per function it was to shard whose op refused a rule (a
  /// slice at a dynamic offset, say), that op and the refusal, said as a
  /// warning when the function is left as written (searchNodes).
  std::map<int, std::pair<Operation *, std::string>> ruleRefusedIn;
  LogicalResult searchFunction(int func);
  /// searchFunction's steps (PropagateSearch.cpp), in order.
  LogicalResult searchNodes(FunctionSearch &fs);
  LogicalResult searchGroups(FunctionSearch &fs);
  LogicalResult searchValues(FunctionSearch &fs);
  LogicalResult searchCosts(FunctionSearch &fs);
  LogicalResult searchSolve(FunctionSearch &fs,
                            planning::ChoiceSolution &solution);
  void searchApply(FunctionSearch &fs,
                   const planning::ChoiceSolution &solution);
  /// Their helpers.
  LogicalResult leaveSearch(FunctionSearch &fs, const Twine &why);
  ShardingSpecAttrInterface searchFixedLayout(const FunctionSearch &fs,
                                              int slot);
  double searchRuns(FunctionSearch &fs, Block *block);
  static Value searchOperandValue(const Node &node, size_t i);
  int64_t budgetFor(MeshAttr mesh) const;
  /// The options addPartialReads adds to an op of rule class `first`
  /// whose options are its class's (no windows), where the linear groups
  /// `second` may read a partial value.
  using PartialReadsMemo =
      std::map<std::pair<int, std::vector<size_t>>, std::vector<LoopSharding>>;
  /// Adds them; whether the op's results may be P(sum) (then in
  /// `mayBePartial`).
  static bool addPartialReads(const Node &node, MeshAttr mesh,
                              llvm::DenseSet<Value> &mayBePartial,
                              SearchGroup &group, int ruleClass,
                              PartialReadsMemo &memo);
  /// The linear groups of `node`'s rule of which some operand may be
  /// P(sum) (in `mayBePartial`): addPartialReads' options read them so.
  static std::vector<size_t>
  partialReadGroups(const Node &node,
                    const llvm::DenseSet<Value> &mayBePartial);
  static int searchValueFor(const FunctionSearch &fs, Value value);
  /// explain=true's remarks on what searchFunction found.
  void explainSearch(const SearchOutcome &outcome);
  void explainGroup(const SearchOutcome &o, size_t g, SearchWords &words);
  /// The window prices of ops as written but for their SSA operands (name,
  /// attributes and properties, option lists, each operand's type and the
  /// value of a non-tensor constant), and how often each runs.
  using WindowPrices = std::map<std::pair<std::vector<const void *>, double>,
                                std::vector<double>>;
  /// Adds to `own` (an op's options' own costs) the modelled time of each
  /// option that reads an operand's window as it is (PropagateCosts.cpp).
  void priceWindows(const Node &node, SearchGroup &group,
                    std::vector<double> &own, double times,
                    WindowPrices &windowPrices);
  Move cachedMoveCost(RankedTensorType type, ShardingSpecAttrInterface from,
                      ShardingSpecAttrInterface to);
  Move moveCost(RankedTensorType type, ShardingSpecAttrInterface from,
                ShardingSpecAttrInterface to);
  /// Whether the type takes the layout and the planner can plan moves of
  /// that sharded type (what moveCost asks of both ends of every move),
  /// answered once per type and layout.
  bool plannableLayout(RankedTensorType type, ShardingSpecAttrInterface spec);
  LogicalResult drain();
  LogicalResult fillUnreached();
  LogicalResult checkCovered();
  /// Refuses, at the first one, a tensor of `func` (an argument or an op's
  /// operand or result) whose elements no sharded tensor holds (a
  /// quantized type): `func` gets layouts.
  static LogicalResult checkElementTypes(func::FuncOp func);
  /// Refuses, at its return, a result pinned to partial values reduced
  /// with different operations that arrives in another layout (no move
  /// makes one yet).
  LogicalResult checkMixedResults();
  void writeBack();
  /// writeBack's steps (PropagateWriteBack.cpp), in order.
  void decideReads();
  std::vector<UseNeed> neededLayouts();
  void pinLayouts();
  void moveToNeeds(std::vector<UseNeed> &needs);
};

} // namespace shardc::propagation

#endif // SHARDC_PASSES_PROPAGATION_H
