//===- ChoiceTest.cpp - The search among layouts against brute force ------===//
//
// The solvers (integer program, elimination, local search) against brute
// force; the memory budget's tests are in ChoiceMemoryTest.cpp.
//===----------------------------------------------------------------------===//

#include "ChoiceTestProblems.h"

#include "shardc/Planning/Choice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>

using namespace shardc::planning;
using namespace choice_test;

namespace {

/// A value of `producer`'s making read by `user`, each option of both
/// meaning the layout of its number (of `layouts`), every move between two
/// of them costing `cost`.
ChoiceProblem::Value passedOn(int producer, int user, int layouts,
                              double cost) {
  ChoiceProblem::Value v;
  v.producer = producer;
  v.move.assign(layouts, std::vector<double>(layouts, cost));
  std::vector<int> same(layouts);
  for (int l = 0; l < layouts; ++l) {
    same[l] = l;
    v.move.mutableAt(l)[l] = 0;
  }
  v.source = same;
  v.uses.push_back({user, same});
  return v;
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

TEST(Choice, ProgramsPastTheStarColumnLimitAreNotRun) {
  // Where the first program (every layout from its source) would pass
  // starColumns, no program is run: local search from the start answers,
  // said not proven; never below the optimum, never claimed. Without the
  // limit the programs run.
  std::mt19937 rng(20261130);
  int capped = 0;
  for (int trial = 0; trial < 200; ++trial) {
    ChoiceProblem p = randomProblem(rng, 2 + trial % 6);
    SCOPED_TRACE("trial " + std::to_string(trial));
    ChoiceSolution brute = solveBruteForce(p);
    ExactLimits small;
    small.eliminationEntries = 0;
    small.starColumns = 1;
    ChoiceSolution local = solveExact(p, {}, small);
    ASSERT_TRUE(local.stopped.empty());
    EXPECT_FALSE(local.exact);
    EXPECT_NE(local.how.find("the integer program, of "), std::string::npos)
        << local.how;
    EXPECT_NE(local.how.find("not run), not proven optimal"), std::string::npos)
        << local.how;
    if (std::isinf(brute.cost))
      continue;
    ++capped;
    EXPECT_GE(local.cost, brute.cost - 1e-9);
    EXPECT_NEAR(p.evaluate(local.choice), local.cost, 1e-9);
    ExactLimits unlimited = small;
    unlimited.starColumns = 0;
    ChoiceSolution solved = solveExact(p, {}, unlimited);
    EXPECT_EQ(solved.how.find("not run"), std::string::npos) << solved.how;
  }
  EXPECT_GT(capped, 40);
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

// A constant every rank makes (Value::madeByEveryRank), read by more ops
// than local search wakes at once: once its users have moved to the
// layout that is cheaper for them, its producer follows (pair moves skip
// such a value's thousands of links, so only a revisit of the producer
// finds it). Here the users leave R for S one by one (the first pays for
// making S), and the constant is then cheaper made in S alone.
TEST(Choice, AConstantReadByManyFollowsItsUsers) {
  for (int users : {10, 100}) {
    ChoiceProblem p;
    p.own.push_back({2.0, 1.0}); // making it in R, in S
    ChoiceProblem::Value made;
    made.producer = 0;
    made.source = {0, 1};
    made.move = {{0, 0.5}, {2.0, 0}}; // made again in S: 0.5; in R: 2
    made.madeByEveryRank = true;
    for (int u = 1; u <= users; ++u) {
      p.own.push_back({1.0, 0.2}); // reading it in R, in S
      made.uses.push_back({u, {0, 1}});
    }
    p.values.push_back(made);
    ASSERT_EQ(p.check(), "");
    ChoiceSolution local = solveLocal(p, std::vector<int>(users + 1, 0));
    EXPECT_EQ(local.choice, std::vector<int>(users + 1, 1)) << users;
    EXPECT_NEAR(local.cost, 1.0 + 0.2 * users, 1e-9) << users;
  }
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

TEST(Choice, SharedMoveTablesAreCopiedOnWrite) {
  SharedRows<double> a = {{0.0, 1.0}, {2.0, 0.0}};
  SharedRows<double> b = a;
  EXPECT_TRUE(b.sharesWith(a));
  const SharedRows<double> &reader = b;
  EXPECT_DOUBLE_EQ(reader[1][0], 2.0);
  EXPECT_TRUE(b.sharesWith(a)); // a read copies nothing
  b.mutableAt(1)[0] = 5.0;
  EXPECT_FALSE(b.sharesWith(a));
  EXPECT_DOUBLE_EQ(a[1][0], 2.0);
  EXPECT_DOUBLE_EQ(b[1][0], 5.0);
  SharedRows<double> none;
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.sharesWith(SharedRows<double>()));

  // Two values of one table: the problem of bytes held (each move's cost
  // replaced) and a budgeted search (costs priced with the bytes) change
  // their copies, never the problem's.
  ChoiceProblem p;
  p.own = {{0.0, 1.0}, {0.0, 1.0}};
  ChoiceProblem::Value v;
  v.producer = 0;
  v.source = {0, 1};
  v.move = {{0.0, 4.0}, {3.0, 0.0}};
  v.held = {8.0, 2.0};
  v.uses = {{1, {0, 1}}};
  p.values.push_back(v);
  p.values.push_back(v);
  const ChoiceProblem &read = p;
  ASSERT_TRUE(read.values[0].move.sharesWith(read.values[1].move));
  ChoiceProblem held = p.memoryProblem();
  const ChoiceProblem &heldRead = held;
  EXPECT_DOUBLE_EQ(heldRead.values[0].move[0][1], 2.0);
  // Values alike share the table made of them, and it is not the time's.
  EXPECT_TRUE(heldRead.values[0].move.sharesWith(heldRead.values[1].move));
  EXPECT_FALSE(heldRead.values[0].move.sharesWith(read.values[0].move));
  EXPECT_DOUBLE_EQ(read.values[0].move[0][1], 4.0);
  EXPECT_DOUBLE_EQ(read.values[1].move[1][0], 3.0);
  EXPECT_TRUE(read.values[0].move.sharesWith(read.values[1].move));
  p.memoryBudget = 9.0;
  ChoiceSolution s = solveLocal(p);
  EXPECT_LE(p.memory(s.choice), 9.0);
  EXPECT_DOUBLE_EQ(read.values[0].move[0][1], 4.0);
  EXPECT_DOUBLE_EQ(read.values[1].move[0][1], 4.0);
  EXPECT_TRUE(read.values[0].move.sharesWith(read.values[1].move));
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
        v.move.mutableAt(s)[l] =
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
    for (int b = a + 1; b < 8; ++b)
      p.values.push_back(passedOn(a, b, 4, 1.0));
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

/// A random problem of 7-8 groups of 3-4 options, a chain of values between
/// neighbours and one or two values read by every group: a constant made again
/// in each layout (madeByEveryRank), or moves where one gathered layout is
/// sliced for free into the others (copies made from copies), or random.
ChoiceProblem wideProblem(std::mt19937 &rng) {
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  ChoiceProblem p;
  const int groups = 7 + pick(2);
  for (int g = 0; g < groups; ++g) {
    std::vector<double> own(3 + pick(2));
    for (double &c : own)
      c = pick(3) == 0 ? 0.0 : pick(40) / 4.0;
    p.own.push_back(own);
  }
  auto needsOf = [&](int group, int layouts) {
    std::vector<int> need;
    for (size_t o = 0; o < p.own[group].size(); ++o)
      need.push_back(pick(6) == 0 ? -1 : pick(layouts));
    return need;
  };
  for (int g = 0; g + 1 < groups; ++g) {
    ChoiceProblem::Value v;
    v.producer = g;
    for (size_t o = 0; o < p.own[g].size(); ++o)
      v.source.push_back(pick(3));
    v.move.assign(3, std::vector<double>(3, 0.0));
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        if (a != b)
          v.move.mutableAt(a)[b] = pick(30) / 2.0;
    v.uses.push_back({g + 1, needsOf(g + 1, 3)});
    p.values.push_back(v);
  }
  const int wide = 1 + pick(2);
  for (int w = 0; w < wide; ++w) {
    ChoiceProblem::Value v;
    const int layouts = 3 + pick(3);
    const int kind = pick(3);
    v.producer = pick(4) == 0 ? -1 : pick(groups);
    const size_t sources = v.producer < 0 ? 1 : p.own[v.producer].size();
    for (size_t o = 0; o < sources; ++o)
      v.source.push_back(pick(layouts));
    v.move.assign(layouts, std::vector<double>(layouts, 0.0));
    std::vector<double> made(layouts);
    for (double &c : made)
      c = pick(20) / 8.0;
    // Some layout every rank cannot make (impossible to move into).
    if (pick(4) == 0)
      made[layouts - 1] = ChoiceProblem::kImpossible;
    for (int a = 0; a < layouts; ++a)
      for (int b = 0; b < layouts; ++b) {
        if (a == b)
          continue;
        if (kind == 0)
          v.move.mutableAt(a)[b] = made[b];
        else if (kind == 1)
          // Layout 0 gathered: every other layout sliced from it for free.
          v.move.mutableAt(a)[b] = a == 0   ? 0.0
                                   : b == 0 ? 6.0 + pick(8)
                                            : 8.0 + pick(8);
        else
          v.move.mutableAt(a)[b] =
              pick(25) == 0 ? ChoiceProblem::kImpossible : pick(60) / 4.0;
      }
    v.madeByEveryRank = kind == 0;
    // Every group reads it (its producer's and uses' options combine to
    // more than elimination's 4096: split, or relaxed), some twice, and
    // some pins.
    const int uses = groups + pick(4);
    for (int u = 0; u < uses; ++u) {
      const int group = u < groups ? u : pick(3) == 0 ? -1 : pick(groups);
      if (group < 0)
        v.uses.push_back({-1, {pick(layouts)}});
      else
        v.uses.push_back({group, needsOf(group, layouts)});
    }
    p.values.push_back(v);
  }
  return p;
}

TEST(Choice, RelaxationsBoundEveryOptimum) {
  // Both relaxations of boundByElimination, with the values of many uses
  // relaxed and with every value relaxed, stay at or below the optimum;
  // solveExact, where elimination's split prices copies from the source
  // (not exact), proves the optimum by a bound met on some problems, and
  // only the optimum.
  std::mt19937 rng(20261130);
  int met = 0, below = 0, apart = 0;
  for (int trial = 0; trial < 200; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    ChoiceProblem p = wideProblem(rng);
    ASSERT_EQ(p.check(), "");
    ChoiceSolution brute = solveBruteForce(p);
    const double slack = 1e-9 * std::max(1.0, std::fabs(brute.cost));
    for (ChoiceRelaxation relaxation :
         {ChoiceRelaxation::Farthest, ChoiceRelaxation::LeastInto})
      for (int64_t splitAbove : {int64_t(1), int64_t(4096)})
        for (int64_t entries : {int64_t(1) << 20, int64_t(48)}) {
          // Tables of 48 entries at most: constants read by many priced
          // apart from their producers (one, two, ... until they fit).
          std::optional<ChoiceBound> bound =
              boundByElimination(p, relaxation, entries, splitAbove);
          if (entries == int64_t(1) << 20)
            ASSERT_TRUE(bound.has_value());
          if (!bound)
            continue;
          ASSERT_EQ(bound->choice.size(), p.own.size());
          EXPECT_LE(bound->bound, brute.cost + slack) << bound->how;
          below += bound->bound < brute.cost - slack;
          apart += bound->how.find("priced apart") != std::string::npos;
        }
    ChoiceSolution exact = solveExact(p);
    ASSERT_TRUE(exact.stopped.empty());
    if (std::isinf(brute.cost)) {
      EXPECT_TRUE(std::isinf(exact.cost));
      continue;
    }
    EXPECT_NEAR(exact.cost, brute.cost, 1e-6) << exact.how;
    EXPECT_NEAR(p.evaluate(exact.choice), exact.cost, 1e-9);
    if (exact.how.find("its bound met") != std::string::npos) {
      ++met;
      EXPECT_TRUE(exact.exact);
    }
  }
  // The bound proves many, and is strictly below the optimum on others
  // (where the integer programs answer).
  EXPECT_GE(met, 8);
  EXPECT_GT(below, 50);
  EXPECT_GT(apart, 50);
}

TEST(Choice, RelaxationsOfManyLayoutsBoundTheOptimum) {
  // A value of 76 layouts, 75 of them needed by some option of its three
  // uses (past the 64 layouts Farthest relays through: the least move into
  // each instead), moves through a gathered layout cheap: both relaxations
  // stay at or below brute force.
  std::mt19937 rng(11);
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  for (int trial = 0; trial < 10; ++trial) {
    ChoiceProblem p;
    ChoiceProblem::Value v;
    const int layouts = 76;
    v.source = {75};
    v.move.assign(layouts, std::vector<double>(layouts, 0.0));
    for (int a = 0; a < layouts; ++a)
      for (int b = 0; b < layouts; ++b)
        if (a != b)
          v.move.mutableAt(a)[b] = a == 0 ? pick(3) : 10 + pick(30);
    for (int g = 0; g < 3; ++g) {
      std::vector<double> own(25);
      for (double &c : own)
        c = pick(20);
      p.own.push_back(own);
      std::vector<int> need;
      for (int o = 0; o < 25; ++o)
        need.push_back(g * 25 + o);
      v.uses.push_back({g, need});
    }
    p.values.push_back(v);
    ASSERT_EQ(p.check(), "");
    const double brute = solveBruteForce(p).cost;
    for (ChoiceRelaxation relaxation :
         {ChoiceRelaxation::Farthest, ChoiceRelaxation::LeastInto}) {
      std::optional<ChoiceBound> bound =
          boundByElimination(p, relaxation, 1 << 20, 1);
      ASSERT_TRUE(bound.has_value());
      EXPECT_LE(bound->bound, brute + 1e-9);
    }
  }
}

TEST(Choice, AConstantReadByEveryOpIsProvenWhereEliminationIsRefused) {
  // A chain of 12 ops of 6 options (moving between two options' layouts is
  // dear), every op reading one constant every rank makes (a fill of 6
  // layouts, its producer a group of its own): elimination's split joins
  // the 6 "made" groups to the whole chain (2^6 x 36 entries), past the
  // 1,000 allowed, while the relaxation's pairs stay within them; its
  // bound is met, at the integer program's optimum.
  std::mt19937 rng(5);
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  ChoiceProblem p;
  const int n = 12, k = 6;
  for (int g = 0; g < n; ++g) {
    std::vector<double> own(k);
    for (double &c : own)
      c = 1 + pick(8);
    p.own.push_back(own);
  }
  ChoiceProblem::Value fill;
  fill.madeByEveryRank = true;
  fill.producer = n;
  std::vector<double> made(k);
  for (double &c : made)
    c = 0.25 * (1 + pick(4));
  p.own.push_back(made);
  fill.move.assign(k, std::vector<double>(k, 0.0));
  for (int a = 0; a < k; ++a) {
    fill.source.push_back(a);
    for (int b = 0; b < k; ++b)
      if (a != b)
        fill.move.mutableAt(a)[b] = made[b];
  }
  std::vector<int> same(k);
  for (int o = 0; o < k; ++o)
    same[o] = o;
  for (int g = 0; g < n; ++g) {
    fill.uses.push_back({g, same});
    if (g + 1 < n)
      p.values.push_back(passedOn(g, g + 1, k, 50.0));
  }
  p.values.push_back(fill);
  ASSERT_EQ(p.check(), "");
  ExactLimits limits;
  limits.eliminationEntries = 1000;
  EXPECT_FALSE(solveByElimination(p, limits.eliminationEntries).has_value());
  ChoiceSolution s = solveExact(p, {}, limits);
  EXPECT_TRUE(s.exact) << s.how;
  EXPECT_NE(s.how.find("over a relaxation"), std::string::npos) << s.how;
  ExactLimits ilp;
  ilp.eliminationEntries = 0;
  ChoiceSolution reference = solveExact(p, {}, ilp);
  ASSERT_TRUE(reference.exact) << reference.how;
  EXPECT_NEAR(s.cost, reference.cost, 1e-9);
}

TEST(Choice, AConstantALayoutOfWhichCannotBeMadeStaysWithItsProducer) {
  // A constant whose layout 0 no rank can make (every move into it
  // impossible), its producer's option 0 making it there at no cost (100
  // for option 1), read in layout o by option o of the producer itself
  // and of 5 groups of 24 options: priced apart from its producer, the
  // credit for a needed source and each use's share of it would be
  // -infinity and +infinity, whose sum (NaN) elimination never picks, and
  // the bound rose to 100 above the optimum, 0 (found by a review of the
  // relaxation; solveExact then called 100 proven).
  const double inf = ChoiceProblem::kImpossible;
  const int layouts = 24, groups = 5;
  ChoiceProblem p;
  p.own = {{0, 100}};
  ChoiceProblem::Value v;
  v.producer = 0;
  v.source = {0, 1};
  v.madeByEveryRank = true;
  v.move.assign(layouts, std::vector<double>(layouts, 1.0));
  for (int a = 0; a < layouts; ++a) {
    v.move.mutableAt(a)[a] = 0;
    if (a > 0)
      v.move.mutableAt(a)[0] = inf;
  }
  v.uses.push_back({0, {0, 1}});
  std::vector<int> need(layouts);
  for (int o = 0; o < layouts; ++o)
    need[o] = o;
  for (int g = 1; g <= groups; ++g) {
    p.own.push_back(std::vector<double>(layouts, 0.0));
    v.uses.push_back({g, need});
  }
  p.values.push_back(v);
  ASSERT_EQ(p.check(), "");
  EXPECT_DOUBLE_EQ(p.evaluate(std::vector<int>(p.own.size(), 0)), 0.0);
  for (ChoiceRelaxation relaxation :
       {ChoiceRelaxation::Farthest, ChoiceRelaxation::LeastInto})
    for (int64_t splitAbove : {int64_t(1), int64_t(4096)})
      for (int64_t entries : {int64_t(16), int64_t(1) << 20})
        if (std::optional<ChoiceBound> bound =
                boundByElimination(p, relaxation, entries, splitAbove))
          EXPECT_LE(bound->bound, 1e-9) << bound->how;
  ChoiceSolution s = solveExact(p);
  EXPECT_DOUBLE_EQ(s.cost, 0.0) << s.how;
}

TEST(Choice, AWeightGatheredOnceForEveryBlockIsProvenWithoutAProgram) {
  // A chain of 12 ops of 4 options, each reading one pinned weight (source
  // layout 4): option 0 reads it as it lies (5 us of compute), option 1
  // gathered (layout 0: 8 us), options 2 and 3 in layouts 1 and 2, 9 us
  // from the source or sliced for free from the gathered copy (1 us of
  // compute each). Gathering once for every op is the optimum (12 + 8 us),
  // which elimination's split cannot prove (every layout priced from the
  // source) and the shortest paths' relaxation (Farthest) proves with no
  // integer program.
  ChoiceProblem p;
  const int n = 12;
  ChoiceProblem::Value weight;
  weight.source = {4};
  weight.move.assign(5, std::vector<double>(5, 9.0));
  for (int l = 0; l < 5; ++l) {
    weight.move.mutableAt(l)[l] = 0;
    weight.move.mutableAt(0)[l] = 0;
  }
  weight.move.mutableAt(4)[0] = 8.0;
  for (int g = 0; g < n; ++g) {
    p.own.push_back({5.0, 1.0, 1.0, 1.0});
    weight.uses.push_back({g, {4, 0, 1, 2}});
    if (g + 1 < n)
      p.values.push_back(passedOn(g, g + 1, 4, 2.0));
  }
  p.values.push_back(weight);
  ChoiceSolution s = solveExact(p);
  EXPECT_TRUE(s.exact) << s.how;
  EXPECT_DOUBLE_EQ(s.cost, n * 1.0 + 8.0);
  EXPECT_NE(s.how.find("over a relaxation"), std::string::npos) << s.how;
  EXPECT_EQ(s.how.find("CBC"), std::string::npos) << s.how;
}

} // namespace
