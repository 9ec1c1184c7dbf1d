//===- Collectives.cpp - What each named collective does ------------------===//

#include "shardc/Layout/Collectives.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <set>

namespace shardc {
namespace layout {

namespace {

using K = CollectiveKind;

/// In CollectiveKind's order (checked below).
constexpr CollectiveTraits kCollectives[] = {
    {K::AllGather, "all_gather", true, "dim", nullptr, nullptr, nullptr,
     "each group concatenates its blocks along dim {dim}"},
    {K::ReduceScatter, "reduce_scatter", true, "dim", nullptr, "reduce",
     nullptr,
     "each rank receives its chunk (dim {dim}) of its group's partial "
     "values, reduced ({reduce})"},
    {K::AllReduce, "all_reduce", true, nullptr, nullptr, "reduce", nullptr,
     "each rank receives its group's partial values, reduced ({reduce})"},
    {K::AllToAll, "all_to_all", true, "split", "concat", nullptr, nullptr,
     "each group re-cuts its region from dim {concat} to dim {dim}"},
    {K::Broadcast, "broadcast", false, nullptr, nullptr, nullptr, "root",
     "every rank receives rank {root}'s block"},
    {K::Gather, "gather", false, nullptr, nullptr, nullptr, "root",
     "rank {root} receives every rank's block"},
    {K::Exchange, "exchange", false, nullptr, nullptr, nullptr, nullptr,
     "each rank receives what it lacks, once"},
};

constexpr bool tableInOrder() {
  for (size_t i = 0; i < std::size(kCollectives); ++i)
    if (static_cast<size_t>(kCollectives[i].kind) != i)
      return false;
  return std::size(kCollectives) == static_cast<size_t>(K::Exchange) + 1;
}
static_assert(tableInOrder(), "kCollectives lists every kind, in order");

} // namespace

const CollectiveTraits &collectiveTraits(CollectiveKind kind) {
  return kCollectives[static_cast<size_t>(kind)];
}

std::optional<CollectiveKind> collectiveNamed(std::string_view name) {
  for (const CollectiveTraits &row : kCollectives)
    if (name == row.name)
      return row.kind;
  return std::nullopt;
}

const char *collectiveName(CollectiveKind kind) {
  return collectiveTraits(kind).name;
}

namespace {

/// Shard dims from 0 (placements are checked: every dim is in range).
std::vector<Placement> normalized(const std::vector<Placement> &placements,
                                  int64_t rank) {
  std::vector<Placement> out = placements;
  for (Placement &p : out)
    if (p.cuts())
      p.dim = normalizeDim(p.dim, rank).value_or(p.dim);
  return out;
}

/// Whether `axes` are exactly the innermost (highest) mesh axes that shard
/// dim `dim` under `placements`.
bool innermost(const std::vector<Placement> &placements,
               const std::vector<int64_t> &axes, int64_t dim) {
  std::vector<int64_t> sharding;
  for (size_t a = 0; a < placements.size(); ++a)
    if (placements[a].kind == Placement::Kind::Shard &&
        placements[a].dim == dim)
      sharding.push_back(static_cast<int64_t>(a));
  return sharding.size() >= axes.size() &&
         std::equal(axes.begin(), axes.end(), sharding.end() - axes.size());
}

std::string axesText(const std::vector<int64_t> &axes) {
  return axes.size() == 1 ? "axis " + std::to_string(axes[0])
                          : "axes " + formatList(axes);
}

} // namespace

Result<void> checkAxisCollective(const Collective &c,
                                 const std::vector<int64_t> &shape,
                                 const Mesh &mesh,
                                 const std::vector<Placement> &fromPlacements,
                                 const std::vector<Placement> &toPlacements) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const size_t meshRank = mesh.shape.size();
  if (fromPlacements.size() != meshRank || toPlacements.size() != meshRank)
    return Failure{"the layouts must have a placement per mesh axis"};
  if (c.axes.empty())
    return Failure{"the group names no mesh axis"};
  if (hasStrided(fromPlacements) || hasStrided(toPlacements))
    return Failure{"a named collective takes layouts without strided shards "
                   "(a device of one holds several blocks: an exchange moves "
                   "them)"};
  for (size_t i = 0; i < c.axes.size(); ++i) {
    if (c.axes[i] < 0 || c.axes[i] >= static_cast<int64_t>(meshRank))
      return Failure{"mesh axis " + std::to_string(c.axes[i]) +
                     " is out of range for a mesh of " +
                     std::to_string(meshRank) +
                     (meshRank == 1 ? " axis" : " axes")};
    if (i > 0 && c.axes[i] <= c.axes[i - 1])
      return Failure{"mesh axes must be listed once each, ascending"};
  }
  std::vector<Placement> from = normalized(fromPlacements, rank),
                         to = normalized(toPlacements, rank);
  std::set<int64_t> group(c.axes.begin(), c.axes.end());
  for (size_t a = 0; a < meshRank; ++a)
    if (!group.count(static_cast<int64_t>(a)) && !(from[a] == to[a]))
      return Failure{"mesh axis " + std::to_string(a) +
                     " is not in the group but " + "changes from " +
                     formatPlacement(from[a]) + " to " +
                     formatPlacement(to[a])};
  auto dimOk = [&](int64_t dim) { return dim >= 0 && dim < rank; };
  // Each axis of the group goes from `before` to `after`.
  auto expect = [&](const Placement &before,
                    const Placement &after) -> Result<void> {
    for (int64_t a : c.axes)
      if (!(from[a] == before) || !(to[a] == after))
        return Failure{
            std::string(collectiveName(c.kind)) + " takes " +
            formatPlacement(before) + " to " + formatPlacement(after) +
            " on every axis of its group, but mesh axis " + std::to_string(a) +
            " goes from " + formatPlacement(from[a]) + " to " +
            formatPlacement(to[a])};
    return {};
  };
  auto needInnermost = [&](const std::vector<Placement> &placements,
                           const char *side, int64_t dim) -> Result<void> {
    if (innermost(placements, c.axes, dim))
      return {};
    return Failure{
        "mesh " + axesText(c.axes) + " must be the innermost that shard " +
        "dim " + std::to_string(dim) + " " + side +
        " (sharding nests the outer axis first), or the group's blocks "
        "are not contiguous"};
  };
  switch (c.kind) {
  case CollectiveKind::AllGather: {
    if (!dimOk(c.dim))
      return Failure{"all_gather's dim " + std::to_string(c.dim) +
                     " is out of range for a tensor of rank " +
                     std::to_string(rank)};
    if (Result<void> r =
            expect(Placement::shard(c.dim), Placement::replicate());
        !r)
      return r;
    return needInnermost(from, "before", c.dim);
  }
  case CollectiveKind::ReduceScatter: {
    if (!dimOk(c.dim))
      return Failure{"reduce_scatter's dim " + std::to_string(c.dim) +
                     " is out of range for a tensor of rank " +
                     std::to_string(rank)};
    if (!c.reduce)
      return Failure{"reduce_scatter needs a reduction"};
    if (Result<void> r =
            expect(Placement::partial(*c.reduce), Placement::shard(c.dim));
        !r)
      return r;
    return needInnermost(to, "after", c.dim);
  }
  case CollectiveKind::AllReduce:
    if (!c.reduce)
      return Failure{"all_reduce needs a reduction"};
    return expect(Placement::partial(*c.reduce), Placement::replicate());
  case CollectiveKind::AllToAll: {
    if (c.axes.size() != 1)
      return Failure{"all_to_all runs over one mesh axis"};
    if (!dimOk(c.dim) || !dimOk(c.concatDim) || c.dim == c.concatDim)
      return Failure{"all_to_all needs two different dims of the tensor"};
    if (Result<void> r =
            expect(Placement::shard(c.concatDim), Placement::shard(c.dim));
        !r)
      return r;
    if (Result<void> r = needInnermost(from, "before", c.concatDim); !r)
      return r;
    return needInnermost(to, "after", c.dim);
  }
  case CollectiveKind::Broadcast:
  case CollectiveKind::Gather:
  case CollectiveKind::Exchange:
    break;
  }
  return Failure{std::string(collectiveName(c.kind)) +
                 " does not run over mesh axes"};
}

Result<void> checkRankCollective(const Collective &c,
                                 const std::vector<int64_t> &shape,
                                 const std::vector<Block> &from,
                                 const std::vector<Block> &to) {
  if (c.kind != CollectiveKind::Broadcast && c.kind != CollectiveKind::Gather)
    return Failure{std::string(collectiveName(c.kind)) +
                   " does not run over ranks"};
  if (c.ranks.empty())
    return Failure{"the group names no rank"};
  for (size_t i = 0; i < c.ranks.size(); ++i) {
    if (c.ranks[i] < 0 || c.ranks[i] > kMaxRank)
      return Failure{"rank " + std::to_string(c.ranks[i]) +
                     " is out of range (MPI ranks are 0 to " +
                     std::to_string(kMaxRank) + ")"};
    if (i > 0 && c.ranks[i] <= c.ranks[i - 1])
      return Failure{"the group's ranks must be listed once each, ascending"};
  }
  auto inGroup = [&](int64_t r) {
    return std::binary_search(c.ranks.begin(), c.ranks.end(), r);
  };
  if (!inGroup(c.root))
    return Failure{"the root, rank " + std::to_string(c.root) +
                   ", is not in the group"};
  for (const std::vector<Block> *blocks : {&from, &to})
    for (const Block &b : *blocks)
      if (!inGroup(b.placement.rank))
        return Failure{"rank " + std::to_string(b.placement.rank) +
                       " holds a block but is not in the group"};
  const char *name = collectiveName(c.kind);
  // The side that holds one box on the root: the source of a broadcast, the
  // destination of a gather.
  const std::vector<Block> &single =
      c.kind == CollectiveKind::Broadcast ? from : to;
  const Block *rooted = nullptr;
  for (const Block &b : single) {
    if (b.box.empty())
      continue;
    if (b.placement.rank != c.root || rooted)
      return Failure{
          std::string(name) + "'s " +
          (c.kind == CollectiveKind::Broadcast ? "source" : "destination") +
          " must be one block on the root, rank " + std::to_string(c.root)};
    rooted = &b;
  }
  if (c.kind == CollectiveKind::Broadcast) {
    // Every rank of the group ends with the root's box, once.
    if (!rooted)
      return Failure{"broadcast's source must be one block on the root, rank " +
                     std::to_string(c.root)};
    std::map<int64_t, int> held;
    for (const Block &b : to) {
      if (!(b.box == rooted->box))
        return Failure{
            "broadcast's destination blocks must all be the root's block"};
      ++held[b.placement.rank];
    }
    for (int64_t r : c.ranks)
      if (held[r] != 1)
        return Failure{
            "broadcast gives every rank of its group one copy of the "
            "root's block, but rank " +
            std::to_string(r) + " holds " + std::to_string(held[r])};
    return {};
  }
  // Gather: the root ends with the whole tensor; each rank sends its one
  // block, no two of them alike.
  Box whole{std::vector<int64_t>(shape.size(), 0), shape};
  if (!whole.empty() && (!rooted || !(rooted->box == whole)))
    return Failure{"gather's destination must be the whole tensor on the root"};
  std::set<int64_t> owners;
  std::set<std::pair<std::vector<int64_t>, std::vector<int64_t>>> boxes;
  for (const Block &b : from) {
    if (!owners.insert(b.placement.rank).second)
      return Failure{"gather's source holds one block per rank, but rank " +
                     std::to_string(b.placement.rank) + " holds several"};
    if (!b.box.empty() && !boxes.insert({b.box.offsets, b.box.sizes}).second)
      return Failure{"gather's source has replicas"};
  }
  return {};
}

std::optional<Collective> axisCollective(const std::vector<int64_t> &shape,
                                         const Mesh &mesh,
                                         const std::vector<Placement> &from,
                                         const std::vector<Placement> &to) {
  if (from.size() != mesh.shape.size() || to.size() != mesh.shape.size() ||
      hasStrided(from) || hasStrided(to))
    return std::nullopt;
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<Placement> a = normalized(from, rank), b = normalized(to, rank);
  Collective c;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i]))
      c.axes.push_back(static_cast<int64_t>(i));
  if (c.axes.empty())
    return std::nullopt;
  const Placement &before = a[c.axes.front()], &after = b[c.axes.front()];
  using Kind = Placement::Kind;
  if (before.kind == Kind::Shard && after.kind == Kind::Replicate) {
    c.kind = CollectiveKind::AllGather;
    c.dim = before.dim;
  } else if (before.kind == Kind::Partial && after.kind == Kind::Replicate) {
    c.kind = CollectiveKind::AllReduce;
    c.reduce = before.reduce;
  } else if (before.kind == Kind::Partial && after.kind == Kind::Shard) {
    c.kind = CollectiveKind::ReduceScatter;
    c.dim = after.dim;
    c.reduce = before.reduce;
  } else if (before.kind == Kind::Shard && after.kind == Kind::Shard) {
    c.kind = CollectiveKind::AllToAll;
    c.dim = after.dim;
    c.concatDim = before.dim;
  } else {
    return std::nullopt;
  }
  if (!checkAxisCollective(c, shape, mesh, from, to))
    return std::nullopt;
  return c;
}

std::optional<Collective> rankCollective(const std::vector<int64_t> &shape,
                                         const std::vector<Block> &from,
                                         const std::vector<Block> &to) {
  auto soleBlock = [](const std::vector<Block> &blocks) -> const Block * {
    const Block *sole = nullptr;
    for (const Block &b : blocks)
      if (!b.box.empty()) {
        if (sole)
          return nullptr;
        sole = &b;
      }
    return sole;
  };
  auto groupOf = [](const std::vector<Block> &a, const std::vector<Block> &b) {
    std::set<int64_t> ranks;
    for (const std::vector<Block> *blocks : {&a, &b})
      for (const Block &block : *blocks)
        ranks.insert(block.placement.rank);
    return std::vector<int64_t>(ranks.begin(), ranks.end());
  };
  Collective c;
  c.ranks = groupOf(from, to);
  if (const Block *source = soleBlock(from)) {
    c.kind = CollectiveKind::Broadcast;
    c.root = source->placement.rank;
    // Not a broadcast when only the root holds the box afterwards.
    if (to.size() > 1 && checkRankCollective(c, shape, from, to).ok())
      return c;
  }
  if (const Block *whole = soleBlock(to)) {
    c.kind = CollectiveKind::Gather;
    c.root = whole->placement.rank;
    if (from.size() > 1 && checkRankCollective(c, shape, from, to).ok())
      return c;
  }
  return std::nullopt;
}

std::vector<std::vector<int64_t>> meshGroups(const Mesh &mesh,
                                             const std::vector<int64_t> &axes) {
  const int64_t size = mesh.size().value_or(0);
  std::vector<bool> inGroup(mesh.shape.size(), false);
  for (int64_t a : axes)
    inGroup[a] = true;
  // Row-major strides of the mesh; a group's key is the linear position with
  // the group's coordinates set to 0.
  std::vector<int64_t> strides(mesh.shape.size(), 1);
  for (size_t i = mesh.shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * mesh.shape[i];
  std::map<int64_t, std::vector<int64_t>> groups;
  for (int64_t linear = 0; linear < size; ++linear) {
    int64_t key = 0;
    for (size_t i = 0; i < mesh.shape.size(); ++i)
      if (!inGroup[i])
        key += (linear / strides[i] % mesh.shape[i]) * strides[i];
    groups[key].push_back(mesh.deviceAt(linear));
  }
  std::vector<std::vector<int64_t>> out;
  out.reserve(groups.size());
  for (auto &[key, ranks] : groups)
    out.push_back(std::move(ranks));
  return out;
}

int64_t ringAllReduceReceived(int64_t held, int64_t members, int64_t position) {
  if (members < 2 || held <= 0)
    return 0;
  auto chunk = [&](int64_t q) {
    q = ((q % members) + members) % members;
    return held / members + (q < held % members ? 1 : 0);
  };
  int64_t total = 0;
  if (__builtin_add_overflow(held - chunk(position - 1), held - chunk(position),
                             &total))
    return std::numeric_limits<int64_t>::max();
  return total;
}

} // namespace layout
} // namespace shardc
