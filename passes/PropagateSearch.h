//===- PropagateSearch.h - search=whole's state, for its explanation ---===//
//
// The groups and values of a function's whole-function search
// (PropagateSearch.cpp builds them) and what it found, which explain=true
// describes (PropagateExplain.cpp). Internal to the passes.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_PROPAGATESEARCH_H
#define SHARDC_PASSES_PROPAGATESEARCH_H

#include "Propagation.h"

#include "shardc/Planning/Choice.h"

#include <functional>
#include <string>
#include <vector>

namespace shardc::propagation {

/// One choice of the search: an op (its loop shardings, and the operand
/// each option reads as it is) or a free value (its layouts).
struct SearchGroup {
  int node = -1, slot = -1;
  std::vector<LoopSharding> shardings;
  /// Per option of an op: the operand it reads as it is (a window the
  /// op's hook cuts from it; -1: none) and that layout.
  std::vector<int> keptOperand;
  std::vector<ShardingSpecAttrInterface> keptLayout;
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
  llvm::DenseMap<Attribute, int> ids;
  int id(Attribute layout) {
    auto [it, fresh] = ids.try_emplace(layout, (int)layouts.size());
    if (fresh)
      layouts.push_back(layout);
    return it->second;
  }
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
  const std::vector<std::vector<std::vector<int64_t>>> &bytes;
  /// Rule ops, free arguments and results, and values loops carry or
  /// branches yield.
  size_t ruleOps, freeArgsAndResults, carried;
  bool budgeted;
  /// The value (an index into `infos`) that operand #i of a rule node
  /// reads; -1 where the search has none.
  std::function<int(const Node &, size_t)> operandValue;
};

} // namespace shardc::propagation

#endif // SHARDC_PASSES_PROPAGATESEARCH_H
