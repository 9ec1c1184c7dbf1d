//===- SourceGroups.h - Source blocks grouped by box, and box indices -*- C++
//-*-===//
//
// Private to the layout library: what the per-rank plan (Exchange.cpp) and
// the all-ranks traffic and lower bound (Traffic.cpp) both build from a
// redistribution's tables. Flat arrays throughout: a plan of 16384 ranks
// builds them once per step and candidate.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LAYOUT_SOURCEGROUPS_H
#define SHARDC_LAYOUT_SOURCEGROUPS_H

#include "shardc/Layout/Exchange.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace shardc {
namespace layout {
namespace detail {

/// Sorts (rank, value) pairs by rank (stable), folding the values of a rank
/// listed several times into its first with `merge(kept, later)`.
template <typename Value, typename Merge>
void sortByRank(std::vector<std::pair<int, Value>> &entries, Merge merge) {
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  size_t kept = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (kept > 0 && entries[kept - 1].first == entries[i].first)
      merge(entries[kept - 1].second, entries[i].second);
    else
      entries[kept++] = entries[i];
  }
  entries.resize(kept);
}

/// A value per rank, looked up by binary search: flat, for the tens of
/// thousands of ranks a plan may name.
class RankMap {
public:
  void add(int rank, int64_t value) { entries.emplace_back(rank, value); }
  /// Sorts what was added (a rank added several times keeps its last value).
  void seal() {
    sortByRank(entries, [](int64_t &kept, int64_t later) { kept = later; });
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
inline BoxIndex groupIndex(const SourceGroups &sources) {
  return BoxIndex(sources.groups.size(), [&](size_t g) -> const Box & {
    return *sources.groups[g].box;
  });
}

} // namespace detail
} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_SOURCEGROUPS_H
