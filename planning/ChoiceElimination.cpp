//===- ChoiceElimination.cpp - Variable elimination among options ---------===//
//
// solveByElimination (shardc/Planning/Choice.h): dynamic programming over
// the groups, a value of many uses split into "layout made" groups (where
// each layout is made from the source whatever the choice);
// boundByElimination: the same over a relaxation whose values of many uses
// are priced per use, below their cost (a lower bound on the optimum).
//===----------------------------------------------------------------------===//

#include "shardc/Planning/Choice.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <vector>

namespace shardc::planning {

namespace {

/// The most layouts a relaxed value's shortest paths relay through
/// (ChoiceRelaxation::Farthest): 64^3 steps per value at most.
constexpr size_t kMostRelays = 64;

/// The groups a value's factor spans: its producer's and its users'
/// (ascending, each once).
std::vector<int> scopeOfValue(const ChoiceProblem::Value &v) {
  std::vector<int> scope;
  if (v.producer >= 0)
    scope.push_back(v.producer);
  for (const ChoiceProblem::Use &use : v.uses)
    if (use.group >= 0)
      scope.push_back(use.group);
  std::sort(scope.begin(), scope.end());
  scope.erase(std::unique(scope.begin(), scope.end()), scope.end());
  return scope;
}

/// A cost over some groups' options: `table` in row-major order of `scope`
/// (the last group fastest).
struct Factor {
  /// Most scopes are a group or two (a use and a made group, a producer
  /// and a use): held in place, not allocated (a 1,000-op chain's split
  /// values made 288,000 such factors).
  llvm::SmallVector<int, 2> scope;
  std::vector<double> table;
};

/// Variable elimination over the problem's groups and the "layout made"
/// groups of split values: the factors, then one group eliminated at a
/// time, then back-substitution.
class Elimination {
public:
  Elimination(const ChoiceProblem &problem, int64_t maxEntries,
              int64_t splitAbove, int64_t maxWork, bool relaxed = false,
              ChoiceRelaxation relaxation = ChoiceRelaxation::LeastInto,
              const std::vector<char> *apart = nullptr)
      : problem(problem), maxEntries(maxEntries), splitAbove(splitAbove),
        maxWork(maxWork), relaxed(relaxed), relaxation(relaxation),
        apart(apart) {
    for (const auto &own : problem.own)
      sizes.push_back(static_cast<int64_t>(own.size()));
    real = sizes.size();
  }

  /// What the factors of relaxed value `vi` (relaxValue) total under
  /// `choice` (after solve; 0 for a value not relaxed).
  double relaxedAt(size_t vi, const std::vector<int> &choice) const {
    auto it = relaxedFactors.find(vi);
    if (it == relaxedFactors.end())
      return 0;
    double total = it->second.constant;
    for (size_t f = it->second.first; f < it->second.last; ++f) {
      const Factor &factor = factors[f];
      int64_t index = 0;
      for (int g : factor.scope)
        index = index * sizes[g] + choice[g];
      total += factor.table[index];
    }
    return total;
  }

  std::optional<ChoiceSolution> solve() {
    // The order and its tables' sizes first, from the factors' scopes
    // alone: a problem past maxEntries or maxWork is given up before any
    // table is computed.
    if (buildWork() > static_cast<double>(maxWork) ||
        !buildFactors(/*tables=*/false) || !eliminateAll(/*symbolic=*/true))
      return std::nullopt;
    factors.clear();
    order.clear();
    largest = 0;
    work = 0;
    least = 0;
    relaxedFactors.clear();
    sizes.resize(real);
    priced = false;
    if (!buildFactors(/*tables=*/true) || !eliminateAll(/*symbolic=*/false))
      return std::nullopt;
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
    if (relaxed) {
      // The relaxation's least total, not the choice's.
      out.cost = least;
      out.how = "dynamic programming over a relaxation (variable elimination, "
                "largest table " +
                std::to_string(largest) + " entries)";
      return out;
    }
    out.cost = problem.evaluate(out.choice);
    out.exact = !priced;
    out.how = "dynamic programming (variable elimination, largest table " +
              std::to_string(largest) + " entries)" +
              (priced ? ", a value of many uses priced with every layout "
                        "from its source, not proven optimal"
                      : ", proven optimal");
    return out;
  }

private:
  /// A group eliminated: its best option for each assignment of `rest`.
  struct Eliminated {
    int group;
    std::vector<int> rest;
    std::vector<int> best;
  };

  double sizeOf(const std::vector<int> &scope) const {
    double n = 1;
    for (int g : scope)
      n *= static_cast<double>(sizes[g]);
    return n;
  }
  bool overWork() const { return work > static_cast<double>(maxWork); }

  /// Every group's own factor and every value's (its table computed only
  /// where `tables`); false past maxWork.
  bool buildFactors(bool tables) {
    for (size_t g = 0; g < real; ++g)
      factors.push_back({{static_cast<int>(g)},
                         tables ? problem.own[g] : std::vector<double>{}});
    choice.assign(real, 0);
    for (size_t vi = 0; vi < problem.values.size(); ++vi)
      if (!valueFactors(vi, tables))
        return false;
    return true;
  }
  bool valueFactors(size_t vi, bool tables);
  /// What building the values' factors counts against maxWork, from their
  /// scopes alone (nothing allocated past them: a 10,000-op function's
  /// factors, built only to find the work past its limit, held 120 MB).
  double buildWork() const {
    double total = 0;
    for (const ChoiceProblem::Value &v : problem.values) {
      const double size = sizeOf(scopeOfValue(v));
      total += std::min(size, static_cast<double>(splitAbove));
      if (size > static_cast<double>(splitAbove) && !costsNothing(v))
        total += relaxed ? relaxWork(v) : splitWork(v);
    }
    return total;
  }
  /// The entries of a relaxed value's factors (relaxValue): per use, its
  /// options times its producer's.
  double relaxWork(const ChoiceProblem::Value &v) const {
    const double sources =
        v.producer < 0 ? 1.0 : static_cast<double>(sizes[v.producer]);
    double total = 0;
    for (const ChoiceProblem::Use &use : v.uses)
      total += sources * static_cast<double>(use.need.size());
    return total;
  }
  /// The entries of a split value's factors (splitValue): per use, two
  /// per option and layout it may need; a value read by thousands of ops
  /// in a dozen layouts has hundreds of thousands.
  static double splitWork(const ChoiceProblem::Value &v) {
    double total = 0;
    std::vector<int> layouts;
    for (const ChoiceProblem::Use &use : v.uses) {
      layouts.clear();
      for (int need : use.need)
        if (need >= 0 && !std::count(layouts.begin(), layouts.end(), need))
          layouts.push_back(need);
      total += 2.0 * static_cast<double>(use.need.size()) *
               static_cast<double>(layouts.size());
    }
    return total;
  }
  /// Whether every move from a source of `v` to a layout a use may need
  /// is free: the value costs nothing under every choice.
  static bool costsNothing(const ChoiceProblem::Value &v) {
    const std::vector<int> may = layoutsUsesMayNeed(v);
    for (int s : v.source)
      for (int layout : may)
        if (v.move[s][layout] != 0)
          return false;
    return true;
  }
  void splitValue(const ChoiceProblem::Value &v, bool tables);
  void relaxValue(size_t vi, bool tables);
  int madeGroup(const ChoiceProblem::Value &v, std::map<int, int> &made,
                int layout, bool tables);
  bool eliminateAll(bool symbolic);
  std::vector<int> scopeOf(int g) const;
  /// sizeOf(scopeOf(g)) where it is at most maxEntries, else infinity
  /// (such a group is never eliminated while it is): counted without
  /// building the scope, stopping once past, and dropping g's dead
  /// factors. A value read by hundreds of ops split into "made" groups
  /// each in hundreds of factors made every step's recount of its
  /// neighbours' scopes quadratic (half of a 600-op search's time spent
  /// on an elimination that then gave up).
  double scopeSize(int g);
  void eliminate(int pick, const std::vector<int> &pickScope);
  void eliminateScope(int pick, const std::vector<int> &pickScope);

  const ChoiceProblem &problem;
  const int64_t maxEntries, splitAbove, maxWork;
  /// Values of many uses relaxed (relaxValue), not split: the optimum
  /// found is a lower bound.
  const bool relaxed;
  const ChoiceRelaxation relaxation;
  /// Per value: priced apart from its producer (relaxValue; a value every
  /// rank makes alone). Null: none.
  const std::vector<char> *apart;
  /// Per relaxed value: its factors [first, last) and what it added to
  /// `least` (relaxedAt).
  struct Relaxed {
    size_t first, last;
    double constant;
  };
  std::map<size_t, Relaxed> relaxedFactors;
  /// The least total: the minima of the factors left over no group.
  double least = 0;
  /// The problem's groups, then binary "layout L of value v is made"
  /// groups for values used by many groups (splitValue).
  std::vector<int64_t> sizes;
  size_t real = 0;
  std::vector<Factor> factors;
  /// The table entries computed so far (against maxWork).
  double work = 0;
  std::vector<int> choice;
  /// Whether a split value made the answer an upper bound.
  bool priced = false;
  int64_t largest = 0;
  std::vector<Eliminated> order;
  std::vector<std::vector<int>> factorsOf;
  std::vector<bool> alive;
  /// scopeSize's marks: the groups counted on its call numbered stamp.
  std::vector<int64_t> seenAt;
  int64_t stamp = 0;
};

/// Value `vi`'s cost over its producer and its uses' groups, as one factor
/// where that is small, else split (splitValue) or relaxed (relaxValue);
/// false past maxWork.
bool Elimination::valueFactors(size_t vi, bool tables) {
  const ChoiceProblem::Value &v = problem.values[vi];
  std::vector<int> scope = scopeOfValue(v);
  if (scope.empty())
    return true;
  // Building the tables counts as work too.
  work += std::min(sizeOf(scope), static_cast<double>(splitAbove));
  if (sizeOf(scope) > static_cast<double>(splitAbove))
    work += relaxed ? relaxWork(v) : splitWork(v);
  if (overWork())
    return false;
  if (sizeOf(scope) > static_cast<double>(splitAbove)) {
    // Read by many, at no cost whatever the choice (a tensor.empty every
    // rank makes): no factor.
    if (costsNothing(v))
      return true;
    if (relaxed) {
      const size_t first = factors.size();
      const double before = least;
      relaxValue(vi, tables);
      if (tables)
        relaxedFactors[vi] = {first, factors.size(), least - before};
    } else
      splitValue(v, tables);
    return true;
  }
  Factor f{{scope.begin(), scope.end()}, {}};
  for (int g : scope)
    choice[g] = 0;
  while (tables) {
    f.table.push_back(problem.valueCost(vi, choice));
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
  return true;
}

/// A value used by many groups, through a binary group m_L per layout L a
/// use may need (made or not): m_L pays the move to L, and a use's option
/// that needs L forbids m_L = 0; the optimum makes exactly the layouts
/// needed, so the decomposition is exact, and its factors are pairs. It
/// pays each layout's move from the source: exact only where no layout is
/// cheaper made from another copy (else an upper bound).
void Elimination::splitValue(const ChoiceProblem::Value &v, bool tables) {
  const double inf = ChoiceProblem::kImpossible;
  // (Asked only with the tables: the symbolic round's answer is discarded.)
  if (tables && !movesBetweenCopies(v).empty())
    priced = true;
  std::map<int, int> made; // layout -> its binary group
  for (const ChoiceProblem::Use &use : v.uses) {
    if (use.group < 0) {
      if (use.need[0] >= 0)
        factors.push_back(
            {{madeGroup(v, made, use.need[0], tables)},
             tables ? std::vector<double>{inf, 0.0} : std::vector<double>{}});
      continue;
    }
    std::vector<int> layouts;
    for (int need : use.need)
      if (need >= 0)
        layouts.push_back(need);
    std::sort(layouts.begin(), layouts.end());
    layouts.erase(std::unique(layouts.begin(), layouts.end()), layouts.end());
    for (int layout : layouts) {
      Factor f{{use.group, madeGroup(v, made, layout, tables)}, {}};
      for (size_t o = 0; tables && o < use.need.size(); ++o) {
        f.table.push_back(use.need[o] == layout ? inf : 0.0);
        f.table.push_back(0.0);
      }
      factors.push_back(std::move(f));
    }
  }
}

/// The binary group "`layout` of `v` is made", with its factor (what
/// making it costs, by the producer's option), made on first use.
int Elimination::madeGroup(const ChoiceProblem::Value &v,
                           std::map<int, int> &made, int layout, bool tables) {
  auto [it, fresh] = made.try_emplace(layout, -1);
  if (!fresh)
    return it->second;
  it->second = static_cast<int>(sizes.size());
  sizes.push_back(2);
  if (v.producer < 0) {
    Factor f{{it->second}, {}};
    if (tables)
      f.table = {0.0, v.move[v.source[0]][layout]};
    factors.push_back(std::move(f));
  } else {
    Factor f{{v.producer, it->second}, {}};
    for (size_t o = 0; tables && o < v.source.size(); ++o) {
      f.table.push_back(0.0);
      f.table.push_back(v.move[v.source[o]][layout]);
    }
    factors.push_back(std::move(f));
  }
  return it->second;
}

/// A value used by many groups, priced below its cost by factors of pairs
/// (its producer and one use), under one of two relaxations
/// (ChoiceRelaxation). Every layout L some use needs is made by one move
/// into it, from the source s or from another layout needed, so:
///  - LeastInto: it costs at least the least such move, c(s, L), shared
///    among the n(L) uses that may need L (c(s, L) / n(L) each: summed
///    over the uses that need it, at most c(s, L)); a layout a fixed use
///    needs is made whatever the choice, c(s, L) once by the producer.
///  - Farthest: the moves reaching L cost at least the shortest path d(s,
///    L) (through the layouts some use may need), so the total is at least
///    the largest d(s, L) over the uses, and so at least their average:
///    d(s, L) / U per use, U the uses (a fixed use's by the producer).
///    Exact where every use needs one layout, or copies sliced from one
///    gathered copy (a weight gathered once for every block).
/// Either way every choice's relaxed total is at most its cost
/// (evaluate's), and the relaxation's optimum is a lower bound on the
/// problem's: a choice whose cost meets it is optimal.
void Elimination::relaxValue(size_t vi, bool tables) {
  const ChoiceProblem::Value &v = problem.values[vi];
  const std::vector<int> may = layoutsUsesMayNeed(v);
  // Copies are made from copies only where sources and needs are ids of
  // one set of layouts (cheapestMoves).
  const bool square = !v.move.empty() && v.move.size() == v.move[0].size();
  const int sources = v.producer < 0 ? 1 : static_cast<int>(v.source.size());
  auto sourceOf = [&](int p) { return v.source[v.producer < 0 ? 0 : p]; };
  // What making a layout of `may` from a source (or a layout of `may`)
  // costs at least: the least move into it from there or from any other
  // layout of `may` (LeastInto; `into`), or the shortest path to it
  // relaying through `may` (Farthest; `reach`, rows the sources and `may`
  // in `nodes`, columns `may`); where `may` is past kMostRelays layouts,
  // the least move into it, no longer than any path (the relays'
  // |may|^2 |nodes| steps are not spent).
  const bool relays =
      relaxation == ChoiceRelaxation::Farthest && may.size() <= kMostRelays;
  std::vector<int> nodes;
  std::vector<double> into;
  std::vector<std::vector<double>> reach;
  // Each layout's index in `may` and in `nodes` (looked up per table
  // entry: a binary search there was a tenth of a 1,000-op chain's bound).
  const size_t layoutCount = v.move.empty() ? 0 : v.move[0].size();
  std::vector<int> mayAt, nodeAt;
  auto index = [&](const std::vector<int> &ids, std::vector<int> &at) {
    at.assign(layoutCount, -1);
    for (size_t i = 0; i < ids.size(); ++i)
      at[ids[i]] = static_cast<int>(i);
  };
  auto at = [](const std::vector<int> &indices, int layout) {
    return static_cast<size_t>(indices[layout]);
  };
  if (tables && square)
    index(may, mayAt);
  if (tables && square && !relays) {
    into.assign(may.size(), ChoiceProblem::kImpossible);
    for (size_t b = 0; b < may.size(); ++b)
      for (int from : may)
        if (from != may[b])
          into[b] = std::min(into[b], v.move[from][may[b]]);
  }
  if (tables && square && relays) {
    nodes = may;
    for (int p = 0; p < sources; ++p)
      nodes.push_back(sourceOf(p));
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    index(nodes, nodeAt);
    reach.assign(nodes.size(), std::vector<double>(may.size(), 0.0));
    for (size_t a = 0; a < nodes.size(); ++a)
      for (size_t b = 0; b < may.size(); ++b)
        if (nodes[a] != may[b])
          reach[a][b] = v.move[nodes[a]][may[b]];
    for (size_t k = 0; k < may.size(); ++k) {
      const std::vector<double> &fromRelay = reach[at(nodeAt, may[k])];
      for (size_t a = 0; a < nodes.size(); ++a) {
        const double toRelay = reach[a][k];
        for (size_t b = 0; b < may.size(); ++b)
          reach[a][b] = std::min(reach[a][b], toRelay + fromRelay[b]);
      }
    }
  }
  // A value every rank makes alone, of a producer with options, priced
  // apart from it (`apart`): its total with the producer's, own(p) +
  // the sum over L needed but the source s of m(L), is at least own(p) -
  // m(s) + the sum over every L needed. So the producer pays -m(s), and
  // each layout needed m(L) whatever the source: the uses' factors are of
  // one group, and a constant read by every block of a chain joins none
  // of them (exact where the source is needed or no use may need it, else
  // m(s) below).
  const bool decoupled =
      v.madeByEveryRank && v.producer >= 0 && apart && (*apart)[vi];
  if (decoupled) {
    std::vector<double> table;
    // A source no use may need is never among the layouts needed: no
    // credit (and making it may be impossible: no -infinity).
    for (int p = 0; tables && p < sources; ++p)
      table.push_back(std::binary_search(may.begin(), may.end(), sourceOf(p))
                          ? -madeCost(v, sourceOf(p))
                          : 0.0);
    factors.push_back({{v.producer}, std::move(table)});
  }
  auto cost = [&](int source, int layout) {
    if (decoupled)
      return madeCost(v, layout);
    if (!square)
      return v.move[source][layout];
    if (source == layout)
      return 0.0;
    if (relays)
      return reach[at(nodeAt, source)][at(mayAt, layout)];
    return std::min(v.move[source][layout], into[at(mayAt, layout)]);
  };
  std::vector<int> always;
  std::map<int, int> mayUses;
  std::vector<int> layouts;
  int uses = 0;
  for (const ChoiceProblem::Use &use : v.uses) {
    ++uses;
    if (use.group < 0) {
      if (use.need[0] >= 0)
        always.push_back(use.need[0]);
      continue;
    }
    layouts.clear();
    for (int need : use.need)
      if (need >= 0 && !std::count(layouts.begin(), layouts.end(), need))
        layouts.push_back(need);
    for (int layout : layouts)
      ++mayUses[layout];
  }
  const bool farthest = relaxation == ChoiceRelaxation::Farthest;
  if (!farthest) {
    std::sort(always.begin(), always.end());
    always.erase(std::unique(always.begin(), always.end()), always.end());
  }
  // What a use's need costs it, from source `s`.
  auto share = [&](int s, int need) {
    if (need < 0)
      return 0.0;
    if (farthest)
      return cost(s, need) / uses;
    if (std::binary_search(always.begin(), always.end(), need))
      return 0.0;
    return cost(s, need) / mayUses[need];
  };
  if (!always.empty()) {
    std::vector<double> table;
    for (int p = 0; tables && p < sources; ++p) {
      double c = 0;
      for (int layout : always)
        c += farthest ? share(sourceOf(p), layout) : cost(sourceOf(p), layout);
      table.push_back(c);
    }
    if (v.producer >= 0 && !decoupled)
      factors.push_back({{v.producer}, std::move(table)});
    else if (tables)
      least += table[0];
  }
  for (const ChoiceProblem::Use &use : v.uses) {
    if (use.group < 0)
      continue;
    Factor f;
    if (v.producer < 0 || v.producer == use.group || decoupled) {
      f.scope = {use.group};
      for (size_t o = 0; tables && o < use.need.size(); ++o)
        // The source by the option where the use is the producer's own;
        // else one source stands for all (a fixed one, or apart: priced
        // whatever the source).
        f.table.push_back(
            share(sourceOf(v.producer == use.group ? static_cast<int>(o) : 0),
                  use.need[o]));
    } else {
      f.scope = {v.producer, use.group};
      for (int p = 0; tables && p < sources; ++p)
        for (int need : use.need)
          f.table.push_back(share(sourceOf(p), need));
    }
    factors.push_back(std::move(f));
  }
}

/// The combined scope of the live factors holding g.
std::vector<int> Elimination::scopeOf(int g) const {
  std::vector<int> scope;
  for (int f : factorsOf[g])
    if (alive[f])
      scope.insert(scope.end(), factors[f].scope.begin(),
                   factors[f].scope.end());
  std::sort(scope.begin(), scope.end());
  scope.erase(std::unique(scope.begin(), scope.end()), scope.end());
  return scope;
}

double Elimination::scopeSize(int g) {
  std::vector<int> &mine = factorsOf[g];
  mine.erase(std::remove_if(mine.begin(), mine.end(),
                            [&](int f) { return !alive[f]; }),
             mine.end());
  ++stamp;
  double size = 1;
  for (int f : mine)
    for (int h : factors[f].scope) {
      if (seenAt[h] == stamp)
        continue;
      seenAt[h] = stamp;
      size *= static_cast<double>(sizes[h]);
      if (size > static_cast<double>(maxEntries))
        return std::numeric_limits<double>::infinity();
    }
  return size;
}

/// Eliminates one group at a time, the one whose combined factor is the
/// smallest (ties: the lowest index); false past maxEntries or maxWork.
/// `symbolic`: the same order over the factors' scopes only (no tables):
/// what the elimination would cost.
bool Elimination::eliminateAll(bool symbolic) {
  const size_t groups = sizes.size();
  choice.assign(groups, 0);
  std::vector<bool> gone(groups, false);
  factorsOf.assign(groups, {});
  alive.assign(factors.size(), true);
  seenAt.assign(groups, 0);
  for (size_t f = 0; f < factors.size(); ++f)
    for (int g : factors[f].scope)
      factorsOf[g].push_back(static_cast<int>(f));
  // Smallest first, lowest index on ties; entries go stale when a
  // neighbour is eliminated, and are then pushed again.
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  std::vector<double> current(groups);
  for (size_t g = 0; g < groups; ++g) {
    current[g] = scopeSize(static_cast<int>(g));
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
    const double pickSize = current[pick];
    if (pickSize > static_cast<double>(maxEntries))
      return false;
    std::vector<int> pickScope = scopeOf(pick);
    work += pickSize;
    if (overWork())
      return false;
    largest = std::max(largest, static_cast<int64_t>(pickSize));
    if (symbolic)
      eliminateScope(pick, pickScope);
    else
      eliminate(pick, pickScope);
    gone[pick] = true;
    for (int g : order.back().rest) {
      current[g] = scopeSize(g);
      heap.push({current[g], g});
    }
  }
  return true;
}

/// eliminate's bookkeeping without its tables: the factors holding `pick`
/// replaced by one over the rest of `pickScope`.
void Elimination::eliminateScope(int pick, const std::vector<int> &pickScope) {
  for (int f : factorsOf[pick])
    alive[f] = false;
  std::vector<int> rest;
  for (int g : pickScope)
    if (g != pick)
      rest.push_back(g);
  order.push_back({pick, rest, {}});
  if (rest.empty())
    return;
  factors.push_back({{rest.begin(), rest.end()}, {}});
  alive.push_back(true);
  for (int g : rest)
    factorsOf[g].push_back(static_cast<int>(factors.size()) - 1);
}

/// Combines the factors holding `pick` over `pickScope` and minimizes it
/// out, keeping its best option for each assignment of the rest.
void Elimination::eliminate(int pick, const std::vector<int> &pickScope) {
  // The factors of `pick` alone that come first (its own, say) summed
  // once (`unary`), not at every assignment of the rest; the others,
  // `used`, combined below, in the same order (the same sums, bit for
  // bit: a sum in another order broke a tie the other way).
  const int pickOptions = static_cast<int>(sizes[pick]);
  std::vector<double> unary(pickOptions, 0.0);
  std::vector<int> used;
  for (int f : factorsOf[pick])
    if (alive[f]) {
      alive[f] = false;
      if (used.empty() && factors[f].scope.size() == 1) {
        const std::vector<double> &table = factors[f].table;
        for (int o = 0; o < pickOptions; ++o)
          unary[o] += table[o];
      } else {
        used.push_back(f);
      }
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
  Factor combined{{rest.begin(), rest.end()}, {}};
  Eliminated record{pick, rest, {}};
  // Each used factor's entry at the rest's assignment (the pick at 0),
  // kept as the assignment counts up; its stride along the pick's options.
  std::vector<int> assign(pickScope.size(), 0);
  std::vector<int64_t> base(used.size(), 0), pickStride(used.size());
  std::vector<const double *> tableOf(used.size());
  for (size_t u = 0; u < used.size(); ++u) {
    pickStride[u] = strides[u][pickAt];
    tableOf[u] = factors[used[u]].table.data();
  }
  const double restEntries = sizeOf(rest);
  combined.table.reserve(static_cast<size_t>(restEntries));
  record.best.reserve(static_cast<size_t>(restEntries));
  // Each option's total, summed factor by factor (the same order as
  // option by option: the same sums).
  std::vector<double> totals(pickOptions);
  while (true) {
    std::copy(unary.begin(), unary.end(), totals.begin());
    for (size_t u = 0; u < used.size(); ++u) {
      const double *at = tableOf[u] + base[u];
      const int64_t step = pickStride[u];
      for (int o = 0; o < pickOptions; ++o)
        totals[o] += at[step * o];
    }
    double best = ChoiceProblem::kImpossible;
    int bestOption = 0;
    for (int o = 0; o < pickOptions; ++o)
      if (totals[o] < best) {
        best = totals[o];
        bestOption = o;
      }
    combined.table.push_back(best);
    record.best.push_back(bestOption);
    int k = static_cast<int>(pickScope.size()) - 1;
    for (; k >= 0; --k) {
      if (k == static_cast<int>(pickAt))
        continue;
      if (++assign[k] < sizes[pickScope[k]]) {
        for (size_t u = 0; u < used.size(); ++u)
          base[u] += strides[u][k];
        break;
      }
      for (size_t u = 0; u < used.size(); ++u)
        base[u] -= strides[u][k] * (assign[k] - 1);
      assign[k] = 0;
    }
    if (k < 0)
      break;
  }
  order.push_back(std::move(record));
  if (rest.empty())
    least += combined.table[0];
  if (!rest.empty()) {
    factors.push_back(std::move(combined));
    alive.push_back(true);
    for (int g : rest)
      factorsOf[g].push_back(static_cast<int>(factors.size()) - 1);
  }
}

} // namespace

std::optional<ChoiceSolution> solveByElimination(const ChoiceProblem &problem,
                                                 int64_t maxEntries,
                                                 int64_t splitAbove,
                                                 int64_t maxWork) {
  // A budget couples every value: not a sum of small factors.
  if (problem.memoryBudget != ChoiceProblem::kImpossible)
    return std::nullopt;
  return Elimination(problem, maxEntries, splitAbove, maxWork).solve();
}

std::optional<ChoiceBound>
boundByElimination(const ChoiceProblem &problem, ChoiceRelaxation relaxation,
                   int64_t maxEntries, int64_t splitAbove, int64_t maxWork,
                   const std::function<bool(const ChoiceBound &)> &enough) {
  ChoiceProblem free;
  const ChoiceProblem *unbudgeted = &problem;
  if (problem.memoryBudget != ChoiceProblem::kImpossible) {
    free = problem;
    free.memoryBudget = ChoiceProblem::kImpossible;
    unbudgeted = &free;
  }
  const std::vector<ChoiceProblem::Value> &values = unbudgeted->values;
  // The values every rank makes alone that are relaxed (read by many), with
  // a producer of options: each priced apart from its producer or with it.
  std::vector<size_t> constants;
  for (size_t vi = 0; vi < values.size(); ++vi) {
    const ChoiceProblem::Value &v = values[vi];
    if (!v.madeByEveryRank || v.producer < 0)
      continue;
    // Apart, a layout some use may need is paid whatever the source and
    // the source's credited: not where making one is impossible (infinity
    // less infinity).
    const std::vector<int> may = layoutsUsesMayNeed(v);
    if (!std::all_of(may.begin(), may.end(), [&](int layout) {
          return std::isfinite(madeCost(v, layout));
        }))
      continue;
    double entries = 1;
    for (int g : scopeOfValue(v))
      entries *= static_cast<double>(unbudgeted->own[g].size());
    if (entries > static_cast<double>(splitAbove))
      constants.push_back(vi);
  }
  std::optional<ChoiceBound> best;
  // The constants apart the last solve priced below their cost at its
  // choice, by how much (most first).
  std::vector<std::pair<double, size_t>> below;
  enum class Solved { Unfit, Bound, Enough };
  auto solve = [&](const std::vector<char> &apart) {
    Elimination elimination(*unbudgeted, maxEntries, splitAbove, maxWork,
                            /*relaxed=*/true, relaxation, &apart);
    std::optional<ChoiceSolution> relaxed = elimination.solve();
    if (!relaxed)
      return Solved::Unfit;
    below.clear();
    for (size_t vi : constants)
      if (apart[vi]) {
        const double truth = unbudgeted->valueCost(vi, relaxed->choice);
        const double gap = truth - elimination.relaxedAt(vi, relaxed->choice);
        if (gap > 1e-12 * std::max(1.0, std::fabs(truth)))
          below.push_back({gap, vi});
      }
    std::stable_sort(
        below.begin(), below.end(),
        [](const auto &a, const auto &b) { return a.first > b.first; });
    const size_t count = std::count(apart.begin(), apart.end(), 1);
    std::string how = std::move(relaxed->how);
    if (count > 0)
      how.insert(how.size() - 1,
                 ", " + std::to_string(count) +
                     " constant(s) priced apart from their producers");
    ChoiceBound bound{relaxed->cost, std::move(relaxed->choice),
                      std::move(how)};
    const bool done = enough && enough(bound);
    if (!best || bound.bound > best->bound || done)
      best = std::move(bound);
    return done ? Solved::Enough : Solved::Bound;
  };
  // Every constant apart first (the smallest tables; if they do not fit,
  // nothing does), then those the relaxation's choice prices below their
  // cost with their producers again, while some is, the tables fit and
  // the bound rises; last all with their producers, where that fits (the
  // tightest).
  std::vector<char> apart(values.size(), 0);
  for (size_t vi : constants)
    apart[vi] = 1;
  if (Solved first = solve(apart); first != Solved::Bound)
    return best;
  while (!below.empty()) {
    // Those furthest below first: all of them, else half, ..., else one,
    // where the tables fit.
    const std::vector<std::pair<double, size_t>> lost = below;
    const double before = best->bound;
    bool fitted = false;
    for (size_t k = lost.size(); k > 0 && !fitted; k /= 2) {
      std::vector<char> trial = apart;
      for (size_t i = 0; i < k; ++i)
        trial[lost[i].second] = 0;
      const Solved solved = solve(trial);
      if (solved == Solved::Enough)
        return best;
      fitted = solved == Solved::Bound;
      if (fitted)
        apart = std::move(trial);
    }
    if (!fitted || !(best->bound > before))
      break;
  }
  if (std::count(apart.begin(), apart.end(), 1) > 0) {
    std::fill(apart.begin(), apart.end(), 0);
    solve(apart);
  }
  return best;
}

} // namespace shardc::planning
