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
//   minimize sum own[g][o] x[g,o] + sum move[v][S][L] w[v,S,L].
//===----------------------------------------------------------------------===//

#include "shardc/Planning/Choice.h"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

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

double valueCost(const ChoiceProblem::Value &v, const std::vector<int> &choice,
                 std::vector<int> &scratch) {
  const int src = v.producer < 0 ? v.source[0] : v.source[choice[v.producer]];
  neededLayouts(v, choice, scratch);
  double total = 0;
  for (int need : scratch)
    total += v.move[src][need];
  return total;
}

} // namespace

double ChoiceProblem::evaluate(const std::vector<int> &choice) const {
  double total = 0;
  for (size_t g = 0; g < own.size(); ++g)
    total += own[g][choice[g]];
  std::vector<int> scratch;
  for (const Value &v : values)
    total += valueCost(v, choice, scratch);
  return total;
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
  }
  return "";
}

ChoiceSolution solveLocal(const ChoiceProblem &problem,
                          std::vector<int> start) {
  const size_t groups = problem.own.size();
  if (start.size() != groups)
    start.assign(groups, 0);
  // The values each group's option touches.
  std::vector<std::vector<int>> touches(groups);
  for (size_t i = 0; i < problem.values.size(); ++i) {
    const ChoiceProblem::Value &v = problem.values[i];
    auto add = [&](int g) {
      if (g >= 0 && (touches[g].empty() || touches[g].back() != int(i)))
        touches[g].push_back(static_cast<int>(i));
    };
    add(v.producer);
    for (const ChoiceProblem::Use &use : v.uses)
      add(use.group);
  }
  std::vector<int> choice = std::move(start);
  std::vector<int> scratch;
  auto local = [&](size_t g) {
    double total = problem.own[g][choice[g]];
    for (int v : touches[g])
      total += valueCost(problem.values[v], choice, scratch);
    return total;
  };
  bool improved = true;
  while (improved) {
    improved = false;
    for (size_t g = 0; g < groups; ++g) {
      const int current = choice[g];
      double best = local(g);
      int bestOption = current;
      for (int o = 0; o < static_cast<int>(problem.own[g].size()); ++o) {
        if (o == current)
          continue;
        choice[g] = o;
        double cost = local(g);
        // Strictly better by more than rounding: no cycling on ties.
        const bool better =
            std::isinf(best)
                ? cost < best
                : cost < best - 1e-9 * std::max(1.0, std::fabs(best));
        if (better) {
          best = cost;
          bestOption = o;
        }
      }
      choice[g] = bestOption;
      improved |= bestOption != current;
    }
  }
  ChoiceSolution out;
  out.cost = problem.evaluate(choice);
  out.choice = std::move(choice);
  out.how = "local search (one op at a time to its best sharding)";
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

ChoiceSolution solveExact(const ChoiceProblem &problem,
                          const std::vector<int> &start, ExactLimits limits) {
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
  for (const ChoiceProblem::Value &v : problem.values) {
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
          if (cost != 0 && !std::isinf(cost))
            paid[{src, need}].push_back(z);
        }
      }
      // sum_L z[S,L] = the source's indicator (1 when fixed).
      for (auto &[src, xs] : bySource) {
        std::vector<int> cols = zOfSource[src];
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
      }
      // sum_S z[S,L] = the use's indicator of L (1 when fixed).
      for (auto &[need, ns] : byNeed) {
        std::vector<int> cols = zOfNeed[need];
        std::vector<double> coefs(cols.size(), 1.0);
        double rhs = 0;
        for (int c : ns) {
          if (c < 0) {
            rhs = 1;
            continue;
          }
          cols.push_back(c);
          coefs.push_back(-1);
        }
        row(cols, coefs, 'E', rhs);
      }
    }
    // Each distinct move is paid once: w[S,L] >= every use's z[S,L].
    for (auto &[key, zs] : paid) {
      const double cost = v.move[key.first][key.second];
      const int w = column(0, 1, cost, false);
      for (int z : zs)
        row({w, z}, {1, -1}, 'G', 0);
    }
  }
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
    out.how = "integer program (CBC): every combination forces a move the "
              "planner cannot make";
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
