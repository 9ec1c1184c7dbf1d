//===- PropagateExplain.cpp - search=whole's explain=true remarks -------===//
//
// Propagation::explainSearch: for a function solved by the whole-function
// search, a remark saying how it was solved and its modelled total, and at
// each decision the option kept, what it pays for, the best rejected one and
// what that would add and force (docs/partition.md, "Whole-function
// search").
//
//===----------------------------------------------------------------------===//

#include "PropagateSearch.h"

#include "shardc/Layout/Mesh.h"

#include "mlir/IR/AsmState.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace shardc;
using namespace shardc::propagation;

namespace shardc::propagation {

/// explainSearch's words for one function's search: a layout on its mesh,
/// and what a choice pays for the values a group touches.
struct SearchWords {
  const SearchOutcome &o;
  /// Names values as the printed function does (made once per function:
  /// it numbers the whole function; a callee searched with its call has
  /// its own).
  llvm::DenseMap<Operation *, std::unique_ptr<AsmState>> asmStates;
  /// The values each group's choice touches (it produces or uses them).
  std::vector<std::vector<int>> touched;

  explicit SearchWords(const SearchOutcome &o)
      : o(o), touched(o.groups.size()) {
    for (size_t v = 0; v < o.problem.values.size(); ++v) {
      auto add = [&](int g) {
        if (g >= 0 && (touched[g].empty() || touched[g].back() != (int)v))
          touched[g].push_back(static_cast<int>(v));
      };
      add(o.problem.values[v].producer);
      for (const auto &use : o.problem.values[v].uses)
        add(use.group);
    }
  }

  /// A layout on the function's mesh as its placements alone ("[S(0), R]").
  std::string show(Attribute layout) const {
    std::string text;
    llvm::raw_string_ostream os(text);
    auto placements = dyn_cast<PlacementsSpecAttr>(layout);
    if (!placements || placements.getMesh() != o.mesh) {
      os << layout;
      return text;
    }
    os << "[";
    llvm::interleaveComma(
        placements.getPlacements(), os,
        [&](const layout::Placement &p) { os << layout::formatPlacement(p); });
    os << "]";
    return text;
  }

  /// What `choice` pays for the values group `g` touches.
  std::string describeMoves(const std::vector<int> &choice, int g) {
    std::string text;
    for (const planning::ChoiceProblem::Paid &paid :
         o.problem.paid(choice, touched[g])) {
      const planning::ChoiceProblem::Value &v = o.problem.values[paid.value];
      std::string one;
      llvm::raw_string_ostream os(one);
      Value value = o.infos[paid.value].value;
      Operation *in = value.getParentRegion()->getParentOfType<func::FuncOp>();
      std::unique_ptr<AsmState> &state = asmStates[in];
      if (!state)
        state = std::make_unique<AsmState>(in);
      value.printAsOperand(os, *state);
      const SearchValue &info = o.infos[paid.value];
      if (static_cast<size_t>(paid.need) < info.remade.size() &&
          info.remade[paid.need])
        os << " made again in " << show(info.layouts[paid.need]) << ": "
           << llvm::format("%.3g", v.move[paid.source][paid.need]) << " us";
      else
        os << " " << show(info.layouts[paid.source]) << " -> "
           << show(info.layouts[paid.need]) << ": "
           << o.bytes[paid.value][paid.source][paid.need] << " bytes, "
           << llvm::format("%.3g", v.move[paid.source][paid.need]) << " us";
      text += (text.empty() ? "" : "; ") + one;
    }
    return text.empty() ? std::string("moves nothing") : text;
  }

  static std::string num(double x) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::format("%.4g", x);
    return text;
  }
};

} // namespace shardc::propagation

/// What a proof of a function that calls functions searched apart covers:
/// its own choices, the callees' layouts as their searches gave them (a
/// callee's free argument chosen without its callers may cost them more).
static std::string apartWords(const SearchOutcome &o, llvm::StringRef how) {
  if (o.searchedApart.empty() || !how.contains("proven optimal") ||
      how.contains("not proven"))
    return "";
  std::string text = " over its own choices only: ";
  for (size_t i = 0; i < o.searchedApart.size(); ++i)
    text += (i ? ", @" : "@") + o.searchedApart[i];
  return text + (o.searchedApart.size() == 1 ? " is" : " are") +
         " searched apart, so the program as a whole may do better";
}

void Propagation::explainSearch(const SearchOutcome &o) {
  const planning::ChoiceProblem &problem = o.problem;
  const planning::ChoiceSolution &solution = o.solution;
  SearchWords words(o);
  // (A window's parts moved by its op's hook are moves, though counted in
  // the op's own cost.)
  double compute = 0;
  for (size_t g = 0; g < o.groups.size(); ++g)
    compute += problem.own[g][solution.choice[g]] -
               (o.groups[g].windowUs.empty()
                    ? 0.0
                    : o.groups[g].windowUs[solution.choice[g]]);
  auto num = &SearchWords::num;
  func::FuncOp func = o.func;
  mlir::emitRemark(func.getLoc())
      << "search=whole chose the shardings of " << o.ruleOps
      << " ops and the layouts of " << o.freeArgsAndResults
      << " free arguments and results"
      << (o.carried ? " and " + std::to_string(o.carried) +
                          " values loops carry or "
                          "branches yield"
                    : std::string())
      << " (" << problem.options() << " options) by " << solution.how
      << apartWords(o, solution.how) << ": modelled " << num(solution.cost)
      << " us (moves " << num(solution.cost - compute) << " us, compute "
      << num(compute) << " us); each rank holds "
      << static_cast<int64_t>(problem.memory(solution.choice)) << " bytes"
      << (o.budgeted
              ? " of memory-budget=" + std::to_string(o.budget) +
                    (search.memoryBudget > 0 ? "" : " (the CUDA default)")
              : std::string());
  for (size_t g = 0; g < o.groups.size(); ++g)
    explainGroup(o, g, words);
}

/// explainSearch's remark on group `g`: the option kept, what it computes
/// and moves, what op by op would say of it, and the best one rejected.
void Propagation::explainGroup(const SearchOutcome &o, size_t g,
                               SearchWords &words) {
  const planning::ChoiceProblem &problem = o.problem;
  const planning::ChoiceSolution &solution = o.solution;
  const std::vector<SearchGroup> &groups = o.groups;
  const std::vector<SearchValue> &infos = o.infos;
  func::FuncOp func = o.func;
  const int index = o.index;
  const bool budgeted = o.budgeted;
  const double heldNow = problem.memory(solution.choice);
  const std::vector<std::vector<int>> &touched = words.touched;
  auto show = [&](Attribute layout) { return words.show(layout); };
  auto describeMoves = [&](const std::vector<int> &choice, int g) {
    return words.describeMoves(choice, g);
  };
  auto num = &SearchWords::num;
  const SearchGroup &group = groups[g];
  const size_t options = problem.own[g].size();
  auto name = [&](size_t o) -> std::string {
    if (group.node < 0)
      return show(group.layouts[o]);
    std::string text = describeSharding(group.shardings[o]);
    if (group.keptOperand[o] == kEveryWindow)
      text += " (operands with windows read as they are, " +
              show(group.keptLayout[o]) + ": their windows moved by the op)";
    else if (group.keptOperand[o] >= 0)
      text += " (operand #" + std::to_string(group.keptOperand[o]) +
              " read as it is, " + show(group.keptLayout[o]) +
              ": its window moved by the op)";
    return text;
  };
  const int kept = solution.choice[g];
  std::string line = "kept " + name(kept);
  const double window = group.windowUs.empty() ? 0.0 : group.windowUs[kept];
  if (group.node >= 0)
    line += " (compute " + num(problem.own[g][kept] - window) + " us; " +
            (window > 0 ? "the window's parts moved: " + num(window) + " us; "
                        : std::string()) +
            describeMoves(solution.choice, g) + ")";
  else
    line += " (" + describeMoves(solution.choice, g) + ")";
  // What op by op says too: an operand in the layout it comes in (or
  // a pinned result) that asks for a sharding torch.chunk's cut rules
  // out (alignToFactors), so it is moved instead.
  if (group.node >= 0) {
    const Node &node = nodes[group.node];
    auto ask = [&](Attribute layout, int slot, ArrayRef<int64_t> dims,
                   const std::string &who) {
      PlacementsSpecAttr mesh = asMeshLayout(
          cast<ShardingSpecAttrInterface>(layout), slots[slot].type.getShape());
      if (!mesh)
        return;
      std::string why;
      alignToFactors(*node.rule, proposalOf(*node.rule, dims, mesh), &why);
      if (!why.empty())
        line += "; " + who + " asks for a sharding whose " + why +
                "; its tensors are moved instead (exactly)";
    };
    for (auto [i, slot] : llvm::enumerate(node.operandSlots)) {
      const int value = slot < 0 ? -1 : o.operandValue(node, i);
      if (value < 0)
        continue;
      Attribute comes =
          infos[value].layouts[problem.sourceOf(value, solution.choice)];
      ask(comes, slot, node.rule->operands[i],
          "operand #" + std::to_string(i) + " in " + show(comes));
    }
    for (auto [i, slot] : llvm::enumerate(node.resultSlots))
      if (slot >= 0 && slots[slot].layout)
        ask(slots[slot].layout, slot, node.rule->results[i],
            "result #" + std::to_string(i) + " (pinned " +
                show(slots[slot].layout) + ")");
  }
  if (options > 1) {
    int best = -1;
    double bestCost = planning::ChoiceProblem::kImpossible, bestHeld = 0;
    std::vector<int> other = solution.choice;
    for (size_t o = 0; o < options; ++o) {
      if (static_cast<int>(o) == kept)
        continue;
      other[g] = static_cast<int>(o);
      // The total's change: this group's own cost and its values'; and
      // what a rank would hold.
      double c = solution.cost + problem.own[g][o] - problem.own[g][kept];
      double held = heldNow;
      for (int v : touched[g]) {
        c +=
            problem.valueCost(v, other) - problem.valueCost(v, solution.choice);
        held += problem.valueMemory(v, other) -
                problem.valueMemory(v, solution.choice);
      }
      if (best < 0 || c < bestCost) {
        best = static_cast<int>(o);
        bestCost = c;
        bestHeld = held;
      }
    }
    other[g] = best;
    line += "; best rejected: " + name(best);
    if (std::isinf(bestCost))
      line += " (a move the planner cannot make)";
    else
      line +=
          " (+" + num(bestCost - solution.cost) + " us: " +
          (!group.windowUs.empty() && group.windowUs[best] > 0
               ? "the window's parts moved: " + num(group.windowUs[best]) +
                     " us; "
               : std::string()) +
          describeMoves(other, g) +
          (budgeted && bestHeld > problem.memoryBudget
               ? "; over memory-budget: each rank would hold " +
                     std::to_string(static_cast<int64_t>(bestHeld)) + " bytes"
               : std::string()) +
          ")";
  }
  if (group.node >= 0) {
    mlir::emitRemark(nodes[group.node].op->getLoc()) << line;
  } else if (group.carrier) {
    mlir::emitRemark(group.carrier->getLoc()) << group.what << ": " << line;
  } else {
    // An argument or result of this function, or of a callee searched
    // with its call: said at that function.
    const int owner =
        slots[group.slot].func >= 0 ? slots[group.slot].func : index;
    func::FuncOp at = funcs[owner];
    auto arg = llvm::find(argSlots[owner], group.slot);
    if (arg != argSlots[owner].end())
      mlir::emitRemark(at.getLoc())
          << "argument #" << (arg - argSlots[owner].begin()) << ": " << line;
    else
      mlir::emitRemark(at.getLoc())
          << "result #"
          << (llvm::find(resultSlots[owner], group.slot) -
              resultSlots[owner].begin())
          << ": " << line;
  }
}
