//===- ShardPlanner.h - Plans of the shard dialect's ops --------*- C++ -*-===//
//
// The planner as passes and tools use it, on the shard dialect's types: one
// options struct (the cost model, the world, the plans allowed), checked in
// one place; the plan chosen for moving a value from one layout to another
// (cached per pair of types: modules repeat them); what that plan costs
// (bytes each rank receives, the lower bound, the modelled time, the
// candidates); and the plan report, per global op (docs/planner.md).
//
// A pass that weighs layouts asks `cost(from, to)` without building IR.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PLANNING_SHARDPLANNER_H
#define SHARDC_PLANNING_SHARDPLANNER_H

#include "shardc/Dialect/Shard.h"
#include "shardc/Planning/Cost.h"
#include "shardc/Planning/Planner.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardc {
namespace planning {

/// Marks the all_reduce that sums a cut dynamic dim's extent over its
/// ranks (passes/DynamicExtents.cpp): the report says which entries are
/// those ("dynamic_extent"), which no search decides.
constexpr llvm::StringLiteral kExtentSumAttr = "shard.extent_sum";

/// The cost model: everything a plan depends on besides the layouts. Its
/// options are declared once (CostModel.h); every pass, tool and the
/// Python module build one and hand it to ShardPlanner::create, which
/// checks it.
struct PlanningOptions {
  /// The link class; ignored with a topology file.
  LinkClass link = LinkClass::NVLink;
  /// Overrides of the world link's latency (us) and bandwidth (GB/s).
  std::optional<double> alphaUs, betaGBps;
  /// A topology file (a link per mesh axis, docs/planner.md), or empty.
  std::string topologyFile;
  /// The MPI world's size; 0: the ranks the layouts name.
  int64_t worldSize = 0;
  PlanSet plans = PlanSet::Cheapest;
  /// The compute rate (GFLOP/s) an op's work is costed at where layouts
  /// are weighed against each other (-shard-propagate's search); 0: compute
  /// is free.
  double peakGflops = 60000;
};

/// One step of a plan, as the report counts it: the bytes each rank the
/// layouts name receives, and what every other rank of the world receives.
struct StepSummary {
  /// A named collective ("all_gather", "reduce_scatter", "all_reduce",
  /// "all_to_all", "broadcast", "gather", "scatter") or "exchange",
  /// "reduce_exchange", "local_copy".
  std::string kind;
  /// "world", "mesh axes [0, 1]" or "ranks [0, 2]".
  std::string group = "world";
  std::map<int, int64_t> received;
  int64_t other = 0;
};

/// A candidate plan the planner weighed.
struct CandidateSummary {
  std::string name;
  size_t steps = 0;
  /// nullopt when the candidate's bytes do not fit int64 (only a chosen
  /// plan's counts must: a candidate that is not chosen never stops a plan).
  std::optional<int64_t> bytesReceivedTotal;
  double modelledUs = 0;
};

/// What a global op's plan moves and costs, in bytes (docs/planner.md). When
/// `overflow` is set a count does not fit int64 and the others are not
/// meaningful.
struct PlanSummary {
  bool overflow = false;
  /// The ranks covered: the world, or one more than the largest rank named.
  int64_t ranks = 0;
  std::vector<StepSummary> steps;
  /// The least each rank must receive, for the ranks named and the others.
  std::map<int, int64_t> lowerBound;
  int64_t otherLowerBound = 0;
  int64_t bytesReceivedTotal = 0, bytesReceivedMaxRank = 0;
  int64_t lowerBoundTotal = 0, lowerBoundMaxRank = 0;
  double modelledUs = 0;
  /// Where the destination keeps partial values: the local step after the
  /// plan's (decideMove), in words ("the first copy of each P(sum) group
  /// keeps the value, the others hold 0"); empty otherwise.
  std::string partialCopies;
  /// The plan chosen and the candidates, when there was a choice.
  std::string plan;
  std::vector<CandidateSummary> candidates;

  /// Whether the plan receives no more than the lower bound, in all and on
  /// the rank receiving most.
  bool atLowerBound() const {
    return bytesReceivedTotal == lowerBoundTotal &&
           bytesReceivedMaxRank == lowerBoundMaxRank;
  }
};

/// modelledCost's answer: what cost()'s summary says of the same move, in
/// modelledUs, bytesReceivedTotal and overflow.
struct ModelledMove {
  double us = 0;
  int64_t bytesReceived = 0;
  /// A count past int64: bytesReceived means nothing.
  bool overflow = false;
};

/// One SPMD collective of a global op's plan, in order: what
/// -shard-plan-redistribute emits for it.
struct OpStep {
  enum class Kind {
    /// spmd.all_gather over world: the whole tensor on every rank.
    WorldAllGather,
    /// spmd.exchange to world: the same from a layout with replicas (each
    /// rank receives only what it lacks).
    ExchangeToWorld,
    /// spmd.scatter over world from `root`.
    Scatter,
    /// A named collective over mesh axes or ranks (`collective`).
    Collective,
    /// spmd.exchange: grouped point-to-point of box intersections.
    Exchange,
    /// Local, nothing moves: the value whole on its Partial axes (`from`)
    /// made `to`'s partial copies; where `identityPastFirstCopy` is set,
    /// the ranks past each group's first copy hold the reduction's
    /// identity (decideMove).
    MakePartial,
  };
  Kind kind = Kind::Exchange;
  /// The layouts before and after (WorldAllGather, ExchangeToWorld: `to` is
  /// the whole tensor on every rank and left null; Scatter: `from` is null).
  ShardedTensorType from, to;
  std::optional<layout::Collective> collective;
  int64_t root = -1;
  std::optional<layout::Placement::Reduce> identityPastFirstCopy;
};

/// mlir::openInputFile for a file the planner or a tool reads: "-" (stdin)
/// or a regular file. A device (/dev/zero) would be read without end and a
/// directory fail obscurely: they are refused, `error` saying so.
std::unique_ptr<llvm::MemoryBuffer> openRegularInputFile(llvm::StringRef path,
                                                         std::string *error);

/// How a value moves from `from` to `to`: the one decision the passes
/// (propagation's costs, partition, -shard-plan-redistribute), shard-plan
/// and Python share. The plan's steps (ShardPlanner::choose, cost,
/// stepsOf) move it to `reached`: `to`, or, where `to` keeps partial
/// values, `to` with its Partial axes replicated (a plan makes no partial
/// values by moving them). A last step, local, makes the partial copies
/// from there: every copy holds the value for max, min and avg; for sum
/// and product (`identityPastFirstCopy`) the first copy of each group
/// holds it and the others the reduction's identity, so that the copies
/// reduce to the value.
struct MoveDecision {
  ShardedTensorType reached;
  std::optional<layout::Placement::Reduce> identityPastFirstCopy;
};

/// The decision for `from` -> `to`, or failure after emitting why through
/// `emitError` (the caller's prefix first): a layout whose Partial axes
/// reduce with different operations. Shapes, dtypes and verifyPlannable
/// are checked by the callers.
mlir::FailureOr<MoveDecision>
decideMove(ShardedTensorType from, ShardedTensorType to,
           llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// Where a plan's steps take a value from `from` bound for `to`: `to` with
/// its Partial axes replicated, or `to` itself where it is `from`
/// (MoveDecision::reached).
ShardedTensorType reachedBy(ShardedTensorType from, ShardedTensorType to);

/// The ranks that hold the first copy of `type`'s partial values, ascending
/// (every rank it names, for a layout without Partial placements): the
/// ranks that keep the value where MoveDecision::identityPastFirstCopy is
/// set. A list, not a table by rank: a mesh may name rank 2^31 - 1.
std::vector<int64_t> firstCopyRanks(ShardedTensorType type);

/// Whether `rank` is among firstCopyRanks(type).
bool holdsFirstCopy(ShardedTensorType type, int64_t rank);

/// The planner's view of `type` (a mesh layout for DTensor placements).
PlanLayout planLayoutOf(ShardedTensorType type);

/// The type of a step's layout: `to` for the final step; otherwise the
/// intermediate placements on `from`'s mesh (or a 1-D mesh of every rank).
ShardedTensorType stepType(const PlanStep &step, ShardedTensorType from,
                           ShardedTensorType to);

class ShardPlanner {
public:
  /// A planner for `options`, or null after emitting (through `emitError`,
  /// whose diagnostic the caller may start with its own prefix) why they
  /// cannot be used: a latency or bandwidth that is not a
  /// finite number in range, an unreadable or malformed topology file, a
  /// world size that no MPI world has.
  static std::unique_ptr<ShardPlanner>
  create(const PlanningOptions &options,
         llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

  ShardPlanner(Topology topology, int64_t worldSize, bool directOnly);
  ~ShardPlanner();

  const Topology &topology() const;
  int64_t worldSize() const;

  /// The plan chosen for moving `from` to `to` (computed once per pair):
  /// its steps reach decideMove's `reached` (`to` when it keeps no partial
  /// values). The pair must pass decideMove.
  const PlanChoice &choose(ShardedTensorType from, ShardedTensorType to);

  /// What moving a value from `from` to `to` costs, under the chosen plan
  /// (computed once per pair; the local step that makes partial copies
  /// costs nothing). Both must pass verifyPlannable, the pair decideMove.
  const PlanSummary &cost(ShardedTensorType from, ShardedTensorType to);
  /// What a search weighs of the move cost() reports: the chosen plan's
  /// modelled time and the bytes it receives in all, by the same candidates
  /// and rule, with no plan copied, no steps summarized and no lower bound
  /// (computed once per pair: a search asks for every pair of a type's
  /// layouts).
  const ModelledMove &modelledCost(ShardedTensorType from,
                                   ShardedTensorType to);

  /// The steps of the plan of a global op (distribute, all_gather, gather,
  /// redistribute), in order: every choice of collective the compiler
  /// makes, the several-blocks-per-rank cases included (an all_gather of
  /// several blocks per rank gathers on the first owner, then to every rank;
  /// a distribute to several blocks per rank is the exchange from the whole
  /// tensor on the source rank). Empty for other ops and when nothing moves.
  std::vector<OpStep> stepsOf(mlir::Operation *op);

  /// How many plans, summaries, layouts and local types are cached: a
  /// long-lived user (the Python module) starts a new planner past its
  /// bound.
  size_t cachedEntries() const;

  /// getLocalType(type), computed once per type.
  mlir::RankedTensorType localType(ShardedTensorType type);

  /// The summary of a global op (distribute, all_gather, gather,
  /// redistribute); null for other ops and for layouts whose blocks do not
  /// all name a rank.
  const PlanSummary *summarize(mlir::Operation *op);

  /// Records the plan of a global op in the report before a pass rewrites
  /// it, with how many times it runs (`timesRun`; nullopt: not known
  /// statically, `why` says why). Other ops are ignored. Emits at `op` and
  /// fails when a byte count of its entry does not fit int64.
  mlir::LogicalResult add(mlir::Operation *op,
                          std::optional<int64_t> timesRun = 1,
                          llvm::StringRef why = "");
  /// Records in the report that `op` moves bytes it does not count (a
  /// collective written in the program): its total is then not known, and
  /// `why` is said.
  void addUncounted(mlir::Operation *op, llvm::StringRef why);
  /// Records that the program runs on `ranks` ranks (its layouts name
  /// them): the report's per-rank total lists each of them, 0 where nothing
  /// is received (a program that moves nothing listed none).
  void noteRanks(int64_t ranks);

  /// The report of the ops added, as JSON text: {"ops": [...], "total":
  /// {...}}, the total counting each op as many times as it runs.
  std::string json() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace planning
} // namespace shardc

#endif // SHARDC_PLANNING_SHARDPLANNER_H
