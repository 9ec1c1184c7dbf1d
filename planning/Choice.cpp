//===- Choice.cpp - Choosing one option per group at least total cost -----===//
//
// The integer program (COIN-OR CBC through its C interface), the local
// search and the brute force of shardc/Planning/Choice.h.
//
// The integer program, for groups g with options o, values v:
//   x[g,o] in {0,1}, sum_o x[g,o] = 1;
//   per value v and use u: z_u[S,L] >= 0 for each source S the producer's
//     options give and each layout L (or none) the use's options need, with
//     margins sum_L z_u[S,L] = sum_{o: source(o) = S} x[producer,o] and
//     sum_S z_u[S,L] = sum_{o: need(o) = L} x[use group,o] (1 where fixed);
//     for integral x, z_u[S,L] is 1 exactly where the source is S and the
//     use needs L (the local polytope, whose relaxation is integral where
//     the ops form a tree);
//   w[v,S,L] >= z_u[S,L] for every use u: the move is paid once however
//     many uses need L (z_u[S,L] = 0 where the planner cannot move it);
//   minimize sum own[g][o] x[g,o] + sum move[v][S][L] w[v,S,L];
//   under a memory budget B, one row more: sum over values of
//   held[v][source(o)] x[producer,o] + sum held[v][L] w[v,S,L] (L != S)
//   <= B (a w exists for each such copy, whatever its move costs).
//===----------------------------------------------------------------------===//

#include "shardc/Planning/Choice.h"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>

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

ChoiceSolution solveLocal(const ChoiceProblem &problem,
                          std::vector<int> start) {
  const size_t groups = problem.own.size();
  if (start.size() != groups)
    start.assign(groups, 0);
  std::vector<int> choice = std::move(start);
  // A cost as its finite part and its number of impossible moves, so that
  // changes subtract without inf - inf.
  // Memory rides along: the bytes held.
  struct Cost {
    double finite = 0;
    int64_t impossible = 0;
    double memory = 0;
    Cost &operator+=(const Cost &o) {
      finite += o.finite;
      impossible += o.impossible;
      memory += o.memory;
      return *this;
    }
    Cost operator-(const Cost &o) const {
      return {finite - o.finite, impossible - o.impossible, memory - o.memory};
    }
  };
  auto costOfMove = [](double c) {
    return std::isinf(c) ? Cost{0, 1, 0} : Cost{c, 0, 0};
  };
  const double budget = problem.memoryBudget;
  const bool budgeted = budget != ChoiceProblem::kImpossible;
  // Per value: how many uses need each layout now, and its cost now.
  // Changing one group's option updates only the values it touches.
  std::vector<std::vector<int>> count(problem.values.size());
  std::vector<Cost> now(problem.values.size());
  std::vector<std::vector<std::pair<int, int>>> usesOf(groups);
  std::vector<std::vector<int>> touches(groups);
  auto costOf = [&](size_t i) {
    const ChoiceProblem::Value &v = problem.values[i];
    const int src = v.producer < 0 ? v.source[0] : v.source[choice[v.producer]];
    Cost total;
    if (!v.held.empty())
      total.memory = v.held[src];
    for (size_t l = 0; l < count[i].size(); ++l)
      if (count[i][l] > 0) {
        total += costOfMove(v.move[src][l]);
        if (!v.held.empty() && static_cast<int>(l) != src)
          total.memory += v.held[l];
      }
    return total;
  };
  for (size_t i = 0; i < problem.values.size(); ++i) {
    const ChoiceProblem::Value &v = problem.values[i];
    count[i].assign(v.move.empty() ? 0 : v.move[0].size(), 0);
    for (size_t u = 0; u < v.uses.size(); ++u) {
      const ChoiceProblem::Use &use = v.uses[u];
      const int need =
          use.group < 0 ? use.need[0] : use.need[choice[use.group]];
      if (need >= 0)
        ++count[i][need];
      if (use.group >= 0) {
        usesOf[use.group].push_back({static_cast<int>(i), static_cast<int>(u)});
        touches[use.group].push_back(static_cast<int>(i));
      }
    }
    if (v.producer >= 0)
      touches[v.producer].push_back(static_cast<int>(i));
    now[i] = costOf(i);
  }
  for (auto &t : touches) {
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
  }
  // Moves group g to option o; returns the values' change.
  auto moveTo = [&](size_t g, int o) {
    for (auto [i, u] : usesOf[g])
      if (int need = problem.values[i].uses[u].need[choice[g]]; need >= 0)
        --count[i][need];
    choice[g] = o;
    for (auto [i, u] : usesOf[g])
      if (int need = problem.values[i].uses[u].need[o]; need >= 0)
        ++count[i][need];
    Cost change;
    for (int i : touches[g]) {
      Cost c = costOf(i);
      change += c - now[i];
      now[i] = c;
    }
    return change;
  };
  // The bytes held now, and what a change leaves over the budget.
  double held = 0;
  for (const Cost &c : now)
    held += c.memory;
  auto excess = [&](const Cost &change) {
    return budgeted ? std::max(0.0, held + change.memory - budget) : 0.0;
  };
  auto less = [&](const Cost &a, const Cost &b) {
    if (a.impossible != b.impossible)
      return a.impossible < b.impossible;
    if (double ea = excess(a), eb = excess(b); ea != eb)
      return ea < eb;
    return a.finite < b.finite - 1e-9 * std::max(1.0, std::fabs(b.finite));
  };
  // The groups touching each value: a group's change may make theirs
  // worth revisiting.
  std::vector<std::vector<int>> groupsOf(problem.values.size());
  for (size_t g = 0; g < groups; ++g)
    for (int i : touches[g])
      groupsOf[i].push_back(static_cast<int>(g));
  // A worklist in first-in first-out order, every group first in order.
  std::deque<int> work;
  std::vector<bool> queued(groups, true);
  for (size_t g = 0; g < groups; ++g)
    work.push_back(static_cast<int>(g));
  // Under a budget, bytes freed anywhere may let any group take a faster
  // option: once the worklist empties, every group is visited again while
  // the last round moved one.
  // At most kSweeps such rounds in all, and none between pair moves (so
  // that the time stays near linear).
  constexpr int kSweeps = 4;
  int sweepsLeft = kSweeps;
  bool movedSinceSweep = false;
  auto singles = [&](bool sweep) {
    while (!work.empty() ||
           (sweep && budgeted && movedSinceSweep && sweepsLeft > 0)) {
      if (work.empty()) {
        --sweepsLeft;
        movedSinceSweep = false;
        for (size_t g = 0; g < groups; ++g) {
          queued[g] = true;
          work.push_back(static_cast<int>(g));
        }
      }
      const size_t g = work.front();
      work.pop_front();
      queued[g] = false;
      {
        const int current = choice[g];
        const size_t options = problem.own[g].size();
        if (options < 2)
          continue;
        // What other groups' choices depend on, per value this one touches:
        // its source and, per layout, whether no use, one or several need it.
        auto shapeOf = [&](int i) {
          const ChoiceProblem::Value &v = problem.values[i];
          std::vector<int> shape{v.producer < 0 ? v.source[0]
                                                : v.source[choice[v.producer]]};
          for (int c : count[i])
            shape.push_back(std::min(c, 2));
          return shape;
        };
        std::vector<std::vector<int>> before;
        for (int i : touches[g])
          before.push_back(shapeOf(i));
        // Each option's change of the total from `current`.
        Cost values, best;
        int bestOption = current;
        for (int o = 0; o < static_cast<int>(options); ++o) {
          if (o == current)
            continue;
          values += moveTo(g, o);
          Cost change = values;
          change.finite += problem.own[g][o] - problem.own[g][current];
          if (less(change, best)) {
            best = change;
            bestOption = o;
          }
        }
        moveTo(g, bestOption);
        if (bestOption != current) {
          held += best.memory;
          movedSinceSweep = true;
        }
        // Revisit the groups of the values whose shape changed (a value used
        // by thousands of ops whose needed layouts stay the same wakes none).
        if (bestOption != current)
          for (size_t t = 0; t < touches[g].size(); ++t) {
            const int i = touches[g][t];
            if (shapeOf(i) == before[t])
              continue;
            for (int h : groupsOf[i])
              if (!queued[h]) {
                queued[h] = true;
                work.push_back(h);
              }
          }
      }
    }
  };
  // Then pairs: a value's producer and one of its users move together (a
  // weight and the op that reads it, say, where either alone makes a
  // copy), each pair to its best two options, and single moves again
  // after any that improves, until a round improves none or the pairs
  // have tried kPairWork options in all (so that the time stays linear).
  std::vector<std::pair<int, int>> pairs;
  for (const ChoiceProblem::Value &v : problem.values)
    if (v.producer >= 0)
      for (const ChoiceProblem::Use &use : v.uses)
        if (use.group >= 0 && use.group != v.producer)
          pairs.push_back({v.producer, use.group});
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  constexpr int64_t kPairWork = int64_t(1) << 22;
  int64_t work2 = 0;
  bool pairsDone = false;
  singles(true);
  while (!pairsDone) {
    bool improved = false;
    for (auto [p, u] : pairs) {
      const int kp = static_cast<int>(problem.own[p].size());
      const int ku = static_cast<int>(problem.own[u].size());
      if (kp < 2 || ku < 2)
        continue;
      work2 += int64_t(kp) * ku;
      if (work2 > kPairWork) {
        pairsDone = true;
        break;
      }
      const int cp = choice[p], cu = choice[u];
      Cost values, best;
      int bestP = cp, bestU = cu;
      for (int a = 0; a < kp; ++a) {
        values += moveTo(p, a);
        for (int b = 0; b < ku; ++b) {
          values += moveTo(u, b);
          Cost change = values;
          change.finite += problem.own[p][a] - problem.own[p][cp] +
                           problem.own[u][b] - problem.own[u][cu];
          if (less(change, best)) {
            best = change;
            bestP = a;
            bestU = b;
          }
        }
      }
      moveTo(p, bestP);
      moveTo(u, bestU);
      if (bestP == cp && bestU == cu)
        continue;
      held += best.memory;
      improved = true;
      for (int g : {p, u})
        for (int i : touches[g])
          for (int h : groupsOf[i])
            if (!queued[h]) {
              queued[h] = true;
              work.push_back(h);
            }
      singles(false);
    }
    if (!improved)
      break;
  }
  singles(true);
  ChoiceSolution out;
  out.cost = problem.evaluate(choice);
  out.choice = std::move(choice);
  out.how = "local search (one op, then a producer and a user, at a time to "
            "their best shardings)";
  return out;
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

namespace {

/// A cost over some groups' options: `table` in row-major order of `scope`
/// (the last group fastest).
struct Factor {
  std::vector<int> scope;
  std::vector<double> table;
};

} // namespace

std::optional<ChoiceSolution> solveByElimination(const ChoiceProblem &problem,
                                                 int64_t maxEntries,
                                                 int64_t splitAbove,
                                                 int64_t maxWork) {
  // A budget couples every value: not a sum of small factors.
  if (problem.memoryBudget != ChoiceProblem::kImpossible)
    return std::nullopt;
  // The problem's groups, then binary "layout L of value v is made" groups
  // for values used by many groups (below).
  std::vector<int64_t> sizes;
  for (const auto &own : problem.own)
    sizes.push_back(static_cast<int64_t>(own.size()));
  const size_t real = sizes.size();
  auto sizeOf = [&](const std::vector<int> &scope) {
    double n = 1;
    for (int g : scope)
      n *= static_cast<double>(sizes[g]);
    return n;
  };
  std::vector<Factor> factors;
  // The table entries computed so far (against maxWork).
  double work = 0;
  for (size_t g = 0; g < real; ++g)
    factors.push_back({{static_cast<int>(g)}, problem.own[g]});
  const double inf = ChoiceProblem::kImpossible;
  // Each value's cost over its producer and its uses' groups, as one
  // factor where that is small; else through a binary group m_L per layout
  // L a use may need (made or not): m_L pays the move to L, and a use's
  // option that needs L forbids m_L = 0; the optimum makes exactly the
  // layouts needed, so the decomposition is exact, and its factors are
  // pairs.
  std::vector<int> choice(real, 0), scratch;
  for (const ChoiceProblem::Value &v : problem.values) {
    std::vector<int> scope;
    if (v.producer >= 0)
      scope.push_back(v.producer);
    for (const ChoiceProblem::Use &use : v.uses)
      if (use.group >= 0)
        scope.push_back(use.group);
    std::sort(scope.begin(), scope.end());
    scope.erase(std::unique(scope.begin(), scope.end()), scope.end());
    if (scope.empty())
      continue;
    // Building the tables counts as work too.
    work += std::min(sizeOf(scope), static_cast<double>(splitAbove));
    if (work > static_cast<double>(maxWork))
      return std::nullopt;
    if (sizeOf(scope) <= static_cast<double>(splitAbove)) {
      Factor f{scope, {}};
      for (int g : scope)
        choice[g] = 0;
      while (true) {
        f.table.push_back(costOfValue(v, choice, scratch));
        int k = static_cast<int>(scope.size()) - 1;
        for (; k >= 0; --k) {
          if (++choice[scope[k]] < sizes[scope[k]])
            break;
          choice[scope[k]] = 0;
        }
        if (k < 0)
          break;
      }
      factors.push_back(std::move(f));
      continue;
    }
    std::map<int, int> made; // layout -> its binary group
    auto madeGroup = [&](int layout) {
      auto [it, fresh] = made.try_emplace(layout, -1);
      if (fresh) {
        it->second = static_cast<int>(sizes.size());
        sizes.push_back(2);
        // What making it costs, by the producer's option.
        if (v.producer < 0) {
          factors.push_back({{it->second}, {0.0, v.move[v.source[0]][layout]}});
        } else {
          Factor f{{v.producer, it->second}, {}};
          for (size_t o = 0; o < v.source.size(); ++o) {
            f.table.push_back(0.0);
            f.table.push_back(v.move[v.source[o]][layout]);
          }
          factors.push_back(std::move(f));
        }
      }
      return it->second;
    };
    for (const ChoiceProblem::Use &use : v.uses) {
      if (use.group < 0) {
        if (use.need[0] >= 0)
          factors.push_back({{madeGroup(use.need[0])}, {inf, 0.0}});
        continue;
      }
      std::vector<int> layouts;
      for (int need : use.need)
        if (need >= 0)
          layouts.push_back(need);
      std::sort(layouts.begin(), layouts.end());
      layouts.erase(std::unique(layouts.begin(), layouts.end()), layouts.end());
      for (int layout : layouts) {
        Factor f{{use.group, madeGroup(layout)}, {}};
        for (int need : use.need) {
          f.table.push_back(need == layout ? inf : 0.0);
          f.table.push_back(0.0);
        }
        factors.push_back(std::move(f));
      }
    }
  }
  const size_t groups = sizes.size();
  choice.assign(groups, 0);
  // Eliminate one group at a time, the one whose combined factor is the
  // smallest (ties: the lowest index), keeping its best option for each
  // assignment of the rest.
  struct Eliminated {
    int group;
    std::vector<int> rest;
    std::vector<int> best;
  };
  std::vector<Eliminated> order;
  std::vector<bool> gone(groups, false);
  std::vector<std::vector<int>> factorsOf(groups);
  std::vector<bool> alive(factors.size(), true);
  for (size_t f = 0; f < factors.size(); ++f)
    for (int g : factors[f].scope)
      factorsOf[g].push_back(static_cast<int>(f));
  int64_t largest = 0;
  // The combined scope of the live factors holding g, and its size.
  auto scopeOf = [&](int g) {
    std::vector<int> scope;
    for (int f : factorsOf[g])
      if (alive[f])
        scope.insert(scope.end(), factors[f].scope.begin(),
                     factors[f].scope.end());
    std::sort(scope.begin(), scope.end());
    scope.erase(std::unique(scope.begin(), scope.end()), scope.end());
    return scope;
  };
  // Smallest first, lowest index on ties; entries go stale when a
  // neighbour is eliminated, and are then pushed again.
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  std::vector<double> current(groups);
  for (size_t g = 0; g < groups; ++g) {
    current[g] = sizeOf(scopeOf(static_cast<int>(g)));
    heap.push({current[g], static_cast<int>(g)});
  }
  for (size_t step = 0; step < groups; ++step) {
    int pick = -1;
    while (!heap.empty()) {
      auto [size, g] = heap.top();
      heap.pop();
      if (!gone[g] && size == current[g]) {
        pick = g;
        break;
      }
    }
    if (pick < 0)
      break;
    std::vector<int> pickScope = scopeOf(pick);
    const double pickSize = current[pick];
    if (pickSize > static_cast<double>(maxEntries))
      return std::nullopt;
    work += pickSize;
    if (work > static_cast<double>(maxWork))
      return std::nullopt;
    largest = std::max(largest, static_cast<int64_t>(pickSize));
    // Combine the factors holding `pick` over pickScope; minimize it out.
    std::vector<int> used;
    for (int f : factorsOf[pick])
      if (alive[f]) {
        used.push_back(f);
        alive[f] = false;
      }
    std::vector<int> rest;
    for (int g : pickScope)
      if (g != pick)
        rest.push_back(g);
    // Each used factor's stride per group of pickScope.
    std::vector<std::vector<int64_t>> strides(used.size());
    for (size_t u = 0; u < used.size(); ++u) {
      const Factor &f = factors[used[u]];
      std::vector<int64_t> mine(f.scope.size());
      int64_t stride = 1;
      for (int k = static_cast<int>(f.scope.size()) - 1; k >= 0; --k) {
        mine[k] = stride;
        stride *= sizes[f.scope[k]];
      }
      strides[u].assign(pickScope.size(), 0);
      for (size_t k = 0; k < f.scope.size(); ++k) {
        size_t at =
            std::lower_bound(pickScope.begin(), pickScope.end(), f.scope[k]) -
            pickScope.begin();
        strides[u][at] = mine[k];
      }
    }
    const size_t pickAt =
        std::lower_bound(pickScope.begin(), pickScope.end(), pick) -
        pickScope.begin();
    const int pickOptions = static_cast<int>(sizes[pick]);
    Factor combined{rest, {}};
    Eliminated record{pick, rest, {}};
    std::vector<int> assign(pickScope.size(), 0);
    while (true) {
      double best = ChoiceProblem::kImpossible;
      int bestOption = 0;
      for (int o = 0; o < pickOptions; ++o) {
        assign[pickAt] = o;
        double total = 0;
        for (size_t u = 0; u < used.size(); ++u) {
          int64_t index = 0;
          for (size_t k = 0; k < pickScope.size(); ++k)
            index += strides[u][k] * assign[k];
          total += factors[used[u]].table[index];
        }
        if (total < best) {
          best = total;
          bestOption = o;
        }
      }
      combined.table.push_back(best);
      record.best.push_back(bestOption);
      assign[pickAt] = 0;
      int k = static_cast<int>(pickScope.size()) - 1;
      for (; k >= 0; --k) {
        if (k == static_cast<int>(pickAt))
          continue;
        if (++assign[k] < sizes[pickScope[k]])
          break;
        assign[k] = 0;
      }
      if (k < 0)
        break;
    }
    gone[pick] = true;
    order.push_back(std::move(record));
    if (!rest.empty()) {
      factors.push_back(std::move(combined));
      alive.push_back(true);
      for (int g : rest)
        factorsOf[g].push_back(static_cast<int>(factors.size()) - 1);
    }
    for (int g : rest) {
      current[g] = sizeOf(scopeOf(g));
      heap.push({current[g], g});
    }
  }
  // Back-substitute, last eliminated first.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int64_t index = 0;
    for (int g : it->rest)
      index = index * sizes[g] + choice[g];
    choice[it->group] = it->best[index];
  }
  ChoiceSolution out;
  choice.resize(real);
  out.choice = std::move(choice);
  out.cost = problem.evaluate(out.choice);
  out.exact = true;
  out.how = "dynamic programming (variable elimination, largest table " +
            std::to_string(largest) + " entries), proven optimal";
  return out;
}

ChoiceSolution solveExact(const ChoiceProblem &problem,
                          const std::vector<int> &start, ExactLimits limits) {
  // Under a budget: the optimum without it, where that fits, is the
  // optimum with it (and elimination may find it fast).
  if (problem.memoryBudget != ChoiceProblem::kImpossible &&
      limits.eliminationEntries > 0) {
    ChoiceProblem free = problem;
    free.memoryBudget = ChoiceProblem::kImpossible;
    if (std::optional<ChoiceSolution> solved =
            solveByElimination(free, limits.eliminationEntries))
      if (std::isfinite(solved->cost) &&
          problem.memory(solved->choice) <= problem.memoryBudget &&
          !(start.size() == problem.own.size() &&
            problem.evaluate(start) <
                solved->cost - 1e-6 * std::max(1.0, std::fabs(solved->cost)))) {
        solved->how += ", within the memory budget";
        return *solved;
      }
  }
  if (limits.eliminationEntries > 0)
    if (std::optional<ChoiceSolution> solved =
            solveByElimination(problem, limits.eliminationEntries)) {
      // A start cheaper than an optimum would be a defect: never trusted.
      if (start.size() == problem.own.size() &&
          problem.evaluate(start) <
              solved->cost - 1e-6 * std::max(1.0, std::fabs(solved->cost))) {
        solved->choice = start;
        solved->cost = problem.evaluate(start);
        solved->exact = false;
        solved->how = "dynamic programming, inconsistent (its start was "
                      "cheaper), not proven optimal";
      }
      return *solved;
    }
  // The model is built here and loaded at once (Cbc_loadProblem): CBC
  // 2.10's C interface buffers columns and rows added one by one, and
  // interleaving the two was seen to give a wrong optimum, claimed proven.
  struct Column {
    double lb, ub, obj;
    bool integer;
  };
  struct Row {
    std::vector<int> cols;
    std::vector<double> coefs;
    double lb, ub;
  };
  std::vector<Column> cols;
  std::vector<Row> rows;
  auto column = [&](double lb, double ub, double obj, bool integer) {
    cols.push_back({lb, ub, obj, integer});
    return static_cast<int>(cols.size()) - 1;
  };
  auto row = [&](std::vector<int> c, std::vector<double> coefs, char sense,
                 double rhs) {
    const double inf = std::numeric_limits<double>::max();
    rows.push_back({std::move(c), std::move(coefs), sense == 'L' ? -inf : rhs,
                    sense == 'G' ? inf : rhs});
  };
  // x[g,o].
  std::vector<std::vector<int>> x(problem.own.size());
  for (size_t g = 0; g < problem.own.size(); ++g) {
    for (double c : problem.own[g])
      x[g].push_back(column(0, 1, c, true));
    row(x[g], std::vector<double>(x[g].size(), 1.0), 'E', 1);
  }
  // The memory row: what each source and each copy made holds.
  const bool budgeted = problem.memoryBudget != ChoiceProblem::kImpossible;
  std::vector<int> memoryCols;
  std::vector<double> memoryCoefs;
  double fixedMemory = 0;
  for (const ChoiceProblem::Value &v : problem.values) {
    if (budgeted && !v.held.empty()) {
      if (v.producer < 0)
        fixedMemory += v.held[v.source[0]];
      else
        for (size_t o = 0; o < v.source.size(); ++o)
          if (v.held[v.source[o]] > 0) {
            memoryCols.push_back(x[v.producer][o]);
            memoryCoefs.push_back(v.held[v.source[o]]);
          }
    }
    // The moves each use forces, z_u[S,L] (L = -1: it needs nothing),
    // with the source's and the use's indicators as margins.
    std::map<std::pair<int, int>, std::vector<int>> paid; // (S, L) -> z's
    std::map<int, std::vector<int>> bySource;             // S -> x[producer, o]
    for (size_t o = 0; o < v.source.size(); ++o)
      bySource[v.source[o]].push_back(v.producer < 0 ? -1 : x[v.producer][o]);
    for (const ChoiceProblem::Use &use : v.uses) {
      std::map<int, std::vector<int>> byNeed; // L -> x[use group, o]
      for (size_t o = 0; o < use.need.size(); ++o)
        byNeed[use.need[o]].push_back(use.group < 0 ? -1 : x[use.group][o]);
      std::map<int, std::vector<int>> zOfSource, zOfNeed;
      for (auto &[src, xs] : bySource) {
        for (auto &[need, ns] : byNeed) {
          const double cost = need < 0 ? 0 : v.move[src][need];
          const int z = column(0, std::isinf(cost) ? 0 : 1, 0, false);
          zOfSource[src].push_back(z);
          zOfNeed[need].push_back(z);
          const bool holds = budgeted && need >= 0 && need != src &&
                             !v.held.empty() && v.held[need] > 0;
          if ((cost != 0 || holds) && !std::isinf(cost))
            paid[{src, need}].push_back(z);
        }
      }
      // sum z = the indicator's options (x columns; -1: fixed, 1).
      auto margin = [&](const std::vector<int> &zs,
                        const std::vector<int> &xs) {
        std::vector<int> cols = zs;
        std::vector<double> coefs(cols.size(), 1.0);
        double rhs = 0;
        for (int c : xs) {
          if (c < 0) {
            rhs = 1;
            continue;
          }
          cols.push_back(c);
          coefs.push_back(-1);
        }
        row(cols, coefs, 'E', rhs);
      };
      // sum_L z[S,L] = the source's indicator; sum_S z[S,L] = the use's
      // indicator of L.
      for (auto &[src, xs] : bySource)
        margin(zOfSource[src], xs);
      for (auto &[need, ns] : byNeed)
        margin(zOfNeed[need], ns);
    }
    // Each distinct move is paid once: w[S,L] >= every use's z[S,L]; the
    // copy it makes is held.
    for (auto &[key, zs] : paid) {
      const double cost = v.move[key.first][key.second];
      const int w = column(0, 1, cost, false);
      for (int z : zs)
        row({w, z}, {1, -1}, 'G', 0);
      if (budgeted && !v.held.empty() && key.first != key.second &&
          v.held[key.second] > 0) {
        memoryCols.push_back(w);
        memoryCoefs.push_back(v.held[key.second]);
      }
    }
  }
  if (budgeted)
    row(memoryCols, memoryCoefs, 'L', problem.memoryBudget - fixedMemory);
  // Column-major, as Cbc_loadProblem takes it.
  std::vector<std::vector<std::pair<int, double>>> byColumn(cols.size());
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t k = 0; k < rows[r].cols.size(); ++k)
      byColumn[rows[r].cols[k]].push_back(
          {static_cast<int>(r), rows[r].coefs[k]});
  std::vector<CoinBigIndex> starts{0};
  std::vector<int> index;
  std::vector<double> value, colLb, colUb, obj, rowLb, rowUb;
  for (size_t c = 0; c < cols.size(); ++c) {
    for (auto [r, coef] : byColumn[c]) {
      index.push_back(r);
      value.push_back(coef);
    }
    starts.push_back(static_cast<CoinBigIndex>(index.size()));
    colLb.push_back(cols[c].lb);
    colUb.push_back(cols[c].ub);
    obj.push_back(cols[c].obj);
  }
  for (const Row &r : rows) {
    rowLb.push_back(r.lb);
    rowUb.push_back(r.ub);
  }
  std::unique_ptr<Cbc_Model, void (*)(Cbc_Model *)> model(Cbc_newModel(),
                                                          Cbc_deleteModel);
  Cbc_Model *m = model.get();
  Cbc_setLogLevel(m, 0);
  Cbc_loadProblem(m, static_cast<int>(cols.size()),
                  static_cast<int>(rows.size()), starts.data(), index.data(),
                  value.data(), colLb.data(), colUb.data(), obj.data(),
                  rowLb.data(), rowUb.data());
  for (size_t c = 0; c < cols.size(); ++c)
    if (cols[c].integer)
      Cbc_setInteger(m, static_cast<int>(c));
  if (start.size() == problem.own.size()) {
    std::vector<int> startCols;
    std::vector<double> vals;
    for (size_t g = 0; g < x.size(); ++g)
      for (size_t o = 0; o < x[g].size(); ++o) {
        startCols.push_back(x[g][o]);
        vals.push_back(static_cast<int>(o) == start[g] ? 1.0 : 0.0);
      }
    Cbc_setMIPStartI(m, static_cast<int>(startCols.size()), startCols.data(),
                     vals.data());
  }
  Cbc_setMaximumSeconds(m, limits.seconds);
  Cbc_setAllowableGap(m, 1e-9);
  Cbc_setAllowableFractionGap(m, 0);
  // CBC 2.10.8's preprocessing was seen to reduce these models wrongly (an
  // objective below the true optimum, a worse choice claimed proven, in
  // ChoiceTest's random problems); without it every one matches brute force.
  Cbc_setParameter(m, "preprocess", "off");
  Cbc_solve(m);

  ChoiceSolution out;
  const double *solution = Cbc_getColSolution(m);
  const bool proven = Cbc_isProvenOptimal(m);
  const bool infeasible = Cbc_isProvenInfeasible(m);
  if (solution && !infeasible) {
    out.choice.assign(problem.own.size(), 0);
    for (size_t g = 0; g < x.size(); ++g) {
      int best = 0;
      for (size_t o = 1; o < x[g].size(); ++o)
        if (solution[x[g][o]] > solution[x[g][best]])
          best = static_cast<int>(o);
      out.choice[g] = best;
    }
    out.cost = problem.evaluate(out.choice);
  }
  // Trust, but check: the solver's objective must be the choice's total,
  // and no cheaper than the start it was given.
  const double claimed = Cbc_getObjValue(m);
  const double tolerance = 1e-6 * std::max(1.0, std::fabs(out.cost));
  bool consistent =
      !std::isfinite(out.cost) || std::fabs(claimed - out.cost) <= tolerance;
  if (start.size() == problem.own.size()) {
    const double startCost = problem.evaluate(start);
    if (startCost < out.cost - tolerance) {
      consistent = false;
      out.choice = start;
      out.cost = startCost;
    }
  }
  if (!consistent) {
    out.how = "integer program (CBC), inconsistent (its objective is not "
              "its choice's total), not proven optimal";
  } else if (infeasible) {
    out.exact = true;
    out.how = budgeted ? "integer program (CBC): every combination forces a "
                         "move the planner cannot make or holds more than "
                         "the memory budget"
                       : "integer program (CBC): every combination forces a "
                         "move the planner cannot make";
  } else if (proven && std::isfinite(out.cost)) {
    out.exact = true;
    out.how = "integer program (CBC), proven optimal";
  } else {
    out.how = Cbc_isSecondsLimitReached(m)
                  ? "integer program (CBC), stopped at its time limit, not "
                    "proven optimal"
                  : "integer program (CBC), not proven optimal";
  }
  if (out.choice.empty())
    out.choice.assign(problem.own.size(), 0);
  return out;
}

} // namespace shardc::planning
