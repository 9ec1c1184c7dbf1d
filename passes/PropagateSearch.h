//===- PropagateSearch.h - search=whole's state, for its explanation ---===//
//
// The groups and values of a function's whole-function search
// (PropagateSearch.cpp and PropagateCosts.cpp build them) and what it found,
// which explain=true describes (PropagateExplain.cpp). Internal to the passes.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_PROPAGATESEARCH_H
#define SHARDC_PASSES_PROPAGATESEARCH_H

#include "Propagation.h"

#include "shardc/Planning/Choice.h"
#include "shardc/Planning/SharedVector.h"

#include <functional>
#include <string>
#include <vector>

namespace shardc::propagation {

/// One choice of the search: an op (its loop shardings, and the operand
/// each option reads as it is) or a free value (its layouts).
struct SearchGroup {
  int node = -1, slot = -1;
  /// An op's rule class: ops of equal rules share one (-1: a free value).
  int ruleClass = -1;
  /// Ops alike (thousands of matmuls of one shape) share these lists.
  planning::SharedVector<LoopSharding> shardings;
  /// Per option of an op: the operand it reads as it is (a window the
  /// op's hook cuts from it; -1: none) and that layout.
  planning::SharedVector<int> keptOperand;
  planning::SharedVector<ShardingSpecAttrInterface> keptLayout;
  /// Per option (empty: none reads a window as it is): the modelled time
  /// of the op's hook moving the window's parts to the result's layout,
  /// counted in the option's own cost with its compute.
  std::vector<double> windowUs;
  std::vector<ShardingSpecAttrInterface> layouts;
  /// A carried slot: the op that carries it, and what it is there.
  Operation *carrier = nullptr;
  std::string what;
};
/// A tensor the search prices: its slot, its SSA value, and its layouts
/// by id (the ids the problem's moves and needs use).
struct SearchValue {
  int slot;
  Value value;
  std::vector<Attribute> layouts; // by id
  /// Per layout id: made again there by every rank (a constant), not moved.
  std::vector<bool> remade;
  /// The id of `layout`, a new one where it has none: found by a scan
  /// while the value has few layouts (most have a dozen), by a map past
  /// that (an empty map holds no memory: 24,000 values' maps were 25 MB).
  int id(Attribute layout) {
    if (ids.empty()) {
      for (size_t k = 0; k < layouts.size(); ++k)
        if (layouts[k] == layout)
          return static_cast<int>(k);
      if (layouts.size() < kScanned) {
        layouts.push_back(layout);
        return static_cast<int>(layouts.size()) - 1;
      }
      for (size_t k = 0; k < layouts.size(); ++k)
        ids[layouts[k]] = static_cast<int>(k);
    }
    auto [it, fresh] = ids.try_emplace(layout, (int)layouts.size());
    if (fresh)
      layouts.push_back(layout);
    return it->second;
  }

private:
  static constexpr size_t kScanned = 32;
  llvm::DenseMap<Attribute, int> ids;
};

/// One function's search=whole as its steps build, solve and apply it
/// (Propagation::searchFunction calls them in order).
struct FunctionSearch {
  int index = -1;
  func::FuncOp func;
  MeshAttr mesh;
  /// Set where a step leaves the function to op-by-op propagation, or
  /// finds nothing to search: the steps after it do not run.
  bool done = false;
  /// Its rule ops, its edges, and the slots whose layouts calls fix.
  std::vector<int> ruleNodes, edgeNodes, calleeSlots;
  /// The functions searched: this one first, then the callees without a
  /// mesh of their own that it calls (each from one call), searched with it
  /// as if inlined at their calls, transitively; and the call of each.
  std::vector<int> bodies;
  llvm::DenseMap<Operation *, func::CallOp> callOfBody;
  /// How many times each block runs per call (searchRuns' answers).
  llvm::DenseMap<Block *, double> runs;
  planning::ChoiceProblem problem;
  std::vector<SearchGroup> groups;
  llvm::DenseMap<int, int> groupOfNode, groupOfSlot;
  /// The values with a slot of their own that no op produces: what a loop
  /// carries (its inits, region arguments, yields and results share one
  /// layout) and what a branch yields; the values of each.
  struct Carried {
    int slot;
    Operation *carrier;
    std::string what;
    SmallVector<Value, 2> values;
  };
  std::vector<Carried> carried;
  size_t carriedGroups = 0;
  std::vector<SearchValue> infos;
  llvm::DenseMap<Value, int> valueOf;
  /// Per value, per layout id pair: the bytes the move receives (values
  /// of one type, layouts and block share one table).
  std::vector<planning::SharedRows<int64_t>> bytes;
  bool budgeted = false;
  /// The bytes a rank may hold (Propagation::budgetFor; 0: none).
  int64_t budget = 0;
};

/// What a function's search found: the problem, its solution and how the
/// groups and values map to the IR.
struct SearchOutcome {
  int index;
  func::FuncOp func;
  MeshAttr mesh;
  const planning::ChoiceProblem &problem;
  const planning::ChoiceSolution &solution;
  const std::vector<SearchGroup> &groups;
  const std::vector<SearchValue> &infos;
  /// Per value, per layout id pair: the bytes the move receives.
  const std::vector<planning::SharedRows<int64_t>> &bytes;
  /// Rule ops, free arguments and results, and values loops carry or
  /// branches yield.
  size_t ruleOps, freeArgsAndResults, carried;
  bool budgeted;
  int64_t budget;
  /// The value (an index into `infos`) that operand #i of a rule node
  /// reads; -1 where the search has none.
  std::function<int(const Node &, size_t)> operandValue;
  /// The functions with a body it calls that are searched apart (a callee
  /// with a mesh of its own, before it; one called from several places,
  /// its body after): a proof covers its own choices, theirs as given.
  std::vector<std::string> searchedApart;
};

/// An op's compute time per rank under `sharding`: its local iterations
/// (two flops each where it reduces: a multiply and an add) over the peak
/// rate; 0 when the rate is 0 (PropagateCosts.cpp).
double computeUs(const ShardingRule &rule, const LoopSharding &sharding,
                 double peakGflops);
/// The bytes a rank holds of a tensor of `type` in `layout`: its largest
/// block; the whole tensor where the layout is not a mesh layout
/// (PropagateCosts.cpp).
double heldBytes(mlir::RankedTensorType type, mlir::Attribute layout);

} // namespace shardc::propagation

#endif // SHARDC_PASSES_PROPAGATESEARCH_H
