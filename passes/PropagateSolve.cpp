//===- PropagateSolve.cpp - -shard-propagate's whole-function choice ------===//
//
// search=whole's last two steps (PropagateSearch.cpp builds the problem):
// the choice among each function's options by the solvers of
// shardc/Planning/Choice.h (local search, elimination, the integer
// program), under the memory budget where there is one, and the choice
// written back as every op's sharding and every free value's layout.
//
//===----------------------------------------------------------------------===//

#include "PropagateSearch.h"

#include "shardc/Planning/Choice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace shardc;
using namespace shardc::propagation;

/// Past exact-ops: the most table entries elimination may compute in all
/// (a fraction of a second).
static constexpr int64_t kEliminationWorkPastExactOps = int64_t(1) << 23;

/// The optimum of `problem` without its memory budget, by elimination
/// where its tables stay small and few (else nullopt): exact in linear time
/// on chains and trees of ops, whatever their size.
static std::optional<planning::ChoiceSolution>
eliminateCheaply(planning::ChoiceProblem &problem) {
  const double budget = problem.memoryBudget;
  problem.memoryBudget = planning::ChoiceProblem::kImpossible;
  std::optional<planning::ChoiceSolution> solved = planning::solveByElimination(
      problem, int64_t(1) << 16, 4096, kEliminationWorkPastExactOps);
  problem.memoryBudget = budget;
  return solved;
}

/// The choice: local search first (the solver's start, or the answer past
/// exact-ops ops), then exactly where the function is small enough, under
/// the memory budget where there is one.
LogicalResult Propagation::searchSolve(FunctionSearch &fs,
                                       planning::ChoiceSolution &solution) {
  func::FuncOp func = fs.func;
  std::vector<int> &ruleNodes = fs.ruleNodes;
  planning::ChoiceProblem &problem = fs.problem;
  std::vector<SearchGroup> &groups = fs.groups;
  std::vector<planning::SharedRows<int64_t>> &bytes = fs.bytes;
  bool &budgeted = fs.budgeted;
  auto leave = [&](const Twine &why) { return leaveSearch(fs, why); };
  // Solve: local search first (the solver's start, or the answer past
  // exact-ops ops).
  const bool small = static_cast<int64_t>(ruleNodes.size()) <= search.exactOps;
  // Under a budget, the optimum without it, where elimination finds it and
  // it fits, is the optimum: nothing else to search.
  std::optional<planning::ChoiceSolution> fitting;
  // The optimum without the budget, where elimination found it: one more
  // choice whose peak the error over the budget may name.
  std::vector<int> unbudgeted;
  std::optional<planning::ChoiceSolution> tree;
  if (budgeted && (tree = eliminateCheaply(problem)))
    unbudgeted = tree->choice;
  if (tree && problem.memory(tree->choice) <= problem.memoryBudget) {
    fitting = std::move(tree);
    fitting->cost = problem.evaluate(fitting->choice);
    const std::string proven = ", proven optimal";
    if (llvm::StringRef(fitting->how).ends_with(proven))
      fitting->how.insert(fitting->how.size() - proven.size(),
                          small
                              ? std::string()
                              : ", past exact-ops (" +
                                    std::to_string(search.exactOps) + ") ops");
    fitting->how += ", within the memory budget";
  }
  // Past exact-ops without a budget, elimination's optimum where it finds
  // one (chains and trees of ops: linear time) is the answer, and local
  // search, which it would replace, is not run.
  std::optional<planning::ChoiceSolution> eliminated;
  const bool eliminatedFirst = !small && !budgeted;
  if (eliminatedFirst)
    eliminated = eliminateCheaply(problem);
  std::vector<int> start(groups.size(), 0);
  solution = fitting      ? *fitting
             : eliminated ? *eliminated
                          : planning::solveLocal(problem, start);
  planning::ExactLimits limits;
  limits.nodes = search.solverNodes;
  limits.iterations = search.solverIterations;
  // A choice that holds least (solved once, when needed): the least bytes
  // summed over the function, whose peak is then small (the least peak is
  // not sought exactly).
  std::optional<planning::ChoiceSolution> fewest;
  // A solver the guard stopped (cbc::guardSeconds): no answer, the same on
  // no two runs, so the function is refused.
  std::string stopped;
  auto failStopped = [&] {
    return func.emitOpError()
           << "could not be searched: " << stopped
           << ", before its limits (solver-nodes=" << search.solverNodes
           << ", solver-iterations=" << search.solverIterations
           << ") stopped it; lower them (an answer cut off by a clock would "
              "differ from run to run)";
  };
  auto leastMemory = [&]() -> const planning::ChoiceSolution & {
    if (!fewest) {
      planning::ChoiceProblem bytesHeld = problem.memoryProblem();
      if (small) {
        fewest = planning::solveExact(bytesHeld, {}, limits);
        if (!fewest->stopped.empty())
          stopped = fewest->stopped;
      } else if (!(fewest = eliminateCheaply(bytesHeld))) {
        // Local search from the time's answer, and from every group at
        // the option whose own values hold least (each op's results and
        // each free value cut the most): the better.
        fewest = planning::solveLocal(bytesHeld, solution.choice);
        std::vector<int> cut(bytesHeld.own.size(), 0);
        for (size_t g = 0; g < cut.size(); ++g)
          cut[g] = static_cast<int>(std::min_element(bytesHeld.own[g].begin(),
                                                     bytesHeld.own[g].end()) -
                                    bytesHeld.own[g].begin());
        planning::ChoiceSolution fromCut = planning::solveLocal(bytesHeld, cut);
        if (fromCut.cost < fewest->cost)
          fewest = std::move(fromCut);
      }
    }
    return *fewest;
  };
  // Over the budget from its start: local search again, from the choice
  // that holds least (it stays within the budget from there).
  if (!fitting && budgeted &&
      problem.memory(solution.choice) > problem.memoryBudget &&
      problem.memory(leastMemory().choice) <= problem.memoryBudget)
    solution = planning::solveLocal(problem, leastMemory().choice);
  if (!stopped.empty())
    return failStopped();
  if (fitting) {
    // Solved above.
  } else if (small) {
    planning::ChoiceSolution exact =
        planning::solveExact(problem, solution.choice, limits);
    if (!exact.stopped.empty()) {
      stopped = exact.stopped;
      return failStopped();
    }
    if (exact.cost <= solution.cost) {
      solution = std::move(exact);
    } else {
      // Cheaper than a proven optimum: within the proof's tolerance
      // (planning::proofTolerance), and then proven as closely; else no
      // proof at all.
      const double gap = exact.cost - solution.cost;
      const std::string proven = ", proven optimal";
      std::string how = exact.how;
      const bool claimed = llvm::StringRef(how).ends_with(proven);
      if (claimed)
        how.erase(how.size() - proven.size());
      const bool within = claimed && exact.exact &&
                          gap <= planning::proofTolerance(problem, exact.cost);
      char cheaper[64];
      std::snprintf(cheaper, sizeof cheaper, "%.4g", gap);
      solution.how = how + (within ? ", proven optimal to a millionth" : "") +
                     "; local search's answer, cheaper by " + cheaper +
                     " us, kept" + (within ? "" : ", not proven optimal");
    }
  } else if (std::optional<planning::ChoiceSolution> tree =
                 eliminatedFirst ? std::move(eliminated)
                                 : eliminateCheaply(problem);
             tree && (tree->choice == solution.choice ||
                      problem.evaluate(tree->choice) <= solution.cost)) {
    // Past exact-ops, elimination still runs where its tables stay small
    // (chains and trees of ops): exact in linear time (under a budget, where
    // the optimum without it fits).
    solution = std::move(*tree);
    solution.cost = problem.evaluate(solution.choice);
    const std::string proven = ", proven optimal";
    if (llvm::StringRef(solution.how).ends_with(proven))
      solution.how.insert(solution.how.size() - proven.size(),
                          ", past exact-ops (" +
                              std::to_string(search.exactOps) + ") ops");
  } else {
    solution.how += ", past exact-ops (" + std::to_string(search.exactOps) +
                    ") ops, not proven optimal";
  }
  // The least peak among the choices found: the choice that holds least
  // summed over the function need not peak least (seen: 34,112 bytes named
  // while 24,064 fit a larger budget); local search from it lowers the
  // bytes over the budget at the peak first, and the answer's own choice
  // may peak lower still.
  auto leastPeakFound = [&] {
    planning::ChoiceProblem free = problem;
    free.memoryBudget = planning::ChoiceProblem::kImpossible;
    const std::vector<int> lowered =
        planning::solveLocal(problem, leastMemory().choice).choice;
    double least = problem.memory(leastMemory().choice);
    for (const std::vector<int> *choice :
         {&lowered, static_cast<const std::vector<int> *>(&solution.choice),
          static_cast<const std::vector<int> *>(&unbudgeted)})
      if (choice->size() == groups.size() &&
          std::isfinite(free.evaluate(*choice)))
        least = std::min(least, problem.memory(*choice));
    return static_cast<int64_t>(least);
  };
  // Local search from the choice that holds least may fit where the
  // search's own answer did not (past exact-ops): that is the answer, not
  // an error naming it as the least held.
  if (std::isinf(solution.cost) && budgeted &&
      !std::isinf(leastMemory().cost) && stopped.empty()) {
    planning::ChoiceSolution lowered =
        planning::solveLocal(problem, leastMemory().choice);
    if (std::isfinite(lowered.cost)) {
      lowered.how += " from the choice that holds least, within the memory "
                     "budget, not proven optimal";
      solution = std::move(lowered);
    }
  }
  if (std::isinf(solution.cost) && budgeted &&
      !std::isinf(leastMemory().cost) && stopped.empty())
    return func.emitOpError()
           << "holds more than memory-budget=" << fs.budget
           << " bytes per rank at some point under "
           << (small && solution.exact ? "every sharding of its ops (proven)"
                                       : "every sharding of its ops the "
                                         "search found")
           << ": the least held found is " << leastPeakFound()
           << " bytes per rank at its peak (the values live there: each "
              "one's block and every copy its ops need)";
  if (!stopped.empty())
    return failStopped();
  if (std::isinf(solution.cost))
    return leave("every sharding of its ops forces a move the planner "
                 "cannot make (between CPU and CUDA blocks, say)");
  return success();
}

/// explain=true's remarks, then the choice written: free arguments and
/// results first (and a callee's without a body: whole), then every op's
/// sharding.
void Propagation::searchApply(FunctionSearch &fs,
                              const planning::ChoiceSolution &solution) {
  func::FuncOp func = fs.func;
  MeshAttr mesh = fs.mesh;
  const int index = fs.index;
  std::vector<int> &ruleNodes = fs.ruleNodes;
  std::vector<int> &calleeSlots = fs.calleeSlots;
  planning::ChoiceProblem &problem = fs.problem;
  std::vector<SearchGroup> &groups = fs.groups;
  llvm::DenseMap<int, int> &groupOfSlot = fs.groupOfSlot;
  size_t &carriedGroups = fs.carriedGroups;
  std::vector<SearchValue> &infos = fs.infos;
  std::vector<planning::SharedRows<int64_t>> &bytes = fs.bytes;
  bool &budgeted = fs.budgeted;
  auto fixedLayout = [&](int slot) { return searchFixedLayout(fs, slot); };
  auto valueFor = [&](Value value) { return searchValueFor(fs, value); };
  auto operandValue = [](const Node &node, size_t i) {
    return searchOperandValue(node, i);
  };
  if (explain) {
    std::vector<std::string> apart;
    for (int body : fs.bodies)
      funcs[body].walk([&](func::CallOp call) {
        auto found = funcIndex.find(calleeOf(call));
        // (Not itself, where it recurses: its own choices are the proof's.)
        if (found == funcIndex.end() || found->second == index ||
            funcs[found->second].isExternal() ||
            fs.callOfBody.count(funcs[found->second]))
          return;
        std::string name = funcs[found->second].getSymName().str();
        if (!llvm::is_contained(apart, name))
          apart.push_back(std::move(name));
      });
    SearchOutcome outcome{index,
                          func,
                          mesh,
                          problem,
                          solution,
                          groups,
                          infos,
                          bytes,
                          ruleNodes.size(),
                          groupOfSlot.size() - carriedGroups,
                          carriedGroups,
                          budgeted,
                          fs.budget,
                          [&](const Node &node, size_t i) {
                            return valueFor(operandValue(node, i));
                          },
                          std::move(apart)};
    explainSearch(outcome);
  }

  // Apply: free arguments and results first (and a callee's without a
  // body: whole), then every op's sharding.
  for (int slot : calleeSlots)
    assign(slot, fixedLayout(slot));
  for (size_t g = 0; g < groups.size(); ++g) {
    const SearchGroup &group = groups[g];
    if (group.slot >= 0)
      assign(group.slot, group.layouts[solution.choice[g]]);
  }

  for (size_t g = 0; g < groups.size(); ++g) {
    const SearchGroup &group = groups[g];
    if (group.node < 0)
      continue;
    Node &node = nodes[group.node];
    // The option chosen: its loops and the operand it reads as it is.
    const size_t chosen = solution.choice[g];
    node.decision = group.shardings[chosen];
    node.keptOperand = group.keptOperand[chosen];
    node.keptLayout = group.keptLayout[chosen];
    node.searched = true;
    node.waiting = false;
    for (auto [i, slot] : llvm::enumerate(node.resultSlots))
      if (slot >= 0)
        assign(slot, resultLayoutUnder(*node.rule, *node.decision, i));
  }
}
