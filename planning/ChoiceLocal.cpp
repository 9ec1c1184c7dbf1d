//===- ChoiceLocal.cpp - Local search among options -----------------------===//
//
// solveLocal (shardc/Planning/Choice.h): single moves from a worklist, then
// pair moves, lexicographic under a memory budget; under a budget, also
// from the answers to the time plus a multiple of the bytes held (the
// Lagrangian relaxation of the budget).
//===----------------------------------------------------------------------===//

#include "shardc/Planning/Choice.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace shardc::planning {

namespace {

/// What is held at each program point, for the peak: range adds and the
/// most at any point. A bottom-up segment tree over a power of two of
/// leaves (points past the last hold nothing): a node keeps the most
/// below it plus what was added to its whole range (`added`, internal
/// nodes), so the root is the peak; an add touches the O(log n) nodes
/// covering the range and their ancestors, without recursion.
class HeldByPoint {
public:
  explicit HeldByPoint(int points) {
    while (n < points)
      n *= 2;
    most.assign(2 * n, 0.0);
    added.assign(n, 0.0);
  }
  void add(int first, int last, double bytes) {
    if (bytes == 0)
      return;
    int l = first + n, r = last + n + 1;
    const int l0 = l, r0 = r - 1;
    for (; l < r; l /= 2, r /= 2) {
      if (l & 1)
        apply(l++, bytes);
      if (r & 1)
        apply(--r, bytes);
    }
    pull(l0);
    pull(r0);
  }
  double peak() const { return most[1]; }

private:
  void apply(int node, double bytes) {
    most[node] += bytes;
    if (node < n)
      added[node] += bytes;
  }
  void pull(int node) {
    for (node /= 2; node >= 1; node /= 2)
      most[node] = std::max(most[2 * node], most[2 * node + 1]) + added[node];
  }
  int n = 1;
  std::vector<double> most, added;
};

/// A cost as its finite part and its number of impossible moves, so that
/// changes subtract without inf - inf. Memory rides along: the bytes held.
struct LocalCost {
  double finite = 0;
  int64_t impossible = 0;
  double memory = 0;
  LocalCost &operator+=(const LocalCost &o) {
    finite += o.finite;
    impossible += o.impossible;
    memory += o.memory;
    return *this;
  }
  LocalCost operator-(const LocalCost &o) const {
    return {finite - o.finite, impossible - o.impossible, memory - o.memory};
  }
};

/// Single moves from a worklist, then pair moves, on one choice kept with
/// what each value costs under it (changing one group's option updates
/// only the values it touches).
class LocalSearch {
public:
  LocalSearch(const ChoiceProblem &problem, std::vector<int> start);

  ChoiceSolution run() {
    singles(true);
    pairMoves();
    singles(true);
    ChoiceSolution out;
    out.cost = problem.evaluate(choice);
    out.choice = std::move(choice);
    out.how = "local search (one op, then a producer and a user, at a time "
              "to their best shardings)";
    return out;
  }

private:
  using Cost = LocalCost;

  LocalCost costOf(size_t i);
  LocalCost moveTo(size_t g, int o);
  /// A change's effect on the bytes held: its sum, or the peak's change.
  void peakChange(Cost &change) {
    if (byPoint)
      change.memory = heldAt.peak() - held;
  }
  /// What a change leaves over the budget.
  double excess(const Cost &change) const {
    return budgeted ? std::max(0.0, held + change.memory - budget) : 0.0;
  }
  bool less(const Cost &a, const Cost &b) const {
    if (a.impossible != b.impossible)
      return a.impossible < b.impossible;
    if (double ea = excess(a), eb = excess(b); ea != eb)
      return ea < eb;
    return a.finite < b.finite - 1e-9 * std::max(1.0, std::fabs(b.finite));
  }
  /// What other groups' choices depend on, per value: its source and, per
  /// layout needed, whether one or several uses need it; appended to `out`.
  void appendShape(int i, std::vector<int> &out) const {
    const ChoiceProblem::Value &v = problem.values[i];
    out.push_back(v.producer < 0 ? v.source[0] : v.source[choice[v.producer]]);
    out.push_back(static_cast<int>(needed[i].size()));
    for (int l : needed[i]) {
      out.push_back(l);
      out.push_back(std::min(counts[countAt[i] + l], 2));
    }
  }
  /// One more or one fewer use of value i needs layout l; the value is
  /// dirty where the layouts it is needed in change (its cost depends on
  /// them and its source only, not on how many uses need each).
  void countUp(int i, int l) {
    if (counts[countAt[i] + l]++ == 0) {
      needed[i].insert(std::lower_bound(needed[i].begin(), needed[i].end(), l),
                       l);
      dirty[i] = 1;
    }
  }
  void countDown(int i, int l) {
    if (--counts[countAt[i] + l] == 0) {
      needed[i].erase(std::lower_bound(needed[i].begin(), needed[i].end(), l));
      dirty[i] = 1;
    }
  }
  void queue(int g) {
    if (!queued[g]) {
      queued[g] = true;
      work.push_back(g);
    }
  }
  void singles(bool sweep);
  void bestSingle(size_t g);
  /// Revisits the groups of value i, whose needs or source changed: at
  /// once for a value of few groups; for a wide one (a hoisted zero read
  /// by thousands of ops), once the worklist empties, however often it
  /// changed meanwhile (a group passing through an option on its way to
  /// its best would otherwise wake thousands twice: quadratic time). Not
  /// `mover`, the group whose single move changed it: it is at its best
  /// with everything else as it is (a pair's two groups are woken: a pair
  /// move tries only some of either's options).
  void wake(int i, int mover = -1);
  /// A wide value every rank makes alone (a hoisted constant): its users
  /// share only the copies made in one layout, each costing what making it
  /// computes, so one user's move is no reason to revisit the thousands of
  /// others, nor to try their pairs again (its cost stays exact).
  bool quiet(int i) const {
    return problem.values[i].madeByEveryRank && groupsOf[i].size() > kWideValue;
  }
  /// Group g's choice changed: the values it touches changed now, and
  /// every pair tried since one of them last changed is worth trying again
  /// (pairMoves' worklist).
  void stamp(int g) {
    for (int i : touches[g]) {
      if (quiet(i))
        continue;
      for (size_t k : triedSince[i])
        markPair(k);
      triedSince[i].clear();
    }
  }
  /// Pair k (pairMoves) is to be tried again: in the round under way where
  /// it comes after the pair being tried, else in the next round.
  void markPair(size_t k) {
    if (pairDirty[k])
      return;
    pairDirty[k] = 1;
    if (k > pairAt)
      thisRound.push(k);
    else
      nextRound.push(k);
  }
  void pairMoves();

  const ChoiceProblem &problem;
  const size_t groups;
  std::vector<int> choice;
  const double budget;
  const bool budgeted;
  /// Under a budget with values held over ranges of points: the peak, kept
  /// by point (else the bytes held are a sum, kept as one number).
  bool byPoint;
  HeldByPoint heldAt;
  /// Per value: how many uses need each layout now (from countAt[value] in
  /// counts), the layouts some use needs (sorted), and its cost now.
  std::vector<int> counts;
  std::vector<size_t> countAt;
  std::vector<std::vector<int>> needed;
  std::vector<Cost> now;
  /// The values a move changed (their needs or source), for moveTo.
  std::vector<char> dirty;
  /// Per group, what moveTo reads, flat: each use's value and the layouts
  /// it needs by option; each value touched and, where the group produces
  /// it, its sources by option (else null).
  struct UseAt {
    int value;
    const int *need;
  };
  struct TouchAt {
    int value;
    const int *source;
  };
  std::vector<std::vector<UseAt>> usesAt;
  std::vector<std::vector<TouchAt>> touchAt;
  /// Per value, what costOf reads: its producer (-1: none), sources by
  /// option and move costs.
  std::vector<int> producerOf;
  std::vector<const int *> sourcesOf;
  std::vector<const std::vector<std::vector<double>> *> movesOf;
  std::vector<std::vector<int>> touches;
  /// The groups touching each value: a group's change may make theirs
  /// worth revisiting.
  std::vector<std::vector<int>> groupsOf;
  /// The cheapest moves' cost and impossible count of a value (its index,
  /// source and needed layouts, the key) needed in three layouts or more.
  struct KeyHash {
    size_t operator()(const std::vector<int> &k) const {
      uint64_t h = 1469598103934665603ull;
      for (int x : k)
        h = (h ^ static_cast<uint32_t>(x)) * 1099511628211ull;
      return static_cast<size_t>(h);
    }
  };
  static constexpr size_t kMostTrees = size_t(1) << 20;
  std::unordered_map<std::vector<int>, std::pair<double, int64_t>, KeyHash>
      trees;
  std::vector<int> key;
  /// The shapes of the values a single move touches, before it (of the
  /// wide values a pair move touches: wideValues), and those that changed.
  std::vector<int> shapes, shape;
  std::vector<int> wideValues, changedWide;
  /// Wide values (more than kWideValue groups) waiting to wake theirs (a
  /// quiet one: its producer).
  static constexpr size_t kWideValue = 64;
  std::vector<int> deferred;
  std::vector<bool> isDeferred;
  /// pairMoves' worklist: per value, the pairs (indices) tried since it
  /// last changed (a pair's best options depend only on the values its two
  /// groups touch: it is tried again once one of them changes); whether
  /// each pair waits to be tried; the pairs of the round under way after
  /// the one at pairAt, and those of the next round (each ascending).
  std::vector<std::vector<size_t>> triedSince;
  std::vector<char> pairDirty;
  size_t pairAt = 0;
  using PairQueue =
      std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>>;
  PairQueue thisRound, nextRound;
  /// The bytes held now.
  double held = 0;
  /// A worklist in first-in first-out order, every group first in order.
  std::deque<int> work;
  std::vector<bool> queued;
  /// Under a budget, bytes freed anywhere may let any group take a faster
  /// option: once the worklist empties, every group is visited again while
  /// the last round moved one. At most kSweeps such rounds in all, and none
  /// between pair moves (so that the time stays near linear).
  static constexpr int kSweeps = 4;
  int sweepsLeft = kSweeps;
  bool movedSinceSweep = false;
};

static int pointsOf(const ChoiceProblem &problem) {
  int points = 1;
  for (const ChoiceProblem::Value &v : problem.values)
    points = std::max(points, v.last + 1);
  return points;
}

LocalSearch::LocalSearch(const ChoiceProblem &problem, std::vector<int> start)
    : problem(problem), groups(problem.own.size()), choice(std::move(start)),
      budget(problem.memoryBudget),
      budgeted(budget != ChoiceProblem::kImpossible),
      byPoint(budgeted && !problem.heldAtOnce()),
      heldAt(byPoint ? pointsOf(problem) : 1), countAt(problem.values.size()),
      needed(problem.values.size()), now(problem.values.size()),
      dirty(problem.values.size(), 0), usesAt(groups), touchAt(groups),
      producerOf(problem.values.size()), sourcesOf(problem.values.size()),
      movesOf(problem.values.size()), touches(groups),
      groupsOf(problem.values.size()), isDeferred(problem.values.size(), false),
      triedSince(problem.values.size()), queued(groups, true) {
  if (choice.size() != groups)
    choice.assign(groups, 0);
  size_t layouts = 0;
  for (size_t i = 0; i < problem.values.size(); ++i) {
    const ChoiceProblem::Value &v = problem.values[i];
    countAt[i] = layouts;
    layouts += v.move.empty() ? 0 : v.move[0].size();
    producerOf[i] = v.producer;
    sourcesOf[i] = v.source.data();
    movesOf[i] = &v.move.elements();
  }
  counts.assign(layouts, 0);
  for (size_t i = 0; i < problem.values.size(); ++i) {
    const ChoiceProblem::Value &v = problem.values[i];
    for (size_t u = 0; u < v.uses.size(); ++u) {
      const ChoiceProblem::Use &use = v.uses[u];
      const int need =
          use.group < 0 ? use.need[0] : use.need[choice[use.group]];
      if (need >= 0)
        countUp(static_cast<int>(i), need);
      if (use.group >= 0) {
        usesAt[use.group].push_back({static_cast<int>(i), use.need.data()});
        touches[use.group].push_back(static_cast<int>(i));
      }
    }
    if (v.producer >= 0)
      touches[v.producer].push_back(static_cast<int>(i));
    now[i] = costOf(i);
    dirty[i] = 0;
    if (byPoint)
      heldAt.add(v.first, v.last, now[i].memory);
  }
  for (size_t g = 0; g < groups; ++g) {
    std::vector<int> &t = touches[g];
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    for (int i : t)
      touchAt[g].push_back(
          {i, producerOf[i] == static_cast<int>(g) ? sourcesOf[i] : nullptr});
  }
  for (const Cost &c : now)
    held += c.memory;
  if (byPoint)
    held = heldAt.peak();
  for (size_t g = 0; g < groups; ++g)
    for (int i : touches[g])
      groupsOf[i].push_back(static_cast<int>(g));
  for (size_t g = 0; g < groups; ++g)
    work.push_back(static_cast<int>(g));
}

/// Value `i`'s cost under the choice now.
LocalCost LocalSearch::costOf(size_t i) {
  const ChoiceProblem::Value &v = problem.values[i];
  const int producer = producerOf[i];
  const int src = sourcesOf[i][producer < 0 ? 0 : choice[producer]];
  const std::vector<std::vector<double>> &move = *movesOf[i];
  Cost total;
  // The bytes held count only under a budget.
  if (budgeted && !v.held.empty()) {
    total.memory = v.sourceHeld ? v.held[src] : 0.0;
    for (int l : needed[i])
      if (l != src)
        total.memory += v.held[l];
  }
  int impossible = 0;
  if (v.madeByEveryRank) {
    // Each layout needed but the source made once: a sum, not a tree (a
    // hoisted constant read by thousands of ops in a dozen layouts).
    for (int l : needed[i]) {
      if (l == src)
        continue;
      const double c = madeCost(v, l);
      if (std::isinf(c))
        ++total.impossible;
      else
        total.finite += c;
    }
    return total;
  }
  if (needed[i].size() < 3) {
    total.finite = cheapestMovesCost(move, src, needed[i], impossible);
    total.impossible = impossible;
    return total;
  }
  // Three layouts or more: a tree of moves to find (cheapestMoves), which
  // a value read by many ops asks for again and again, for a few sets of
  // layouts; each set's answer is kept.
  key.assign({static_cast<int>(i), src});
  key.insert(key.end(), needed[i].begin(), needed[i].end());
  auto [at, fresh] = trees.try_emplace(key);
  if (fresh) {
    if (trees.size() > kMostTrees) {
      trees.clear();
      at = trees.try_emplace(key).first;
    }
    at->second.first = cheapestMovesCost(move, src, needed[i], impossible);
    at->second.second = impossible;
  }
  total.finite = at->second.first;
  total.impossible = at->second.second;
  return total;
}

/// Moves group g to option o; returns the values' change. Only the values
/// whose needed layouts or source the move changes are costed again.
LocalCost LocalSearch::moveTo(size_t g, int o) {
  const int from = choice[g];
  for (const UseAt &use : usesAt[g]) {
    const int was = use.need[from], is = use.need[o];
    if (was == is)
      continue;
    if (was >= 0)
      countDown(use.value, was);
    if (is >= 0)
      countUp(use.value, is);
  }
  choice[g] = o;
  Cost change;
  for (const TouchAt &touch : touchAt[g]) {
    const int i = touch.value;
    if (touch.source && touch.source[from] != touch.source[o])
      dirty[i] = 1;
    if (!dirty[i])
      continue;
    dirty[i] = 0;
    Cost c = costOf(i);
    if (byPoint)
      heldAt.add(problem.values[i].first, problem.values[i].last,
                 c.memory - now[i].memory);
    change += c - now[i];
    now[i] = c;
  }
  return change;
}

/// Single moves until the worklist empties (then, where `sweep`, the
/// sweeps of every group under a budget).
void LocalSearch::singles(bool sweep) {
  while (true) {
    if (work.empty() && !deferred.empty()) {
      // The wide values whose needs changed since: their groups, once (a
      // quiet one's producer).
      for (int i : deferred) {
        isDeferred[i] = false;
        if (quiet(i))
          queue(producerOf[i]);
        else
          for (int h : groupsOf[i])
            queue(h);
      }
      deferred.clear();
    }
    if (work.empty()) {
      if (!(sweep && budgeted && movedSinceSweep && sweepsLeft > 0))
        break;
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
    bestSingle(g);
  }
}

/// Group g to its best option, the others as they are; the groups of the
/// values whose shape changed revisited (a value used by thousands of ops
/// whose needed layouts stay the same wakes none).
void LocalSearch::bestSingle(size_t g) {
  const int current = choice[g];
  const size_t options = problem.own[g].size();
  if (options < 2)
    return;
  shapes.clear();
  for (int i : touches[g])
    appendShape(i, shapes);
  // Each option's change of the total from `current`.
  Cost values, best;
  int bestOption = current;
  for (int o = 0; o < static_cast<int>(options); ++o) {
    if (o == current)
      continue;
    values += moveTo(g, o);
    Cost change = values;
    change.finite += problem.own[g][o] - problem.own[g][current];
    peakChange(change);
    if (less(change, best)) {
      best = change;
      bestOption = o;
    }
  }
  moveTo(g, bestOption);
  if (bestOption == current)
    return;
  held += best.memory;
  movedSinceSweep = true;
  stamp(g);
  size_t at = 0;
  for (int i : touches[g]) {
    shape.clear();
    appendShape(i, shape);
    const size_t length = 2 + 2 * static_cast<size_t>(shapes[at + 1]);
    const bool same =
        shape.size() == length &&
        std::equal(shape.begin(), shape.end(), shapes.begin() + at);
    at += length;
    if (!same)
      wake(i, static_cast<int>(g));
  }
}

void LocalSearch::wake(int i, int mover) {
  if (quiet(i)) {
    // Its producer only, once the worklist empties: the layouts its users
    // settled on may be cheaper made there once (pair moves, which would
    // move them together, skip a quiet value's thousands of links).
    if (producerOf[i] >= 0 && !isDeferred[i]) {
      isDeferred[i] = true;
      deferred.push_back(i);
    }
    return;
  }
  if (groupsOf[i].size() <= kWideValue) {
    for (int h : groupsOf[i])
      if (h != mover)
        queue(h);
  } else if (!isDeferred[i]) {
    isDeferred[i] = true;
    deferred.push_back(i);
  }
}

/// Pairs: a value's producer and one of its users move together (a weight
/// and the op that reads it, say, where either alone makes a copy), each
/// pair to its best two options, and single moves again after any that
/// improves, until a round improves none or the pairs have tried
/// kPairWork options in all (so that the time stays linear). What a pair
/// reaches that single moves do not is the user reading the value in the
/// layout the producer makes: so, per other option of the producer, the
/// other options of the user that need a value between them in its source
/// layout (not every combination: a hoisted fill read by hundreds of ops
/// of 16 options each made that 256 per pair, seen as half of a 1,000-op
/// search; and either group moving alone improves nothing, single moves
/// having run until none did).
void LocalSearch::pairMoves() {
  // (producer, user, value, use) for each use by another group.
  struct Link {
    int p, u, value, use;
    bool operator<(const Link &o) const {
      return std::tie(p, u, value, use) < std::tie(o.p, o.u, o.value, o.use);
    }
  };
  // Not through a quiet value (a hoisted constant read by thousands of
  // ops): a user reading it in the layout it is made in saves at most the
  // cost of making one copy, which the producer's revisit once its users
  // settle weighs (wake), and its thousands of links were half of the
  // pairs tried.
  std::vector<Link> links;
  for (size_t i = 0; i < problem.values.size(); ++i) {
    const ChoiceProblem::Value &v = problem.values[i];
    if (v.producer >= 0 && !quiet(static_cast<int>(i)))
      for (size_t k = 0; k < v.uses.size(); ++k)
        if (v.uses[k].group >= 0 && v.uses[k].group != v.producer)
          links.push_back({v.producer, v.uses[k].group, static_cast<int>(i),
                           static_cast<int>(k)});
  }
  std::sort(links.begin(), links.end());
  // The pairs: runs of links of one (producer, user), [first, end).
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t k = 0; k < links.size();) {
    size_t e = k;
    while (e < links.size() && links[e].p == links[k].p &&
           links[e].u == links[k].u)
      ++e;
    pairs.push_back({k, e});
    k = e;
  }
  // Last producer first: the first single moves went in program order, so
  // what they left to gain is where they met the layouts pinned late (the
  // results); an improvement there sets off single moves back up the
  // function, which the pairs it reaches see in the same round. First
  // producer first, every pair was tried twice (919k moves on a 6,000-op
  // MLP chain, now 626k, the same answer), and on 600 linalg.generic
  // blocks it stopped after 8.7M moves at 41 times the modelled time this
  // order reaches in 0.37M.
  std::reverse(pairs.begin(), pairs.end());
  constexpr int64_t kPairWork = int64_t(1) << 22;
  int64_t tried = 0;
  // Rounds over the pairs in order, each trying those whose values changed
  // since they were last tried (all in the first), until one tries none: a
  // worklist, so that a round costs what it tries (rounds of a full scan
  // each were quadratic where each pair's move lets the one before it
  // improve: 26 s at 10^5 ops).
  pairDirty.assign(pairs.size(), 0);
  pairAt = 0;
  for (size_t k = 0; k < pairs.size(); ++k)
    if (problem.own[links[pairs[k].first].p].size() >= 2 &&
        problem.own[links[pairs[k].first].u].size() >= 2) {
      pairDirty[k] = 1;
      thisRound.push(k);
    }
  // Pair k tried now: each value it touches (but quiet ones, which never
  // change: stamp) makes it worth trying again once that value changes.
  auto tryNow = [&](size_t k, int p, int u) {
    pairDirty[k] = 0;
    for (int g : {p, u})
      for (int i : touches[g])
        if (!quiet(i))
          triedSince[i].push_back(k);
  };
  std::vector<int> userOptions;
  std::vector<std::vector<std::pair<int, int>>> needing;
  while (true) {
    if (thisRound.empty()) {
      if (nextRound.empty())
        return;
      std::swap(thisRound, nextRound);
    }
    const size_t k = thisRound.top();
    thisRound.pop();
    // An entry left by a pair tried since it was queued.
    if (!pairDirty[k])
      continue;
    pairAt = k;
    const Link &first = links[pairs[k].first];
    const int p = first.p, u = first.u;
    const int kp = static_cast<int>(problem.own[p].size());
    const int ku = static_cast<int>(problem.own[u].size());
    if (tried > kPairWork)
      return;
    tryNow(k, p, u);
    const int cp = choice[p], cu = choice[u];
    // The shapes of the wide values the pair touches, before it moves.
    wideValues.clear();
    shapes.clear();
    for (int g : {p, u})
      for (int i : touches[g])
        if (groupsOf[i].size() > kWideValue) {
          wideValues.push_back(i);
          appendShape(i, shapes);
        }
    // Per link, the user's options but its own by the layout each reads
    // the value in, (layout, option) ascending: the options reading a
    // layout are a range, found for each option of p without a scan of
    // every pair of options.
    needing.clear();
    for (size_t l = pairs[k].first; l < pairs[k].second; ++l) {
      const std::vector<int> &need =
          problem.values[links[l].value].uses[links[l].use].need;
      std::vector<std::pair<int, int>> &byLayout = needing.emplace_back();
      for (int b = 0; b < ku; ++b)
        if (b != cu)
          byLayout.push_back({need[b], b});
      std::sort(byLayout.begin(), byLayout.end());
    }
    Cost values, best;
    int bestP = cp, bestU = cu;
    for (int a = 0; a < kp; ++a) {
      if (a == cp)
        continue;
      // The user's other options worth trying with p at a: those reading
      // a value between them as it is made (ascending). None: p alone at
      // a is a single move, tried already; p is not moved there (the
      // changes summed in `values` are from where the groups are,
      // wherever that is).
      userOptions.clear();
      for (size_t l = pairs[k].first; l < pairs[k].second; ++l) {
        const int made = problem.values[links[l].value].source[a];
        const std::vector<std::pair<int, int>> &byLayout =
            needing[l - pairs[k].first];
        for (auto it = std::lower_bound(byLayout.begin(), byLayout.end(),
                                        std::make_pair(made, -1));
             it != byLayout.end() && it->first == made; ++it)
          userOptions.push_back(it->second);
      }
      if (pairs[k].second - pairs[k].first > 1) {
        std::sort(userOptions.begin(), userOptions.end());
        userOptions.erase(std::unique(userOptions.begin(), userOptions.end()),
                          userOptions.end());
      }
      if (userOptions.empty())
        continue;
      values += moveTo(p, a);
      tried += static_cast<int64_t>(userOptions.size());
      for (int b : userOptions) {
        values += moveTo(u, b);
        Cost change = values;
        change.finite += problem.own[p][a] - problem.own[p][cp] +
                         problem.own[u][b] - problem.own[u][cu];
        peakChange(change);
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
    stamp(p);
    stamp(u);
    tryNow(k, p, u);
    // Their values' groups revisited: a wide value's only where its shape
    // changed (what its other groups' choices depend on), as after a
    // single move; else a value read by every block (a fanout) woke every
    // block after each pair that improved: quadratic.
    changedWide.clear();
    for (size_t w = 0, at = 0; w < wideValues.size(); ++w) {
      shape.clear();
      appendShape(wideValues[w], shape);
      const size_t length = 2 + 2 * static_cast<size_t>(shapes[at + 1]);
      if (shape.size() != length ||
          !std::equal(shape.begin(), shape.end(), shapes.begin() + at))
        changedWide.push_back(wideValues[w]);
      at += length;
    }
    for (int g : {p, u})
      for (int i : touches[g])
        if (groupsOf[i].size() <= kWideValue ||
            std::count(changedWide.begin(), changedWide.end(), i))
          wake(i);
    singles(false);
  }
}

ChoiceSolution localSearch(const ChoiceProblem &problem,
                           std::vector<int> start) {
  return LocalSearch(problem, std::move(start)).run();
}

/// `problem` without its budget, each cost plus `lambda` times the bytes
/// it holds (`bytes`: problem.memoryProblem()).
ChoiceProblem priced(const ChoiceProblem &problem, const ChoiceProblem &bytes,
                     double lambda) {
  ChoiceProblem out = problem;
  out.memoryBudget = ChoiceProblem::kImpossible;
  for (size_t g = 0; g < out.own.size(); ++g)
    for (size_t o = 0; o < out.own[g].size(); ++o)
      out.own[g][o] += lambda * bytes.own[g][o];
  // Values that share both tables share the priced one.
  std::map<std::pair<const void *, const void *>, SharedRows<double>> made;
  for (size_t v = 0; v < out.values.size(); ++v) {
    const SharedRows<double> &time = problem.values[v].move;
    const SharedRows<double> &held = bytes.values[v].move;
    auto [at, fresh] = made.try_emplace({time.identity(), held.identity()});
    if (!fresh && time.identity() && held.identity()) {
      out.values[v].move = at->second;
      continue;
    }
    SharedRows<double> &move = out.values[v].move;
    for (size_t a = 0; a < time.size(); ++a)
      for (size_t b = 0; b < time[a].size(); ++b)
        if (!std::isinf(time[a][b]))
          move.mutableAt(a)[b] = time[a][b] + lambda * held[a][b];
    at->second = move;
  }
  return out;
}

} // namespace

ChoiceSolution solveLocal(const ChoiceProblem &problem,
                          std::vector<int> start) {
  if (start.size() != problem.own.size())
    start.assign(problem.own.size(), 0);
  const bool budgeted = problem.memoryBudget != ChoiceProblem::kImpossible;
  ChoiceProblem free;
  if (budgeted) {
    // Under a budget, the search without it first: where its answer fits,
    // no single or pair move within the budget improves it either, and the
    // budget's searches below would end there (lambda -> 0).
    free = problem;
    free.memoryBudget = ChoiceProblem::kImpossible;
    ChoiceSolution unbudgeted = localSearch(free, start);
    if (std::isfinite(unbudgeted.cost) &&
        problem.memory(unbudgeted.choice) <= problem.memoryBudget)
      return unbudgeted;
    // A start over the budget: lowering a peak one move at a time from far
    // over it was seen to take 40 s on 10,000 ops. So from the answer
    // without the budget (the least time, a little over it where the
    // budget binds a little), and from the choice local search finds holds
    // least (summed over the function), which fits: the better.
    if (problem.memory(start) > problem.memoryBudget) {
      ChoiceSolution repaired = localSearch(problem, unbudgeted.choice);
      ChoiceSolution fewest = localSearch(problem.memoryProblem(), start);
      if (problem.memory(fewest.choice) <= problem.memoryBudget) {
        ChoiceSolution fromFewest = localSearch(problem, fewest.choice);
        if (fromFewest.cost < repaired.cost)
          repaired = std::move(fromFewest);
      }
      start = repaired.choice;
      if (problem.own.size() > 2048)
        return repaired;
    }
  }
  ChoiceSolution best = localSearch(problem, start);
  // Under a budget, moving one or two groups at a time from a start within
  // it seldom reaches what a different shape of choice would: random
  // 60-op programs were 1.8 times the optimum (median). So also: local
  // search on the time plus lambda times the bytes held, unbudgeted, for
  // lambda bisected (in its logarithm) to the least whose answer fits,
  // each answer that fits polished by the budgeted search. A dozen
  // searches: only for problems of up to 2,048 groups.
  if (!budgeted || problem.own.size() > 2048)
    return best;
  const ChoiceProblem bytes = problem.memoryProblem();
  auto fits = [&](const std::vector<int> &choice) {
    return problem.memory(choice) <= problem.memoryBudget;
  };
  auto consider = [&](const std::vector<int> &choice) {
    ChoiceSolution polished = localSearch(problem, choice);
    if (polished.cost < best.cost)
      best = std::move(polished);
  };
  // The scale: a microsecond per byte of the start's time per its bytes.
  const double time = free.evaluate(start), held = problem.memory(start);
  const double scale =
      (std::isfinite(time) ? std::max(time, 1.0) : 1.0) / std::max(held, 1.0);
  double lo = std::log(scale) - 12, hi = std::log(scale) + 12;
  ChoiceSolution high =
      localSearch(priced(problem, bytes, std::exp(hi)), start);
  if (!fits(high.choice))
    return best;
  consider(high.choice);
  for (int step = 0; step < 10; ++step) {
    const double mid = (lo + hi) / 2;
    ChoiceSolution at =
        localSearch(priced(problem, bytes, std::exp(mid)), start);
    if (fits(at.choice)) {
      consider(at.choice);
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return best;
}

} // namespace shardc::planning
