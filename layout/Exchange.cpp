//===- Exchange.cpp - Block tables and the plan of a redistribution
//-----------===//

#include "shardc/Layout/Exchange.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

namespace shardc {
namespace layout {

std::vector<int64_t> BlockTable::blocksOf(int rank) const {
  std::vector<int64_t> mine;
  for (size_t b = 0; b < owners.size(); ++b) {
    if (owners[b] == rank)
      mine.push_back(static_cast<int64_t>(b));
  }
  return mine;
}

std::vector<int64_t> BlockTable::extent(int64_t rank) const {
  std::vector<int64_t> shape(rank, 0);
  for (const Box &box : boxes) {
    if (box.empty())
      continue;
    for (int64_t d = 0; d < rank; ++d)
      shape[d] = std::max(shape[d], box.offsets[d] + box.sizes[d]);
  }
  return shape;
}

BlockTable blockTableOf(const std::vector<Block> &blocks) {
  BlockTable table;
  for (const Block &b : blocks) {
    table.boxes.push_back(b.box);
    table.owners.push_back(static_cast<int>(b.placement.rank));
    table.volumes.push_back(volume(b.box.sizes).value_or(0));
  }
  return table;
}

bool readBlockTable(const int64_t *blocks, int64_t numBlocks, int64_t rank,
                    int64_t worldSize, const std::vector<int64_t> *shape,
                    const std::string &what, BlockTable &table,
                    std::string &problem, bool severalPerRank) {
  auto bad = [&](std::string text) {
    problem = std::move(text);
    return false;
  };
  if (numBlocks < 0)
    return bad("the " + what + "block table has " + std::to_string(numBlocks) +
               " rows");
  if (numBlocks > 0 && !blocks)
    return bad("the " + what + "block table is NULL but has " +
               std::to_string(numBlocks) + " rows");
  const int64_t columns = 1 + 2 * rank;
  table.boxes.assign(numBlocks, Box());
  table.owners.assign(numBlocks, -1);
  table.volumes.assign(numBlocks, 0);
  // The first block of every owner (and, with several per rank, of every
  // owner and box).
  std::unordered_map<int64_t, int64_t> blockOfOwner;
  std::map<std::tuple<int64_t, std::vector<int64_t>, std::vector<int64_t>>,
           int64_t>
      blockOfOwnerBox;
  for (int64_t b = 0; b < numBlocks; ++b) {
    const int64_t *row = blocks + b * columns;
    Box &box = table.boxes[b];
    box.offsets.assign(row + 1, row + 1 + rank);
    box.sizes.assign(row + 1 + rank, row + 1 + 2 * rank);
    const std::string name = what + "block " + std::to_string(b);
    const int64_t owner = row[0];
    if (worldSize > 0 && (owner < 0 || owner >= worldSize))
      return bad(name + " is placed on rank " + std::to_string(owner) +
                 " but the world has " + std::to_string(worldSize) + " rank" +
                 (worldSize == 1 ? "" : "s"));
    if (worldSize <= 0 && (owner < 0 || owner > kMaxRank))
      return bad(name + " is placed on rank " + std::to_string(owner) +
                 ", which is not an MPI rank (0 to " +
                 std::to_string(kMaxRank) + ")");
    const std::string named = name + " " + formatBox(box);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t end = 0;
      if (box.offsets[d] < 0 || box.sizes[d] < 0)
        return bad(named + " has a negative offset or size");
      if (__builtin_add_overflow(box.offsets[d], box.sizes[d], &end))
        return bad(named + " ends beyond what int64 counts");
    }
    if (shape && !fitsIn(box, *shape))
      return bad(named + " does not fit in the global tensor " +
                 formatList(*shape));
    std::optional<int64_t> elements = volume(box.sizes);
    if (!elements)
      return bad(named + " holds more elements than int64 counts");
    if (severalPerRank) {
      if (*elements > 0) {
        auto [first, inserted] = blockOfOwnerBox.emplace(
            std::make_tuple(owner, box.offsets, box.sizes), b);
        if (!inserted)
          return bad("rank " + std::to_string(owner) + " owns " + what +
                     "blocks " + std::to_string(first->second) + " and " +
                     std::to_string(b) + ", both " + formatBox(box) +
                     "; a rank holds a box once");
      }
    } else {
      auto [first, inserted] = blockOfOwner.emplace(owner, b);
      if (!inserted)
        return bad("rank " + std::to_string(owner) + " owns " + what +
                   "blocks " + std::to_string(first->second) + " and " +
                   std::to_string(b) +
                   "; this call supports at most one block per rank");
    }
    table.owners[b] = static_cast<int>(owner);
    table.volumes[b] = *elements;
  }
  return true;
}

bool readRedistributionTables(const int64_t *srcBlocks, int64_t numSrc,
                              const int64_t *dstBlocks, int64_t numDst,
                              int64_t rank, int64_t worldSize, BlockTable &src,
                              BlockTable &dst, std::string &problem) {
  if (!readBlockTable(srcBlocks, numSrc, rank, worldSize, nullptr, "source ",
                      src, problem, /*severalPerRank=*/true) ||
      !readBlockTable(dstBlocks, numDst, rank, worldSize, nullptr,
                      "destination ", dst, problem, /*severalPerRank=*/true))
    return false;
  const std::vector<int64_t> srcExtent = src.extent(rank);
  const std::vector<int64_t> dstExtent = dst.extent(rank);
  if (srcExtent != dstExtent) {
    problem = "the source blocks span " + formatList(srcExtent) +
              " but the destination blocks span " + formatList(dstExtent) +
              "; both tables must lay out the same global tensor";
    return false;
  }
  return true;
}

int64_t RedistributionPlan::sentElements() const {
  int64_t n = 0;
  for (const Transfer &t : sends)
    n += *volume(t.box.sizes);
  return n;
}

int64_t RedistributionPlan::receivedElements() const {
  int64_t n = 0;
  for (const Transfer &t : receives)
    n += *volume(t.box.sizes);
  return n;
}

int64_t RedistributionPlan::copiedElements() const {
  int64_t n = 0;
  for (const Box &box : copies)
    n += *volume(box.sizes);
  return n;
}

namespace {

/// Boxes by content, for hash maps of boxes that live elsewhere.
struct BoxHash {
  size_t operator()(const Box *box) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (const std::vector<int64_t> *v : {&box->offsets, &box->sizes})
      for (int64_t x : *v)
        h = (h ^ static_cast<uint64_t>(x)) * 0x100000001b3ull + (h >> 29);
    return static_cast<size_t>(h);
  }
};
struct BoxEqual {
  bool operator()(const Box *a, const Box *b) const { return *a == *b; }
};

/// The source blocks of a redistribution that hold the same non-empty box (a
/// group), split by partial index into classes of replicas.
struct SourceGroups {
  struct Class {
    int64_t partial = 0;
    /// The owners of its blocks, in table order, and those blocks.
    std::vector<int> owners;
    std::vector<int64_t> blocks;

    /// The block of this class that `rank` owns (it owns at most one).
    int64_t blockOf(int rank) const {
      for (size_t i = 0; i < owners.size(); ++i)
        if (owners[i] == rank)
          return blocks[i];
      return -1;
    }
  };
  struct Group {
    const Box *box = nullptr;
    /// By ascending partial index.
    std::vector<Class> classes;
    /// The owners of its blocks, all classes together.
    size_t owners = 0;
  };
  /// In the order of their first block.
  std::vector<Group> groups;
  /// Per owner of a non-empty source block: the group and class of each of
  /// its blocks, in table order (one per group: a rank holds a box once).
  std::unordered_map<int, std::vector<std::pair<size_t, size_t>>> classesOfRank;
  /// The class of each (owner, group) pair of the groups with more than
  /// kScanOwners owners: found without scanning the owner's classes (a rank
  /// may hold a great many groups) or the group's owners (a box may have a
  /// great many replicas). Smaller groups are scanned.
  std::unordered_map<uint64_t, size_t> classOfRankGroup;
  static constexpr size_t kScanOwners = 16;

  static uint64_t key(int r, size_t g) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(r)) << 32) ^
           static_cast<uint64_t>(g);
  }

  /// `partial` holds a partial index per block of `src`, or is null (all 0).
  SourceGroups(const BlockTable &src, const std::vector<int64_t> *partial) {
    std::unordered_map<const Box *, size_t, BoxHash, BoxEqual> groupOfBox;
    groupOfBox.reserve(src.size());
    std::vector<std::map<int64_t, Class>> classes;
    for (size_t b = 0; b < src.size(); ++b) {
      const Box &box = src.boxes[b];
      if (box.empty())
        continue;
      auto [it, inserted] = groupOfBox.emplace(&box, groups.size());
      if (inserted) {
        groups.emplace_back();
        groups.back().box = &box;
        if (partial)
          classes.emplace_back();
        else
          groups.back().classes.emplace_back();
      }
      // Without partial values every group has one class.
      Class &c = partial ? classes[it->second][(*partial)[b]]
                         : groups[it->second].classes.front();
      c.owners.push_back(src.owners[b]);
      c.blocks.push_back(static_cast<int64_t>(b));
    }
    for (size_t g = 0; g < classes.size(); ++g)
      for (auto &[index, c] : classes[g]) {
        c.partial = index;
        groups[g].classes.push_back(std::move(c));
      }
    for (size_t g = 0; g < groups.size(); ++g) {
      size_t owners = 0;
      for (size_t c = 0; c < groups[g].classes.size(); ++c) {
        for (int owner : groups[g].classes[c].owners)
          classesOfRank[owner].push_back({g, c});
        owners += groups[g].classes[c].owners.size();
      }
      groups[g].owners = owners;
      if (owners <= kScanOwners)
        continue;
      for (size_t c = 0; c < groups[g].classes.size(); ++c)
        for (int owner : groups[g].classes[c].owners)
          classOfRankGroup.emplace(key(owner, g), c);
    }
  }

  /// The class of group `g` that rank `r` holds a copy of, if any.
  std::optional<size_t> classIn(int r, size_t g) const {
    if (groups[g].owners <= kScanOwners) {
      const std::vector<Class> &classes = groups[g].classes;
      for (size_t c = 0; c < classes.size(); ++c)
        for (int owner : classes[c].owners)
          if (owner == r)
            return c;
      return std::nullopt;
    }
    auto it = classOfRankGroup.find(key(r, g));
    if (it == classOfRankGroup.end())
      return std::nullopt;
    return it->second;
  }

  /// The groups and classes rank `r` holds copies of.
  const std::vector<std::pair<size_t, size_t>> &classesOf(int r) const {
    static const std::vector<std::pair<size_t, size_t>> none;
    auto it = classesOfRank.find(r);
    return it == classesOfRank.end() ? none : it->second;
  }

  /// The index (among the owners of class `c` of group `g`) of the owner
  /// that serves its `k`-th receiver (receivers numbered in destination
  /// table order): the owners take turns, so that they send alike.
  size_t server(size_t g, size_t c, int64_t k) const {
    return static_cast<size_t>(k) % groups[g].classes[c].owners.size();
  }
  int sender(size_t g, size_t c, int64_t k) const {
    return groups[g].classes[c].owners[server(g, c, k)];
  }

  /// Whether rank `q` holds a copy of class `c` of group `g`.
  bool holds(int q, size_t g, size_t c) const { return classIn(q, g) == c; }
};

/// Source groups sorted along one dim, to find those that meet a box
/// without trying all of them.
struct GroupIndex {
  size_t dim = 0;
  int64_t longest = 0;
  /// (start along `dim`, group), sorted.
  std::vector<std::pair<int64_t, size_t>> starts;

  explicit GroupIndex(const SourceGroups &sources) {
    if (sources.groups.empty() || sources.groups[0].box->rank() == 0)
      return;
    // The dim with the most distinct starts separates the groups best.
    size_t rank = sources.groups[0].box->rank(), bestCount = 0;
    std::vector<int64_t> offsets(sources.groups.size());
    for (size_t d = 0; d < rank; ++d) {
      for (size_t g = 0; g < offsets.size(); ++g)
        offsets[g] = sources.groups[g].box->offsets[d];
      std::sort(offsets.begin(), offsets.end());
      size_t distinct =
          std::unique(offsets.begin(), offsets.end()) - offsets.begin();
      if (distinct > bestCount) {
        bestCount = distinct;
        dim = d;
      }
    }
    for (size_t g = 0; g < sources.groups.size(); ++g) {
      const Box &box = *sources.groups[g].box;
      starts.push_back({box.offsets[dim], g});
      longest = std::max(longest, box.sizes[dim]);
    }
    std::sort(starts.begin(), starts.end());
  }

  /// Calls `fn(group)` for every group that may meet `box`.
  template <typename Fn> void candidates(const Box &box, Fn fn) const {
    if (starts.empty()) {
      fn(size_t(0)); // rank 0: at most one group
      return;
    }
    int64_t lo = box.offsets[dim] - longest,
            hi = box.offsets[dim] + box.sizes[dim];
    auto it = std::upper_bound(starts.begin(), starts.end(),
                               std::make_pair(lo, SIZE_MAX));
    for (; it != starts.end() && it->first < hi; ++it)
      fn(it->second);
  }
};

/// planRedistribution (`partial` null) and planReduction.
RedistributionPlan planExchange(const SourceGroups &sources,
                                const GroupIndex &index, const BlockTable &dst,
                                int rank) {
  RedistributionPlan plan;

  // What this rank receives or copies: each of its destination blocks
  // against every class of every group, the contributions to one box by
  // ascending partial index.
  // Receives before sorting, with their (destination block, group, class).
  std::vector<std::tuple<int64_t, size_t, size_t>> receiveKeys;
  std::vector<size_t> meeting;
  std::vector<int64_t> before; // per class, reused from group to group
  for (int64_t d : dst.blocksOf(rank)) {
    // The groups that may meet the block, in group order.
    meeting.clear();
    if (!sources.groups.empty())
      index.candidates(dst.boxes[d], [&](size_t g) { meeting.push_back(g); });
    std::sort(meeting.begin(), meeting.end());
    for (size_t g : meeting) {
      const SourceGroups::Group &group = sources.groups[g];
      std::optional<Box> shared = intersect(dst.boxes[d], *group.box);
      if (!shared)
        continue;
      const std::optional<size_t> mine = sources.classIn(rank, g);
      // Per class: how many receivers of it come before this block.
      before.assign(group.classes.size(), 0);
      for (int64_t b = 0; b < d; ++b) {
        if (!overlaps(dst.boxes[b], *group.box))
          continue;
        for (size_t c = 0; c < group.classes.size(); ++c)
          before[c] += !sources.holds(dst.owners[b], g, c);
      }
      for (size_t c = 0; c < group.classes.size(); ++c) {
        // `index` refers to `receives` before it is sorted by peer.
        Contribution contribution;
        if (mine == c) {
          contribution.index = plan.copies.size();
          plan.copies.push_back(*shared);
          plan.copyBlocks.push_back({group.classes[c].blockOf(rank), d});
        } else {
          contribution.received = true;
          contribution.index = plan.receives.size();
          const size_t server = sources.server(g, c, before[c]);
          // With one class this is the box's last use: moved, not copied.
          const bool last = group.classes.size() == 1;
          plan.receives.push_back(Transfer{group.classes[c].owners[server],
                                           last ? std::move(*shared) : *shared,
                                           group.classes[c].blocks[server], d});
          receiveKeys.emplace_back(d, g, c);
        }
        contribution.reduce = c > 0;
        plan.order.push_back(contribution);
      }
      if (group.classes.size() > 1)
        plan.combined.push_back(Combined{
            std::move(*shared), static_cast<int64_t>(group.classes.size()), d});
    }
  }
  // What it sends: each of its classes against every destination block
  // whose owner holds no copy of it and which this rank serves.
  std::vector<std::tuple<int64_t, size_t, size_t>> sendKeys;
  for (const auto &[g, c] : sources.classesOf(rank)) {
    const int64_t own = sources.groups[g].classes[c].blockOf(rank);
    int64_t k = 0; // receivers of this class so far
    for (size_t b = 0; b < dst.size(); ++b) {
      const int q = dst.owners[b];
      if (!overlaps(dst.boxes[b], *sources.groups[g].box) ||
          sources.holds(q, g, c))
        continue;
      if (sources.sender(g, c, k++) == rank) {
        std::optional<Box> shared =
            intersect(dst.boxes[b], *sources.groups[g].box);
        plan.sends.push_back(
            Transfer{q, std::move(*shared), own, static_cast<int64_t>(b)});
        sendKeys.emplace_back(static_cast<int64_t>(b), g, c);
      }
    }
  }

  // Both sides order one peer's boxes by destination block, group, class:
  // the order in which they lie packed.
  auto sortedOrder =
      [](const std::vector<Transfer> &transfers,
         const std::vector<std::tuple<int64_t, size_t, size_t>> &keys) {
        std::vector<size_t> order(transfers.size());
        for (size_t i = 0; i < order.size(); ++i)
          order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
          return std::make_pair(transfers[a].peer, keys[a]) <
                 std::make_pair(transfers[b].peer, keys[b]);
        });
        return order;
      };
  {
    std::vector<size_t> order = sortedOrder(plan.sends, sendKeys);
    std::vector<Transfer> sends;
    sends.reserve(order.size());
    for (size_t i : order)
      sends.push_back(std::move(plan.sends[i]));
    plan.sends = std::move(sends);
  }
  // Sort the receives, renumbering the contributions.
  std::vector<size_t> byPeerOrder = sortedOrder(plan.receives, receiveKeys);
  std::vector<size_t> newIndex(byPeerOrder.size());
  std::vector<Transfer> receives;
  receives.reserve(byPeerOrder.size());
  for (size_t i = 0; i < byPeerOrder.size(); ++i) {
    newIndex[byPeerOrder[i]] = i;
    receives.push_back(std::move(plan.receives[byPeerOrder[i]]));
  }
  plan.receives = std::move(receives);
  // Nothing is reduced unless a box combines several partial indices.
  if (plan.combined.empty()) {
    plan.order.clear();
  } else {
    for (Contribution &contribution : plan.order) {
      if (contribution.received)
        contribution.index = newIndex[contribution.index];
    }
  }
  return plan;
}

/// Calls `fn(b, q, g, shared)` for every destination block b (owner q) and
/// every source group g whose box meets it in `shared`.
template <typename Fn>
void forEachMeeting(const SourceGroups &sources, const GroupIndex &index,
                    const BlockTable &dst, Fn fn) {
  for (size_t b = 0; b < dst.size(); ++b) {
    const int q = dst.owners[b];
    index.candidates(dst.boxes[b], [&](size_t g) {
      std::optional<Box> shared =
          intersect(dst.boxes[b], *sources.groups[g].box);
      if (shared)
        fn(b, q, g, *shared);
    });
  }
}

/// The blocks of tables with at most one block per rank on either side (every
/// mesh layout), grouped by box on both sides: what the traffic and the
/// lower bound of an exchange are computed from, in time linear in the
/// blocks and the (destination box, source box) pairs that meet, not in the
/// pairs of ranks that exchange data (a gather to every rank has N^2 of them
/// but N meeting boxes).
struct BoxGroups {
  /// Destination blocks with the same non-empty box.
  struct DstGroup {
    const Box *box = nullptr;
    /// Its blocks, in table order.
    std::vector<int64_t> blocks;
    /// The source groups it meets, and the elements it shares with each.
    std::vector<std::pair<size_t, int64_t>> meets;
  };
  const SourceGroups &sources;
  const BlockTable &src, &dst;
  std::vector<DstGroup> groups;
  /// Per rank: its source block and its destination block (-1: none).
  std::unordered_map<int, int64_t> srcBlockOf, dstBlockOf;
  /// Per destination block: its group (-1: empty).
  std::vector<int64_t> groupOf;
  /// Per source block: its group and class (empty blocks: none).
  std::vector<std::pair<size_t, size_t>> classOfBlock;

  BoxGroups(const SourceGroups &sources, const GroupIndex &index,
            const BlockTable &src, const BlockTable &dst)
      : sources(sources), src(src), dst(dst) {
    for (size_t b = 0; b < src.size(); ++b)
      srcBlockOf[src.owners[b]] = static_cast<int64_t>(b);
    classOfBlock.assign(src.size(), {SIZE_MAX, SIZE_MAX});
    for (size_t g = 0; g < sources.groups.size(); ++g)
      for (size_t c = 0; c < sources.groups[g].classes.size(); ++c)
        for (int64_t b : sources.groups[g].classes[c].blocks)
          classOfBlock[b] = {g, c};
    std::unordered_map<const Box *, size_t, BoxHash, BoxEqual> groupOfBox;
    groupOfBox.reserve(dst.size());
    groupOf.assign(dst.size(), -1);
    for (size_t b = 0; b < dst.size(); ++b) {
      dstBlockOf[dst.owners[b]] = static_cast<int64_t>(b);
      if (dst.boxes[b].empty())
        continue;
      auto [it, inserted] = groupOfBox.emplace(&dst.boxes[b], groups.size());
      if (inserted) {
        groups.emplace_back();
        groups.back().box = &dst.boxes[b];
      }
      groups[it->second].blocks.push_back(static_cast<int64_t>(b));
      groupOf[b] = static_cast<int64_t>(it->second);
    }
    if (sources.groups.empty())
      return;
    for (DstGroup &d : groups) {
      index.candidates(*d.box, [&](size_t g) {
        int64_t v =
            intersectionVolume(*d.box, *sources.groups[g].box).value_or(0);
        if (v > 0)
          d.meets.push_back({g, v});
      });
      std::sort(d.meets.begin(), d.meets.end());
    }
  }

  /// Whether both tables have at most one block per rank.
  static bool applies(const BlockTable &src, const BlockTable &dst) {
    for (const BlockTable *t : {&src, &dst}) {
      std::vector<int> owners = t->owners;
      std::sort(owners.begin(), owners.end());
      if (std::adjacent_find(owners.begin(), owners.end()) != owners.end())
        return false;
    }
    return true;
  }

  /// The source group and class rank `r` holds (SIZE_MAX: none).
  std::pair<size_t, size_t> classOf(int r) const {
    auto it = srcBlockOf.find(r);
    return it == srcBlockOf.end() ? std::make_pair(SIZE_MAX, SIZE_MAX)
                                  : classOfBlock[it->second];
  }
};

/// exchangeTraffic over BoxGroups; calls `pair(receiver, sender)` for pairs
/// of ranks that exchange data until it returns false.
std::map<int, RankTraffic>
trafficByBox(const BoxGroups &boxes,
             const std::function<bool(int, int)> &pair) {
  const SourceGroups &sources = boxes.sources;
  const BlockTable &dst = boxes.dst;
  std::map<int, RankTraffic> traffic;
  bool listing = static_cast<bool>(pair);
  // Receivers: per destination box, what every owner receives, less what it
  // holds (a rank holds one source block: one class of one group).
  for (const BoxGroups::DstGroup &d : boxes.groups) {
    if (d.meets.empty())
      continue;
    int64_t total = 0, messages = 0;
    for (auto [g, v] : d.meets) {
      int64_t classes = static_cast<int64_t>(sources.groups[g].classes.size());
      total += v * classes;
      messages += classes;
    }
    for (int64_t b : d.blocks) {
      const int q = dst.owners[b];
      RankTraffic &t = traffic[q];
      auto [g, c] = boxes.classOf(q);
      int64_t held =
          g == SIZE_MAX
              ? 0
              : intersectionVolume(*d.box, *sources.groups[g].box).value_or(0);
      t.received += total - held;
      t.copied += held;
      t.receivePeers += messages - (held > 0);
    }
  }
  // Senders: per class, its receivers in destination table order, served in
  // turn by its owners.
  auto single = [&](size_t g) {
    return sources.groups[g].classes.size() == 1 &&
           sources.groups[g].classes[0].owners.size() == 1;
  };
  std::vector<std::vector<std::pair<int64_t, int64_t>>> receiversOf(
      sources.groups.size()); // per group: (destination block, elements)
  for (const BoxGroups::DstGroup &d : boxes.groups)
    for (auto [g, v] : d.meets)
      if (!single(g))
        for (int64_t b : d.blocks)
          receiversOf[g].push_back({b, v});
  for (const BoxGroups::DstGroup &d : boxes.groups) {
    for (auto [g, v] : d.meets) {
      if (!single(g))
        continue;
      // One owner: it serves every block of `d` but its own.
      const int s = sources.groups[g].classes[0].owners[0];
      int64_t receivers = static_cast<int64_t>(d.blocks.size());
      auto it = boxes.dstBlockOf.find(s);
      if (it != boxes.dstBlockOf.end() && boxes.groupOf[it->second] >= 0 &&
          &boxes.groups[boxes.groupOf[it->second]] == &d)
        --receivers;
      if (receivers == 0)
        continue;
      RankTraffic &t = traffic[s];
      t.sent += v * receivers;
      t.sendPeers += receivers;
      for (size_t i = 0; listing && i < d.blocks.size(); ++i) {
        const int q = dst.owners[d.blocks[i]];
        if (q != s && !pair(q, s))
          listing = false;
      }
    }
  }
  for (size_t g = 0; g < sources.groups.size(); ++g) {
    std::vector<std::pair<int64_t, int64_t>> &receivers = receiversOf[g];
    if (receivers.empty())
      continue;
    std::sort(receivers.begin(), receivers.end());
    const SourceGroups::Group &group = sources.groups[g];
    for (size_t c = 0; c < group.classes.size(); ++c) {
      int64_t k = 0;
      for (auto [b, v] : receivers) {
        const int q = dst.owners[b];
        if (boxes.classOf(q) == std::make_pair(g, c))
          continue; // holds a copy
        const int s = sources.sender(g, c, k++);
        RankTraffic &t = traffic[s];
        t.sent += v;
        ++t.sendPeers;
        if (listing && !pair(q, s))
          listing = false;
      }
    }
  }
  return traffic;
}

} // namespace

std::optional<std::map<int, RankTraffic>>
exchangeTrafficByBox(const BlockTable &src, const std::vector<int64_t> *partial,
                     const BlockTable &dst,
                     const std::function<bool(int, int)> &pair) {
  if (!BoxGroups::applies(src, dst))
    return std::nullopt;
  const SourceGroups sources(src, partial);
  const GroupIndex index(sources);
  const BoxGroups boxes(sources, index, src, dst);
  return trafficByBox(boxes, pair);
}

namespace {} // namespace

std::map<int, RankTraffic>
exchangeTraffic(const BlockTable &src, const std::vector<int64_t> *partial,
                const BlockTable &dst,
                std::map<std::pair<int, int>, int64_t> *pairs) {
  const SourceGroups sources(src, partial);
  std::map<int, RankTraffic> traffic;
  std::map<int, std::set<int>> from, to;
  if (sources.groups.empty())
    return traffic;
  const GroupIndex index(sources);
  // Per group and class (class c of group g at first[g] + c): the receivers
  // so far, in destination table order.
  std::vector<size_t> first(sources.groups.size() + 1, 0);
  for (size_t g = 0; g < sources.groups.size(); ++g)
    first[g + 1] = first[g] + sources.groups[g].classes.size();
  std::vector<int64_t> receivers(first.back(), 0);
  for (size_t b = 0; b < dst.size(); ++b) {
    const int q = dst.owners[b];
    index.candidates(dst.boxes[b], [&](size_t g) {
      // Only what they share counts here: no box is built.
      const int64_t elements =
          *intersectionVolume(dst.boxes[b], *sources.groups[g].box);
      if (elements == 0)
        return;
      const std::optional<size_t> mine = sources.classIn(q, g);
      for (size_t c = 0; c < sources.groups[g].classes.size(); ++c) {
        if (mine == c) {
          traffic[q].copied += elements;
          continue;
        }
        int s = sources.sender(g, c, receivers[first[g] + c]++);
        traffic[q].received += elements;
        traffic[s].sent += elements;
        if (pairs)
          (*pairs)[{q, s}] += elements;
        from[q].insert(s);
        to[s].insert(q);
      }
    });
  }
  for (auto &[r, peers] : from)
    traffic[r].receivePeers = peers.size();
  for (auto &[r, peers] : to)
    traffic[r].sendPeers = peers.size();
  return traffic;
}

std::map<int, double> lowerBoundElements(const BlockTable &src,
                                         const std::vector<int64_t> *partial,
                                         const BlockTable &dst) {
  const SourceGroups sources(src, partial);
  std::map<int, double> bound;
  for (size_t b = 0; b < dst.size(); ++b)
    if (!dst.boxes[b].empty())
      bound[dst.owners[b]] = 0;
  if (sources.groups.empty())
    return bound;
  const GroupIndex index(sources);
  if (BoxGroups::applies(src, dst)) {
    // Per destination box: every element of it, less what each owner holds
    // (one source block), plus its share of reducing that block's copies.
    const BoxGroups boxes(sources, index, src, dst);
    for (const BoxGroups::DstGroup &d : boxes.groups) {
      int64_t total = 0;
      for (auto [g, v] : d.meets)
        total += v;
      // Per source group held here: the ranks holding a copy of it whose
      // destination block contains what it shares with this box.
      std::map<size_t, int64_t> needing;
      for (int64_t b : d.blocks) {
        const int q = dst.owners[b];
        const size_t g = boxes.classOf(q).first;
        const int64_t held =
            g == SIZE_MAX ? 0
                          : intersectionVolume(*d.box, *sources.groups[g].box)
                                .value_or(0);
        double elements = static_cast<double>(total - held);
        const SourceGroups::Group &group = sources.groups[held ? g : 0];
        if (held > 0 && group.classes.size() > 1) {
          auto [it, inserted] = needing.try_emplace(g, 0);
          if (inserted) {
            const Box shared = *intersect(*d.box, *group.box);
            for (const SourceGroups::Class &c : group.classes) {
              for (int h : c.owners) {
                auto hb = boxes.dstBlockOf.find(h);
                if (hb == boxes.dstBlockOf.end())
                  continue;
                std::optional<Box> theirs =
                    intersect(dst.boxes[hb->second], shared);
                it->second += theirs && *theirs == shared;
              }
            }
            it->second = std::max<int64_t>(it->second, 1);
          }
          const int64_t m = it->second;
          const size_t copies = group.classes.size();
          elements += static_cast<double>(held) *
                      static_cast<double>(copies + m - 2) /
                      static_cast<double>(m);
        }
        bound[q] += elements;
      }
    }
    return bound;
  }
  forEachMeeting(
      sources, index, dst, [&](size_t, int q, size_t g, const Box &shared) {
        const double elements = static_cast<double>(*volume(shared.sizes));
        const SourceGroups::Group &group = sources.groups[g];
        if (!sources.classIn(q, g)) {
          bound[q] += elements; // the reduced value, once
          return;
        }
        const size_t copies = group.classes.size();
        if (copies == 1)
          return; // held
        // The holders of a copy of this group that need the same elements.
        int64_t m = 0;
        for (const SourceGroups::Class &c : group.classes) {
          for (int h : c.owners) {
            for (int64_t hb : dst.blocksOf(h)) {
              std::optional<Box> theirs = intersect(dst.boxes[hb], shared);
              if (theirs && *theirs == shared) {
                ++m;
                break;
              }
            }
          }
        }
        m = std::max<int64_t>(m, 1);
        bound[q] += elements * static_cast<double>(copies + m - 2) /
                    static_cast<double>(m);
      });
  return bound;
}

struct ExchangePlanner::Impl {
  Impl(const BlockTable &src, const std::vector<int64_t> *partial,
       const BlockTable &dst)
      : sources(src, partial), index(sources), dst(dst) {}
  SourceGroups sources;
  GroupIndex index;
  const BlockTable &dst;
};

ExchangePlanner::ExchangePlanner(const BlockTable &src,
                                 const std::vector<int64_t> *partial,
                                 const BlockTable &dst)
    : impl(std::make_unique<Impl>(src, partial, dst)) {}

ExchangePlanner::~ExchangePlanner() = default;

RedistributionPlan ExchangePlanner::plan(int rank) const {
  return planExchange(impl->sources, impl->index, impl->dst, rank);
}

RedistributionPlan planRedistribution(const BlockTable &src,
                                      const BlockTable &dst, int rank) {
  return ExchangePlanner(src, nullptr, dst).plan(rank);
}

bool readPartialIndices(const int64_t *partial, int64_t numSrc,
                        std::vector<int64_t> &indices, std::string &problem) {
  indices.clear();
  if (numSrc <= 0)
    return true;
  if (!partial) {
    problem = "the partial indices are NULL but the source block table has " +
              std::to_string(numSrc) + " rows";
    return false;
  }
  indices.assign(partial, partial + numSrc);
  for (int64_t b = 0; b < numSrc; ++b) {
    if (indices[b] < 0) {
      problem = "source block " + std::to_string(b) + " has partial index " +
                std::to_string(indices[b]) + "; partial indices must be >= 0";
      return false;
    }
  }
  return true;
}

RedistributionPlan planReduction(const BlockTable &src,
                                 const std::vector<int64_t> &partial,
                                 const BlockTable &dst, int rank) {
  return ExchangePlanner(src, &partial, dst).plan(rank);
}

int64_t packedOffsets(const std::vector<Transfer> &transfers, int worldSize,
                      std::vector<int64_t> &counts,
                      std::vector<int64_t> &offsets) {
  counts.assign(worldSize, 0);
  offsets.assign(worldSize, 0);
  int64_t next = 0;
  for (const Transfer &t : transfers) {
    if (counts[t.peer] == 0)
      offsets[t.peer] = next;
    const int64_t n = *volume(t.box.sizes);
    counts[t.peer] += n;
    next += n;
  }
  return next;
}

} // namespace layout
} // namespace shardc
