//===- Collectives.h - What each named collective does ----------*- C++ -*-===//
//
// A step of a plan runs as the collective it is: an all_gather, a
// reduce_scatter, an all_reduce or an all_to_all over mesh axes; a broadcast
// or a gather over a group of ranks; or, where none of them fits, a general
// exchange of box intersections. This file says, for two layouts of one
// tensor, which named collective takes the first to the second, and checks
// that one does: the planner classifies its steps with it and the SPMD ops'
// verifiers check them with it, so every op the compiler emits verifies.
// Plain C++.
//
// Over mesh axes G, the groups are the devices whose mesh coordinates differ
// only along G (row-major along G, the order of their blocks); the
// placements on the other axes do not change:
//   all_gather dim d       S(d) -> R on G; G are the innermost axes that
//                          shard d (so the group's blocks are contiguous
//                          along d, in group order, uneven sizes included)
//   reduce_scatter dim d   P(op) -> S(d) on G; G innermost for d afterwards
//   all_reduce             P(op) -> R on G
//   all_to_all             S(c) -> S(s) on one axis, innermost for c before
//                          and for s after
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LAYOUT_COLLECTIVES_H
#define SHARDC_LAYOUT_COLLECTIVES_H

#include "shardc/Layout/Mesh.h"

#include <optional>
#include <string>
#include <vector>

namespace shardc {
namespace layout {

enum class CollectiveKind : uint8_t {
  AllGather,
  ReduceScatter,
  AllReduce,
  AllToAll,
  Broadcast,
  Gather,
  /// Grouped point-to-point of box intersections: any two layouts.
  Exchange,
};

/// The collective table: one row per kind, everything the layers that
/// handle collectives tell apart. The planner picks a kind (axisCollective,
/// rankCollective below) and every later switch reads its row:
/// -shard-plan-redistribute builds the SPMD op `shard.spmd.<name>` with the
/// attributes the row names and reads them back (the op's getCollective),
/// the runtime lowering passes the kind's number as the runtime's
/// shardrt_collective code (equal by a static_assert in
/// passes/RuntimeCalls.cpp), the runtime names it in its messages, and the
/// plan's description says `words`. Every kind is costed alike, by the bytes
/// and messages of its step (planning/Cost.h). Adding a collective is its
/// row, its check (checkAxisCollective / checkRankCollective), its SPMD op
/// (ShardOps.td) and its runtime code.
struct CollectiveTraits {
  CollectiveKind kind;
  /// "all_gather", ...: the SPMD op's mnemonic after `spmd.`, and the
  /// collective's name in messages and reports.
  const char *name;
  /// Over mesh axes (its SPMD op's `axes`) or over a list of ranks
  /// (`ranks`); the exchange is over neither.
  bool overAxes;
  /// The SPMD op's attribute holding Collective::dim, ::concatDim, the
  /// reduction and the root, or null where it has none.
  const char *dimAttr;
  const char *concatAttr;
  const char *reduceAttr;
  const char *rootAttr;
  /// What it does, with {dim}, {concat}, {root} and {reduce} filled in
  /// (planning/Describe).
  const char *words;
};

/// The row of `kind`.
const CollectiveTraits &collectiveTraits(CollectiveKind kind);

/// The kind whose name is `name`, or nullopt.
std::optional<CollectiveKind> collectiveNamed(std::string_view name);

/// "all_gather", "reduce_scatter", "all_reduce", "all_to_all", "broadcast",
/// "gather", "exchange": collectiveTraits(kind).name.
const char *collectiveName(CollectiveKind kind);

/// A named collective and its parameters.
struct Collective {
  CollectiveKind kind = CollectiveKind::Exchange;
  /// Over mesh axes (all_gather, reduce_scatter, all_reduce, all_to_all):
  /// the axes, ascending.
  std::vector<int64_t> axes;
  /// Over ranks (broadcast, gather): the group, ascending.
  std::vector<int64_t> ranks;
  /// all_gather, reduce_scatter: the dim gathered or scattered; all_to_all:
  /// the dim split (sharded afterwards); -1 otherwise.
  int64_t dim = -1;
  /// all_to_all: the dim concatenated (sharded before); -1 otherwise.
  int64_t concatDim = -1;
  /// broadcast, gather: the root rank; -1 otherwise.
  int64_t root = -1;
  /// reduce_scatter, all_reduce: the reduction.
  std::optional<Placement::Reduce> reduce;
};

/// Checks that collective `c` over mesh axes takes a tensor of `shape` from
/// placements `from` to placements `to` on `mesh` (placements checked
/// against the mesh and the shape). A failure says what does not hold.
Result<void> checkAxisCollective(const Collective &c,
                                 const std::vector<int64_t> &shape,
                                 const Mesh &mesh,
                                 const std::vector<Placement> &from,
                                 const std::vector<Placement> &to);

/// Checks that collective `c` over ranks (broadcast, gather) takes a tensor
/// of `shape` from the device blocks `from` to the device blocks `to`.
/// A failure says what does not hold.
Result<void> checkRankCollective(const Collective &c,
                                 const std::vector<int64_t> &shape,
                                 const std::vector<Block> &from,
                                 const std::vector<Block> &to);

/// The named collective over mesh axes that takes `from` to `to`, or nullopt
/// when none does (or nothing changes).
std::optional<Collective> axisCollective(const std::vector<int64_t> &shape,
                                         const Mesh &mesh,
                                         const std::vector<Placement> &from,
                                         const std::vector<Placement> &to);

/// The broadcast or gather over ranks that takes the device blocks `from` to
/// `to`, or nullopt when neither does.
std::optional<Collective> rankCollective(const std::vector<int64_t> &shape,
                                         const std::vector<Block> &from,
                                         const std::vector<Block> &to);

/// The groups of `mesh` along `axes` (ascending): each lists the ranks whose
/// coordinates differ only along `axes`, row-major along them; the groups in
/// row-major order of the other axes.
std::vector<std::vector<int64_t>> meshGroups(const Mesh &mesh,
                                             const std::vector<int64_t> &axes);

/// The elements the member at `position` of a group of `members` receives in
/// a native all_reduce of `held` elements (MPI_Allreduce, ncclAllReduce)
/// run as a ring: a reduce-scatter then an all-gather over chunks as even
/// as they can be (chunk q: held / members, one more for q < held %
/// members). The member ends the reduce-scatter owning chunk `position`,
/// having received every chunk but the one it started (position - 1), and
/// receives in the all-gather every chunk but its own: (held - c(p - 1)) +
/// (held - c(p)); summed over the group, 2 (members - 1) held. It sends what
/// the member after it receives (position + 1). 0 for a group of one;
/// INT64_MAX past int64.
int64_t ringAllReduceReceived(int64_t held, int64_t members, int64_t position);

} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_COLLECTIVES_H
