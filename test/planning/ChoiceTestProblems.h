//===- ChoiceTestProblems.h - Random choice problems for the tests --------===//
//
// The random problems the search's tests solve against brute force
// (ChoiceTest.cpp, ChoiceMemoryTest.cpp), and the least memory by brute
// force.
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TEST_PLANNING_CHOICETESTPROBLEMS_H
#define SHARDC_TEST_PLANNING_CHOICETESTPROBLEMS_H

#include "shardc/Planning/Choice.h"

#include <random>
#include <vector>

namespace choice_test {

using shardc::planning::ChoiceProblem;

/// A random problem of `groups` groups of 1-4 options and values with 0-3
/// uses, fixed sources and pins among them, and some impossible moves.
ChoiceProblem randomProblem(std::mt19937 &rng, int groups);
/// A random problem whose values hold bytes: sources and needs name the
/// same layouts (square moves), each layout holding 0-99 bytes.
ChoiceProblem randomHeldProblem(std::mt19937 &rng, int groups);
/// The choice that holds least (at its peak) of every combination whose
/// moves are possible, by brute force; empty where none is.
std::vector<int> leastMemoryChoice(const ChoiceProblem &p);
/// The least memory of every combination, by brute force.
double leastMemory(const ChoiceProblem &p);

} // namespace choice_test

#endif
