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
#include <map>
#include <set>

namespace shardc::planning {

namespace {

/// An edge of the arborescence search: from, to (node indices), its cost.
struct Edge {
  int from, to;
  double cost;
};

/// The edges (indices into `edges`) of a minimum-cost arborescence of nodes
/// 0..n-1 rooted at `root`, every node reachable from it (Chu-Liu/Edmonds:
/// each node takes its cheapest incoming edge; a cycle among them is
/// contracted, the edges into it cheaper by what they replace, and solved
/// again). Ties go to the earlier edge.
std::vector<int> arborescence(int n, int root, const std::vector<Edge> &edges) {
  std::vector<int> in(n, -1);
  for (size_t e = 0; e < edges.size(); ++e) {
    const Edge &edge = edges[e];
    if (edge.to == root || edge.from == edge.to)
      continue;
    if (in[edge.to] < 0 || edge.cost < edges[in[edge.to]].cost)
      in[edge.to] = static_cast<int>(e);
  }
  // The cycles among the cheapest incoming edges.
  std::vector<int> comp(n, -1), seen(n, -1);
  std::vector<char> inCycle(n, 0);
  int comps = 0;
  for (int v = 0; v < n; ++v) {
    int u = v;
    while (u != root && seen[u] < 0) {
      seen[u] = v;
      u = edges[in[u]].from;
    }
    if (u != root && seen[u] == v && comp[u] < 0) {
      int x = u;
      do {
        comp[x] = comps;
        inCycle[x] = 1;
        x = edges[in[x]].from;
      } while (x != u);
      ++comps;
    }
  }
  std::vector<int> chosen;
  if (comps == 0) {
    for (int v = 0; v < n; ++v)
      if (v != root)
        chosen.push_back(in[v]);
    return chosen;
  }
  for (int v = 0; v < n; ++v)
    if (comp[v] < 0)
      comp[v] = comps++;
  std::vector<Edge> contracted;
  std::vector<int> original;
  for (size_t e = 0; e < edges.size(); ++e) {
    const Edge &edge = edges[e];
    const int a = comp[edge.from], b = comp[edge.to];
    if (a == b)
      continue;
    contracted.push_back(
        {a, b, edge.cost - (inCycle[edge.to] ? edges[in[edge.to]].cost : 0)});
    original.push_back(static_cast<int>(e));
  }
  // Each cycle keeps its edges but the one its entering edge replaces.
  std::vector<int> entered(comps, -1);
  for (int e : arborescence(comps, comp[root], contracted)) {
    const int kept = original[e];
    chosen.push_back(kept);
    if (inCycle[edges[kept].to])
      entered[comp[edges[kept].to]] = edges[kept].to;
  }
  for (int v = 0; v < n; ++v)
    if (inCycle[v] && entered[comp[v]] != v)
      chosen.push_back(in[v]);
  return chosen;
}

/// The distinct layouts value `v` is needed in under `choice`.
void neededLayouts(const ChoiceProblem::Value &v,
                   const std::vector<int> &choice, std::vector<int> &out) {
  out.clear();
  // Each layout once (a value may have thousands of uses): marked, then
  // the few distinct ones sorted.
  // (Unmarked again after: clearing the whole table on every call was a
  // twentieth of a 1,000-op search.)
  thread_local std::vector<char> seen;
  const size_t layouts = v.move.empty() ? 0 : v.move[0].size();
  if (seen.size() < layouts)
    seen.resize(layouts, 0);
  for (const ChoiceProblem::Use &use : v.uses) {
    int need = use.group < 0 ? use.need[0] : use.need[choice[use.group]];
    if (need >= 0 && !seen[need]) {
      seen[need] = 1;
      out.push_back(need);
    }
  }
  for (int need : out)
    seen[need] = 0;
  std::sort(out.begin(), out.end());
}

double costOfValue(const ChoiceProblem::Value &v,
                   const std::vector<int> &choice, std::vector<int> &scratch) {
  const int src = v.producer < 0 ? v.source[0] : v.source[choice[v.producer]];
  neededLayouts(v, choice, scratch);
  int impossible = 0;
  const double cost = cheapestMovesCost(v.move, src, scratch, impossible);
  return impossible > 0 ? ChoiceProblem::kImpossible : cost;
}

double memoryOfValue(const ChoiceProblem::Value &v,
                     const std::vector<int> &choice,
                     std::vector<int> &scratch) {
  if (v.held.empty())
    return 0;
  const int src = v.producer < 0 ? v.source[0] : v.source[choice[v.producer]];
  neededLayouts(v, choice, scratch);
  double total = v.sourceHeld ? v.held[src] : 0.0;
  for (int need : scratch)
    if (need != src)
      total += v.held[need];
  return total;
}

} // namespace

MoveTree cheapestMoves(const std::vector<std::vector<double>> &move, int source,
                       const std::vector<int> &needs) {
  MoveTree out;
  const size_t k = needs.size();
  out.from.assign(k, source);
  auto cost = [&](int a, int b) { return move[a][b]; };
  // Every layout as cheap from the source as from any other (one layout,
  // say): straight from the source is the cheapest, and the common case.
  // Copies need sources and needs to be ids of one set of layouts (a
  // square `move`).
  bool star = true;
  if (!move.empty() && move.size() == move[0].size())
    for (size_t b = 0; b < k && star; ++b)
      for (size_t a = 0; a < k && star; ++a)
        if (a != b && cost(needs[a], needs[b]) < cost(source, needs[b]))
          star = false;
  if (star) {
    for (size_t b = 0; b < k; ++b) {
      const double c = cost(source, needs[b]);
      if (std::isinf(c)) {
        out.from[b] = -1;
        ++out.impossible;
      } else {
        out.cost += c;
      }
    }
    return out;
  }
  // Nodes: 0 the source, 1..k the needs (one may be the source's own id,
  // at the cost move gives, 0 where it is made so). Those no chain of
  // possible moves reaches are left out.
  auto id = [&](int node) { return node == 0 ? source : needs[node - 1]; };
  const int n = static_cast<int>(k) + 1;
  std::vector<char> reached(n, 0);
  std::vector<int> stack{0};
  reached[0] = 1;
  while (!stack.empty()) {
    const int a = stack.back();
    stack.pop_back();
    for (int b = 1; b < n; ++b)
      if (!reached[b] && std::isfinite(cost(id(a), id(b)))) {
        reached[b] = 1;
        stack.push_back(b);
      }
  }
  std::vector<int> nodeOf(n, -1), back;
  for (int v = 0; v < n; ++v)
    if (reached[v]) {
      nodeOf[v] = static_cast<int>(back.size());
      back.push_back(v);
    }
  std::vector<Edge> edges;
  for (int a : back)
    for (int b : back)
      if (b != 0 && a != b && std::isfinite(cost(id(a), id(b))))
        edges.push_back({nodeOf[a], nodeOf[b], cost(id(a), id(b))});
  for (int e : arborescence(static_cast<int>(back.size()), 0, edges)) {
    const Edge &edge = edges[e];
    const int b = back[edge.to];
    out.from[b - 1] = id(back[edge.from]);
    out.cost += cost(id(back[edge.from]), id(b));
  }
  for (int b = 1; b < n; ++b)
    if (!reached[b]) {
      out.from[b - 1] = -1;
      ++out.impossible;
    }
  return out;
}

std::vector<int> layoutsUsesMayNeed(const ChoiceProblem::Value &value) {
  // Marked, not sorted: a constant read by thousands of ops of dozens of
  // options each lists a few layouts a hundred thousand times.
  int most = -1;
  for (const ChoiceProblem::Use &use : value.uses)
    for (int need : use.need)
      most = std::max(most, need);
  std::vector<char> marked(static_cast<size_t>(most + 1), 0);
  for (const ChoiceProblem::Use &use : value.uses)
    for (int need : use.need)
      if (need >= 0)
        marked[need] = 1;
  std::vector<int> needed;
  for (int l = 0; l <= most; ++l)
    if (marked[l])
      needed.push_back(l);
  return needed;
}

std::vector<std::pair<int, int>>
movesBetweenCopies(const ChoiceProblem::Value &value) {
  const std::vector<int> needed = layoutsUsesMayNeed(value);
  std::vector<std::pair<int, int>> out;
  if (value.move.empty() || value.move.size() != value.move[0].size())
    return out;
  for (int to : needed)
    for (int from : needed) {
      if (from == to || std::isinf(value.move[from][to]))
        continue;
      for (int s : value.source)
        if (s != from && value.move[from][to] < value.move[s][to]) {
          out.push_back({from, to});
          break;
        }
    }
  return out;
}

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
  std::vector<int> scratch;
  if (heldAtOnce()) {
    double total = 0;
    for (const Value &v : values)
      total += memoryOfValue(v, choice, scratch);
    return total;
  }
  // What each point holds: each value's bytes added at its first point and
  // taken off past its last, summed in order (a value's bytes are added
  // before any is taken off at one point).
  int points = 0;
  for (const Value &v : values)
    points = std::max(points, v.last + 1);
  std::vector<double> added(points + 1, 0.0), freed(points + 1, 0.0);
  for (const Value &v : values) {
    const double bytes = memoryOfValue(v, choice, scratch);
    added[v.first] += bytes;
    freed[v.last + 1] += bytes;
  }
  double now = 0, most = 0;
  for (int p = 0; p < points; ++p) {
    now += added[p] - freed[p];
    most = std::max(most, now);
  }
  return most;
}

bool ChoiceProblem::heldAtOnce() const {
  return std::all_of(values.begin(), values.end(), [](const Value &v) {
    return v.first == 0 && v.last == 0;
  });
}

std::vector<std::vector<int>> ChoiceProblem::peakPoints() const {
  std::vector<int> ends;
  for (const Value &v : values)
    ends.push_back(v.last);
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  // A sweep: values join at their first point, leave past their last.
  std::vector<int> byFirst(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    byFirst[i] = static_cast<int>(i);
  std::stable_sort(byFirst.begin(), byFirst.end(), [&](int a, int b) {
    return values[a].first < values[b].first;
  });
  std::set<int> held;
  size_t next = 0;
  std::vector<std::vector<int>> out;
  for (int p : ends) {
    for (; next < byFirst.size() && values[byFirst[next]].first <= p; ++next)
      held.insert(byFirst[next]);
    for (auto it = held.begin(); it != held.end();)
      it = values[*it].last < p ? held.erase(it) : std::next(it);
    std::vector<int> here(held.begin(), held.end());
    if (out.empty() || out.back() != here)
      out.push_back(std::move(here));
  }
  return out;
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
  // Values that share a move table and hold alike share the table made
  // of them (a chain's thousands of values, a few tables).
  std::map<std::pair<const void *, std::vector<double>>, SharedRows<double>>
      made;
  for (Value &v : out.values) {
    const Value &original = values[&v - out.values.data()];
    const size_t n = v.move.size();
    // A source held: the producer's option pays it (a fixed source is a
    // move to itself, paid by every choice: counted as a need of it).
    if (!v.held.empty() && v.producer >= 0 && v.sourceHeld)
      for (size_t o = 0; o < v.source.size(); ++o)
        out.own[v.producer][o] += v.held[v.source[o]];
    auto [at, fresh] =
        made.try_emplace({original.move.identity(), original.held});
    if (fresh || !original.move.identity()) {
      for (size_t from = 0; from < n; ++from)
        for (size_t to = 0; to < n; ++to) {
          const double m = original.move[from][to];
          v.move.mutableAt(from)[to] = std::isinf(m) ? kImpossible
                                       : from == to || v.held.empty()
                                           ? 0
                                           : v.held[to];
        }
      at->second = v.move;
    } else {
      v.move = at->second;
    }
    if (!v.held.empty() && v.producer < 0 && v.sourceHeld &&
        v.held[v.source[0]] > 0) {
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

int ChoiceProblem::sourceOf(size_t value,
                            const std::vector<int> &choice) const {
  const Value &v = values[value];
  return v.producer < 0 ? v.source[0] : v.source[choice[v.producer]];
}

std::vector<int> ChoiceProblem::neededOf(size_t value,
                                         const std::vector<int> &choice) const {
  std::vector<int> out;
  neededLayouts(values[value], choice, out);
  return out;
}

double ChoiceProblem::valueCost(size_t value,
                                const std::vector<int> &choice) const {
  // Called once per table entry by elimination: no allocation per call.
  thread_local std::vector<int> scratch;
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
    MoveTree tree = cheapestMoves(v.move, src, needs);
    // Parents before the copies made of them.
    std::vector<char> listed(needs.size(), 0);
    for (size_t round = 0; round < needs.size(); ++round)
      for (size_t k = 0; k < needs.size(); ++k) {
        const int from = tree.from[k] < 0 ? src : tree.from[k];
        const size_t parent =
            std::find(needs.begin(), needs.end(), from) - needs.begin();
        if (listed[k] || (from != src && !listed[parent]))
          continue;
        listed[k] = 1;
        if (needs[k] != from && v.move[from][needs[k]] != 0)
          out.push_back({static_cast<int>(i), from, needs[k]});
      }
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
  // Tables values share are checked once.
  std::set<const void *> checkedTables;
  for (size_t i = 0; i < values.size(); ++i) {
    const Value &v = values[i];
    const std::string name = "value " + std::to_string(i);
    // A need is a column of every row: below the shortest.
    size_t columns = v.move.empty() ? 0 : v.move[0].size();
    for (const auto &row : v.move)
      columns = std::min(columns, row.size());
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
        if (!v.move.empty() && n >= static_cast<int>(columns))
          return name + " needs layout id " + std::to_string(n);
    }
    if (!v.move.identity() || checkedTables.insert(v.move.identity()).second)
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
    if (v.first < 0 || v.last < v.first || v.last > (1 << 30))
      return name + " is held from point " + std::to_string(v.first) + " to " +
             std::to_string(v.last);
    if (v.madeByEveryRank)
      for (const auto &row : v.move)
        if (row.size() != v.move.size())
          return name + " is made by every rank, but its moves are not " +
                 std::to_string(v.move.size()) + " x " +
                 std::to_string(v.move.size()) +
                 " (sources and needs one set of layouts)";
    if (v.madeByEveryRank)
      for (int l : layoutsUsesMayNeed(v))
        for (const auto &row : v.move)
          if (&row != &v.move[l] && !(row[l] == madeCost(v, l)))
            return name + " is made by every rank, but its moves to layout " +
                   std::to_string(l) + " differ by source";
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
