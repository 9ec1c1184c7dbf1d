//===- ChoiceIntegerProgram.cpp - Exact choice: elimination, then CBC ---===//
//
// solveExact (shardc/Planning/Choice.h): elimination where its tables
// stay small, else an integer program on COIN-OR CBC through its C
// interface.
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
//
//===----------------------------------------------------------------------===//

#include "shardc/Planning/Choice.h"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>

namespace shardc::planning {

namespace {

/// The total of `choice` with every layout made straight from its source:
/// the integer program's model (evaluate's, where no layout is cheaper made
/// from another copy).
double starCost(const ChoiceProblem &problem, const std::vector<int> &choice) {
  double total = 0;
  for (size_t g = 0; g < problem.own.size(); ++g)
    total += problem.own[g][choice[g]];
  for (size_t v = 0; v < problem.values.size(); ++v) {
    const int src = problem.sourceOf(v, choice);
    for (int need : problem.neededOf(v, choice))
      total += problem.values[v].move[src][need];
  }
  if (problem.memoryBudget != ChoiceProblem::kImpossible &&
      problem.memory(choice) > problem.memoryBudget)
    return ChoiceProblem::kImpossible;
  return total;
}

/// The integer program above: each layout priced from the source
/// (starCost), or, with `copies`, made from the source or another copy
/// (evaluate's model: exact, but its relaxation is weak); `cost` is that
/// total.
ChoiceSolution integerProgram(const ChoiceProblem &problem,
                              const std::vector<int> &start,
                              const ExactLimits &limits, bool copies,
                              const ChoiceProblem *paths = nullptr,
                              double *bestBound = nullptr) {
  // With copies, evaluate's model; else starCost's.
  auto totalOf = [&](const std::vector<int> &choice) {
    return copies ? problem.evaluate(choice) : starCost(problem, choice);
  };
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
    // With `paths` (a bound below `paths`' copies): the value's cost is
    // c_v >= its moves here, and c_v >= the cheapest chain of moves from
    // its source to each layout a use needs, through layouts some use may
    // need (`paths`' own moves): every tree of copies holds such a chain.
    const size_t vi = &v - problem.values.data();
    std::vector<std::vector<double>> chain;
    int valueCost = -1;
    std::vector<std::pair<int, double>> chainRows; // (z, chain cost)
    if (paths && !movesBetweenCopies(paths->values[vi]).empty()) {
      const ChoiceProblem::Value &original = paths->values[vi];
      chain = original.move;
      for (int k : layoutsUsesMayNeed(original))
        for (auto &from : chain)
          for (size_t to = 0; to < from.size(); ++to)
            from[to] = std::min(from[to], from[k] + chain[k][to]);
      valueCost = column(0, std::numeric_limits<double>::max(), 1, false);
    }
    std::map<int, std::vector<int>> bySource; // S -> x[producer, o]
    for (size_t o = 0; o < v.source.size(); ++o)
      bySource[v.source[o]].push_back(v.producer < 0 ? -1 : x[v.producer][o]);
    // Copies made from other copies: e[j,L] (binary, the move's cost) where
    // j is held (the source, or needed by a use), at most one into each L,
    // and no cycle (p[L] >= p[j] + 1 where e[j,L] = 1); t[L] = sum_j e[j,L]
    // lets L go unpaid from the source.
    std::map<int, std::vector<int>> copiesInto; // L -> e[j,L]
    const std::vector<std::pair<int, int>> between =
        copies ? movesBetweenCopies(v) : std::vector<std::pair<int, int>>{};
    if (!between.empty()) {
      std::map<int, int> potential; // layout -> p
      const double nodes = static_cast<double>(between.size() + 1);
      for (auto [from, to] : between)
        for (int layout : {from, to})
          if (!potential.count(layout))
            potential[layout] = column(0, nodes, 0, false);
      for (auto [from, to] : between) {
        const int e = column(0, 1, v.move[from][to], true);
        copiesInto[to].push_back(e);
        row({potential[to], potential[from], e}, {1, -1, -(nodes + 1)}, 'G',
            -nodes);
        if (budgeted && !v.held.empty() && v.held[to] > 0) {
          memoryCols.push_back(e);
          memoryCoefs.push_back(v.held[to]);
        }
        // e[j,L] <= [j is the source] + sum over uses of [it needs j].
        std::vector<int> cols{e};
        std::vector<double> coefs{1};
        bool always = false;
        if (auto it = bySource.find(from); it != bySource.end())
          for (int c : it->second) {
            always |= c < 0;
            cols.push_back(c);
            coefs.push_back(-1);
          }
        for (const ChoiceProblem::Use &use : v.uses)
          for (size_t o = 0; o < use.need.size(); ++o)
            if (use.need[o] == from) {
              always |= use.group < 0;
              if (use.group >= 0) {
                cols.push_back(x[use.group][o]);
                coefs.push_back(-1);
              }
            }
        if (!always)
          row(cols, coefs, 'L', 0);
      }
      for (auto &[to, es] : copiesInto)
        row(es, std::vector<double>(es.size(), 1.0), 'L', 1);
    }
    for (const ChoiceProblem::Use &use : v.uses) {
      std::map<int, std::vector<int>> byNeed; // L -> x[use group, o]
      for (size_t o = 0; o < use.need.size(); ++o)
        byNeed[use.need[o]].push_back(use.group < 0 ? -1 : x[use.group][o]);
      std::map<int, std::vector<int>> zOfSource, zOfNeed;
      for (auto &[src, xs] : bySource) {
        for (auto &[need, ns] : byNeed) {
          const double cost = need < 0 ? 0 : v.move[src][need];
          auto into = copiesInto.find(need);
          const bool copied = into != copiesInto.end();
          const int z =
              column(0, std::isinf(cost) && !copied ? 0 : 1, 0, false);
          if (std::isinf(cost) && copied) {
            // Not from the source: from a copy, or not at all.
            std::vector<int> cols{z};
            cols.insert(cols.end(), into->second.begin(), into->second.end());
            std::vector<double> coefs(cols.size(), -1.0);
            coefs[0] = 1;
            row(cols, coefs, 'L', 0);
          }

          zOfSource[src].push_back(z);
          zOfNeed[need].push_back(z);
          if (valueCost >= 0 && need >= 0 && chain[src][need] > 0 &&
              std::isfinite(chain[src][need]))
            chainRows.push_back({z, chain[src][need]});
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
    std::vector<int> paidCols;
    std::vector<double> paidCosts;
    for (auto &[key, zs] : paid) {
      const double cost = v.move[key.first][key.second];
      const int w = column(0, 1, valueCost >= 0 ? 0 : cost, false);
      paidCols.push_back(w);
      paidCosts.push_back(-cost);
      // w >= z - t[L]: paid from the source unless made from a copy.
      std::vector<int> into;
      if (auto it = copiesInto.find(key.second); it != copiesInto.end())
        into = it->second;
      for (int z : zs) {
        std::vector<int> cols{w, z};
        cols.insert(cols.end(), into.begin(), into.end());
        std::vector<double> coefs(cols.size(), 1.0);
        coefs[1] = -1;
        row(cols, coefs, 'G', 0);
      }

      if (budgeted && !v.held.empty() && key.first != key.second &&
          v.held[key.second] > 0) {
        memoryCols.push_back(w);
        memoryCoefs.push_back(v.held[key.second]);
      }
    }
    if (valueCost >= 0) {
      paidCols.insert(paidCols.begin(), valueCost);
      paidCosts.insert(paidCosts.begin(), 1.0);
      row(paidCols, paidCosts, 'G', 0);
      for (auto [z, c] : chainRows)
        row({valueCost, z}, {1, -c}, 'G', 0);
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
    out.cost = totalOf(out.choice);
  }
  // Trust, but check: the solver's objective must be the choice's total,
  // and no cheaper than the start it was given.
  const double claimed = Cbc_getObjValue(m);
  const double tolerance = 1e-6 * std::max(1.0, std::fabs(out.cost));
  bool consistent =
      !std::isfinite(out.cost) || std::fabs(claimed - out.cost) <= tolerance;
  if (bestBound)
    *bestBound = infeasible ? ChoiceProblem::kImpossible
                 : proven   ? claimed
                            : Cbc_getBestPossibleObjValue(m);
  if (paths && std::isfinite(out.cost)) {
    // A bound: proven, its objective is at most what its choice really
    // costs (an incumbent found before the limit may carry slack in c_v;
    // only the best bound counts then).
    consistent = !proven || claimed <= paths->evaluate(out.choice) + tolerance;
    out.cost = claimed;
  }
  if (start.size() == problem.own.size()) {
    const double startCost = totalOf(start);
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
  const std::string plain = "integer program (CBC)";
  if (copies && out.how.compare(0, plain.size(), plain) == 0)
    out.how.insert(plain.size() - 1, "; copies made from copies");
  return out;
}

} // namespace

ChoiceSolution solveExact(const ChoiceProblem &problem,
                          const std::vector<int> &start, ExactLimits limits) {
  // Every integer program below shares `limits.seconds`.
  const auto began = std::chrono::steady_clock::now();
  auto left = [&] {
    return std::max(0.1, limits.seconds -
                             std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - began)
                                 .count());
  };
  // Under a budget: the optimum without it, where that fits, is the
  // optimum with it (and elimination may find it fast).
  if (problem.memoryBudget != ChoiceProblem::kImpossible &&
      limits.eliminationEntries > 0) {
    ChoiceProblem free = problem;
    free.memoryBudget = ChoiceProblem::kImpossible;
    if (std::optional<ChoiceSolution> solved =
            solveByElimination(free, limits.eliminationEntries))
      if (solved->exact && std::isfinite(solved->cost) &&
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
      if (solved->exact)
        return *solved;
      // Not exact (copies priced from the source): the integer programs,
      // from its choice.
      ChoiceSolution better =
          solveExact(problem, solved->choice, ExactLimits{left(), 0});
      return better.cost <= solved->cost ? better : *solved;
    }
  // Every layout from its source: the integer program's optimum is
  // evaluate's where no layout is cheaper made from another copy.
  const bool copies = std::any_of(problem.values.begin(), problem.values.end(),
                                  [](const ChoiceProblem::Value &v) {
                                    return !movesBetweenCopies(v).empty();
                                  });
  if (!copies) {
    ExactLimits all = limits;
    all.seconds = left();
    return integerProgram(problem, start, all, false);
  }
  // Else two: the choice best with every layout from its source (an upper
  // bound), and a bound below: each layout priced at the cheapest move into
  // it from its source or from any layout some use may need (every copy
  // costs at least that). Proven where the better choice meets the bound.
  // The three share the time limit (below).
  ExactLimits first = limits;
  first.seconds = left();
  ChoiceSolution upper = integerProgram(problem, start, first, false);
  ChoiceProblem relaxed = problem;
  for (ChoiceProblem::Value &v : relaxed.values) {
    const std::vector<std::pair<int, int>> between = movesBetweenCopies(v);
    const std::vector<std::vector<double>> move = v.move;
    for (auto [from, to] : between)
      for (size_t s = 0; s < v.move.size(); ++s)
        v.move[s][to] = std::min(v.move[s][to], move[from][to]);
  }
  double bound = ChoiceProblem::kImpossible;
  // Proving an answer with copies is often beyond CBC (a weak relaxation:
  // 30-op programs on a 2x2 mesh were not proven in 20 s, their bound far
  // below), so the bound and the last program get a quarter of the time
  // limit between them, the bound half of it.
  const auto proving = std::chrono::steady_clock::now();
  const double share = limits.seconds / 4;
  auto proofLeft = [&] {
    return std::max(
        0.1,
        std::min(left(), share - std::chrono::duration<double>(
                                     std::chrono::steady_clock::now() - proving)
                                     .count()));
  };
  ExactLimits half = limits;
  half.seconds = proofLeft() / 2;
  ChoiceSolution lower =
      integerProgram(relaxed, {}, half, false, &problem, &bound);
  ChoiceSolution out = upper;
  out.cost = problem.evaluate(upper.choice);
  for (const std::vector<int> *other :
       {static_cast<const std::vector<int> *>(&lower.choice), &start})
    if (other->size() == problem.own.size() &&
        problem.evaluate(*other) < out.cost) {
      out.choice = *other;
      out.cost = problem.evaluate(*other);
    }
  const bool trusted = lower.how.find("inconsistent") == std::string::npos &&
                       upper.how.find("inconsistent") == std::string::npos;
  auto meets = [&](double cost) {
    return trusted && cost <= bound + 1e-6 * std::max(1.0, std::fabs(bound));
  };
  if (trusted && std::isinf(bound)) // proven: nothing is possible
    return lower;
  // Not met: the integer program of evaluate's own model, from the best
  // choice (exact, where its weak relaxation lets CBC prove it in time).
  if (!meets(out.cost)) {
    ExactLimits rest = limits;
    rest.seconds = proofLeft();
    ChoiceSolution full = integerProgram(problem, out.choice, rest, true);
    // Proven, it is the answer; else only a cheaper choice replaces the
    // deterministic one (where the time limit stops it differs by load).
    if (full.how.find("inconsistent") == std::string::npos &&
        full.cost <= out.cost) {
      if (full.exact)
        return full;
      if (full.cost < out.cost - 1e-9 * std::max(1.0, std::fabs(out.cost))) {
        out.choice = full.choice;
        out.cost = full.cost;
      }
    }
  }
  out.exact = meets(out.cost);
  const std::string both =
      "integer programs (CBC: each layout from the source, a bound below "
      "with copies made from copies)";
  if (out.exact) {
    out.how = both + ", proven optimal";
  } else if (trusted) {
    char gap[64];
    std::snprintf(gap, sizeof gap, "%.4g", out.cost - bound);
    out.how = both + ", within " + gap + " us of the bound, not proven optimal";
  } else {
    out.how = both + ", inconsistent, not proven optimal";
  }
  return out;
}

} // namespace shardc::planning
