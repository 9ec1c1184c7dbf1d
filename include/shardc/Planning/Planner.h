//===- Planner.h - Choosing the plan of a redistribution --------*- C++ -*-===//
//
// A redistribution can be done in several correct ways: one exchange from
// the source layout to the destination, or a chain of exchanges through
// intermediate layouts (one mesh axis at a time; reduce-scatter before
// gathering partial values; all_gather then a local slice). The planner
// builds a polynomial number of such candidates, models each with the
// alpha-beta cost model (per mesh axis) and picks the cheapest. Every step
// of every candidate is an exchange between two valid layouts (or an
// all_gather), so every candidate is correct by construction; the choice is
// only about cost. Plain C++, shared by the compiler and shard-plan.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PLANNING_PLANNER_H
#define SHARDC_PLANNING_PLANNER_H

#include "shardc/Layout/Collectives.h"
#include "shardc/Layout/Exchange.h"
#include "shardc/Layout/Mesh.h"
#include "shardc/Planning/Cost.h"

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace shardc {
namespace planning {

/// A layout of one tensor as the planner sees it.
struct PlanLayout {
  std::vector<int64_t> shape;
  /// For a mesh layout: its mesh and placements (`isMesh`).
  bool isMesh = false;
  layout::Mesh mesh;
  std::vector<layout::Placement> placements;
  /// Every device's block, replicas included.
  layout::BlockTable table;
  /// Per row of `table`, its partial index; empty without Partial values.
  std::vector<int64_t> partial;
  /// The layout an all_gather leads to in a world larger than the ranks that
  /// take part in the plan: how many devices of `mesh` (each holding the
  /// whole tensor) `table` leaves out, so that it grows with the blocks, not
  /// with the world.
  int64_t omittedReplicas = 0;

  bool hasPartial() const { return !partial.empty(); }
  /// The distinct non-empty boxes of `table`, each with the rows that hold
  /// it (replicas and partial copies), in box order.
  std::vector<std::pair<const layout::Box *, int64_t>> distinctBoxes() const;
  /// Whether two non-empty blocks hold the same box (replicas or partial
  /// copies).
  bool hasCopies() const;
  /// Whether a rank owns several blocks.
  bool severalPerRank() const;
};

/// A mesh layout (placements checked against the mesh and shape).
PlanLayout meshLayout(const std::vector<int64_t> &shape,
                      const layout::Mesh &mesh,
                      const std::vector<layout::Placement> &placements);
/// Any other layout, from its device blocks.
PlanLayout blockLayout(const std::vector<int64_t> &shape,
                       const std::vector<layout::Block> &blocks);

enum class StepKind {
  /// An exchange (MPI_Alltoallv of box intersections).
  Exchange,
  /// An exchange of partial values, reduced on arrival.
  ReduceExchange,
  /// MPI_Allgatherv of a layout without copies and with one block per rank:
  /// every rank of the world receives the whole tensor.
  AllGather,
  /// An exchange in which nothing moves between ranks: local copies only.
  LocalCopy,
};
/// "exchange", "reduce_exchange", "all_gather", "local_copy".
const char *stepKindName(StepKind kind);

struct PlanStep {
  StepKind kind = StepKind::Exchange;
  /// The layout the step ends in.
  PlanLayout to;
  /// Whether `to` is the destination of the plan (else an intermediate
  /// layout: on the source's mesh, or, after an AllGather, the whole tensor
  /// replicated on a 1-D mesh of every rank).
  bool final = false;
  /// Per rank, in elements (ranks that do nothing are left out).
  layout::RankTrafficTable traffic;
  /// The other `otherRanks` ranks of the world, not in `traffic`, each do
  /// `others` (an all_gather in a world larger than the ranks named: each
  /// receives the whole tensor).
  layout::RankTraffic others;
  int64_t otherRanks = 0;

  /// What rank `r` does.
  layout::RankTraffic trafficOf(int r) const;
  /// The mesh axes along which ranks that exchange data differ, sorted;
  /// `world` when they are not all on one mesh or cross every axis.
  std::vector<int64_t> axes;
  bool world = true;
  /// Modelled time.
  double us = 0;
  /// The named collective an exchange step runs as (layout/Collectives.h);
  /// none: a general exchange (or, for a LocalCopy, local copies only).
  std::optional<layout::Collective> collective;
};

struct Plan {
  /// "direct", "per-axis [1, 0]", "per-axis [0] reduce-scatter+all-gather",
  /// "reduce-scatter first (dim 0)", "all_gather then slice".
  std::string name;
  std::vector<PlanStep> steps;
  double us = 0;

  /// Elements received by every rank named over all steps.
  std::map<int, int64_t> received() const;
  /// Elements received in all, by every rank of the world, over all steps;
  /// nullopt when the count does not fit int64.
  std::optional<int64_t> receivedTotal() const;
};

/// Which plans a redistribution may get (a pass's and a tool's option).
enum class PlanSet {
  /// The cheapest of the candidates under the cost model.
  Cheapest,
  /// One exchange (the direct plan).
  Direct,
};

struct PlannerOptions {
  Topology topology;
  int64_t elementBytes = 4;
  /// Ranks 0 .. ranks-1 take part (at least those the layouts name).
  int64_t ranks = 0;
  /// Only the direct plan (one exchange).
  bool directOnly = false;
  /// Dims no layout a plan passes through may cut.
  std::vector<int64_t> wholeDims;
  /// Dims only Shard placements may cut in the layouts a plan passes
  /// through, no StridedShard (a tensor's dynamic dims: torch.chunk of the
  /// run-time extent, which the arithmetic only names; a strided cut's
  /// groups need a known size).
  std::vector<int64_t> dynamicDims;
};

struct PlanChoice {
  /// Every candidate considered, the direct plan first; one when source and
  /// destination are equal (with no steps).
  std::vector<Plan> candidates;
  size_t chosen = 0;

  const Plan &best() const { return candidates[chosen]; }
};

/// How close to the fastest plan's modelled time a plan counts as equally
/// fast (a fraction of it): the alpha-beta model is an estimate, and within
/// this margin the plan with less traffic is the better bet.
constexpr double kNearTie = 0.10;

/// Mesh layouts and exchange steps between them already made, for one
/// planner: the candidate chains of a tensor's pairs of layouts pass
/// through the same intermediate layouts over and over (a search asks for
/// every pair). Keyed by everything a mesh layout and a step are made from
/// (shape, mesh, placements, element bytes, ranks; the topology is the
/// planner's), so a remembered step is the step exchangeStep would make.
/// Holds at most kMaxRows rows (layout blocks and per-rank traffic entries,
/// about 200 bytes each) in all, then makes the others afresh: a mesh of
/// thousands of devices has that many rows in every layout.
class StepMemo {
public:
  static constexpr size_t kMaxRows = size_t(1) << 19;
  static constexpr size_t kMostPlaceable = 4096;

  /// meshLayout(shape, mesh, placements), made once; null once the memo is
  /// full (the caller makes it).
  const PlanLayout *layout(const std::vector<int64_t> &shape,
                           const layout::Mesh &mesh,
                           const std::vector<layout::Placement> &placements);
  /// exchangeStep(from, to, options), made once when both are mesh layouts
  /// (as meshLayout makes them): the step kept, or, where it is not kept
  /// (not mesh layouts, or the memo full), the step made and put at the
  /// back of `unkept`.
  const PlanStep &step(const PlanLayout &from, const PlanLayout &to,
                       const PlannerOptions &options,
                       std::deque<PlanStep> &unkept);
  /// allGatherStep(from, options, &to.table), then exchangeStep from the
  /// layout it leads to, to `to` (the all_gather-then-slice candidate),
  /// made once when both are mesh layouts: the gather is the same for every
  /// destination naming the same ranks, the slice for every source (their
  /// gathered layout names the ranks either table names). Past the memo's
  /// rows (or not mesh layouts), made and put at the back of `unkept`.
  const PlanStep &gather(const PlanLayout &from, const PlanLayout &to,
                         const PlannerOptions &options,
                         std::deque<PlanStep> &unkept);
  const PlanStep &slice(const PlanStep &gathered, const PlanLayout &to,
                        const PlannerOptions &options,
                        std::deque<PlanStep> &unkept);
  /// layout::checkPlacements(mesh, placements, shape) succeeds, asked once
  /// per layout with a strided cut (its devices' rows are listed: a search
  /// asked it a hundred thousand times for a few hundred layouts).
  bool placeable(const std::vector<int64_t> &shape, const layout::Mesh &mesh,
                 const std::vector<layout::Placement> &placements);
  size_t steps() const { return stepMemo.size(); }
  size_t rows() const { return held; }

private:
  /// A key's hash: its words mixed in order. Hashed, not ordered: keys of
  /// one tensor type share their shape, mesh and device list, which an
  /// ordered map compared again at every level of its tree (a third of a
  /// 50-op transformer search's planner time).
  struct KeyHash {
    size_t operator()(const std::vector<int64_t> &key) const {
      uint64_t h = 0x9e3779b97f4a7c15ull ^ key.size();
      for (int64_t word : key) {
        h ^= static_cast<uint64_t>(word) + 0x9e3779b97f4a7c15ull + (h << 6) +
             (h >> 2);
      }
      return static_cast<size_t>(h);
    }
  };
  std::unordered_map<std::vector<int64_t>, PlanLayout, KeyHash> layoutMemo;
  std::unordered_map<std::vector<int64_t>, PlanStep, KeyHash> stepMemo;
  /// gather's and slice's steps (keys marked apart from stepMemo's).
  std::unordered_map<std::vector<int64_t>, PlanStep, KeyHash> gatherMemo;
  /// A step made into `memo` under `scratch`'s key, unless past the rows.
  const PlanStep &
  keepStep(std::unordered_map<std::vector<int64_t>, PlanStep, KeyHash> &memo,
           PlanStep step, std::deque<PlanStep> &unkept);
  std::unordered_map<std::vector<int64_t>, bool, KeyHash> placeableMemo;
  size_t held = 0;
  /// The key of the lookup under way, built in place (a search asks for a
  /// few hundred thousand steps and layouts, nearly all found): copied
  /// only into an entry made.
  std::vector<int64_t> scratch;
};

/// The candidates for moving a tensor from `src` to `dst` (of the same
/// shape, `dst` without Partial values) and the best under the model: of
/// the plans within kNearTie of the fastest, the one receiving the fewest
/// bytes in all, then the one with fewer steps, then the earlier candidate.
/// With `memo`, layouts and steps are taken from it (and added to it).
PlanChoice choosePlan(const PlanLayout &src, const PlanLayout &dst,
                      const PlannerOptions &options, StepMemo *memo = nullptr);

/// What the plan choosePlan chooses costs: its modelled time and the
/// elements it receives in all (nullopt past int64).
struct PlanCost {
  double us = 0;
  std::optional<int64_t> received = 0;
};
/// choosePlan's choice, weighed by the same candidates and rule, without
/// copying any plan: a search asks this of every pair of a type's layouts
/// (the candidates' steps are the memo's).
PlanCost choosePlanCost(const PlanLayout &src, const PlanLayout &dst,
                        const PlannerOptions &options, StepMemo *memo);

/// The modelled time of one exchange step from `from` to `to`, with the
/// traffic (`traffic`, per rank) and pair links; exposed for the report of
/// single-step ops.
PlanStep exchangeStep(const PlanLayout &from, const PlanLayout &to,
                      const PlannerOptions &options);

/// The named collective that runs an exchange from `from` to `to`
/// (layout/Collectives.h): over mesh axes when both are on one mesh, a
/// broadcast or gather over ranks otherwise; nullopt when none fits.
std::optional<layout::Collective> namedCollective(const PlanLayout &from,
                                                  const PlanLayout &to);

/// The all_gather of `from` (no copies) to every rank of `ranks`, costed as
/// the runtime sends it: each owner sends its block to every other rank, so
/// a rank receives one message per other owner (the bytes it lacks) and an
/// owner sends N-1; over the slowest link. When `from` is not on a mesh, the
/// step leads to the whole tensor on a 1-D mesh of every rank: its table
/// lists every rank, or, given `keep` (the next layout's table), only the
/// ranks `from` and `keep` name (PlanLayout::omittedReplicas). The ranks
/// `from` does not name are in the traffic as `others`.
PlanStep allGatherStep(const PlanLayout &from, const PlannerOptions &options,
                       const layout::BlockTable *keep = nullptr);

} // namespace planning
} // namespace shardc

#endif // SHARDC_PLANNING_PLANNER_H
