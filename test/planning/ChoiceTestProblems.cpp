//===- ChoiceTestProblems.cpp - Random choice problems for the tests ------===//

#include "ChoiceTestProblems.h"

#include <algorithm>
#include <cmath>

namespace choice_test {

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

} // namespace choice_test
