//===- Cbc.h - One integer program on COIN-OR CBC, in a child process ----===//
//
// Private to the planning library (ChoiceIntegerProgram.cpp).
//
// CBC 2.10 and CLP as Debian builds them keep their assertions, and CLP
// asserts (aborts the process) on some models it should solve (coin-or/Clp
// issue 173: "lowerValue <= upperValue" in ClpNonLinearCost, met on a
// 95-column model of ChoiceTest's). An abort would take shard-opt, or the
// compiler that embeds the passes, down with it; so each program is solved
// in a forked child, which writes its answer to a pipe, and a child that
// dies or outlives its time says so instead.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PLANNING_CBC_H
#define SHARDC_PLANNING_CBC_H

#include <string>
#include <vector>

namespace shardc::planning::cbc {

/// A mixed integer program, minimized: column-major as Cbc_loadProblem
/// takes it.
struct Program {
  std::vector<int> starts; // columns + 1
  std::vector<int> index;
  std::vector<double> value, colLb, colUb, obj, rowLb, rowUb;
  std::vector<int> integers;
  /// A start (columns and values), or none.
  std::vector<int> startCols;
  std::vector<double> startValues;
  /// The deterministic limit: branch-and-bound nodes (CBC's maxNodes; 0:
  /// none). Identical programs stopped by it give identical answers.
  int nodes = 0;
  /// The deterministic limit on the relaxation: dual simplex iterations
  /// (CLP's maxIterations; 0: none). CBC's own root LP has no such limit
  /// (its maxIterations leaves it alone), and on ~100-op functions it
  /// outlasts any node limit; so the relaxation is solved first under
  /// this limit, and an integral optimum of it is the answer. Nor are the
  /// LPs at its nodes (with strong branching, several a node), each about
  /// as large: where the relaxation took more than 1/kBranchShare of this
  /// limit, CBC branches at most kLargeProgramNodes nodes.
  int iterations = 0;
  /// How long the child may run before it is killed, in seconds (below 0:
  /// guardSeconds(); tests set it small). Not a limit on the answer: a
  /// child it stops gives none (Outcome::stoppedByGuard), so that no
  /// answer ever depends on the machine's speed or load.
  double killAfter = -1;
};

/// The share of a program's `iterations` past which its relaxation,
/// fractional, marks an LP too large to branch on for long: CBC then
/// branches at most kLargeProgramNodes nodes (Outcome::nodesCapped).
constexpr int64_t kBranchShare = 8;
constexpr int kLargeProgramNodes = 4;

struct Outcome {
  /// The solver finished (else `failure` says why, and nothing below
  /// holds but stoppedByGuard, set where the child was killed).
  bool ran = false;
  std::string failure;
  /// The first child died (CLP aborted) and this answer is the second's.
  bool retried = false;
  bool proven = false, infeasible = false, nodeLimitReached = false;
  /// The child ran past its guard (killAfter) and was killed: no answer.
  bool stoppedByGuard = false;
  /// The relaxation reached `iterations` unsolved: no answer (`ran`
  /// holds), the same on every run.
  bool iterationLimitReached = false;
  /// Where the relaxation was fractional after more than 1/kBranchShare
  /// of `iterations` (relaxationIterations): the nodes CBC was held to
  /// (kLargeProgramNodes, or `nodes` where fewer); else 0.
  int nodesCapped = 0;
  int relaxationIterations = 0;
  double objective = 0, bestPossible = 0;
  /// Every column's value, or empty where CBC found no solution.
  std::vector<double> solution;
};

/// Solves `program` in a forked child (in this process where fork fails):
/// its relaxation first, by CLP's dual simplex under `iterations`; where
/// that optimum is integral it is the answer (proven), else CBC solves
/// the program (at most kLargeProgramNodes nodes where the relaxation took
/// more than 1/kBranchShare of `iterations`: nodesCapped).
/// A child CLP aborts is solved once more with probing cuts off (the
/// known trigger); a child that outlives `killAfter` is killed. No wall
/// clock limits the solver itself: its limits are `nodes` and
/// `iterations`, which stop it alike on every run.
Outcome solve(const Program &program);

/// The guard on each child, in seconds: SHARDC_SOLVER_GUARD_SECONDS where
/// set to a number above 0 (tests), else 600. A guard against a solver that
/// does not stop, not a limit: its caller fails rather than answer
/// differently from one run to the next.
double guardSeconds();

} // namespace shardc::planning::cbc

#endif // SHARDC_PLANNING_CBC_H
