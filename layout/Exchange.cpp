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
  table.boxes.reserve(blocks.size());
  table.owners.reserve(blocks.size());
  table.volumes.reserve(blocks.size());
  for (const Block &b : blocks) {
    table.boxes.push_back(b.box);
    table.owners.push_back(static_cast<int>(b.placement.rank));
    table.volumes.push_back(volume(b.box.sizes).value_or(0));
  }
  return table;
}

BlockTable blockTableOf(std::vector<Block> &&blocks) {
  BlockTable table;
  table.boxes.reserve(blocks.size());
  table.owners.reserve(blocks.size());
  table.volumes.reserve(blocks.size());
  for (Block &b : blocks) {
    table.owners.push_back(static_cast<int>(b.placement.rank));
    table.volumes.push_back(volume(b.box.sizes).value_or(0));
    table.boxes.push_back(std::move(b.box));
  }
  return table;
}

Result<BlockTable> readBlockTable(const int64_t *blocks, int64_t numBlocks,
                                  int64_t rank, int64_t worldSize,
                                  const std::vector<int64_t> *shape,
                                  const std::string &what,
                                  bool severalPerRank) {
  auto bad = [](std::string text) -> Result<BlockTable> {
    return Failure{std::move(text)};
  };
  BlockTable table;
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
  return table;
}

Result<RedistributionTables>
readRedistributionTables(const int64_t *srcBlocks, int64_t numSrc,
                         const int64_t *dstBlocks, int64_t numDst, int64_t rank,
                         int64_t worldSize) {
  Result<BlockTable> src =
      readBlockTable(srcBlocks, numSrc, rank, worldSize, nullptr, "source ",
                     /*severalPerRank=*/true);
  if (!src)
    return Failure{src.error()};
  Result<BlockTable> dst =
      readBlockTable(dstBlocks, numDst, rank, worldSize, nullptr,
                     "destination ", /*severalPerRank=*/true);
  if (!dst)
    return Failure{dst.error()};
  const std::vector<int64_t> srcExtent = src->extent(rank);
  const std::vector<int64_t> dstExtent = dst->extent(rank);
  if (srcExtent != dstExtent)
    return Failure{"the source blocks span " + formatList(srcExtent) +
                   " but the destination blocks span " + formatList(dstExtent) +
                   "; both tables must lay out the same global tensor"};
  return RedistributionTables{std::move(*src), std::move(*dst)};
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

/// A value per rank, looked up by binary search: flat, for the tens of
/// thousands of ranks a plan may name.
class RankMap {
public:
  void add(int rank, int64_t value) { entries.emplace_back(rank, value); }
  /// Sorts what was added (a rank added several times keeps its last value).
  void seal() {
    std::stable_sort(
        entries.begin(), entries.end(),
        [](const auto &a, const auto &b) { return a.first < b.first; });
    size_t kept = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (kept > 0 && entries[kept - 1].first == entries[i].first)
        entries[kept - 1] = entries[i];
      else
        entries[kept++] = entries[i];
    }
    entries.resize(kept);
  }
  std::optional<int64_t> find(int rank) const {
    auto it = std::lower_bound(
        entries.begin(), entries.end(), rank,
        [](const std::pair<int, int64_t> &e, int r) { return e.first < r; });
    if (it == entries.end() || it->first != rank)
      return std::nullopt;
    return it->second;
  }

private:
  std::vector<std::pair<int, int64_t>> entries;
};

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

/// A view of consecutive elements of a vector that outlives it.
template <typename T> struct Span {
  const T *first = nullptr;
  size_t n = 0;
  const T *begin() const { return first; }
  const T *end() const { return first + n; }
  size_t size() const { return n; }
  const T &operator[](size_t i) const { return first[i]; }
  const T &front() const { return first[0]; }
};

/// The source blocks of a redistribution that hold the same non-empty box (a
/// group), split by partial index into classes of replicas. Classes, owners
/// and blocks live in flat arrays (a plan of 16384 ranks builds one per step
/// and candidate); groups and classes view them.
struct SourceGroups {
  struct Class {
    int64_t partial = 0;
    /// The owners of its blocks, in table order, and those blocks.
    Span<int> owners;
    Span<int64_t> blocks;

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
    Span<Class> classes;
    /// The owners of its blocks, all classes together.
    size_t owners = 0;
  };
  /// In the order of their first block.
  std::vector<Group> groups;
  /// What the groups and classes view.
  std::vector<Class> allClasses;
  std::vector<int> allOwners;
  std::vector<int64_t> allBlocks;
  /// Per owner of a non-empty source block: the group and class of each of
  /// its blocks, in table order (one per group: a rank holds a box once).
  struct Held {
    int rank;
    size_t g, c;
  };
  /// Sorted by rank, then group and class (stable).
  std::vector<Held> classesOfRank;
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
    // The group of every non-empty block, groups in order of first block.
    std::unordered_map<const Box *, size_t, BoxHash, BoxEqual> groupOfBox;
    groupOfBox.reserve(src.size());
    std::vector<size_t> groupOf(src.size(), SIZE_MAX);
    std::vector<size_t> members; // per group, then its first member
    for (size_t b = 0; b < src.size(); ++b) {
      const Box &box = src.boxes[b];
      if (box.empty())
        continue;
      auto [it, inserted] = groupOfBox.emplace(&box, groups.size());
      if (inserted) {
        groups.emplace_back();
        groups.back().box = &box;
        members.push_back(0);
      }
      groupOf[b] = it->second;
      ++members[it->second];
    }
    // The blocks of each group, in table order (a counting sort), then by
    // partial index (stable: table order within a class).
    std::vector<size_t> start(groups.size() + 1, 0);
    for (size_t g = 0; g < groups.size(); ++g)
      start[g + 1] = start[g] + members[g];
    allBlocks.resize(start.back());
    for (size_t g = 0; g < groups.size(); ++g)
      members[g] = start[g];
    for (size_t b = 0; b < src.size(); ++b)
      if (groupOf[b] != SIZE_MAX)
        allBlocks[members[groupOf[b]]++] = static_cast<int64_t>(b);
    auto partialOf = [&](int64_t b) { return partial ? (*partial)[b] : 0; };
    if (partial)
      for (size_t g = 0; g < groups.size(); ++g)
        std::stable_sort(
            allBlocks.begin() + start[g], allBlocks.begin() + start[g + 1],
            [&](int64_t a, int64_t b) { return partialOf(a) < partialOf(b); });
    allOwners.resize(allBlocks.size());
    for (size_t i = 0; i < allBlocks.size(); ++i)
      allOwners[i] = src.owners[allBlocks[i]];
    // Classes: runs of one partial index; spans set once nothing grows.
    std::vector<size_t> classStart(groups.size() + 1, 0);
    std::vector<std::pair<size_t, size_t>> classMembers; // [from, to)
    for (size_t g = 0; g < groups.size(); ++g) {
      classStart[g] = allClasses.size();
      for (size_t i = start[g]; i < start[g + 1];) {
        size_t j = i;
        while (j < start[g + 1] &&
               partialOf(allBlocks[j]) == partialOf(allBlocks[i]))
          ++j;
        allClasses.emplace_back();
        allClasses.back().partial = partialOf(allBlocks[i]);
        classMembers.push_back({i, j});
        i = j;
      }
    }
    classStart[groups.size()] = allClasses.size();
    for (size_t k = 0; k < allClasses.size(); ++k) {
      auto [from, to] = classMembers[k];
      allClasses[k].owners = {allOwners.data() + from, to - from};
      allClasses[k].blocks = {allBlocks.data() + from, to - from};
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      groups[g].classes = {allClasses.data() + classStart[g],
                           classStart[g + 1] - classStart[g]};
      groups[g].owners = start[g + 1] - start[g];
    }
    classesOfRank.reserve(allOwners.size());
    for (size_t g = 0; g < groups.size(); ++g) {
      for (size_t c = 0; c < groups[g].classes.size(); ++c)
        for (int owner : groups[g].classes[c].owners)
          classesOfRank.push_back({owner, g, c});
      if (groups[g].owners <= kScanOwners)
        continue;
      for (size_t c = 0; c < groups[g].classes.size(); ++c)
        for (int owner : groups[g].classes[c].owners)
          classOfRankGroup.emplace(key(owner, g), c);
    }
    std::stable_sort(
        classesOfRank.begin(), classesOfRank.end(),
        [](const Held &a, const Held &b) { return a.rank < b.rank; });
  }
  SourceGroups(const SourceGroups &) = delete;
  SourceGroups &operator=(const SourceGroups &) = delete;

  /// The class of group `g` that rank `r` holds a copy of, if any.
  std::optional<size_t> classIn(int r, size_t g) const {
    if (groups[g].owners <= kScanOwners) {
      const Span<Class> &classes = groups[g].classes;
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

  /// The groups and classes rank `r` holds copies of, in table order.
  struct HeldRange {
    std::vector<Held>::const_iterator first, last;
    std::vector<Held>::const_iterator begin() const { return first; }
    std::vector<Held>::const_iterator end() const { return last; }
  };
  HeldRange classesOf(int r) const {
    auto [first, last] = std::equal_range(
        classesOfRank.begin(), classesOfRank.end(), Held{r, 0, 0},
        [](const Held &a, const Held &b) { return a.rank < b.rank; });
    return {first, last};
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

/// Boxes (source groups, destination blocks) sorted along two dims (the two
/// with the most distinct starts), to find those that meet a box without
/// trying all of them: a tiling of a 2-D tensor by N boxes has about sqrt(N)
/// starts along either dim, so one dim alone would leave sqrt(N) candidates
/// per box. Empty boxes are left out (they meet nothing).
struct BoxIndex {
  /// The dims sorted by; `second` == `first` when only one separates.
  size_t first = 0, second = 0;
  /// The longest group along each of them.
  int64_t longestFirst = 0, longestSecond = 0;
  /// (start along `first`, start along `second`, box), sorted.
  std::vector<std::tuple<int64_t, int64_t, size_t>> starts;
  /// Whether the boxes are 0-D (each meets every other non-empty one).
  bool scalar = false;
  size_t count = 0;

  /// `box(i)` for i < n: the boxes indexed.
  template <typename BoxAt> BoxIndex(size_t n, BoxAt box) : count(n) {
    std::vector<size_t> kept;
    kept.reserve(n);
    for (size_t i = 0; i < n; ++i)
      if (!box(i).empty())
        kept.push_back(i);
    if (kept.empty())
      return;
    const size_t rank = box(kept[0]).rank();
    if (rank == 0) {
      scalar = true;
      for (size_t i : kept)
        starts.emplace_back(0, 0, i);
      return;
    }
    // Distinct starts counted on an even sample of the boxes: the choice
    // only steers how well the index separates, never what it finds.
    const size_t sample = std::min<size_t>(kept.size(), 2048);
    std::vector<size_t> distinct(rank, 0);
    std::vector<int64_t> offsets(sample);
    for (size_t d = 0; d < rank; ++d) {
      for (size_t k = 0; k < sample; ++k)
        offsets[k] = box(kept[k * kept.size() / sample]).offsets[d];
      std::sort(offsets.begin(), offsets.end());
      distinct[d] =
          std::unique(offsets.begin(), offsets.end()) - offsets.begin();
    }
    // The dim with the most distinct starts separates the groups best; the
    // next best separates those that share a start along it.
    for (size_t d = 0; d < rank; ++d)
      if (distinct[d] > distinct[first])
        first = d;
    second = first;
    for (size_t d = 0; d < rank; ++d)
      if (d != first && distinct[d] > 1 &&
          (second == first || distinct[d] > distinct[second]))
        second = d;
    starts.reserve(kept.size());
    for (size_t i : kept) {
      const Box &b = box(i);
      starts.emplace_back(b.offsets[first], b.offsets[second], i);
      longestFirst = std::max(longestFirst, b.sizes[first]);
      longestSecond = std::max(longestSecond, b.sizes[second]);
    }
    std::sort(starts.begin(), starts.end());
  }

  /// Calls `fn(i)` for every box that may meet `box`, ascending by (start
  /// along `first`, start along `second`, i).
  template <typename Fn> void candidates(const Box &box, Fn fn) const {
    if (scalar) {
      for (const auto &start : starts)
        fn(std::get<2>(start));
      return;
    }
    if (starts.empty())
      return;
    const int64_t lo = box.offsets[first] - longestFirst,
                  hi = box.offsets[first] + box.sizes[first];
    const int64_t lo2 = box.offsets[second] - longestSecond,
                  hi2 = box.offsets[second] + box.sizes[second];
    auto it = std::upper_bound(starts.begin(), starts.end(),
                               std::make_tuple(lo, INT64_MAX, SIZE_MAX));
    while (it != starts.end() && std::get<0>(*it) < hi) {
      if (second == first) {
        fn(std::get<2>(*it));
        ++it;
        continue;
      }
      // The run of boxes starting at this offset along `first`: those
      // starting in (lo2, hi2) along `second`.
      const int64_t at = std::get<0>(*it);
      auto from = std::upper_bound(it, starts.end(),
                                   std::make_tuple(at, lo2, SIZE_MAX));
      for (; from != starts.end() && std::get<0>(*from) == at &&
             std::get<1>(*from) < hi2;
           ++from)
        fn(std::get<2>(*from));
      it = std::upper_bound(from, starts.end(),
                            std::make_tuple(at, INT64_MAX, SIZE_MAX));
    }
  }
};

/// The index of the source groups' boxes.
BoxIndex groupIndex(const SourceGroups &sources) {
  return BoxIndex(sources.groups.size(), [&](size_t g) -> const Box & {
    return *sources.groups[g].box;
  });
}

/// planRedistribution (`partial` null) and planReduction.
RedistributionPlan planExchange(const SourceGroups &sources,
                                const BoxIndex &index, const BlockTable &dst,
                                const BoxIndex &dstIndex, int rank) {
  RedistributionPlan plan;
  // The destination blocks before `limit` that meet a box, in table order.
  std::vector<int64_t> met;
  auto meetingBlocks = [&](const Box &box, size_t limit) {
    met.clear();
    dstIndex.candidates(box, [&](size_t b) {
      if (b < limit && overlaps(dst.boxes[b], box))
        met.push_back(static_cast<int64_t>(b));
    });
    std::sort(met.begin(), met.end());
  };

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
      // Per class: how many receivers of it come before this block, which
      // picks its server among several owners (a class of one owner serves
      // every receiver: nothing to count, and counting costs a pass over
      // the blocks before this one per group).
      before.assign(group.classes.size(), 0);
      if (group.owners > group.classes.size()) {
        meetingBlocks(*group.box, static_cast<size_t>(d));
        for (int64_t b : met) {
          for (size_t c = 0; c < group.classes.size(); ++c)
            before[c] += !sources.holds(dst.owners[b], g, c);
        }
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
  for (const SourceGroups::Held &held : sources.classesOf(rank)) {
    const size_t g = held.g, c = held.c;
    const int64_t own = sources.groups[g].classes[c].blockOf(rank);
    int64_t k = 0; // receivers of this class so far
    meetingBlocks(*sources.groups[g].box, dst.size());
    for (int64_t b : met) {
      const int q = dst.owners[b];
      if (sources.holds(q, g, c))
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
void forEachMeeting(const SourceGroups &sources, const BoxIndex &index,
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
  RankMap srcBlockOf, dstBlockOf;
  /// Per destination block: its group (-1: empty).
  std::vector<int64_t> groupOf;
  /// Per source block: its group and class (empty blocks: none).
  std::vector<std::pair<size_t, size_t>> classOfBlock;

  BoxGroups(const SourceGroups &sources, const BoxIndex &index,
            const BlockTable &src, const BlockTable &dst)
      : sources(sources), src(src), dst(dst) {
    for (size_t b = 0; b < src.size(); ++b)
      srcBlockOf.add(src.owners[b], static_cast<int64_t>(b));
    srcBlockOf.seal();
    classOfBlock.assign(src.size(), {SIZE_MAX, SIZE_MAX});
    for (size_t g = 0; g < sources.groups.size(); ++g)
      for (size_t c = 0; c < sources.groups[g].classes.size(); ++c)
        for (int64_t b : sources.groups[g].classes[c].blocks)
          classOfBlock[b] = {g, c};
    std::unordered_map<const Box *, size_t, BoxHash, BoxEqual> groupOfBox;
    groupOfBox.reserve(dst.size());
    groupOf.assign(dst.size(), -1);
    for (size_t b = 0; b < dst.size(); ++b) {
      dstBlockOf.add(dst.owners[b], static_cast<int64_t>(b));
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
    dstBlockOf.seal();
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
    std::optional<int64_t> b = srcBlockOf.find(r);
    return b ? classOfBlock[*b] : std::make_pair(SIZE_MAX, SIZE_MAX);
  }
};

/// exchangeTraffic over BoxGroups; calls `pair(receiver, sender)` for pairs
/// of ranks that exchange data until it returns false.
RankTrafficTable trafficByBox(const BoxGroups &boxes,
                              const std::function<bool(int, int)> &pair) {
  const SourceGroups &sources = boxes.sources;
  const BlockTable &dst = boxes.dst;
  // What each rank adds, summed per rank at the end.
  std::vector<RankTrafficTable::Entry> traffic;
  traffic.reserve(boxes.src.size() + dst.size());
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
      RankTraffic &t = traffic.emplace_back(q, RankTraffic()).second;
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
      std::optional<int64_t> own = boxes.dstBlockOf.find(s);
      if (own && boxes.groupOf[*own] >= 0 &&
          &boxes.groups[boxes.groupOf[*own]] == &d)
        --receivers;
      if (receivers == 0)
        continue;
      RankTraffic &t = traffic.emplace_back(s, RankTraffic()).second;
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
        RankTraffic &t = traffic.emplace_back(s, RankTraffic()).second;
        t.sent += v;
        ++t.sendPeers;
        if (listing && !pair(q, s))
          listing = false;
      }
    }
  }
  return RankTrafficTable(std::move(traffic));
}

} // namespace

std::optional<RankTrafficTable>
exchangeTrafficByBox(const BlockTable &src, const std::vector<int64_t> *partial,
                     const BlockTable &dst,
                     const std::function<bool(int, int)> &pair) {
  if (!BoxGroups::applies(src, dst))
    return std::nullopt;
  const SourceGroups sources(src, partial);
  const BoxIndex index = groupIndex(sources);
  const BoxGroups boxes(sources, index, src, dst);
  return trafficByBox(boxes, pair);
}

RankTrafficTable::RankTrafficTable(std::vector<Entry> added)
    : entries(std::move(added)) {
  if (entries.empty())
    return;
  auto [least, most] = std::minmax_element(
      entries.begin(), entries.end(),
      [](const Entry &a, const Entry &b) { return a.first < b.first; });
  const int64_t low = least->first,
                span = int64_t(most->first) - int64_t(least->first) + 1;
  if (span <= 4 * static_cast<int64_t>(entries.size()) + 64) {
    // Ranks in a dense range (every mesh's): summed in place, in rank order.
    std::vector<RankTraffic> sum(span);
    std::vector<bool> listed(span, false);
    for (const Entry &e : entries) {
      sum[e.first - low] += e.second;
      listed[e.first - low] = true;
    }
    entries.clear();
    for (int64_t i = 0; i < span; ++i)
      if (listed[i])
        entries.emplace_back(static_cast<int>(low + i), sum[i]);
    return;
  }
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const Entry &a, const Entry &b) { return a.first < b.first; });
  size_t kept = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (kept > 0 && entries[kept - 1].first == entries[i].first)
      entries[kept - 1].second += entries[i].second;
    else
      entries[kept++] = entries[i];
  }
  entries.resize(kept);
}

const RankTraffic *RankTrafficTable::find(int r) const {
  auto it =
      std::lower_bound(entries.begin(), entries.end(), r,
                       [](const Entry &e, int rank) { return e.first < rank; });
  return it != entries.end() && it->first == r ? &it->second : nullptr;
}

RankTrafficTable
exchangeTraffic(const BlockTable &src, const std::vector<int64_t> *partial,
                const BlockTable &dst,
                std::map<std::pair<int, int>, int64_t> *pairs) {
  const SourceGroups sources(src, partial);
  std::map<int, RankTraffic> traffic;
  std::map<int, std::set<int>> from, to;
  if (sources.groups.empty())
    return {};
  const BoxIndex index = groupIndex(sources);
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
  return RankTrafficTable(
      std::vector<RankTrafficTable::Entry>(traffic.begin(), traffic.end()));
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
  const BoxIndex index = groupIndex(sources);
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
                std::optional<int64_t> hb = boxes.dstBlockOf.find(h);
                if (!hb)
                  continue;
                std::optional<Box> theirs = intersect(dst.boxes[*hb], shared);
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
      : sources(src, partial), index(groupIndex(sources)), dst(dst),
        dstIndex(dst.size(),
                 [&](size_t b) -> const Box & { return dst.boxes[b]; }) {}
  SourceGroups sources;
  BoxIndex index;
  const BlockTable &dst;
  BoxIndex dstIndex;
};

ExchangePlanner::ExchangePlanner(const BlockTable &src,
                                 const std::vector<int64_t> *partial,
                                 const BlockTable &dst)
    : impl(std::make_unique<Impl>(src, partial, dst)) {}

ExchangePlanner::~ExchangePlanner() = default;

RedistributionPlan ExchangePlanner::plan(int rank) const {
  return planExchange(impl->sources, impl->index, impl->dst, impl->dstIndex,
                      rank);
}

RedistributionPlan planRedistribution(const BlockTable &src,
                                      const BlockTable &dst, int rank) {
  return ExchangePlanner(src, nullptr, dst).plan(rank);
}

Result<std::vector<int64_t>> readPartialIndices(const int64_t *partial,
                                                int64_t numSrc) {
  if (numSrc <= 0)
    return std::vector<int64_t>();
  if (!partial)
    return Failure{
        "the partial indices are NULL but the source block table has " +
        std::to_string(numSrc) + " rows"};
  std::vector<int64_t> indices(partial, partial + numSrc);
  for (int64_t b = 0; b < numSrc; ++b)
    if (indices[b] < 0)
      return Failure{"source block " + std::to_string(b) +
                     " has partial index " + std::to_string(indices[b]) +
                     "; partial indices must be >= 0"};
  return indices;
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
