//===- Choice.h - Choosing one option per group at least total cost -*- C++
//-*-===//
//
// The search behind whole-function propagation (-shard-propagate
// search=whole), free of MLIR: groups (an op's loop shardings, a free
// argument's layouts) each pick exactly one option, every option has a cost
// of its own (the op's compute time), and values move: a value's producer
// option fixes its source layout, each use's option names the layout it
// needs the value in, and every distinct layout needed is made once, from
// the source or from another layout needed (cheapestMoves), at the cost
// the planner gives for each move. The total is
//
//   sum over groups of own[g][o_g]
//     + sum over values v of the cheapest way to make every distinct
//       layout some use's option needs of v, each by one move from
//       source(v, o_producer) or from another of those layouts (a
//       minimum-cost arborescence rooted at the source)
//
// solveExact minimizes it (variable elimination; a relaxation's lower
// bound met by a choice, boundByElimination; an integer program on COIN-OR
// CBC) and says whether the optimum is proven; solveLocal is the heuristic past
// the size the solver is given (docs/partition.md, "Whole-function search"):
// from a start, it moves one group at a time to its best option until none
// improves. Both are deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PLANNING_CHOICE_H
#define SHARDC_PLANNING_CHOICE_H

#include "shardc/Planning/SharedVector.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardc::planning {

/// The cheapest way to make every layout of `needs` (distinct ids) of one
/// value from its `source` layout, `move[a][b]` the cost of the move from a
/// to b (kImpossible: none): each layout made by one move, from the source
/// or from another layout of `needs` made before it. A minimum-cost
/// arborescence rooted at the source (Chu-Liu/Edmonds), ties to the earlier
/// edge: deterministic. A gathered copy that other needs slice for free is
/// found this way (S(0) -> R, then R -> S(1) with no move of data). Only
/// where `move` is square (sources and needs ids of one set of layouts);
/// else each layout straight from the source.
struct MoveTree {
  /// Per entry of `needs`: the layout it is made from (the source, or
  /// another entry); -1 where no chain of possible moves reaches it.
  std::vector<int> from;
  /// The moves' costs summed, the impossible ones left out.
  double cost = 0;
  /// How many needs no chain of possible moves reaches.
  int impossible = 0;
};
MoveTree cheapestMoves(const std::vector<std::vector<double>> &move, int source,
                       const std::vector<int> &needs);
/// cheapestMoves' cost and impossible count alone, without allocating
/// where at most two layouts are needed (the solvers' inner loop).
inline double cheapestMovesCost(const std::vector<std::vector<double>> &move,
                                int source, const std::vector<int> &needs,
                                int &impossible) {
  impossible = 0;
  const bool square = !move.empty() && move.size() == move[0].size();
  if (needs.size() == 1 || (needs.size() == 2 && !square)) {
    double cost = 0;
    for (int need : needs) {
      const double c = move[source][need];
      if (std::isinf(c))
        ++impossible;
      else
        cost += c;
    }
    return cost;
  }
  if (needs.empty())
    return 0;
  if (needs.size() == 2) {
    // The three trees over the source s and layouts a, b.
    const int a = needs[0], b = needs[1];
    const double sa = move[source][a], sb = move[source][b], ab = move[a][b],
                 ba = move[b][a];
    const bool reachA =
        std::isfinite(sa) || (std::isfinite(sb) && std::isfinite(ba));
    const bool reachB =
        std::isfinite(sb) || (std::isfinite(sa) && std::isfinite(ab));
    impossible = !reachA + !reachB;
    if (!reachA || !reachB)
      return !reachA && !reachB ? 0.0 : reachA ? sa : sb;
    return std::min({sa + sb, sa + ab, sb + ba});
  }
  MoveTree tree = cheapestMoves(move, source, needs);
  impossible = tree.impossible;
  return tree.cost;
}

struct ChoiceProblem {
  /// A cost of a move the planner cannot make: never chosen.
  static constexpr double kImpossible = std::numeric_limits<double>::infinity();

  /// Per group, per option: the option's own cost (>= 0).
  std::vector<std::vector<double>> own;

  struct Use {
    /// The group whose option decides the layout this use needs; -1: a
    /// fixed need (a pin), `need[0]` always.
    int group = -1;
    /// Per option of `group`: the id of the layout it needs (an index into
    /// the value's `move` columns), or -1 when that option needs nothing.
    std::vector<int> need;
  };
  struct Value {
    /// The group whose option decides the source; -1: a fixed source
    /// (`source[0]`).
    int producer = -1;
    /// Per option of `producer`: the id of the source layout (a row of
    /// `move`).
    std::vector<int> source;
    std::vector<Use> uses;
    /// Per source id, per needed layout id: the move's cost (0 where they
    /// are the same blocks; kImpossible where the planner cannot move it).
    /// Values of one type and layouts share it.
    SharedRows<double> move;
    /// Per layout id: the bytes a rank holds of the value in that layout
    /// (its largest block); empty: nothing counted. Where it is given,
    /// sources and needs are ids of the same layouts (`move` is square).
    /// The source and every other layout made of it are held.
    std::vector<double> held;
    /// The program points (0, 1, ...) at which it is held, from `first`
    /// to `last` inclusive, with every copy of it: what a rank holds at a
    /// point is the sum over the values held there. All 0 (the default):
    /// every value at one point, the sum over the function.
    int first = 0, last = 0;
    /// Every rank makes the value alone in each layout a use may need (a
    /// constant made again there, nothing moved): `move[s][l]` is the same
    /// for every s but l (what making l costs), so the cheapest moves are
    /// each layout needed but the source made once, and the solvers price
    /// it so (a sum, not a tree of moves). check() holds them to it.
    bool madeByEveryRank = false;
    /// Whether the source's block is this value's own, held by it: false
    /// where it is another value's (a callee's argument searched with its
    /// call is the block the caller passes, its operand or the copy the
    /// call needs of it, held there), so that only the other layouts made
    /// of it count as held.
    bool sourceHeld = true;
  };
  std::vector<Value> values;

  /// The most bytes a rank may hold at any point: the sources and copies
  /// of the values held there (`first` to `last`) summed; kImpossible: no
  /// budget. A choice over it is never chosen.
  double memoryBudget = kImpossible;

  /// The total of `choice` (one option per group); kImpossible when it
  /// forces a move the planner cannot make or holds more than the memory
  /// budget.
  double evaluate(const std::vector<int> &choice) const;
  /// The bytes a rank holds under `choice` at the point where it holds
  /// most: the values held there, each its source and every other layout
  /// some use needs it in.
  double memory(const std::vector<int> &choice) const;
  /// The points where what is held may peak, each with the values held
  /// there (ascending): a point where some value is held for the last time
  /// (between two such points nothing is freed, so nothing peaks),
  /// duplicates left out. One point with every value where all are held
  /// at point 0.
  std::vector<std::vector<int>> peakPoints() const;
  /// Whether every value is held at one point (the sum over the function).
  bool heldAtOnce() const;
  /// What value `value` holds under `choice`.
  double valueMemory(size_t value, const std::vector<int> &choice) const;
  /// The problem whose total is the bytes held by every value, summed
  /// over the function (its own budget none): solved, it gives the least a
  /// rank can hold where heldAtOnce(), and a choice that holds little
  /// otherwise.
  ChoiceProblem memoryProblem() const;
  /// The moves `choice` pays for: (value, id of the layout moved from: the
  /// source or another copy, needed layout id), each once, in value order
  /// (moves of cost 0 left out).
  struct Paid {
    int value, source, need;
  };
  std::vector<Paid> paid(const std::vector<int> &choice) const;
  /// The same for the values listed only (each once, in order).
  std::vector<Paid> paid(const std::vector<int> &choice,
                         const std::vector<int> &valuesListed) const;
  /// The source layout of value `value` under `choice`.
  int sourceOf(size_t value, const std::vector<int> &choice) const;
  /// The distinct layouts its uses need of value `value` under `choice`
  /// (ascending).
  std::vector<int> neededOf(size_t value, const std::vector<int> &choice) const;
  /// What value `value` costs under `choice`: its moves.
  double valueCost(size_t value, const std::vector<int> &choice) const;
  /// Checks the problem's shape; a message naming the first problem, or "".
  std::string check() const;
  /// The number of options over all groups.
  int64_t options() const;
};

/// Every layout some use's option of `value` may need (ids, ascending).
std::vector<int> layoutsUsesMayNeed(const ChoiceProblem::Value &value);
/// What making `layout` of a value every rank makes alone costs
/// (Value::madeByEveryRank): its move there from any other layout.
inline double madeCost(const ChoiceProblem::Value &value, int layout) {
  // The first row other than `layout`'s: 0, or 1 for layout 0.
  const size_t rows = value.move.size();
  if (rows == 0 || (rows == 1 && layout == 0))
    return 0;
  return value.move[layout == 0 ? 1 : 0][layout];
}

/// The moves from one needed layout of `value` to another that some source
/// of it cannot match: (from id, to id) with move[from][to] below
/// move[S][to] for some source S the producer's options give. Empty: every
/// layout is made straight from the source whatever the choice (always,
/// where `move` is not square).
std::vector<std::pair<int, int>>
movesBetweenCopies(const ChoiceProblem::Value &value);

/// Two totals of `problem` closer than this count as equal in every proof
/// the solvers make (a relaxation's bound met, an integer program's answer
/// checked): a millionth of the larger of |total| and the problem's
/// smallest nonzero cost term, so relative whatever the scale of the
/// times (compute of 1e-7 us beside moves of 2 us; totals of 1e-11 us).
double proofTolerance(const ChoiceProblem &problem, double total);
/// proofTolerance's two parts, for a caller that proves many totals of one
/// problem: its smallest nonzero cost term (a scan of every cost), and the
/// tolerance at `total` given it.
double smallestCost(const ChoiceProblem &problem);
double toleranceOver(double smallest, double total);

struct ChoiceSolution {
  std::vector<int> choice;
  double cost = ChoiceProblem::kImpossible;
  /// Proven optimal (the solver finished and proved it).
  bool exact = false;
  /// How it was found, in words ("integer program (CBC), proven optimal",
  /// "local search from the start given", ...).
  std::string how;
  /// Non-empty: a solver ran past its guard (cbc::guardSeconds) and was
  /// killed, and this says so; the choice is not an answer (one run may
  /// be stopped where the next is not: the caller fails instead).
  std::string stopped;
};

/// The limits of solveExact: each stops it alike on every run (no wall
/// clock: an answer it stopped would differ from run to run).
struct ExactLimits {
  /// Variable elimination first, while no table exceeds this many entries
  /// (0: straight to the integer program).
  int64_t eliminationEntries = int64_t(1) << 20;
  /// The deterministic limit: each integer program's branch-and-bound
  /// nodes (CBC's maxNodes; 0: none); past it the best found is returned,
  /// not proven, and the same on every run.
  int64_t nodes = 20000;
  /// The deterministic limit on each integer program's relaxation: dual
  /// simplex iterations (0: none); past it the program is not solved (the
  /// start given stands, not proven), the same on every run.
  int64_t iterations = 50000;
  /// The most columns of the programs that make copies from copies (run
  /// after the one that moves every layout from its source, where some
  /// layout may be made cheaper from another copy; 0: no limit). Past it
  /// that program's answer is improved by local search instead, not
  /// proven.
  int64_t copiesColumns = 40000;
  /// The most columns of the first program (every layout moved from its
  /// source; 0: no limit). Past it no integer program is run: local search
  /// from the start given answers, not proven (transformer chains of 20, 30
  /// and 50 ops, 92,033, 141,315 and 239,879 columns, took 1, 5 and 53 s in
  /// its relaxation, each to end where local search did in a tenth of a
  /// second; the largest in the tests has 52,451).
  int64_t starColumns = 60000;
};

/// The optimum by variable elimination (dynamic programming over the
/// groups, the smallest combined table first), or nullopt when some table
/// would exceed `maxEntries` or the problem has a memory budget: exact, and
/// fast where the ops form a tree or a graph of few crossings. A value whose
/// producer's and uses' options combine to more than `splitAbove` entries is
/// split into one binary "layout made" group per layout its uses may need
/// (exact as well where no layout of it is cheaper made from another copy;
/// else each of its layouts is priced from the source, an upper bound, and
/// the answer is not `exact`). nullopt too once the tables' entries, summed,
/// pass `maxWork`.
std::optional<ChoiceSolution>
solveByElimination(const ChoiceProblem &problem, int64_t maxEntries,
                   int64_t splitAbove = 4096,
                   int64_t maxWork = std::numeric_limits<int64_t>::max());

/// A lower bound on a problem's optimum, and the choice where its
/// relaxation is least.
struct ChoiceBound {
  /// At most every choice's total (evaluate's, without the memory budget).
  double bound = 0;
  std::vector<int> choice;
  /// How it was found, in words.
  std::string how;
};

/// How boundByElimination prices a value of many uses below its cost,
/// per use (every layout L a use needs is made by one move into it, from
/// the source s or another layout needed).
enum class ChoiceRelaxation {
  /// The least move into L from s or any layout a use may need, shared
  /// among the uses that may need L.
  LeastInto,
  /// The shortest path from s to L (relaying through layouts a use may
  /// need), averaged over the uses (the total is at least the largest):
  /// exact where every use needs one layout, or copies sliced from one
  /// gathered copy.
  Farthest,
};

/// The relaxation of solveByElimination: a value whose producer's and
/// uses' options combine to more than `splitAbove` entries is priced per
/// use by `relaxation`, never above its cost, so that its factors are
/// pairs and chains of ops reading one value stay small. Its optimum, by
/// variable elimination, is a lower bound on the problem's (the memory
/// budget left out); a choice whose total meets it is optimal. A constant
/// every rank makes (Value::madeByEveryRank) read by many is priced apart
/// from its producer (the uses' factors then of one group each), or with
/// it (tighter, larger tables): every one apart first, then those the
/// relaxation's choice leaves below the truth priced with their producers
/// again, until none is or the tables do not fit, then all with their
/// producers where that fits. Each bound found is passed to `enough`
/// (where given), which stops the search by returning true; the answer
/// is then that bound, else the highest found. nullopt where no table
/// fits `maxEntries` or their entries, summed, `maxWork`.
std::optional<ChoiceBound>
boundByElimination(const ChoiceProblem &problem, ChoiceRelaxation relaxation,
                   int64_t maxEntries, int64_t splitAbove = 4096,
                   int64_t maxWork = std::numeric_limits<int64_t>::max(),
                   const std::function<bool(const ChoiceBound &)> &enough = {});

/// The optimum by variable elimination where its tables stay within
/// `limits.eliminationEntries`; else where a choice meets the bound of one
/// of boundByElimination's relaxations (Farthest with values past 4,096
/// entries relaxed, then past 65,536, then LeastInto: the relaxation's own
/// choice, `start`, or local search from the former);
/// else by integer programs (each on CBC in a child process, so that an
/// abort in CLP leaves the caller running);
/// `exact` is false (and `how` says why) when the solver stops before
/// proving it, or fails (the start's choice then stands). `start`
/// (optional, one option per group) seeds it.
ChoiceSolution solveExact(const ChoiceProblem &problem,
                          const std::vector<int> &start = {},
                          ExactLimits limits = {});

/// Local search from `start` (empty: option 0 of every group): repeatedly
/// moves the first group (in order) whose best other option lowers the
/// total, until none does. Under a memory budget it lowers, first, the
/// number of impossible moves, then the bytes over the budget at the peak,
/// then the total: from a start within the budget it stays within it.
/// Under a budget it searches without it first (its answer, where it fits,
/// is returned); from a start over the budget it goes on from the better
/// of that answer repaired and the choice that holds least (summed); for
/// up to 2,048 groups it also searches the time plus lambda times the
/// bytes held without the budget, for lambda bisected to the least whose
/// answer fits, and keeps the best answer within the budget.
ChoiceSolution solveLocal(const ChoiceProblem &problem,
                          std::vector<int> start = {});

/// Every combination, for tests and benchmarks of small problems.
ChoiceSolution solveBruteForce(const ChoiceProblem &problem);

} // namespace shardc::planning

#endif // SHARDC_PLANNING_CHOICE_H
