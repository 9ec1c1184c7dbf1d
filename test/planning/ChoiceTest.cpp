//===- ChoiceTest.cpp - The search among layouts against brute force ------===//

#include "shardc/Planning/Choice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>

using namespace shardc::planning;

namespace {

/// A random problem of `groups` groups of 1-4 options and values with 0-3
/// uses, fixed sources and pins among them, and some impossible moves.
ChoiceProblem randomProblem(std::mt19937 &rng, int groups) {
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  ChoiceProblem p;
  for (int g = 0; g < groups; ++g) {
    std::vector<double> own(1 + pick(4));
    for (double &c : own)
      c = pick(3) == 0 ? 0.0 : pick(50) / 4.0;
    p.own.push_back(own);
  }
  const int values = 1 + pick(2 * groups);
  for (int i = 0; i < values; ++i) {
    ChoiceProblem::Value v;
    // Half of them square: sources and needs one set of layouts, where a
    // layout may be made from another copy (cheapestMoves).
    const int layouts = 1 + pick(4);
    const int sources = pick(2) == 0 ? layouts : 1 + pick(3);
    v.producer = pick(5) == 0 ? -1 : pick(groups);
    const int producerOptions =
        v.producer < 0 ? 1 : static_cast<int>(p.own[v.producer].size());
    for (int o = 0; o < producerOptions; ++o)
      v.source.push_back(pick(sources));
    for (int s = 0; s < sources; ++s) {
      std::vector<double> row(layouts);
      for (double &c : row)
        c = pick(4) == 0    ? 0.0
            : pick(25) == 0 ? ChoiceProblem::kImpossible
                            : pick(100) / 8.0;
      v.move.push_back(row);
    }
    const int uses = pick(4);
    for (int u = 0; u < uses; ++u) {
      ChoiceProblem::Use use;
      use.group = pick(6) == 0 ? -1 : pick(groups);
      const int options =
          use.group < 0 ? 1 : static_cast<int>(p.own[use.group].size());
      for (int o = 0; o < options; ++o)
        use.need.push_back(pick(5) == 0 ? -1 : pick(layouts));
      v.uses.push_back(use);
    }
    p.values.push_back(v);
  }
  return p;
}

TEST(Choice, ExactMatchesEveryCombination) {
  std::mt19937 rng(20261127);
  int finite = 0, copied = 0;
  for (int trial = 0; trial < 400; ++trial) {
    ChoiceProblem p = randomProblem(rng, 1 + trial % 7);
    ASSERT_EQ(p.check(), "");
    ChoiceSolution brute = solveBruteForce(p);
    ExactLimits ilp;
    ilp.eliminationEntries = 0;
    ChoiceSolution exact = solveExact(p, {}, ilp);
    std::optional<ChoiceSolution> dp = solveByElimination(p, 1 << 20);
    ASSERT_TRUE(dp.has_value());
    EXPECT_TRUE(dp->exact);
    // Every value split into "layout made" groups: the same optimum, or
    // declined where a layout may be made from another copy.
    std::optional<ChoiceSolution> split = solveByElimination(p, 1 << 20, 1);
    const bool copies = std::any_of(p.values.begin(), p.values.end(),
                                    [](const ChoiceProblem::Value &v) {
                                      return !movesBetweenCopies(v).empty();
                                    });
    copied += copies;
    ASSERT_TRUE(split.has_value());
    if (!split->exact)
      EXPECT_TRUE(copies);
    EXPECT_GE(split->cost, brute.cost - 1e-9);
    if (copies)
      split = dp;
    ChoiceSolution local = solveLocal(p);
    SCOPED_TRACE("trial " + std::to_string(trial));
    ASSERT_TRUE(exact.exact) << exact.how;
    if (std::isinf(brute.cost)) {
      EXPECT_TRUE(std::isinf(exact.cost));
      EXPECT_TRUE(std::isinf(dp->cost));
      EXPECT_TRUE(std::isinf(split->cost));
      continue;
    }
    ++finite;
    EXPECT_NEAR(exact.cost, brute.cost, 1e-6);
    EXPECT_NEAR(dp->cost, brute.cost, 1e-6);
    EXPECT_NEAR(split->cost, brute.cost, 1e-6);
    EXPECT_NEAR(p.evaluate(exact.choice), exact.cost, 1e-9);
    EXPECT_GE(local.cost, brute.cost - 1e-9);
    // Seeded with the optimum, the solver keeps an optimum.
    EXPECT_NEAR(solveExact(p, brute.choice, ilp).cost, brute.cost, 1e-6);
    EXPECT_NEAR(solveExact(p, brute.choice).cost, brute.cost, 1e-6);
  }
  EXPECT_GT(finite, 300);
  EXPECT_GT(copied, 60);
}

TEST(Choice, CopiesPastTheirColumnLimitAreNotProven) {
  // Where the program that makes copies from copies would pass
  // copiesColumns, the choice best with every layout from its source is
  // improved by local search and said not proven; never below the optimum,
  // never claimed.
  std::mt19937 rng(20261129);
  int limited = 0;
  for (int trial = 0; trial < 200; ++trial) {
    ChoiceProblem p = randomProblem(rng, 2 + trial % 6);
    if (std::none_of(p.values.begin(), p.values.end(),
                     [](const ChoiceProblem::Value &v) {
                       return !movesBetweenCopies(v).empty();
                     }))
      continue;
    SCOPED_TRACE("trial " + std::to_string(trial));
    ChoiceSolution brute = solveBruteForce(p);
    ExactLimits small;
    small.eliminationEntries = 0;
    small.copiesColumns = 1;
    ChoiceSolution capped = solveExact(p, {}, small);
    ASSERT_TRUE(capped.stopped.empty());
    if (std::isinf(brute.cost))
      continue;
    ++limited;
    EXPECT_FALSE(capped.exact);
    EXPECT_NE(capped.how.find("copies made from copies not searched"),
              std::string::npos)
        << capped.how;
    EXPECT_EQ(capped.how.find("proven optimal"),
              capped.how.size() - std::string("proven optimal").size());
    EXPECT_NE(capped.how.find("not proven optimal"), std::string::npos);
    EXPECT_GE(capped.cost, brute.cost - 1e-9);
    EXPECT_NEAR(p.evaluate(capped.choice), capped.cost, 1e-9);
  }
  EXPECT_GT(limited, 40);
}

TEST(Choice, ASolverThatAbortsIsSurvived) {
  // The 1882nd problem of this stream makes CLP 1.17 (Debian's) abort on
  // an assertion (coin-or/Clp issue 173) in the program of copies: solved
  // in a child process, the abort is survived and the program solved
  // again without probing cuts (the trigger). Before, the test process
  // died here.
  std::mt19937 rng(777);
  ChoiceProblem p;
  for (int trial = 0; trial <= 1881; ++trial)
    p = randomProblem(rng, 1 + trial % 7);
  ASSERT_EQ(p.check(), "");
  ExactLimits ilp;
  ilp.eliminationEntries = 0;
  ChoiceSolution exact = solveExact(p, {}, ilp);
  ChoiceSolution brute = solveBruteForce(p);
  ASSERT_TRUE(exact.exact) << exact.how;
  EXPECT_NEAR(exact.cost, brute.cost, 1e-6);
  // Where CLP still aborts, the answer says so.
  std::printf("the 1882nd problem: %s\n", exact.how.c_str());
}

/// The cheapest tree by trying every parent of every need (each need made
/// from the source or another need, no cycle): written here, not from
/// cheapestMoves.
double everyTree(const std::vector<std::vector<double>> &move, int source,
                 const std::vector<int> &needs) {
  const size_t k = needs.size();
  std::vector<size_t> parent(k, 0); // 0: the source; i+1: needs[i]
  double best = ChoiceProblem::kImpossible;
  while (true) {
    bool acyclic = true;
    for (size_t i = 0; i < k && acyclic; ++i) {
      size_t at = i + 1, steps = 0;
      while (at != 0 && steps <= k) {
        at = parent[at - 1];
        ++steps;
      }
      acyclic = at == 0;
    }
    bool self = false;
    for (size_t i = 0; i < k; ++i)
      self |= parent[i] == i + 1;
    if (acyclic && !self) {
      double total = 0;
      for (size_t i = 0; i < k; ++i)
        total += move[parent[i] == 0 ? source : needs[parent[i] - 1]][needs[i]];
      best = std::min(best, total);
    }
    size_t i = 0;
    for (; i < k; ++i) {
      if (++parent[i] <= k)
        break;
      parent[i] = 0;
    }
    if (i == k)
      break;
  }
  return best;
}

TEST(Choice, CheapestMovesMatchEveryTree) {
  std::mt19937 rng(1127);
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  int cheaper = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int n = 2 + pick(trial % 2 == 0 ? 2 : 6); // two needs often
    std::vector<std::vector<double>> move(n, std::vector<double>(n));
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        move[a][b] = a == b         ? 0.0
                     : pick(5) == 0 ? 0.0
                     : pick(8) == 0 ? ChoiceProblem::kImpossible
                                    : pick(100) / 4.0;
    const int source = pick(n);
    std::vector<int> needs;
    for (int l = 0; l < n; ++l)
      if (pick(3) != 0)
        needs.push_back(l);
    MoveTree tree = cheapestMoves(move, source, needs);
    const double brute = everyTree(move, source, needs);
    int impossible = -1;
    const double cost = cheapestMovesCost(move, source, needs, impossible);
    EXPECT_EQ(impossible, tree.impossible);
    EXPECT_NEAR(cost, tree.cost, 1e-9);
    double star = 0;
    for (int l : needs)
      star += move[source][l];
    ASSERT_EQ(tree.from.size(), needs.size());
    if (std::isinf(brute)) {
      EXPECT_GT(tree.impossible, 0);
      continue;
    }
    EXPECT_EQ(tree.impossible, 0);
    EXPECT_NEAR(tree.cost, brute, 1e-9);
    cheaper += brute < star;
    // The parents form a tree from the source that costs what it says.
    double total = 0;
    for (size_t i = 0; i < needs.size(); ++i) {
      int at = static_cast<int>(i), steps = 0;
      while (tree.from[at] != source && steps++ <= (int)needs.size()) {
        auto it = std::find(needs.begin(), needs.end(), tree.from[at]);
        ASSERT_NE(it, needs.end());
        at = static_cast<int>(it - needs.begin());
      }
      EXPECT_LE(steps, (int)needs.size());
      total += move[tree.from[i]][needs[i]];
    }
    EXPECT_NEAR(total, tree.cost, 1e-9);
  }
  EXPECT_GT(cheaper, 500);
}

TEST(Choice, AGatheredCopyIsSlicedNotMovedAgain) {
  // Layouts 0 = S(0), 1 = R, 2 = S(1): from S(0), R is a gather (4) and
  // S(1) an all-to-all (3); from R, S(1) is a free slice.
  std::vector<std::vector<double>> move = {{0, 4, 3}, {0, 0, 0}, {3, 4, 0}};
  MoveTree tree = cheapestMoves(move, 0, {1, 2});
  EXPECT_EQ(tree.from, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(tree.cost, 4);
  // In a problem: one producer (fixed S(0)), two uses needing R and S(1);
  // every solver prices 4, not 7.
  ChoiceProblem p;
  p.own = {{0.0}, {0.0}};
  ChoiceProblem::Value v;
  v.source = {0};
  v.move = move;
  ChoiceProblem::Use a, b;
  a.group = 0;
  a.need = {1};
  b.group = 1;
  b.need = {2};
  v.uses = {a, b};
  p.values = {v};
  EXPECT_DOUBLE_EQ(p.evaluate({0, 0}), 4);
  EXPECT_DOUBLE_EQ(solveLocal(p).cost, 4);
  ExactLimits ilp;
  ilp.eliminationEntries = 0;
  EXPECT_DOUBLE_EQ(solveExact(p, {}, ilp).cost, 4);
  const auto paid = p.paid({0, 0});
  ASSERT_EQ(paid.size(), 1u);
  EXPECT_EQ(paid[0].source, 0);
  EXPECT_EQ(paid[0].need, 1);
}

TEST(Choice, AValueIsMovedOncePerLayout) {
  // One producer (fixed source 0), three uses of which two need layout 1.
  ChoiceProblem p;
  p.own = {{0.0}, {0.0}, {0.0}};
  ChoiceProblem::Value v;
  v.source = {0};
  v.move = {{0.0, 5.0, 7.0}};
  v.uses = {{0, {1}}, {1, {1}}, {2, {2}}};
  p.values.push_back(v);
  EXPECT_DOUBLE_EQ(p.evaluate({0, 0, 0}), 12.0);
  EXPECT_DOUBLE_EQ(solveExact(p).cost, 12.0);
}

TEST(Choice, ImpossibleMovesAreNeverChosen) {
  // Option 0 is free but forces an impossible move; option 1 costs 3.
  ChoiceProblem p;
  p.own = {{0.0, 3.0}};
  ChoiceProblem::Value v;
  v.source = {0};
  v.move = {{0.0, ChoiceProblem::kImpossible}};
  v.uses = {{0, {1, 0}}};
  p.values.push_back(v);
  ChoiceSolution s = solveExact(p);
  EXPECT_TRUE(s.exact);
  EXPECT_EQ(s.choice, std::vector<int>({1}));
  EXPECT_DOUBLE_EQ(s.cost, 3.0);
  EXPECT_EQ(solveLocal(p).choice, std::vector<int>({1}));
}

TEST(Choice, CheckNamesTheFirstProblem) {
  ChoiceProblem p;
  p.own = {{0.0}, {}};
  EXPECT_EQ(p.check(), "group 1 has no option");
  p.own = {{0.0, -1.0}};
  EXPECT_EQ(p.check(), "group 0 has an option of cost -1.000000");
  p.own = {{0.0}};
  ChoiceProblem::Value v;
  v.producer = 0;
  v.source = {2};
  v.move = {{0.0}};
  p.values.push_back(v);
  EXPECT_EQ(p.check(), "value 0 has source id 2");
}

TEST(Choice, LargeChainsSolveExactly) {
  // A chain of 300 ops of 9 options each, every value used by the next op:
  // the solver proves its optimum, and local search is not below it.
  std::mt19937 rng(7);
  ChoiceProblem p;
  const int n = 300, k = 9;
  for (int g = 0; g < n; ++g) {
    std::vector<double> own(k);
    for (double &c : own)
      c = std::uniform_int_distribution<int>(0, 20)(rng);
    p.own.push_back(own);
  }
  for (int g = 0; g + 1 < n; ++g) {
    ChoiceProblem::Value v;
    v.producer = g;
    for (int o = 0; o < k; ++o)
      v.source.push_back(o % 3);
    v.move.assign(3, std::vector<double>(3));
    for (int s = 0; s < 3; ++s)
      for (int l = 0; l < 3; ++l)
        v.move[s][l] =
            s == l ? 0 : std::uniform_int_distribution<int>(1, 30)(rng);
    ChoiceProblem::Use use;
    use.group = g + 1;
    for (int o = 0; o < k; ++o)
      use.need.push_back(o / 3);
    v.uses.push_back(use);
    p.values.push_back(v);
  }
  ExactLimits ilp;
  ilp.eliminationEntries = 0;
  ChoiceSolution exact = solveExact(p, {}, ilp);
  ASSERT_TRUE(exact.exact) << exact.how;
  EXPECT_GE(solveLocal(p).cost, exact.cost - 1e-9);
  // A chain is a tree: elimination's tables hold two ops' options.
  ChoiceSolution dp = solveExact(p);
  EXPECT_NEAR(dp.cost, exact.cost, 1e-6);
  EXPECT_EQ(dp.how, "dynamic programming (variable elimination, largest "
                    "table 81 entries), proven optimal");
}

TEST(Choice, EliminationRefusesTablesPastItsLimit) {
  // 8 groups of 4 options, every pair joined by a value: eliminating any
  // group first combines all 8 (4^8 entries).
  ChoiceProblem p;
  for (int g = 0; g < 8; ++g)
    p.own.push_back({0, 0, 0, 0});
  for (int a = 0; a < 8; ++a)
    for (int b = a + 1; b < 8; ++b) {
      ChoiceProblem::Value v;
      v.producer = a;
      v.source = {0, 1, 2, 3};
      v.move.assign(4, std::vector<double>(4, 1.0));
      for (int l = 0; l < 4; ++l)
        v.move[l][l] = 0;
      v.uses.push_back({b, {0, 1, 2, 3}});
      p.values.push_back(v);
    }
  EXPECT_FALSE(solveByElimination(p, 1000).has_value());
  ASSERT_TRUE(solveByElimination(p, 1 << 16).has_value());
  // The integer program takes over past the limit.
  ExactLimits small;
  small.eliminationEntries = 1000;
  ChoiceSolution s = solveExact(p, {}, small);
  EXPECT_TRUE(s.exact);
  EXPECT_EQ(s.how, "integer program (CBC), proven optimal");
  EXPECT_DOUBLE_EQ(s.cost, 0.0);
}

TEST(Choice, AValueOfManyUsesIsSplitIntoMadeLayouts) {
  // One pinned value used by 10 groups of 4 options (4^10 combinations of
  // its uses): elimination splits it into "layout L made" groups and stays
  // exact and small.
  std::mt19937 rng(3);
  ChoiceProblem p;
  ChoiceProblem::Value v;
  v.source = {0};
  v.move = {{0, 3, 5, 7}};
  for (int g = 0; g < 10; ++g) {
    std::vector<double> own(4);
    for (double &c : own)
      c = std::uniform_int_distribution<int>(0, 9)(rng);
    p.own.push_back(own);
    v.uses.push_back({g, {0, 1, 2, 3}});
  }
  p.values.push_back(v);
  std::optional<ChoiceSolution> dp = solveByElimination(p, 1 << 10);
  ASSERT_TRUE(dp.has_value());
  ExactLimits ilp;
  ilp.eliminationEntries = 0;
  EXPECT_NEAR(dp->cost, solveExact(p, {}, ilp).cost, 1e-9);
  EXPECT_NEAR(dp->cost, solveBruteForce(p).cost, 1e-9);
}

/// A random problem whose values hold bytes: sources and needs name the
/// same layouts (square moves), each layout holding 0-99 bytes.
ChoiceProblem randomHeldProblem(std::mt19937 &rng, int groups) {
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  ChoiceProblem p = randomProblem(rng, groups);
  for (ChoiceProblem::Value &v : p.values) {
    const int n = static_cast<int>(
        std::max(v.move.size(), v.move.empty() ? 1 : v.move[0].size()));
    std::vector<std::vector<double>> move(n, std::vector<double>(n, 0.0));
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        if (a != b)
          move[a][b] =
              pick(25) == 0 ? ChoiceProblem::kImpossible : pick(100) / 8.0;
    v.move = move;
    v.held.resize(n);
    for (double &h : v.held)
      h = pick(100);
  }
  return p;
}

/// The choice that holds least (at its peak) of every combination whose
/// moves are possible, by brute force; empty where none is.
std::vector<int> leastMemoryChoice(const ChoiceProblem &p) {
  ChoiceProblem free = p;
  free.memoryBudget = ChoiceProblem::kImpossible;
  std::vector<int> choice(p.own.size(), 0), best;
  double least = ChoiceProblem::kImpossible;
  while (true) {
    if (!std::isinf(free.evaluate(choice)) && p.memory(choice) < least) {
      least = p.memory(choice);
      best = choice;
    }
    size_t g = 0;
    for (; g < choice.size(); ++g) {
      if (++choice[g] < static_cast<int>(p.own[g].size()))
        break;
      choice[g] = 0;
    }
    if (g == choice.size())
      return best;
  }
}

/// The least memory of every combination, by brute force.
double leastMemory(const ChoiceProblem &p) {
  const std::vector<int> choice = leastMemoryChoice(p);
  return choice.empty() ? ChoiceProblem::kImpossible : p.memory(choice);
}

TEST(Choice, AMemoryBudgetIsHeld) {
  // Budgets between the least memory and more: the solver's optimum is
  // brute force's, local search stays within the budget from a start
  // within it, and memoryProblem's optimum is the least memory.
  std::mt19937 rng(27);
  int binding = 0, over = 0;
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    ChoiceProblem p = randomHeldProblem(rng, 1 + trial % 6);
    ASSERT_EQ(p.check(), "");
    const double least = leastMemory(p);
    const double unbudgeted = solveBruteForce(p).cost;
    ChoiceProblem m = p.memoryProblem();
    ASSERT_EQ(m.check(), "");
    ChoiceSolution fewest = solveExact(m);
    if (std::isinf(least)) {
      EXPECT_TRUE(std::isinf(fewest.cost));
      continue;
    }
    ASSERT_TRUE(fewest.exact) << fewest.how;
    EXPECT_DOUBLE_EQ(fewest.cost, least);
    EXPECT_DOUBLE_EQ(p.memory(fewest.choice), least);
    // A budget below the least: nothing fits, and the solver proves it.
    p.memoryBudget =
        trial % 5 == 0
            ? least - 1
            : least + std::uniform_int_distribution<int>(0, 150)(rng);
    EXPECT_FALSE(solveByElimination(p, 1 << 20).has_value());
    ChoiceSolution brute = solveBruteForce(p);
    ChoiceSolution exact = solveExact(p);
    ASSERT_TRUE(exact.exact) << exact.how;
    if (std::isinf(brute.cost)) {
      ++over;
      EXPECT_TRUE(std::isinf(exact.cost)) << exact.cost;
      continue;
    }
    binding += brute.cost > unbudgeted + 1e-9;
    EXPECT_NEAR(exact.cost, brute.cost, 1e-6);
    EXPECT_LE(p.memory(exact.choice), p.memoryBudget);
    ChoiceSolution local = solveLocal(p, fewest.choice);
    EXPECT_LE(p.memory(local.choice), p.memoryBudget);
    EXPECT_GE(local.cost, brute.cost - 1e-9);
    EXPECT_NEAR(solveExact(p, brute.choice).cost, brute.cost, 1e-6);
  }
  // The cases were not all trivial.
  EXPECT_GT(binding, 20);
  EXPECT_GT(over, 20);
}

TEST(Choice, AProofUnderABudgetHoldsAtEveryScale) {
  // Bytes from 1e2 to 1e10 (log-uniform, whole) in one memory row, budgets
  // at the edge of what fits (the least peak, one byte either side, and
  // within CBC's relative tolerance of it): whatever the solver says is
  // proven is brute force's, and what it returns fits exactly.
  std::mt19937 rng(20261128);
  std::uniform_real_distribution<double> exponent(2, 10);
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  int infeasible = 0, feasible = 0;
  for (int trial = 0; trial < 80; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    ChoiceProblem p = randomHeldProblem(rng, 1 + trial % 6);
    for (ChoiceProblem::Value &v : p.values) {
      for (double &h : v.held)
        h = std::floor(std::pow(10.0, exponent(rng)));
      v.first = pick(6);
      v.last = v.first + pick(6 - v.first);
    }
    ASSERT_EQ(p.check(), "");
    const double least = leastMemory(p);
    if (std::isinf(least))
      continue;
    for (double budget :
         {least - 1, least, least + 1, std::floor(least * (1 - 1e-7)),
          std::floor(least * (1 + 1e-7))}) {
      SCOPED_TRACE("budget " + std::to_string(budget));
      p.memoryBudget = budget;
      const ChoiceSolution brute = solveBruteForce(p);
      ExactLimits ilp;
      ilp.eliminationEntries = 0;
      for (const ChoiceSolution &exact :
           {solveExact(p), solveExact(p, {}, ilp)}) {
        if (std::isfinite(exact.cost)) {
          EXPECT_LE(p.memory(exact.choice), budget);
          EXPECT_NEAR(p.evaluate(exact.choice), exact.cost, 1e-9);
        }
        if (!exact.exact)
          continue;
        if (std::isinf(brute.cost)) {
          ++infeasible;
          EXPECT_TRUE(std::isinf(exact.cost)) << exact.how;
        } else {
          ++feasible;
          EXPECT_TRUE(std::isfinite(exact.cost)) << exact.how;
          EXPECT_NEAR(exact.cost, brute.cost,
                      1e-6 * std::max(1.0, std::fabs(brute.cost)));
        }
      }
    }
  }
  EXPECT_GT(infeasible, 20);
  EXPECT_GT(feasible, 80);
  std::printf("%d infeasible and %d feasible proofs checked\n", infeasible,
              feasible);
}

TEST(Choice, HeldBytesPeakWhereValuesOverlap) {
  // Three values of fixed sources, held at points 0-1, 1-2 and 2: 10 + 20
  // at point 1, 20 + 30 at point 2 (the peak), not the sum 60.
  ChoiceProblem p;
  p.own = {{0.0}};
  const std::vector<std::pair<int, int>> ranges = {{0, 1}, {1, 2}, {2, 2}};
  for (int i = 0; i < 3; ++i) {
    ChoiceProblem::Value v;
    v.source = {0};
    v.move = {{0.0}};
    v.held = {10.0 * (i + 1)};
    v.first = ranges[i].first;
    v.last = ranges[i].second;
    p.values.push_back(v);
  }
  ASSERT_EQ(p.check(), "");
  EXPECT_FALSE(p.heldAtOnce());
  EXPECT_DOUBLE_EQ(p.memory({0}), 50);
  EXPECT_EQ(p.peakPoints(), (std::vector<std::vector<int>>{{0, 1}, {1, 2}}));
  p.memoryBudget = 50;
  EXPECT_DOUBLE_EQ(p.evaluate({0}), 0);
  p.memoryBudget = 49;
  EXPECT_TRUE(std::isinf(p.evaluate({0})));
  EXPECT_TRUE(std::isinf(solveExact(p).cost));
  // All at point 0: the sum.
  for (ChoiceProblem::Value &v : p.values)
    v.first = v.last = 0;
  EXPECT_TRUE(p.heldAtOnce());
  EXPECT_DOUBLE_EQ(p.memory({0}), 60);
  p.values[0].last = -1;
  EXPECT_EQ(p.check(), "value 0 is held from point 0 to -1");
}

TEST(Choice, APeakMemoryBudgetIsHeld) {
  // Values held over random ranges of 6 points: under budgets between the
  // least peak and more, the solver's optimum is brute force's (one memory
  // row per peak point), and local search from the least peak's choice
  // stays within the budget.
  std::mt19937 rng(2027);
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  int binding = 0, over = 0, belowSum = 0;
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    ChoiceProblem p = randomHeldProblem(rng, 1 + trial % 6);
    for (ChoiceProblem::Value &v : p.values) {
      v.first = pick(6);
      v.last = v.first + pick(6 - v.first);
    }
    ASSERT_EQ(p.check(), "");
    const std::vector<int> fewest = leastMemoryChoice(p);
    if (fewest.empty())
      continue;
    const double least = p.memory(fewest);
    ChoiceProblem sum = p;
    for (ChoiceProblem::Value &v : sum.values)
      v.first = v.last = 0;
    belowSum += least < sum.memory(fewest);
    const double unbudgeted = solveBruteForce(p).cost;
    p.memoryBudget = trial % 5 == 0 ? least - 1 : least + pick(120);
    ChoiceSolution brute = solveBruteForce(p);
    ChoiceSolution exact = solveExact(p);
    ASSERT_TRUE(exact.exact) << exact.how;
    if (std::isinf(brute.cost)) {
      ++over;
      EXPECT_TRUE(std::isinf(exact.cost)) << exact.cost;
      continue;
    }
    binding += brute.cost > unbudgeted + 1e-9;
    EXPECT_NEAR(exact.cost, brute.cost, 1e-6);
    EXPECT_LE(p.memory(exact.choice), p.memoryBudget);
    ChoiceSolution local = solveLocal(p, fewest);
    EXPECT_LE(p.memory(local.choice), p.memoryBudget);
    EXPECT_NEAR(local.cost, p.evaluate(local.choice), 1e-6);
    EXPECT_GE(local.cost, brute.cost - 1e-9);
  }
  EXPECT_GT(binding, 20);
  EXPECT_GT(over, 20);
  EXPECT_GT(belowSum, 100);
}

TEST(Choice, LocalSearchKeepsAPeakBudgetOverManyPoints) {
  // 40 groups, values held over random ranges of 200 points, a budget
  // just above the start's peak: every move local search makes keeps the
  // peak (kept per point in a segment tree) within it, and its answer is
  // no costlier than the start.
  std::mt19937 rng(4242);
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  int moved = 0;
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    ChoiceProblem p = randomHeldProblem(rng, 40);
    for (ChoiceProblem::Value &v : p.values) {
      v.first = pick(200);
      v.last = v.first + pick(std::min(60, 200 - v.first));
    }
    ASSERT_EQ(p.check(), "");
    const std::vector<int> start(p.own.size(), 0);
    ChoiceProblem free = p;
    if (std::isinf(free.evaluate(start)))
      continue;
    p.memoryBudget = p.memory(start) + pick(50);
    ChoiceSolution local = solveLocal(p, start);
    EXPECT_LE(p.memory(local.choice), p.memoryBudget);
    EXPECT_LE(local.cost, p.evaluate(start) + 1e-9);
    EXPECT_NEAR(local.cost, p.evaluate(local.choice), 1e-6);
    moved += local.choice != start;
  }
  EXPECT_GT(moved, 20);
}

TEST(Choice, LocalSearchLowersTheExcessFirst) {
  // Two groups; option 1 of each is faster and holds 50 bytes more. With a
  // budget for one fast option, moves from "both fast" (over it) give the
  // first up (a local optimum: the solver gives up the second), but the
  // search on time plus lambda times the bytes held finds the optimum
  // from there too; from "both slow", it takes the first.
  ChoiceProblem p;
  p.own = {{5.0, 1.0}, {5.0, 2.0}};
  for (int g = 0; g < 2; ++g) {
    ChoiceProblem::Value v;
    v.producer = g;
    v.source = {0, 1};
    v.move = {{0, 0}, {0, 0}};
    v.held = {10, 60};
    p.values.push_back(v);
  }
  p.memoryBudget = 70;
  EXPECT_DOUBLE_EQ(p.memory({1, 1}), 120);
  EXPECT_TRUE(std::isinf(p.evaluate({1, 1})));
  ChoiceSolution fromOver = solveLocal(p, {1, 1});
  EXPECT_EQ(fromOver.choice, std::vector<int>({1, 0}));
  EXPECT_DOUBLE_EQ(fromOver.cost, 1.0 + 5.0);
  ChoiceSolution fromUnder = solveLocal(p, {0, 0});
  EXPECT_EQ(fromUnder.choice, std::vector<int>({1, 0}));
  EXPECT_DOUBLE_EQ(fromUnder.cost, 1.0 + 5.0);
  EXPECT_EQ(solveExact(p).choice, std::vector<int>({1, 0}));
  p.memoryBudget = 19;
  ChoiceSolution none = solveExact(p);
  EXPECT_TRUE(none.exact);
  EXPECT_TRUE(std::isinf(none.cost));
  EXPECT_NE(none.how.find("memory budget"), std::string::npos) << none.how;
}

TEST(Choice, PairsMoveWhereSingleMovesCannot) {
  // A weight (group 0: layout 0 or 1) and its reader (group 1: needs 0 or
  // 1). Both on 0 costs 10 (the reader's compute); both on 1, 1; either
  // alone on 1 forces a move of 20. One group at a time stays at 10; the
  // pair moves together.
  ChoiceProblem p;
  p.own = {{0.0, 0.0}, {10.0, 1.0}};
  ChoiceProblem::Value w;
  w.producer = 0;
  w.source = {0, 1};
  w.move = {{0, 20}, {20, 0}};
  w.uses = {{1, {0, 1}}};
  p.values.push_back(w);
  EXPECT_DOUBLE_EQ(p.evaluate({0, 0}), 10);
  EXPECT_DOUBLE_EQ(p.evaluate({1, 0}), 30);
  EXPECT_DOUBLE_EQ(p.evaluate({0, 1}), 21);
  ChoiceSolution s = solveLocal(p, {0, 0});
  EXPECT_EQ(s.choice, std::vector<int>({1, 1}));
  EXPECT_DOUBLE_EQ(s.cost, 1);
}

TEST(Choice, CheckNamesMemoryProblems) {
  ChoiceProblem p;
  p.own = {{0.0}};
  ChoiceProblem::Value v;
  v.source = {0};
  v.move = {{0.0, 1.0}};
  v.held = {4, 4};
  p.values.push_back(v);
  EXPECT_EQ(p.check(), "value 0 holds 2 sizes, but its moves are not 2 x 2");
  p.values[0].move = {{0.0, 1.0}, {1.0, 0.0}};
  p.values[0].held = {4, -1};
  EXPECT_EQ(p.check(), "value 0 holds -1.000000 bytes");
  p.values[0].held = {4, 4};
  p.memoryBudget = -2;
  EXPECT_EQ(p.check(), "the memory budget is -2.000000");
}

} // namespace

/// Values of `p` made by every rank (Value::madeByEveryRank), about one in
/// two: each layout's move the same from every other (what making it
/// costs, sometimes 0), from none impossible.
static void makeSomeMadeByEveryRank(ChoiceProblem &p, std::mt19937 &rng) {
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  for (ChoiceProblem::Value &v : p.values) {
    if (v.move.empty() || v.move.size() != v.move[0].size() || pick(2))
      continue;
    const size_t n = v.move.size();
    for (size_t l = 0; l < n; ++l) {
      const double make = pick(3) == 0 ? 0.0 : pick(100) / 8.0;
      for (size_t s = 0; s < n; ++s)
        v.move[s][l] = s == l ? 0.0 : make;
    }
    v.madeByEveryRank = true;
  }
}

TEST(Choice, AValueEveryRankMakesIsPricedAsMade) {
  // Constants made again in each layout a use needs: the integer program's
  // rows for them (no source and layout pairs), local search's sum and
  // elimination agree with brute force, with and without a memory budget;
  // the flag changes no total.
  std::mt19937 rng(20261129);
  int made = 0, finite = 0, budgeted = 0;
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const bool held = trial % 3 == 0;
    ChoiceProblem p = held ? randomHeldProblem(rng, 1 + trial % 6)
                           : randomProblem(rng, 1 + trial % 7);
    makeSomeMadeByEveryRank(p, rng);
    ASSERT_EQ(p.check(), "");
    made += std::count_if(
        p.values.begin(), p.values.end(),
        [](const ChoiceProblem::Value &v) { return v.madeByEveryRank; });
    ChoiceProblem plain = p;
    for (ChoiceProblem::Value &v : plain.values)
      v.madeByEveryRank = false;
    if (held && trial % 2 == 0 && !std::isinf(leastMemory(p))) {
      p.memoryBudget = plain.memoryBudget =
          leastMemory(p) + std::uniform_int_distribution<int>(0, 100)(rng);
      ++budgeted;
    }
    const ChoiceSolution brute = solveBruteForce(plain);
    EXPECT_EQ(solveBruteForce(p).cost, brute.cost);
    ExactLimits ilp;
    ilp.eliminationEntries = 0;
    const ChoiceSolution exact = solveExact(p, {}, ilp);
    ASSERT_TRUE(exact.exact) << exact.how;
    const ChoiceSolution local = solveLocal(p);
    if (std::isinf(brute.cost)) {
      EXPECT_TRUE(std::isinf(exact.cost));
      continue;
    }
    ++finite;
    EXPECT_NEAR(exact.cost, brute.cost, 1e-6);
    EXPECT_NEAR(p.evaluate(exact.choice), exact.cost, 1e-6);
    EXPECT_GE(local.cost, brute.cost - 1e-9);
    EXPECT_NEAR(p.evaluate(local.choice), local.cost, 1e-6);
    if (p.memoryBudget == ChoiceProblem::kImpossible)
      if (std::optional<ChoiceSolution> dp = solveByElimination(p, 1 << 20)) {
        EXPECT_GE(dp->cost, brute.cost - 1e-9);
        if (dp->exact)
          EXPECT_NEAR(dp->cost, brute.cost, 1e-6);
      }
    // Local search's sum is evaluate's tree of moves on every choice.
    std::vector<int> choice(p.own.size());
    for (size_t g = 0; g < choice.size(); ++g)
      choice[g] = std::uniform_int_distribution<int>(
          0, static_cast<int>(p.own[g].size()) - 1)(rng);
    EXPECT_NEAR(solveLocal(p, choice).cost,
                p.evaluate(solveLocal(p, choice).choice), 1e-6);
  }
  EXPECT_GT(made, 150);
  EXPECT_GT(finite, 200);
  EXPECT_GT(budgeted, 20);
}

TEST(Choice, CheckHoldsAValueMadeByEveryRankToItsMoves) {
  ChoiceProblem p;
  p.own = {{0, 0}};
  ChoiceProblem::Value v;
  v.producer = 0;
  v.source = {0, 1};
  v.move = {{0, 2}, {3, 0}};
  v.uses.push_back({0, {1, 0}});
  v.madeByEveryRank = true;
  p.values.push_back(v);
  EXPECT_EQ(p.check(), "");
  p.values[0].move = {{0, 2, 1}, {3, 0, 1}, {4, 5, 0}};
  EXPECT_EQ(p.check(), "value 0 is made by every rank, but its moves to "
                       "layout 0 differ by source");
}
