//===- Choice.cpp - Choosing one option per group at least total cost -----===//
//
// The problem's own arithmetic (totals, bytes held, the moves paid, its
// checks) and the brute force of shardc/Planning/Choice.h; the solvers are
// in ChoiceLocal.cpp, ChoiceElimination.cpp and ChoiceIntegerProgram.cpp.
//
//===----------------------------------------------------------------------===//

#include "shardc/Planning/Choice.h"

#include <algorithm>
#include <cmath>

namespace shardc::planning {

namespace {

/// The distinct layouts value `v` is needed in under `choice`.
void neededLayouts(const ChoiceProblem::Value &v,
                   const std::vector<int> &choice, std::vector<int> &out) {
  out.clear();
  for (const ChoiceProblem::Use &use : v.uses) {
    int need = use.group < 0 ? use.need[0] : use.need[choice[use.group]];
    if (need >= 0)
      out.push_back(need);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

double costOfValue(const ChoiceProblem::Value &v,
                   const std::vector<int> &choice, std::vector<int> &scratch) {
  const int src = v.producer < 0 ? v.source[0] : v.source[choice[v.producer]];
  neededLayouts(v, choice, scratch);
  double total = 0;
  for (int need : scratch)
    total += v.move[src][need];
  return total;
}

double memoryOfValue(const ChoiceProblem::Value &v,
                     const std::vector<int> &choice,
                     std::vector<int> &scratch) {
  if (v.held.empty())
    return 0;
  const int src = v.producer < 0 ? v.source[0] : v.source[choice[v.producer]];
  neededLayouts(v, choice, scratch);
  double total = v.held[src];
  for (int need : scratch)
    if (need != src)
      total += v.held[need];
  return total;
}

} // namespace

double ChoiceProblem::evaluate(const std::vector<int> &choice) const {
  double total = 0;
  for (size_t g = 0; g < own.size(); ++g)
    total += own[g][choice[g]];
  std::vector<int> scratch;
  for (const Value &v : values)
    total += costOfValue(v, choice, scratch);
  if (memoryBudget != kImpossible && memory(choice) > memoryBudget)
    return kImpossible;
  return total;
}

double ChoiceProblem::memory(const std::vector<int> &choice) const {
  double total = 0;
  std::vector<int> scratch;
  for (const Value &v : values)
    total += memoryOfValue(v, choice, scratch);
  return total;
}

double ChoiceProblem::valueMemory(size_t value,
                                  const std::vector<int> &choice) const {
  std::vector<int> scratch;
  return memoryOfValue(values[value], choice, scratch);
}

ChoiceProblem ChoiceProblem::memoryProblem() const {
  ChoiceProblem out;
  out.own.reserve(own.size());
  for (const auto &options : own)
    out.own.emplace_back(options.size(), 0.0);
  out.values = values;
  for (Value &v : out.values) {
    const Value &original = values[&v - out.values.data()];
    const size_t n = v.move.size();
    // A source held: the producer's option pays it (a fixed source is a
    // move to itself, paid by every choice: counted as a need of it).
    if (!v.held.empty() && v.producer >= 0)
      for (size_t o = 0; o < v.source.size(); ++o)
        out.own[v.producer][o] += v.held[v.source[o]];
    for (size_t from = 0; from < n; ++from)
      for (size_t to = 0; to < n; ++to) {
        const double m = original.move[from][to];
        v.move[from][to] = std::isinf(m)                  ? kImpossible
                           : from == to || v.held.empty() ? 0
                                                          : v.held[to];
      }
    if (!v.held.empty() && v.producer < 0 && v.held[v.source[0]] > 0) {
      // Held whatever the choice: added to every option of the first
      // group (with no group there is nothing to choose).
      if (!out.own.empty())
        for (double &c : out.own[0])
          c += v.held[v.source[0]];
    }
    v.held.clear();
  }
  return out;
}

std::vector<ChoiceProblem::Paid>
ChoiceProblem::paid(const std::vector<int> &choice) const {
  std::vector<int> all(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    all[i] = static_cast<int>(i);
  return paid(choice, all);
}

double ChoiceProblem::valueCost(size_t value,
                                const std::vector<int> &choice) const {
  std::vector<int> scratch;
  return costOfValue(values[value], choice, scratch);
}

std::vector<ChoiceProblem::Paid>
ChoiceProblem::paid(const std::vector<int> &choice,
                    const std::vector<int> &valuesListed) const {
  std::vector<Paid> out;
  std::vector<int> needs;
  for (int i : valuesListed) {
    const Value &v = values[i];
    const int src = v.producer < 0 ? v.source[0] : v.source[choice[v.producer]];
    neededLayouts(v, choice, needs);
    for (int need : needs)
      if (v.move[src][need] != 0)
        out.push_back({static_cast<int>(i), src, need});
  }
  return out;
}

int64_t ChoiceProblem::options() const {
  int64_t n = 0;
  for (const auto &g : own)
    n += static_cast<int64_t>(g.size());
  return n;
}

std::string ChoiceProblem::check() const {
  for (size_t g = 0; g < own.size(); ++g) {
    if (own[g].empty())
      return "group " + std::to_string(g) + " has no option";
    for (double c : own[g])
      if (!(c >= 0))
        return "group " + std::to_string(g) + " has an option of cost " +
               std::to_string(c);
  }
  const int groups = static_cast<int>(own.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const Value &v = values[i];
    const std::string name = "value " + std::to_string(i);
    if (v.producer >= groups)
      return name + " has producer " + std::to_string(v.producer);
    const size_t sources = v.producer < 0 ? 1 : own[v.producer].size();
    if (v.source.size() != sources)
      return name + " has " + std::to_string(v.source.size()) +
             " sources for " + std::to_string(sources) + " options";
    for (int s : v.source)
      if (s < 0 || s >= static_cast<int>(v.move.size()))
        return name + " has source id " + std::to_string(s);
    for (const Use &use : v.uses) {
      if (use.group >= groups)
        return name + " has a use in group " + std::to_string(use.group);
      const size_t needs = use.group < 0 ? 1 : own[use.group].size();
      if (use.need.size() != needs)
        return name + " has a use with " + std::to_string(use.need.size()) +
               " needs for " + std::to_string(needs) + " options";
      for (int n : use.need)
        for (const auto &row : v.move)
          if (n >= static_cast<int>(row.size()))
            return name + " needs layout id " + std::to_string(n);
    }
    for (const auto &row : v.move)
      for (double c : row)
        if (!(c >= 0))
          return name + " has a move of cost " + std::to_string(c);
    if (!v.held.empty())
      for (const auto &row : v.move)
        if (v.held.size() != v.move.size() || row.size() != v.move.size())
          return name + " holds " + std::to_string(v.held.size()) +
                 " sizes, but its moves are not " +
                 std::to_string(v.held.size()) + " x " +
                 std::to_string(v.held.size());
    for (double h : v.held)
      if (!(h >= 0) || std::isinf(h))
        return name + " holds " + std::to_string(h) + " bytes";
  }
  if (!(memoryBudget >= 0))
    return "the memory budget is " + std::to_string(memoryBudget);
  return "";
}

ChoiceSolution solveBruteForce(const ChoiceProblem &problem) {
  const size_t groups = problem.own.size();
  std::vector<int> choice(groups, 0);
  ChoiceSolution best;
  best.how = "every combination";
  best.exact = true;
  while (true) {
    double cost = problem.evaluate(choice);
    if (cost < best.cost) {
      best.cost = cost;
      best.choice = choice;
    }
    size_t g = 0;
    for (; g < groups; ++g) {
      if (++choice[g] < static_cast<int>(problem.own[g].size()))
        break;
      choice[g] = 0;
    }
    if (g == groups)
      break;
  }
  if (best.choice.empty())
    best.choice.assign(groups, 0);
  return best;
}

} // namespace shardc::planning
