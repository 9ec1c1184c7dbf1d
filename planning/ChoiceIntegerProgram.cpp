//===- ChoiceIntegerProgram.cpp - Exact choice: elimination, then CBC ---===//
//
// solveExact (shardc/Planning/Choice.h): elimination where its tables
// stay small, else integer programs on COIN-OR CBC through its C
// interface.
//
// The integer program, for groups g with options o, values v:
//   x[g,o] in {0,1}, sum_o x[g,o] = 1 (the only integer columns);
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
//   under a memory budget B, one row per point where what is held may
//   peak (ChoiceProblem::peakPoints; one where every value is held at
//   once): sum over the values held there of held[v][source(o)]
//   x[producer,o] + sum held[v][L] w[v,S,L] (L != S) <= B (a w exists for
//   each such copy, whatever its move costs).
// That is Star: each layout moved from the source. Where a layout may be
// cheaper made from another copy (evaluate's tree of copies), Copies
// replaces z by a flow per use (copiesValue, below): one unit from the
// source to the layout the use needs, through the moves made from the
// source and between copies. The flow pairs the need with its source as z
// does, and a fraction of a gathered copy serves a use's need only as far
// as that use's unit rides on the gather, so the relaxation stays tight:
// an 18-op program on a 2x2 mesh, whose first program of copies (potentials
// against cycles) had a relaxation of 0.14 under an optimum of 4.0, now
// has its optimum as its relaxation.
//
//===----------------------------------------------------------------------===//

#include "shardc/Planning/Choice.h"

#include "Cbc.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

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

/// Whether no choice holds within the memory budget (or every choice forces
/// an impossible move), checked without CBC, whose tolerances (about 1e-6
/// relative) cannot tell a few bytes over a budget from a few under it in a
/// row of coefficients up to 1e10: every combination where there are at
/// most 2^16; else some peak point whose least bytes, by elimination over
/// that point's values alone (sums of whole bytes: exact in doubles), pass
/// the budget. False where neither decides (then nothing is proven).
bool provenOverBudget(const ChoiceProblem &problem) {
  double combinations = 1;
  for (const std::vector<double> &options : problem.own)
    combinations *= static_cast<double>(options.size());
  if (combinations <= 65536)
    return std::isinf(solveBruteForce(problem).cost);
  for (const std::vector<int> &held : problem.peakPoints()) {
    ChoiceProblem point = problem;
    point.memoryBudget = ChoiceProblem::kImpossible;
    std::vector<char> here(problem.values.size(), 0);
    for (int i : held)
      here[i] = 1;
    for (size_t v = 0; v < point.values.size(); ++v) {
      if (!here[v])
        point.values[v].held.clear();
      point.values[v].first = point.values[v].last = 0;
    }
    if (std::optional<ChoiceSolution> least = solveByElimination(
            point.memoryProblem(), int64_t(1) << 16, 4096, int64_t(1) << 23))
      if (least->exact && least->cost > problem.memoryBudget)
        return true;
  }
  return false;
}

/// What the integer program models: each layout priced from the source
/// (Star, starCost's total), or made from the source or another copy
/// (Copies: evaluate's model).
/// Relays is Copies without the rows that keep a layout no use needs from
/// being made (a relay, to be moved on): a bound below Copies, and often
/// its optimum, whose relaxation CBC solves 2-3 times faster (those rows
/// tie each layout to every option of every use).
enum class Model { Star, Relays, Copies };

/// The integer program above, for `model`, built column by column and row
/// by row and loaded at once (Cbc_loadProblem): CBC 2.10's C interface
/// buffers columns and rows added one by one, and interleaving the two was
/// seen to give a wrong optimum, claimed proven.
class ProgramBuilder {
public:
  ProgramBuilder(const ChoiceProblem &problem, Model model)
      : problem(problem), model(model),
        budgeted(problem.memoryBudget != ChoiceProblem::kImpossible),
        memoryCols(problem.values.size()), memoryCoefs(problem.values.size()),
        fixedMemory(problem.values.size(), 0.0) {}

  /// Every column and row: x, then each value's (Star's z and w, or
  /// Copies' flows), then the memory rows.
  void build() {
    choiceColumns();
    for (size_t v = 0; v < problem.values.size(); ++v)
      valueColumns(v);
    if (budgeted)
      memoryRows();
  }

  /// The program in CBC's form, started from `start` where it is a choice.
  cbc::Program program(const std::vector<int> &start,
                       const ExactLimits &limits) const;

  /// x[g][o]: the column of group g's option o.
  std::vector<std::vector<int>> x;
  /// The columns built (or counted).
  size_t columns() const { return countOnly ? counted : cols.size(); }
  /// Columns counted, nothing stored (no program to solve): how large the
  /// program would be, at a fraction of building it.
  bool countOnly = false;

private:
  struct Column {
    double lb, ub, obj;
    bool integer;
  };
  size_t counted = 0;
  struct Row {
    std::vector<int> cols;
    std::vector<double> coefs;
    double lb, ub;
  };

  int column(double lb, double ub, double obj, bool integer) {
    if (countOnly)
      return static_cast<int>(counted++);
    cols.push_back({lb, ub, obj, integer});
    return static_cast<int>(cols.size()) - 1;
  }

  /// A column named twice in a row (two uses by one op share its options)
  /// is one term: CLP asserts (aborts) on a duplicate entry.
  void row(const std::vector<int> &c, const std::vector<double> &coefs,
           char sense, double rhs) {
    if (countOnly)
      return;
    const double inf = std::numeric_limits<double>::max();
    std::map<int, double> terms;
    for (size_t k = 0; k < c.size(); ++k)
      terms[c[k]] += coefs[k];
    Row r{{}, {}, sense == 'L' ? -inf : rhs, sense == 'G' ? inf : rhs};
    for (auto [col, coef] : terms)
      if (coef != 0) {
        r.cols.push_back(col);
        r.coefs.push_back(coef);
      }
    rows.push_back(std::move(r));
  }

  /// Adds the source's indicator of `layout` to a row as terms with
  /// coefficient -1; true where it is fixed (the row is always met).
  static bool sourceTerms(const std::map<int, std::vector<int>> &bySource,
                          int layout, std::vector<int> &cols,
                          std::vector<double> &coefs) {
    for (int c : bySource.at(layout)) {
      if (c < 0)
        return true;
      cols.push_back(c);
      coefs.push_back(-1);
    }
    return false;
  }

  /// A use's options by the layout each needs: L -> x[use group, o] (-1:
  /// a fixed use, always).
  std::map<int, std::vector<int>> needsOf(const ChoiceProblem::Use &use) const {
    std::map<int, std::vector<int>> byNeed;
    for (size_t o = 0; o < use.need.size(); ++o)
      byNeed[use.need[o]].push_back(use.group < 0 ? -1 : x[use.group][o]);
    return byNeed;
  }

  /// sum of cols' terms - the indicator's options (x columns; -1: fixed,
  /// 1) `sense` 0.
  void against(std::vector<int> cols, const std::vector<int> &xs, char sense) {
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
    row(cols, coefs, sense, rhs);
  }

  /// A term of value `v`'s part of the memory rows.
  void holds(size_t v, int col, double bytes) {
    memoryCols[v].push_back(col);
    memoryCoefs[v].push_back(bytes);
  }

  void choiceColumns();
  void valueColumns(size_t v);
  void starValue(size_t v, const std::map<int, std::vector<int>> &bySource);
  void madeValue(size_t v, const std::map<int, std::vector<int>> &bySource);
  void copiesValue(size_t v, const std::map<int, std::vector<int>> &bySource,
                   const std::vector<std::pair<int, int>> &between);
  std::map<int, int>
  presentLayouts(const ChoiceProblem::Value &value,
                 const std::vector<std::pair<int, int>> &between);
  void heldCopies(size_t v, const std::map<int, std::vector<int>> &bySource,
                  const std::map<int, std::vector<int>> &into,
                  const std::map<std::pair<int, int>, int> &copy);
  void useFlow(const ChoiceProblem::Use &use,
               const std::map<int, std::vector<int>> &bySource,
               const std::vector<std::pair<int, int>> &between,
               const std::map<std::pair<int, int>, int> &source,
               const std::map<std::pair<int, int>, int> &copy);
  void memoryRows();

  const ChoiceProblem &problem;
  const Model model;
  const bool budgeted;
  std::vector<Column> cols;
  std::vector<Row> rows;
  /// Per value: its terms of the memory rows, and what it holds whatever
  /// the choice.
  std::vector<std::vector<int>> memoryCols;
  std::vector<std::vector<double>> memoryCoefs;
  std::vector<double> fixedMemory;
};

/// x[g,o], one option per group.
void ProgramBuilder::choiceColumns() {
  x.assign(problem.own.size(), {});
  for (size_t g = 0; g < problem.own.size(); ++g) {
    for (double c : problem.own[g])
      x[g].push_back(column(0, 1, c, true));
    row(x[g], std::vector<double>(x[g].size(), 1.0), 'E', 1);
  }
}

/// Value `v`'s columns and rows: what its source holds, then Copies' flows
/// where its layouts may be made from one another, else Star's z and w.
void ProgramBuilder::valueColumns(size_t v) {
  const ChoiceProblem::Value &value = problem.values[v];
  if (budgeted && !value.held.empty() && value.sourceHeld) {
    if (value.producer < 0)
      fixedMemory[v] += value.held[value.source[0]];
    else
      for (size_t o = 0; o < value.source.size(); ++o)
        if (value.held[value.source[o]] > 0)
          holds(v, x[value.producer][o], value.held[value.source[o]]);
  }
  std::map<int, std::vector<int>> bySource; // S -> x[producer, o]
  for (size_t o = 0; o < value.source.size(); ++o)
    bySource[value.source[o]].push_back(
        value.producer < 0 ? -1 : x[value.producer][o]);
  if (value.madeByEveryRank) {
    madeValue(v, bySource);
    return;
  }
  if (model != Model::Star) {
    const std::vector<std::pair<int, int>> between = movesBetweenCopies(value);
    if (!between.empty()) {
      copiesValue(v, bySource, between);
      return;
    }
  }
  starValue(v, bySource);
}

/// Star: the moves each use forces, z_u[S,L] (L = -1: it needs nothing),
/// with the source's and the use's indicators as margins; each distinct
/// move paid once, w[S,L] >= every use's z[S,L], and the copy it makes
/// held.
void ProgramBuilder::starValue(
    size_t v, const std::map<int, std::vector<int>> &bySource) {
  const ChoiceProblem::Value &value = problem.values[v];
  std::map<std::pair<int, int>, std::vector<int>> paid; // (S, L) -> z's
  for (const ChoiceProblem::Use &use : value.uses) {
    const std::map<int, std::vector<int>> byNeed = needsOf(use);
    std::map<int, std::vector<int>> zOfSource, zOfNeed;
    for (auto &[src, xs] : bySource) {
      for (auto &[need, ns] : byNeed) {
        const double cost = need < 0 ? 0 : value.move[src][need];
        const int z = column(0, std::isinf(cost) ? 0 : 1, 0, false);
        zOfSource[src].push_back(z);
        zOfNeed[need].push_back(z);
        const bool held = budgeted && need >= 0 && need != src &&
                          !value.held.empty() && value.held[need] > 0;
        if ((cost != 0 || held) && !std::isinf(cost))
          paid[{src, need}].push_back(z);
      }
    }
    // sum_L z[S,L] = the source's indicator; sum_S z[S,L] = the use's
    // indicator of L.
    for (auto &[src, xs] : bySource)
      against(zOfSource[src], xs, 'E');
    for (auto &[need, ns] : byNeed)
      against(zOfNeed[need], ns, 'E');
  }
  for (auto &[key, zs] : paid) {
    const double cost = value.move[key.first][key.second];
    const int w = column(0, 1, cost, false);
    for (int z : zs)
      row({w, z}, {1, -1}, 'G', 0);
    if (budgeted && !value.held.empty() && key.first != key.second &&
        value.held[key.second] > 0)
      holds(v, w, value.held[key.second]);
  }
}

/// A value every rank makes alone (Value::madeByEveryRank): m[L] per layout
/// a use may need, made once at madeCost, m[L] >= each use's indicator of
/// L - the source's (no source and layout pairs: Star's, for two hoisted
/// constants read by 50 ops in 16 layouts, made a relaxation of 30 s).
/// Exact: what Star and evaluate pay.
void ProgramBuilder::madeValue(
    size_t v, const std::map<int, std::vector<int>> &bySource) {
  const ChoiceProblem::Value &value = problem.values[v];
  std::map<int, int> made; // L -> m[L]
  for (const ChoiceProblem::Use &use : value.uses)
    for (auto &[need, ns] : needsOf(use)) {
      if (need < 0)
        continue;
      // m[L] + the source's indicator of L >= the use's.
      std::vector<int> cols;
      std::vector<double> unused;
      if (bySource.count(need) && sourceTerms(bySource, need, cols, unused))
        continue; // the source is always L: nothing made
      auto [it, fresh] = made.try_emplace(need, -1);
      if (fresh) {
        const double cost = madeCost(value, need);
        it->second = column(0, std::isinf(cost) ? 0 : 1,
                            std::isinf(cost) ? 0 : cost, false);
        if (budgeted && !value.held.empty() && value.held[need] > 0)
          holds(v, it->second, value.held[need]);
      }
      cols.push_back(it->second);
      against(cols, ns, 'G');
    }
}

/// Copies, a[L] for each layout the moves between copies touch (L held: a
/// use needs it), between each use's indicator of L and, unless Relays,
/// their sum.
std::map<int, int> ProgramBuilder::presentLayouts(
    const ChoiceProblem::Value &value,
    const std::vector<std::pair<int, int>> &between) {
  std::map<int, int> present; // L -> a[L]
  std::map<int, bool> fixedNeed;
  for (auto [from, to] : between)
    for (int layout : {from, to})
      fixedNeed[layout] = false;
  for (const ChoiceProblem::Use &use : value.uses)
    if (use.group < 0 && fixedNeed.count(use.need[0]))
      fixedNeed[use.need[0]] = true;
  std::map<int, std::vector<int>> anyNeed;
  for (auto [layout, fixed] : fixedNeed)
    present[layout] = column(fixed ? 1 : 0, 1, 0, false);
  for (const ChoiceProblem::Use &use : value.uses) {
    if (use.group < 0)
      continue;
    std::map<int, std::vector<int>> byNeed;
    for (size_t o = 0; o < use.need.size(); ++o)
      if (present.count(use.need[o]))
        byNeed[use.need[o]].push_back(x[use.group][o]);
    for (auto &[layout, xs] : byNeed) {
      against({present[layout]}, xs, 'G');
      anyNeed[layout].insert(anyNeed[layout].end(), xs.begin(), xs.end());
    }
  }
  for (auto [layout, fixed] : fixedNeed)
    if (!fixed && model == Model::Copies)
      against({present[layout]}, anyNeed[layout], 'L');
  return present;
}

/// A value whose layouts may be cheaper made from one another (Copies):
///   a[L] (presentLayouts);
///   w[S,L] (the move's cost) makes L from the source S, w <= the
///     source's indicator of S; c[P,L] (the move's cost) makes L from the
///     copy P, c <= a[P] (no copy made only to be moved on), only where
///     cheaper than from some source (else from the source is as cheap);
///     at most one of them into each L;
///   per use, a flow of one unit from the source to the layout it needs
///     (or to "nothing") through the moves made (useFlow).
/// Integral x makes it evaluate's tree of copies (each layout's cheapest
/// parent among those held), and its relaxation charges every use's
/// share of the moves its need rides on.
void ProgramBuilder::copiesValue(
    size_t v, const std::map<int, std::vector<int>> &bySource,
    const std::vector<std::pair<int, int>> &between) {
  const ChoiceProblem::Value &value = problem.values[v];
  const bool holdsAny = budgeted && !value.held.empty();
  std::map<int, int> present = presentLayouts(value, between);
  // The layouts any use may need, and the moves into them.
  std::set<int> needable;
  for (const ChoiceProblem::Use &use : value.uses)
    for (int need : use.need)
      if (need >= 0)
        needable.insert(need);
  std::map<int, std::vector<int>> into;      // L -> w's and c's into L
  std::map<std::pair<int, int>, int> source; // (S, L) -> w[S,L]
  std::map<std::pair<int, int>, int> copy;   // (P, L) -> c[P,L]
  for (auto &[from, xs] : bySource)
    for (int to : needable) {
      if (std::isinf(value.move[from][to]))
        continue;
      const int w = column(0, 1, value.move[from][to], false);
      source[{from, to}] = w;
      into[to].push_back(w);
      std::vector<int> cols{w};
      std::vector<double> coefs{1};
      if (!sourceTerms(bySource, from, cols, coefs))
        row(cols, coefs, 'L', 0);
      if (holdsAny && from != to && value.held[to] > 0)
        holds(v, w, value.held[to]);
    }
  for (auto [from, to] : between) {
    const int c = column(0, 1, value.move[from][to], false);
    copy[{from, to}] = c;
    into[to].push_back(c);
    row({c, present[from]}, {1, -1}, 'L', 0);
  }
  for (auto &[to, cols] : into)
    if (cols.size() > 1)
      row(cols, std::vector<double>(cols.size(), 1.0), 'L', 1);
  if (holdsAny)
    heldCopies(v, bySource, into, copy);
  for (const ChoiceProblem::Use &use : value.uses)
    useFlow(use, bySource, between, source, copy);
}

/// A copy made into L from another copy holds L, unless L is the source:
/// h[L] >= those copies - the source's indicator of L.
void ProgramBuilder::heldCopies(
    size_t v, const std::map<int, std::vector<int>> &bySource,
    const std::map<int, std::vector<int>> &into,
    const std::map<std::pair<int, int>, int> &copy) {
  const ChoiceProblem::Value &value = problem.values[v];
  for (const auto &entry : into) {
    const int to = entry.first;
    std::vector<int> cols;
    for (auto &[key, c] : copy)
      if (key.second == to)
        cols.push_back(c);
    if (cols.empty() || value.held[to] <= 0)
      continue;
    std::vector<double> coefs(cols.size(), 1.0);
    if (bySource.count(to) && sourceTerms(bySource, to, cols, coefs))
      continue; // L is the fixed source: never held twice
    const int h = column(0, 1, 0, false);
    cols.push_back(h);
    coefs.push_back(-1);
    row(cols, coefs, 'L', 0);
    holds(v, h, value.held[to]);
  }
}

/// A use's flow of one unit from the source to the layout it needs (or to
/// "nothing") through the moves made (g <= w or c): every source's unit
/// leaves it, so the flow pairs the use's need with the source it comes
/// from, as z does in Star, and every layout held is reached from the
/// source (no cycle of copies pays for itself).
void ProgramBuilder::useFlow(const ChoiceProblem::Use &use,
                             const std::map<int, std::vector<int>> &bySource,
                             const std::vector<std::pair<int, int>> &between,
                             const std::map<std::pair<int, int>, int> &source,
                             const std::map<std::pair<int, int>, int> &copy) {
  const std::map<int, std::vector<int>> byNeed = needsOf(use);
  // The layouts its flow may cross: those it may need and those they may
  // be copied from.
  std::set<int> nodes;
  for (auto &[need, xs] : byNeed)
    if (need >= 0)
      nodes.insert(need);
  for (bool grown = true; grown;) {
    grown = false;
    for (auto [from, to] : between)
      if (nodes.count(to) && nodes.insert(from).second)
        grown = true;
  }
  std::map<int, std::vector<std::pair<int, double>>> balance;
  std::map<int, std::vector<int>> leaving; // S -> g out of S
  auto arc = [&](int capacity) {
    const int g = column(0, 1, 0, false);
    row({g, capacity}, {1, -1}, 'L', 0);
    return g;
  };
  for (auto &[key, w] : source)
    if (nodes.count(key.second)) {
      const int g = arc(w);
      leaving[key.first].push_back(g);
      balance[key.second].push_back({g, 1});
    }
  for (auto &[key, c] : copy)
    if (nodes.count(key.first) && nodes.count(key.second)) {
      const int g = arc(c);
      balance[key.first].push_back({g, -1});
      balance[key.second].push_back({g, 1});
    }
  // To nothing: straight from the source, free.
  if (auto none = byNeed.find(-1); none != byNeed.end()) {
    std::vector<int> gs;
    for (auto &[from, xs] : bySource) {
      const int g = column(0, 1, 0, false);
      leaving[from].push_back(g);
      gs.push_back(g);
    }
    against(gs, none->second, 'E');
  }
  // Every unit of the source's leaves it; each layout keeps what the use
  // needs of it.
  for (auto &[from, xs] : bySource)
    against(leaving[from], xs, 'E');
  for (int node : nodes) {
    std::vector<int> cols;
    std::vector<double> coefs;
    for (auto [g, sign] : balance[node]) {
      cols.push_back(g);
      coefs.push_back(sign);
    }
    double rhs = 0;
    if (auto it = byNeed.find(node); it != byNeed.end())
      for (int c : it->second) {
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

/// One memory row per point where what is held may peak (one in all where
/// every value is held at once).
void ProgramBuilder::memoryRows() {
  for (const std::vector<int> &held : problem.peakPoints()) {
    std::vector<int> cols;
    std::vector<double> coefs;
    double fixed = 0;
    for (int i : held) {
      cols.insert(cols.end(), memoryCols[i].begin(), memoryCols[i].end());
      coefs.insert(coefs.end(), memoryCoefs[i].begin(), memoryCoefs[i].end());
      fixed += fixedMemory[i];
    }
    // Numerically safe and exact for whole choices: a coefficient past
    // the right-hand side only says "never 1" (every term is >= 0), so
    // it is cut to rhs + 1, which keeps the row's range within the
    // budget's (a tensor of 1e10 bytes against a budget of 200 no longer
    // leaves CBC's tolerances a few bytes wide); where every byte count
    // is whole, the bound is raised by half a byte, which admits no
    // choice over the budget and keeps one exactly at it clear of the
    // tolerances. Every answer is checked exactly afterwards (totalOf).
    double rhs = problem.memoryBudget - fixed;
    bool whole = rhs == std::floor(rhs);
    for (double &c : coefs) {
      whole &= c == std::floor(c);
      if (rhs >= 0)
        c = std::min(c, rhs + 1);
    }
    if (whole && rhs >= 0)
      rhs += 0.5;
    row(cols, coefs, 'L', rhs);
  }
}

cbc::Program ProgramBuilder::program(const std::vector<int> &start,
                                     const ExactLimits &limits) const {
  // Column-major, as Cbc_loadProblem takes it.
  std::vector<std::vector<std::pair<int, double>>> byColumn(cols.size());
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t k = 0; k < rows[r].cols.size(); ++k)
      byColumn[rows[r].cols[k]].push_back(
          {static_cast<int>(r), rows[r].coefs[k]});
  cbc::Program program;
  program.starts.push_back(0);
  for (size_t c = 0; c < cols.size(); ++c) {
    for (auto [r, coef] : byColumn[c]) {
      program.index.push_back(r);
      program.value.push_back(coef);
    }
    program.starts.push_back(static_cast<int>(program.index.size()));
    program.colLb.push_back(cols[c].lb);
    program.colUb.push_back(cols[c].ub);
    program.obj.push_back(cols[c].obj);
    if (cols[c].integer)
      program.integers.push_back(static_cast<int>(c));
  }
  for (const Row &r : rows) {
    program.rowLb.push_back(r.lb);
    program.rowUb.push_back(r.ub);
  }
  if (start.size() == problem.own.size())
    for (size_t g = 0; g < x.size(); ++g)
      for (size_t o = 0; o < x[g].size(); ++o) {
        program.startCols.push_back(x[g][o]);
        program.startValues.push_back(static_cast<int>(o) == start[g] ? 1.0
                                                                      : 0.0);
      }
  program.nodes = static_cast<int>(
      std::clamp<int64_t>(limits.nodes, 0, std::numeric_limits<int>::max()));
  program.iterations = static_cast<int>(std::clamp<int64_t>(
      limits.iterations, 0, std::numeric_limits<int>::max()));
  return program;
}

/// The total of `choice` under `model`: Star's (starCost), or evaluate's.
double totalUnder(const ChoiceProblem &problem, Model model,
                  const std::vector<int> &choice) {
  return model != Model::Star ? problem.evaluate(choice)
                              : starCost(problem, choice);
}

/// What the answer is, in words (ChoiceSolution::how), and whether it is
/// exact: from what CBC said and what checking its answer found.
struct Verdict {
  bool consistent, infeasibleProven, boundOnly;
};
void describeAnswer(ChoiceSolution &out, const cbc::Outcome &solved,
                    const Verdict &verdict, bool budgeted, Model model) {
  if (!verdict.consistent) {
    out.how = "integer program (CBC), inconsistent (its objective is not "
              "its choice's total), not proven optimal";
  } else if (verdict.infeasibleProven) {
    out.exact = true;
    out.how = budgeted ? "integer program (CBC): every combination forces a "
                         "move the planner cannot make or holds more than "
                         "the memory budget"
                       : "integer program (CBC): every combination forces a "
                         "move the planner cannot make";
  } else if (solved.infeasible) {
    out.how = "integer program (CBC), no choice within the memory budget "
              "found (not checked exactly: CBC's tolerances), not proven "
              "optimal";
  } else if (solved.proven && std::isfinite(out.cost) && !verdict.boundOnly) {
    out.exact = true;
    out.how = "integer program (CBC), proven optimal";
  } else if (solved.proven && std::isfinite(out.cost)) {
    out.how = "integer program (CBC), its optimum below its choice's total, "
              "not proven optimal";
  } else {
    out.how = solved.nodeLimitReached && solved.nodesCapped > 0
                  ? "integer program (CBC), stopped at " +
                        std::to_string(solved.nodesCapped) +
                        " nodes (its relaxation took " +
                        std::to_string(solved.relaxationIterations) +
                        " simplex iterations, past 1/" +
                        std::to_string(cbc::kBranchShare) +
                        " of solver-iterations: an LP too large to branch "
                        "on further), not proven optimal"
              : solved.nodeLimitReached
                  ? "integer program (CBC), stopped at its node limit, not "
                    "proven optimal"
                  : "integer program (CBC), not proven optimal";
  }
  const std::string plain = "integer program (CBC)";
  if (model != Model::Star && out.how.compare(0, plain.size(), plain) == 0)
    out.how.insert(plain.size() - 1, model == Model::Copies
                                         ? "; copies made from copies"
                                         : "; copies made from copies, or "
                                           "relayed");
  if (solved.retried &&
      out.how.compare(0, plain.size() - 1, plain, 0, plain.size() - 1) == 0)
    out.how.insert(out.how.find(')'),
                   ", solved again without probing cuts after CLP aborted");
}

/// The answer of a program CBC solved (its columns of choices `x`),
/// checked: the solver's objective must be the choice's total, and no
/// cheaper than the start it was given.
ChoiceSolution answerOf(const ChoiceProblem &problem,
                        const std::vector<int> &start, Model model,
                        const std::vector<std::vector<int>> &x,
                        const cbc::Outcome &solved, double *bestBound) {
  const bool copies = model != Model::Star;
  const bool budgeted = problem.memoryBudget != ChoiceProblem::kImpossible;
  ChoiceSolution out;
  const double *solution =
      solved.solution.empty() ? nullptr : solved.solution.data();
  // CBC's "infeasible" is its search ending without an answer it accepts,
  // within its tolerances: under a memory budget it proves nothing until
  // checked exactly.
  Verdict verdict{true, false, false};
  verdict.infeasibleProven =
      solved.infeasible && (!budgeted || provenOverBudget(problem));
  if (solution && !solved.infeasible) {
    out.choice.assign(problem.own.size(), 0);
    for (size_t g = 0; g < x.size(); ++g) {
      int best = 0;
      for (size_t o = 1; o < x[g].size(); ++o)
        if (solution[x[g][o]] > solution[x[g][best]])
          best = static_cast<int>(o);
      out.choice[g] = best;
    }
    out.cost = totalUnder(problem, model, out.choice);
  }
  const double claimed = solved.objective;
  const double tolerance = proofTolerance(problem, out.cost);
  verdict.consistent =
      !std::isfinite(out.cost) || std::fabs(claimed - out.cost) <= tolerance;
  if (bestBound)
    *bestBound = verdict.infeasibleProven ? ChoiceProblem::kImpossible
                 : solved.infeasible      ? -ChoiceProblem::kImpossible
                 : solved.proven          ? claimed
                                          : solved.bestPossible;
  // Copies: only x is integral; for integral x the rest is evaluate's
  // tree of copies (the flow relaxation of a spanning arborescence is
  // integral), but a memory budget may leave a copy fractional, so the
  // objective is a bound, at most the choice's total, and the choice is
  // proven only where the two meet.
  if (copies && std::isfinite(out.cost)) {
    verdict.consistent = claimed <= out.cost + tolerance;
    verdict.boundOnly = claimed < out.cost - tolerance;
  }
  if (start.size() == problem.own.size()) {
    const double startCost = totalUnder(problem, model, start);
    if (startCost < out.cost - tolerance) {
      verdict.consistent &= copies;
      verdict.boundOnly = true;
      out.choice = start;
      out.cost = startCost;
    }
  }
  describeAnswer(out, solved, verdict, budgeted, model);
  if (out.choice.empty())
    out.choice.assign(problem.own.size(), 0);
  return out;
}

/// How many columns `model`'s program of `problem` has, counted without
/// building it.
size_t columnsOf(const ChoiceProblem &problem, Model model) {
  ProgramBuilder sizing(problem, model);
  sizing.countOnly = true;
  sizing.build();
  return sizing.columns();
}

/// The integer program above, for `model`; `cost` is the choice's total
/// under Star's model or evaluate's, and `bestBound` (where given) the
/// solver's best bound below the model's optimum.
ChoiceSolution integerProgram(const ChoiceProblem &problem,
                              const std::vector<int> &start,
                              const ExactLimits &limits, Model model,
                              double *bestBound = nullptr) {
  ProgramBuilder builder(problem, model);
  builder.build();
  const cbc::Outcome solved = cbc::solve(builder.program(start, limits));
  if (solved.stoppedByGuard) {
    // Killed by the guard: what it would have answered depends on the
    // machine's speed and load, so nothing is answered.
    ChoiceSolution out;
    out.stopped = "the integer program (CBC): " + solved.failure;
    if (bestBound)
      *bestBound = -ChoiceProblem::kImpossible;
    return out;
  }
  if (!solved.ran || solved.iterationLimitReached) {
    // No answer: the start stands, unproven.
    ChoiceSolution out;
    out.choice = start.size() == problem.own.size()
                     ? start
                     : std::vector<int>(problem.own.size(), 0);
    out.cost = totalUnder(problem, model, out.choice);
    out.how = !solved.ran ? "integer program (CBC) failed: " + solved.failure +
                                ", not proven optimal"
                          : "integer program (CBC) not solved: its "
                            "relaxation reached its iteration limit "
                            "(solver-iterations), the search's own answer "
                            "stands, not proven optimal";
    if (bestBound)
      *bestBound = -ChoiceProblem::kImpossible;
    return out;
  }
  return answerOf(problem, start, model, builder.x, solved, bestBound);
}

/// The most table entries, summed, the relaxation's elimination computes
/// before the integer programs take over (a fraction of a second).
constexpr int64_t kBoundWork = int64_t(1) << 25;
/// The entries past which the relaxation prices a value per use rather
/// than as one factor over its producer and uses (as elimination's split:
/// larger, the tables of a 120-op Megatron chain grew threefold).
constexpr int64_t kBoundSplitAbove = 4096;
/// The second attempt's (Farthest's, where the first is not met).
constexpr int64_t kBoundSplitWider = int64_t(1) << 16;

/// Where the least total of one of boundByElimination's relaxations
/// (the attempts below, in order) is met by one of `candidates` (choices; empty
/// ones skipped), by the relaxation's own choice, or by local search from
/// it: that choice, proven optimal (every choice's total is at least the
/// bound). Else nullopt, and `seed` is the cheapest of them (the integer
/// programs' start).
std::optional<ChoiceSolution>
meetsBound(const ChoiceProblem &problem,
           std::initializer_list<const std::vector<int> *> candidates,
           const ExactLimits &limits, std::vector<int> &seed) {
  const size_t groups = problem.own.size();
  std::vector<int> best;
  double cost = ChoiceProblem::kImpossible;
  auto consider = [&](const std::vector<int> &choice) {
    if (choice.size() != groups)
      return;
    const double total = problem.evaluate(choice);
    if (total < cost) {
      cost = total;
      best = choice;
    }
  };
  for (const std::vector<int> *choice : candidates)
    consider(*choice);
  std::optional<ChoiceSolution> out;
  // (Scanned once: every move of every value.)
  const double smallest = smallestCost(problem);
  // Farthest, its values of many uses past kBoundSplitAbove entries
  // relaxed; not met, past kBoundSplitWider only (the values of a few
  // uses kept whole: tighter, larger tables; of the 163 searches of 1,367
  // random programs of the e2e generators, on 1-D and 2-D meshes, that
  // exact elimination did not answer, 114 proven where the first alone
  // proved 59); then LeastInto, a last chance (it proves what Farthest
  // does not where uses need a value in layouts made each from the
  // source; far looser where a gathered copy serves them), within an
  // eighth of the work.
  struct Attempt {
    ChoiceRelaxation relaxation;
    int64_t splitAbove, work;
  };
  for (const Attempt &attempt :
       {Attempt{ChoiceRelaxation::Farthest, kBoundSplitAbove, kBoundWork},
        Attempt{ChoiceRelaxation::Farthest, kBoundSplitWider, kBoundWork},
        Attempt{ChoiceRelaxation::LeastInto, kBoundSplitAbove,
                kBoundWork / 8}}) {
    // To the integer programs' tolerance (proofTolerance: a millionth of the
    // total): on a 120-op MLP chain the first relaxation, all constants
    // priced apart (tables of 3,600 entries), came 8.5e-8 of the total
    // short (the fills' compute, 1e-6 us), and the relaxation that met it
    // exactly cost twelve times the rest of the search (tables of 20,736).
    auto meets = [&](double bound) {
      return cost <= bound + toleranceOver(smallest, bound);
    };
    std::optional<ChoiceBound> bound = boundByElimination(
        problem, attempt.relaxation, limits.eliminationEntries,
        attempt.splitAbove, attempt.work, [&](const ChoiceBound &found) {
          consider(found.choice);
          return std::isfinite(found.bound) && meets(found.bound);
        });
    if (!bound || !std::isfinite(bound->bound))
      continue;
    if (!meets(bound->bound))
      consider(solveLocal(problem, bound->choice).choice);
    if (meets(bound->bound)) {
      out.emplace();
      out->choice = best;
      out->cost = cost;
      out->exact = true;
      out->how = bound->how + ", its bound met, proven optimal";
      return out;
    }
  }
  if (best.size() == groups)
    seed = best;
  return out;
}

} // namespace

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
      if (solved->exact && std::isfinite(solved->cost) &&
          problem.memory(solved->choice) <= problem.memoryBudget &&
          !(start.size() == problem.own.size() &&
            problem.evaluate(start) <
                solved->cost - proofTolerance(problem, solved->cost))) {
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
              solved->cost - proofTolerance(problem, solved->cost)) {
        solved->choice = start;
        solved->cost = problem.evaluate(start);
        solved->exact = false;
        solved->how = "dynamic programming, inconsistent (its start was "
                      "cheaper), not proven optimal";
      }
      if (solved->exact)
        return *solved;
      // Not exact (copies priced from the source): proven by the
      // relaxation's bound, else the integer programs, from its choice.
      std::vector<int> from = solved->choice;
      if (std::optional<ChoiceSolution> met =
              meetsBound(problem, {&start, &solved->choice}, limits, from))
        return *met;
      ExactLimits rest = limits;
      rest.eliminationEntries = 0;
      ChoiceSolution better = solveExact(problem, from, rest);
      return !better.stopped.empty() || better.cost <= solved->cost ? better
                                                                    : *solved;
    }
  // Elimination's tables past their limit (a value read by ops far apart
  // joins them all: each of its layouts a group over its uses): the
  // relaxation's bound proves a choice that meets it, else the programs
  // run from the best choice it found.
  std::vector<int> seed = start;
  if (limits.eliminationEntries > 0)
    if (std::optional<ChoiceSolution> met =
            meetsBound(problem, {&start}, limits, seed))
      return *met;
  // Past starColumns, no program: the first one's relaxation alone would
  // run for seconds to minutes.
  if (limits.starColumns > 0) {
    const size_t columns = columnsOf(problem, Model::Star);
    if (static_cast<int64_t>(columns) > limits.starColumns) {
      ChoiceSolution local = solveLocal(problem, seed);
      local.how = "local search (the integer program, of " +
                  std::to_string(columns) + " columns, past " +
                  std::to_string(limits.starColumns) +
                  ", not run), not proven optimal";
      return local;
    }
  }
  // Every layout from its source: the integer program's optimum is
  // evaluate's where no layout is cheaper made from another copy.
  const bool copies = std::any_of(problem.values.begin(), problem.values.end(),
                                  [](const ChoiceProblem::Value &v) {
                                    return !movesBetweenCopies(v).empty();
                                  });
  if (!copies)
    return integerProgram(problem, seed, limits, Model::Star);
  // Else the choice best with every layout from its source (Star: an upper
  // bound and a start, found fast where its relaxation is tight), then from
  // the best choice the programs of copies made from copies (Relays, then
  // Copies where Relays' choice makes a relay or is not proven).
  ChoiceSolution upper = integerProgram(problem, seed, limits, Model::Star);
  if (!upper.stopped.empty())
    return upper;
  std::vector<int> best = upper.choice;
  double cost = problem.evaluate(best);
  if (seed.size() == problem.own.size() && problem.evaluate(seed) < cost) {
    best = seed;
    cost = problem.evaluate(seed);
  }
  // Relays, then, where its choice makes a relay or is not proven,
  // Copies, each from the best choice so far; the better bound stands.
  // Their programs are the larger (a flow per use over the layouts); past
  // limits.copiesColumns columns (a dual simplex there was seen to run a
  // minute and stop at its iteration limit, answering nothing), local
  // search on evaluate's total improves the best choice instead.
  double bound = -ChoiceProblem::kImpossible;
  ChoiceSolution out;
  if (limits.copiesColumns > 0) {
    const size_t columns = columnsOf(problem, Model::Relays);
    if (static_cast<int64_t>(columns) > limits.copiesColumns) {
      ChoiceSolution local = solveLocal(problem, best);
      if (local.cost < cost) {
        best = std::move(local.choice);
        cost = local.cost;
      }
      out.choice = std::move(best);
      out.cost = cost;
      out.exact = false;
      // What the first program said, less its verdict (its optimum is
      // one of every layout from its source only).
      std::string first = upper.how;
      for (const std::string verdict :
           {", not proven optimal", ", proven optimal"})
        if (first.size() >= verdict.size() &&
            first.compare(first.size() - verdict.size(), verdict.size(),
                          verdict) == 0) {
          first.resize(first.size() - verdict.size());
          break;
        }
      out.how = first +
                " (every layout moved from its source; copies made from "
                "copies not searched: their program has " +
                std::to_string(columns) + " columns, past " +
                std::to_string(limits.copiesColumns) +
                "), then local search, not proven optimal";
      return out;
    }
  }
  for (Model model : {Model::Relays, Model::Copies}) {
    double solved = -ChoiceProblem::kImpossible;
    ChoiceSolution next = integerProgram(problem, best, limits, model, &solved);
    if (!next.stopped.empty())
      return next;
    if (next.how.find("inconsistent") != std::string::npos) {
      // Untrusted: its choice only where it is cheaper by evaluate's own
      // total.
      if (cost < next.cost) {
        next.choice = best;
        next.cost = cost;
      }
      return next;
    }
    if (next.exact)
      return next;
    bound = std::max(bound, solved);
    out = next;
    if (next.cost < cost) {
      best = next.choice;
      cost = next.cost;
    }
    out.choice = best;
    out.cost = cost;
  }
  if (std::isfinite(bound) && cost <= bound + proofTolerance(problem, bound)) {
    out.exact = true;
    out.how = "integer programs (CBC; copies made from copies), proven "
              "optimal";
    return out;
  }
  const std::string unproven = ", not proven optimal";
  if (std::isfinite(cost) && std::isfinite(bound) &&
      out.how.size() > unproven.size() &&
      out.how.compare(out.how.size() - unproven.size(), unproven.size(),
                      unproven) == 0) {
    char gap[64];
    std::snprintf(gap, sizeof gap, ", within %.4g us of its bound",
                  std::max(0.0, cost - bound));
    out.how.insert(out.how.size() - unproven.size(), gap);
  }
  return out;
}

/// (The tolerances were absolute, 1e-6 us, and called equal whatever the
/// choice where totals were 1e-6 us or less: a worse one "proven optimal".)
double proofTolerance(const ChoiceProblem &problem, double total) {
  return toleranceOver(smallestCost(problem), total);
}

double toleranceOver(double smallest, double total) {
  return 1e-6 * std::max(smallest, std::fabs(total));
}

double smallestCost(const ChoiceProblem &problem) {
  double smallest = 0;
  auto see = [&](double c) {
    if (std::isfinite(c) && c != 0)
      smallest =
          smallest == 0 ? std::fabs(c) : std::min(smallest, std::fabs(c));
  };
  for (const std::vector<double> &own : problem.own)
    for (double c : own)
      see(c);
  for (const ChoiceProblem::Value &v : problem.values)
    for (size_t a = 0; a < v.move.size(); ++a)
      for (double c : v.move[a])
        see(c);
  return smallest;
}

} // namespace shardc::planning
