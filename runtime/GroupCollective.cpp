//===- GroupCollective.cpp - Named collectives within groups of ranks -----===//
//
// shardrt_group_collective's checks and communicators: the groups table read
// and checked, each rank's part of its group's collective checked against
// the two block tables (with boxes, as the compiler's verifier checks it
// with placements), and one communicator per group, split once from the
// runtime's world and kept.
//
//===----------------------------------------------------------------------===//

#include "RecentlyUsed.h"
#include "Runtime.h"

#include <algorithm>
#include <climits>
#include <map>

namespace shardc {
namespace rt {

namespace {

using MaybeBox = std::optional<layout::Box>;

int64_t shared(const MaybeBox &a, const MaybeBox &b) {
  return a && b ? layout::intersectionVolume(*a, *b).value_or(0) : 0;
}

std::string boxText(const MaybeBox &box) {
  if (!box)
    return "(none)";
  return "(offsets " + layout::formatList(box->offsets) + ", sizes " +
         layout::formatList(box->sizes) + ")";
}

/// Whether the non-empty `boxes` are pairwise disjoint: at once when they
/// differ along one dim only (the blocks of a chunk or a mesh axis), else
/// pair by pair.
bool disjoint(std::vector<layout::Box> boxes) {
  boxes.erase(std::remove_if(boxes.begin(), boxes.end(),
                             [](const layout::Box &b) { return b.empty(); }),
              boxes.end());
  if (boxes.size() < 2)
    return true;
  const size_t rank = boxes.front().rank();
  for (size_t t = 0; t < rank; ++t) {
    bool alike = true;
    for (const layout::Box &b : boxes)
      for (size_t d = 0; d < rank && alike; ++d)
        alike = d == t || (b.offsets[d] == boxes.front().offsets[d] &&
                           b.sizes[d] == boxes.front().sizes[d]);
    if (!alike)
      continue;
    std::sort(boxes.begin(), boxes.end(),
              [&](const layout::Box &a, const layout::Box &b) {
                return a.offsets[t] < b.offsets[t];
              });
    for (size_t i = 1; i < boxes.size(); ++i)
      if (boxes[i].offsets[t] < boxes[i - 1].offsets[t] + boxes[i - 1].sizes[t])
        return false;
    return true;
  }
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j)
      if (layout::overlaps(boxes[i], boxes[j]))
        return false;
  return true;
}

/// What a kept communicator was split by: its base and the groups.
struct SplitKey {
  MPI_Comm base;
  std::vector<int> color, position;
};
using GroupComms = RecentlyUsed<SplitKey, MPI_Comm>;

/// The kept communicators.
GroupComms &groupComms() {
  static auto *comms = new GroupComms(kMaxGroupComms);
  return *comms;
}

void freeComm(MPI_Comm &comm) {
  if (comm != MPI_COMM_NULL)
    MPI_Comm_free(&comm);
}

} // namespace

int64_t volumeOf(const std::optional<layout::Box> &box) {
  return !box || box->empty() ? 0 : layout::volume(box->sizes).value_or(0);
}

std::optional<layout::Box> boxOf(const std::vector<layout::Box> &boxes,
                                 const std::vector<int> &owners, int r) {
  for (size_t b = 0; b < boxes.size(); ++b)
    if (owners[b] == r)
      return boxes[b];
  return std::nullopt;
}

int checkGroup(int32_t kind, const int64_t *groups, int64_t numMembers,
               int64_t root, int32_t reduce, Collective &c,
               std::string &problem) {
  auto bad = [&](std::string what) {
    problem = std::move(what);
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  };
  if (kind < SHARDRT_COLLECTIVE_ALL_GATHER || kind > SHARDRT_COLLECTIVE_GATHER)
    return bad("unknown collective " + std::to_string(kind) +
               " (expected 0 to 5: all_gather, reduce_scatter, all_reduce, "
               "all_to_all, broadcast, gather)");
  GroupCall &g = c.group;
  g.kind = static_cast<shardrt_collective>(kind);
  const std::string name = groupKindName(kind);
  const bool reduces = g.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER ||
                       g.kind == SHARDRT_COLLECTIVE_ALL_REDUCE;
  if (reduces) {
    if (!isReduceOp(reduce))
      return bad("unknown reduction op " + std::to_string(reduce) +
                 " (expected 0 to 4: sum, avg, max, min, product)");
    c.reduce = static_cast<shardrt_reduce>(reduce);
  }
  const bool rooted = g.kind == SHARDRT_COLLECTIVE_BROADCAST ||
                      g.kind == SHARDRT_COLLECTIVE_GATHER;
  if (rooted && (root < 0 || root >= c.worldSize))
    return bad(name + "'s root is " + std::to_string(root) +
               ", not a rank of the world of " + plural(c.worldSize, "rank"));
  if (!rooted && root != -1)
    return bad("root is " + std::to_string(root) + " but " + name +
               " has no root (pass -1)");
  g.root = rooted ? root : -1;

  // The groups: every member once, positions 0 .. n-1 in every group.
  if (numMembers < 0 || numMembers > c.worldSize)
    return bad("the groups list " + std::to_string(numMembers) +
               " members in a world of " + plural(c.worldSize, "rank"));
  if (numMembers > 0 && !groups)
    return bad("the groups table is NULL but lists " +
               plural(numMembers, "member"));
  g.color.assign(c.worldSize, -1);
  g.position.assign(c.worldSize, -1);
  std::map<int64_t, std::vector<std::pair<int64_t, int>>> byGroup;
  for (int64_t m = 0; m < numMembers; ++m) {
    const int64_t *row = groups + 3 * m;
    const int64_t r = row[0], id = row[1], pos = row[2];
    const std::string where = "groups row " + std::to_string(m) + ": ";
    if (r < 0 || r >= c.worldSize)
      return bad(where + "rank " + std::to_string(r) +
                 " is not in the world of " + plural(c.worldSize, "rank"));
    if (g.position[r] >= 0)
      return bad(where + "rank " + std::to_string(r) + " is listed twice");
    if (pos < 0 || pos >= c.worldSize)
      return bad(where + "position " + std::to_string(pos) +
                 " is out of range");
    g.position[r] = static_cast<int>(pos);
    byGroup[id].emplace_back(pos, static_cast<int>(r));
  }
  int color = 0;
  for (auto &[id, members] : byGroup) {
    std::sort(members.begin(), members.end());
    for (size_t i = 0; i < members.size(); ++i) {
      if (members[i].first != static_cast<int64_t>(i))
        return bad("group " + std::to_string(id) + " has " +
                   plural(static_cast<int64_t>(members.size()), "member") +
                   " but no member at position " + std::to_string(i) +
                   " (positions must be 0 to " +
                   std::to_string(members.size() - 1) + ", once each)");
      g.color[members[i].second] = color;
    }
    if (g.color[c.rank] == color)
      for (const auto &[pos, r] : members)
        g.members.push_back(r);
    ++color;
  }
  uint64_t h = 1469598103934665603ULL;
  for (int r = 0; r < c.worldSize; ++r)
    for (int v : {g.color[r], g.position[r]}) {
      h ^= static_cast<uint64_t>(static_cast<int64_t>(v));
      h *= 1099511628211ULL;
    }
  g.groupsHash = static_cast<int64_t>(h);

  // This rank's part: ranks outside every group hold nothing; a member's
  // blocks are what its group's collective makes of them.
  auto src = [&](int r) { return boxOf(c.boxes, c.owners, r); };
  auto dst = [&](int r) { return boxOf(c.dst.boxes, c.dst.owners, r); };
  const MaybeBox mySrc = src(c.rank), myDst = dst(c.rank);
  if (g.members.empty()) {
    if (volumeOf(mySrc) > 0 || volumeOf(myDst) > 0)
      return bad("this rank holds a block but is in no group of the " + name);
    return SHARDRT_SUCCESS;
  }
  // Every count and displacement of the MPI collective is at most this
  // rank's source or destination volume: both must fit MPI's ints (NCCL
  // counts in size_t).
  const bool mpiCounts = c.device == SHARDRT_DEVICE_CPU;
  for (const MaybeBox *box : {&mySrc, &myDst})
    if (mpiCounts && volumeOf(*box) > INT_MAX)
      return bad("this rank's block " + boxText(*box) + " holds " +
                 std::to_string(volumeOf(*box)) +
                 " elements, more than MPI's int counts hold (2^31 - 1)");
  // The source and destination views must not share memory (MPI's
  // collectives read and write them at once).
  if (c.myBlock >= 0 && c.myDstBlock >= 0 &&
      extentsOverlap(c.local.data, byteExtent(c.local, c.elemSize),
                     c.dstLocal.data, byteExtent(c.dstLocal, c.elemSize)))
    return bad("src_local and dst_local share memory");
  const std::string mine = "this rank's destination block " + boxText(myDst);
  // Whether the members' source blocks, pairwise disjoint, cover `box` (each
  // inside it, when `inside`).
  auto covered = [&](const MaybeBox &box, bool inside) -> bool {
    int64_t total = 0;
    std::vector<layout::Box> sources;
    for (int r : g.members) {
      MaybeBox s = src(r);
      int64_t in = shared(s, box);
      if (inside && in != volumeOf(s))
        return false;
      total += in;
      if (s)
        sources.push_back(*s);
    }
    return total == volumeOf(box) && disjoint(std::move(sources));
  };
  // What this rank sends in all, one piece per member: within MPI's ints.
  auto sendsFit = [&](const MaybeBox &from) {
    if (!mpiCounts)
      return true;
    int64_t total = 0;
    for (int r : g.members)
      total += shared(from, dst(r));
    return total <= INT_MAX;
  };
  switch (g.kind) {
  case SHARDRT_COLLECTIVE_ALL_GATHER:
    if (!covered(myDst, /*inside=*/true))
      return bad(mine + " is not the union of its group's source blocks");
    break;
  case SHARDRT_COLLECTIVE_ALL_TO_ALL:
    if (!covered(myDst, /*inside=*/false))
      return bad(mine + " is not covered once by its group's source blocks");
    if (!sendsFit(mySrc))
      return bad("what this rank sends its group exceeds MPI's int counts");
    break;
  case SHARDRT_COLLECTIVE_REDUCE_SCATTER:
  case SHARDRT_COLLECTIVE_ALL_REDUCE:
    for (int r : g.members)
      if (!(src(r) == mySrc))
        return bad("the members of a " + name +
                   " group hold partial values of one box, but rank " +
                   std::to_string(r) + " holds " + boxText(src(r)) +
                   " and this rank " + boxText(mySrc));
    if (g.kind == SHARDRT_COLLECTIVE_ALL_REDUCE && !(myDst == mySrc))
      return bad(mine + " is not its source block " + boxText(mySrc));
    if (shared(myDst, mySrc) != volumeOf(myDst))
      return bad(mine + " is not inside the group's box " + boxText(mySrc));
    if (!sendsFit(mySrc))
      return bad("what this rank sends its group exceeds MPI's int counts");
    break;
  case SHARDRT_COLLECTIVE_BROADCAST:
  case SHARDRT_COLLECTIVE_GATHER: {
    if (g.color[root] != g.color[c.rank])
      return bad(name + "'s root, rank " + std::to_string(root) +
                 ", is not in this rank's group");
    if (g.kind == SHARDRT_COLLECTIVE_BROADCAST && !(myDst == src(root)) &&
        volumeOf(myDst) + volumeOf(src(root)) > 0)
      return bad(mine + " is not the root's source block " +
                 boxText(src(root)));
    if (g.kind == SHARDRT_COLLECTIVE_GATHER && c.rank == root &&
        !covered(myDst, /*inside=*/true))
      return bad(mine + " is not the union of its group's source blocks");
    if (g.kind == SHARDRT_COLLECTIVE_GATHER && c.rank != root &&
        volumeOf(myDst) > 0)
      return bad(mine + " is not empty, but only the root receives");
    break;
  }
  }
  return SHARDRT_SUCCESS;
}

bool groupComm(const Collective &c, MPI_Comm base, MPI_Comm &comm) {
  const GroupCall &g = c.group;
  if (const MPI_Comm *kept = groupComms().findIf([&](const SplitKey &k) {
        return k.base == base && k.color == g.color && k.position == g.position;
      })) {
    comm = *kept;
    return true;
  }
  const int color = g.color[c.rank];
  watchStep("creating the group's communicator (MPI_Comm_split)");
  MPI_Comm split = MPI_COMM_NULL;
  int rc =
      MPI_Comm_split(base, color < 0 ? MPI_UNDEFINED : color,
                     g.position[c.rank] < 0 ? 0 : g.position[c.rank], &split);
  if (rc != MPI_SUCCESS) {
    c.fail(SHARDRT_ERROR_BACKEND,
           "MPI_Comm_split (the communicator of each group) failed: " +
               mpiErrorString(rc));
    return false;
  }
  if (split != MPI_COMM_NULL)
    MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
  // Every rank frees the same one: the least recently used of the same
  // sequence of calls.
  groupComms().insert(SplitKey{base, g.color, g.position}, split, freeComm);
  comm = split;
  return true;
}

void releaseGroupComms(MPI_Comm base) {
  groupComms().eraseIf(
      [&](const SplitKey &k) {
        return base == MPI_COMM_NULL || k.base == base;
      },
      freeComm);
}

} // namespace rt
} // namespace shardc
