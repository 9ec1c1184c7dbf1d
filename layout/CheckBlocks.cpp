//===- CheckBlocks.cpp - Overlap, bounds and coverage of a block list -----===//
//
// checkBlocks: every problem of a list of blocks against a tensor shape, as
// PyTorch's metadata validation finds them (rank, sign, bounds, overlaps,
// coverage), in time near linear in the blocks (a sweep for overlaps, a
// region search for gaps).
//
//===----------------------------------------------------------------------===//

#include "shardc/Layout/Layout.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <numeric>
#include <queue>
#include <sstream>
#include <tuple>

namespace shardc {
namespace layout {

namespace {

std::string nameBlock(size_t i, const Box &box) {
  return "block #" + std::to_string(i) + " " + formatBox(box);
}

/// An overlapping pair of blocks by index, lower first.
using Pair = std::pair<size_t, size_t>;

/// Keeps the `cap` smallest pairs offered, so that the pairs listed do not
/// depend on the order in which the sweep finds them.
class SmallestPairs {
public:
  explicit SmallestPairs(size_t cap) : cap(cap) {}
  void offer(size_t a, size_t b) {
    Pair p = a < b ? Pair{a, b} : Pair{b, a};
    if (heap.size() < cap) {
      heap.push_back(p);
      std::push_heap(heap.begin(), heap.end());
    } else if (cap > 0 && p < heap.front()) {
      std::pop_heap(heap.begin(), heap.end());
      heap.back() = p;
      std::push_heap(heap.begin(), heap.end());
    }
  }
  std::vector<Pair> sorted() && {
    std::sort_heap(heap.begin(), heap.end());
    return std::move(heap);
  }

private:
  size_t cap;
  std::vector<Pair> heap; ///< a max-heap
};

/// Finds every overlapping pair among `n` non-empty boxes of one rank >= 1,
/// box `i` being `boxAt(i)`, whose ends do not overflow.
///
/// Sweeps along the dim with the most distinct offsets. The boxes whose
/// extent in the sweep dim contains the sweep position are active. All boxes,
/// sorted by their offsets in the other dims, are the leaves of a static
/// binary tree (in buckets of kBucket leaves, scanned linearly) whose nodes
/// hold the bounding range, in the other dims, of their active leaves. A new
/// box descends only into nodes whose range meets it, so it meets only the
/// active boxes it overlaps plus the O(log n) nodes on the way. Memory:
/// O(n * rank).
class OverlapSweep {
public:
  template <typename BoxAt>
  OverlapSweep(BoxAt boxAt, size_t n, size_t rank) : n(n), rank(rank) {
    // The coordinates, copied once (and renumbered in sweep order by run):
    // the sweep reads them many times.
    coords.resize(2 * n * rank);
    for (size_t i = 0; i < n; ++i) {
      const Box &b = boxAt(i);
      for (size_t d = 0; d < rank; ++d) {
        coords[2 * (i * rank + d)] = b.offsets[d];
        coords[2 * (i * rank + d) + 1] = b.offsets[d] + b.sizes[d];
      }
    }
  }

  /// Calls `found(i, j)` for every overlapping pair of boxes, `i` the one
  /// met first by the sweep; returns the number of pairs.
  /// Stops, returning -1, once more than `limit` pairs are found.
  template <typename Found> int64_t run(Found found, int64_t limit = INT64_MAX);

private:
  int64_t start(size_t i, size_t d) const { return coords[2 * (i * rank + d)]; }
  int64_t end(size_t i, size_t d) const {
    return coords[2 * (i * rank + d) + 1];
  }
  /// How many leaves a bottom node of the tree holds.
  static constexpr size_t kBucket = 16;
  /// Node k's ranges: [r[2t], r[2t+1]) in tree dim t; empty when the first
  /// is not below the second.
  int64_t *range(size_t node) { return &tree[2 * node * m]; }
  /// Leaf k's ranges, laid out as a node's.
  int64_t *leafRange(size_t k) { return &leaves[2 * k * m]; }
  /// Whether ranges `r` meet the queried box.
  bool meets(const int64_t *r) const {
    for (size_t t = 0; t < m; ++t)
      if (r[2 * t] >= queryHi[t] || r[2 * t + 1] <= queryLo[t])
        return false;
    return true;
  }
  /// Sets the ranges of the leaf of box `i` (empty when `active` is false)
  /// and updates its ancestors, up to the first that does not change.
  void setLeaf(size_t i, bool active);
  /// Calls `found(i)` for every active box that meets box `j` in the tree
  /// dims.
  template <typename Found> void query(size_t j, Found found);

  const size_t n, rank;
  /// [start, end) of box i in dim d at [2(i*rank+d)], [2(i*rank+d)+1].
  std::vector<int64_t> coords;
  /// The dims the tree orders and bounds: all but the sweep dim (the sweep
  /// dim itself for rank 1); m of them.
  std::vector<size_t> treeDims;
  size_t m = 0;
  /// Node 1 is the root; node leafBase + b holds leaves [b*kBucket,
  /// (b+1)*kBucket).
  size_t leafBase = 1;
  std::vector<int64_t> tree, leaves;
  /// Boxes are numbered in sweep order; the caller's index of each.
  std::vector<size_t> original;
  /// The leaf of each box, and the box of each leaf.
  std::vector<size_t> leafOf, boxOf;
  /// The queried box's range in the tree dims.
  std::vector<int64_t> queryLo, queryHi;
};

void OverlapSweep::setLeaf(size_t i, bool active) {
  const size_t k = leafOf[i];
  int64_t *leaf = leafRange(k);
  for (size_t t = 0; t < m; ++t) {
    leaf[2 * t] = active ? start(i, treeDims[t]) : INT64_MAX;
    leaf[2 * t + 1] = active ? end(i, treeDims[t]) : INT64_MIN;
  }
  // The bucket's node bounds its leaves, every other node its two children.
  size_t node = leafBase + k / kBucket;
  size_t first = k / kBucket * kBucket, last = std::min(n, first + kBucket);
  for (;; node /= 2) {
    bool changed = false;
    int64_t *p = range(node);
    for (size_t t = 0; t < m; ++t) {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      if (node >= leafBase) {
        for (size_t l = first; l < last; ++l) {
          lo = std::min(lo, leafRange(l)[2 * t]);
          hi = std::max(hi, leafRange(l)[2 * t + 1]);
        }
      } else {
        const int64_t *a = range(2 * node), *b = range(2 * node + 1);
        lo = std::min(a[2 * t], b[2 * t]);
        hi = std::max(a[2 * t + 1], b[2 * t + 1]);
      }
      changed |= lo != p[2 * t] || hi != p[2 * t + 1];
      p[2 * t] = lo;
      p[2 * t + 1] = hi;
    }
    if (!changed || node == 1)
      return;
  }
}

template <typename Found> void OverlapSweep::query(size_t j, Found found) {
  for (size_t t = 0; t < m; ++t) {
    queryLo[t] = start(j, treeDims[t]);
    queryHi[t] = end(j, treeDims[t]);
  }
  size_t stack[128];
  size_t top = 0;
  stack[top++] = 1;
  while (top) {
    size_t node = stack[--top];
    if (!meets(range(node)))
      continue;
    if (node < leafBase) {
      stack[top++] = 2 * node + 1;
      stack[top++] = 2 * node;
      continue;
    }
    size_t first = (node - leafBase) * kBucket;
    for (size_t k = first, e = std::min(n, first + kBucket); k < e; ++k)
      if (meets(leafRange(k)))
        found(boxOf[k]);
  }
}

template <typename Found>
int64_t OverlapSweep::run(Found found, int64_t limit) {
  // Boxes sorted by offset, per dim; the sweep dim has the most distinct
  // offsets (ties go to the lower dim). With rank 2, the other dim's order is
  // the leaf order.
  using Key = std::pair<int64_t, size_t>;
  std::vector<Key> keys(n), sweepOrder, other;
  size_t sweep = 0, bestDistinct = 0;
  for (size_t d = 0; d < rank; ++d) {
    keys.resize(n);
    for (size_t i = 0; i < n; ++i)
      keys[i] = {start(i, d), i};
    std::sort(keys.begin(), keys.end());
    size_t distinct = 0;
    for (size_t i = 0; i < n; ++i)
      distinct += i == 0 || keys[i].first != keys[i - 1].first;
    if (d == 0 || distinct > bestDistinct) {
      sweep = d;
      bestDistinct = distinct;
      other.swap(sweepOrder);
      sweepOrder.swap(keys);
    } else {
      other.swap(keys);
    }
  }
  keys = {};

  // Renumber the boxes in sweep order, so that the sweep reads them in turn.
  std::vector<size_t> renumbered(n);
  original.resize(n);
  for (size_t p = 0; p < n; ++p) {
    original[p] = sweepOrder[p].second;
    renumbered[original[p]] = p;
  }
  sweepOrder = {};
  std::vector<int64_t> sorted(coords.size());
  for (size_t p = 0; p < n; ++p)
    std::copy_n(&coords[2 * original[p] * rank], 2 * rank,
                &sorted[2 * p * rank]);
  coords.swap(sorted);
  sorted = {};

  for (size_t d = 0; d < rank; ++d)
    if (d != sweep)
      treeDims.push_back(d);
  if (treeDims.empty())
    treeDims.push_back(sweep);
  m = treeDims.size();
  queryLo.resize(m);
  queryHi.resize(m);

  // Leaves in lexicographic order of the offsets in the tree dims.
  boxOf.resize(n);
  if (rank == 1) {
    std::iota(boxOf.begin(), boxOf.end(), 0);
  } else if (rank == 2) {
    for (size_t k = 0; k < n; ++k)
      boxOf[k] = renumbered[other[k].second];
  } else {
    std::iota(boxOf.begin(), boxOf.end(), 0);
    std::sort(boxOf.begin(), boxOf.end(), [&](size_t a, size_t b) {
      for (size_t d : treeDims)
        if (start(a, d) != start(b, d))
          return start(a, d) < start(b, d);
      return a < b;
    });
  }
  other = {};
  renumbered = {};
  leafOf.resize(n);
  for (size_t k = 0; k < n; ++k)
    leafOf[boxOf[k]] = k;
  while (leafBase * kBucket < n)
    leafBase *= 2;
  // Every leaf and node starts empty: nothing is active.
  leaves.resize(2 * n * m);
  tree.resize(2 * leafBase * m * 2);
  for (std::vector<int64_t> *v : {&leaves, &tree})
    for (size_t k = 0; k < v->size(); k += 2) {
      (*v)[k] = INT64_MAX;
      (*v)[k + 1] = INT64_MIN;
    }

  // Active boxes by the end of their extent in the sweep dim, soonest first.
  using EndAt = std::pair<int64_t, size_t>;
  std::priority_queue<EndAt, std::vector<EndAt>, std::greater<EndAt>> ends;
  int64_t count = 0;
  for (size_t j = 0; j < n; ++j) {
    // Extents are half-open: a box ending where `j` starts is done.
    while (!ends.empty() && ends.top().first <= start(j, sweep)) {
      setLeaf(ends.top().second, false);
      ends.pop();
    }
    query(j, [&](size_t a) {
      ++count;
      found(original[a], original[j]);
    });
    if (count > limit)
      return -1;
    setLeaf(j, true);
    ends.push({end(j, sweep), j});
  }
  return count;
}

/// Replaces each group of touching `pieces` (disjoint boxes inside `shape`)
/// that exactly fills its bounding box by that box, then merges the rest
/// pairwise. Pairwise merging alone can get stuck on a box cut in a pinwheel
/// pattern.
void mergePieces(std::vector<Box> &pieces, const std::vector<int64_t> &shape) {
  const size_t n = pieces.size(), rank = shape.size();
  // Closed boxes touch when their half-open boxes, one longer in every dim,
  // overlap; the ends must not overflow.
  if (n < 2 || rank == 0 ||
      std::find(shape.begin(), shape.end(), INT64_MAX) != shape.end())
    return mergeBoxes(pieces);
  std::vector<Box> grown = pieces;
  for (Box &b : grown)
    for (int64_t &s : b.sizes)
      ++s;
  std::vector<size_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  auto boxAt = [&](size_t i) -> const Box & { return grown[i]; };
  OverlapSweep(boxAt, n, rank).run([&](size_t a, size_t b) {
    parent[root(a)] = root(b);
  });
  grown.clear();

  // Per component: its bounding box and the volume of its pieces.
  std::vector<std::vector<size_t>> members(n);
  for (size_t i = 0; i < n; ++i)
    members[root(i)].push_back(i);
  std::vector<Box> result;
  for (const std::vector<size_t> &group : members) {
    if (group.empty())
      continue;
    Box bound = pieces[group.front()];
    int64_t filled = 0;
    for (size_t i : group) {
      const Box &b = pieces[i];
      filled += *volume(b.sizes);
      for (size_t d = 0; d < rank; ++d) {
        int64_t end = std::max(bound.offsets[d] + bound.sizes[d],
                               b.offsets[d] + b.sizes[d]);
        bound.offsets[d] = std::min(bound.offsets[d], b.offsets[d]);
        bound.sizes[d] = end - bound.offsets[d];
      }
    }
    // Disjoint pieces inside their bounding box fill it when the volumes
    // agree.
    if (filled == *volume(bound.sizes)) {
      result.push_back(std::move(bound));
      continue;
    }
    for (size_t i : group)
      result.push_back(std::move(pieces[i]));
  }
  pieces = std::move(result);
  mergeBoxes(pieces);
}

/// Describes the part of `shape` that non-overlapping blocks inside it leave
/// uncovered, as disjoint boxes.
///
/// Starts from the whole shape with the blocks that meet it. A region that
/// no block meets is a gap box; one whose blocks' shared volumes add up to
/// its own volume is covered (the blocks do not overlap); any other region
/// is split in two at the median block boundary strictly inside it, along
/// the dim with the most such boundaries, and each half keeps the blocks
/// that meet it. Regions covered in one look end the search early, so a big
/// partition with a few holes costs O(n log n). The search stops once
/// `pieceLimit` gap boxes are found.
class GapSearch {
public:
  GapSearch(const std::vector<Block> &blocks, size_t pieceLimit)
      : blocks(blocks), pieceLimit(pieceLimit) {}

  /// The gap boxes (merged where they touch, in no particular order) found
  /// in the `shape`, given the non-empty blocks `live`, all inside it.
  std::vector<Box> run(const std::vector<int64_t> &shape,
                       std::vector<size_t> live);

private:
  struct Region {
    Box box;
    std::vector<size_t> blocks;
  };
  /// Whether `region`'s blocks cover it.
  bool covered(const Region &region) const;
  /// Splits `region` in two, pushing both halves on `work`, the lower one
  /// last.
  void split(Region &region, std::vector<Region> &work);

  const std::vector<Block> &blocks;
  const size_t pieceLimit;
  std::vector<int64_t> boundaries;
};

bool GapSearch::covered(const Region &region) const {
  // Inside the shape, whose volume fits int64, no volume overflows.
  int64_t want = *volume(region.box.sizes), have = 0;
  for (size_t i : region.blocks)
    have += *intersectionVolume(blocks[i].box, region.box);
  return have == want;
}

void GapSearch::split(Region &region, std::vector<Region> &work) {
  const Box &box = region.box;
  auto interior = [&](size_t d, int64_t x) {
    return box.offsets[d] < x && x < box.offsets[d] + box.sizes[d];
  };
  // A region that its blocks do not cover has a block boundary strictly
  // inside: otherwise each block would span it, and its one block (they do
  // not overlap) would cover it.
  size_t bestDim = 0, bestCount = 0;
  for (size_t d = 0; d < box.rank(); ++d) {
    size_t count = 0;
    for (size_t i : region.blocks) {
      const Box &b = blocks[i].box;
      count += interior(d, b.offsets[d]);
      count += interior(d, b.offsets[d] + b.sizes[d]);
    }
    if (count > bestCount) {
      bestDim = d;
      bestCount = count;
    }
  }
  assert(bestCount > 0 && "an uncovered region with blocks has a boundary");
  const size_t d = bestDim;
  boundaries.clear();
  for (size_t i : region.blocks) {
    const Box &b = blocks[i].box;
    if (interior(d, b.offsets[d]))
      boundaries.push_back(b.offsets[d]);
    if (interior(d, b.offsets[d] + b.sizes[d]))
      boundaries.push_back(b.offsets[d] + b.sizes[d]);
  }
  auto median = boundaries.begin() + boundaries.size() / 2;
  std::nth_element(boundaries.begin(), median, boundaries.end());
  const int64_t x = *median;

  Region lower, upper;
  lower.box = upper.box = box;
  lower.box.sizes[d] = x - box.offsets[d];
  upper.box.offsets[d] = x;
  upper.box.sizes[d] = box.offsets[d] + box.sizes[d] - x;
  for (size_t i : region.blocks) {
    const Box &b = blocks[i].box;
    if (b.offsets[d] < x)
      lower.blocks.push_back(i);
    if (b.offsets[d] + b.sizes[d] > x)
      upper.blocks.push_back(i);
  }
  region.blocks = {};
  work.push_back(std::move(upper));
  work.push_back(std::move(lower));
}

std::vector<Box> GapSearch::run(const std::vector<int64_t> &shape,
                                std::vector<size_t> live) {
  std::vector<Box> pieces;
  std::vector<Region> work;
  Region whole;
  whole.box.offsets.assign(shape.size(), 0);
  whole.box.sizes = shape;
  whole.blocks = std::move(live);
  work.push_back(std::move(whole));
  while (!work.empty() && pieces.size() < pieceLimit) {
    Region region = std::move(work.back());
    work.pop_back();
    if (region.box.empty())
      continue;
    if (region.blocks.empty()) {
      pieces.push_back(std::move(region.box));
      continue;
    }
    if (!covered(region))
      split(region, work);
  }
  mergePieces(pieces, shape);
  return pieces;
}

} // namespace

CheckResult checkBlocks(const std::vector<int64_t> &shape,
                        const std::vector<Block> &blocks, size_t maxProblems) {
  CheckResult result;
  auto full = [&] { return result.problems.size() >= maxProblems; };
  auto report = [&](Problem::Kind kind, int64_t block, int64_t other,
                    std::string message, std::optional<Box> box = {}) {
    if (!full())
      result.problems.push_back(
          {kind, block, other, std::move(box), std::move(message)});
  };
  if (blocks.empty()) {
    report(Problem::Kind::NoBlocks, -1, -1, "the spec has no blocks");
    return result;
  }

  // Structure: lengths, signs, bounds.
  const size_t rank = shape.size();
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Box &box = blocks[i].box;
    if (box.offsets.size() != box.sizes.size()) {
      report(Problem::Kind::Inconsistent, i, -1,
             nameBlock(i, box) +
                 " is inconsistent: " + std::to_string(box.offsets.size()) +
                 " offsets but " + std::to_string(box.sizes.size()) + " sizes");
      continue;
    }
    if (box.rank() != rank) {
      report(Problem::Kind::RankMismatch, i, -1,
             nameBlock(i, box) + " has rank " + std::to_string(box.rank()) +
                 " but the tensor " + formatList(shape) + " has rank " +
                 std::to_string(rank));
      continue;
    }
    auto negative = [&]() -> std::optional<size_t> {
      for (size_t d = 0; d < rank; ++d)
        if (box.offsets[d] < 0 || box.sizes[d] < 0)
          return d;
      return std::nullopt;
    }();
    if (negative) {
      size_t d = *negative;
      report(Problem::Kind::Negative, i, -1,
             nameBlock(i, box) + " has a negative " +
                 (box.offsets[d] < 0 ? "offset" : "size") + " in dim " +
                 std::to_string(d));
      continue;
    }
    // An empty block holds nothing: it exceeds nothing, wherever it lies.
    if (box.empty())
      continue;
    for (size_t d = 0; d < rank; ++d) {
      int64_t end;
      if (__builtin_add_overflow(box.offsets[d], box.sizes[d], &end)) {
        report(Problem::Kind::Overflow, i, -1,
               nameBlock(i, box) + ": offset + size overflows int64 in dim " +
                   std::to_string(d));
        break;
      }
      if (end > shape[d]) {
        report(Problem::Kind::Exceeds, i, -1,
               nameBlock(i, box) + " exceeds the tensor " + formatList(shape) +
                   " in dim " + std::to_string(d) + ": offset " +
                   std::to_string(box.offsets[d]) + " + size " +
                   std::to_string(box.sizes[d]) + " > " +
                   std::to_string(shape[d]));
        break;
      }
    }
  }
  if (!result.problems.empty())
    return result;

  // Overlap. Empty blocks take no part.
  std::vector<size_t> live;
  for (size_t i = 0; i < blocks.size(); ++i)
    if (!blocks[i].box.empty())
      live.push_back(i);
  SmallestPairs pairs(maxProblems);
  if (rank > 0 && live.size() > 1) {
    // Each pair as the sweep finds it, while they are few (a partition has
    // none)...
    auto boxAt = [&](size_t i) -> const Box & { return blocks[live[i]].box; };
    result.overlapCount =
        OverlapSweep(boxAt, live.size(), rank)
            .run([&](size_t a, size_t b) { pairs.offer(live[a], live[b]); },
                 /*limit=*/4 * static_cast<int64_t>(live.size()) + 1024);
  }
  if (rank > 0 && result.overlapCount < 0) {
    // ... else again, with the blocks that have the same box (replicas
    // listed as blocks) swept once: k copies of a box make k(k-1)/2 pairs
    // among themselves, and k * l with the l copies of a box it overlaps,
    // counted, not enumerated. Boxes are compared by a hash first, sorted:
    // no copies of the boxes.
    pairs = SmallestPairs(maxProblems);
    result.overlapCount = 0;
    std::vector<size_t> distinct; // per distinct box: its first block
    std::vector<std::vector<size_t>> copies; // its blocks, in order
    {
      auto hashOf = [](const Box &box) {
        uint64_t h = 0x9e3779b97f4a7c15ull;
        for (const std::vector<int64_t> *v : {&box.offsets, &box.sizes})
          for (int64_t x : *v)
            h = (h ^ static_cast<uint64_t>(x)) * 0x100000001b3ull + (h >> 29);
        return h;
      };
      std::vector<std::pair<uint64_t, size_t>> hashed(live.size());
      for (size_t k = 0; k < live.size(); ++k)
        hashed[k] = {hashOf(blocks[live[k]].box), live[k]};
      std::sort(hashed.begin(), hashed.end());
      bool repeated = false;
      for (size_t k = 1; k < hashed.size() && !repeated; ++k)
        repeated =
            hashed[k].first == hashed[k - 1].first &&
            blocks[hashed[k].second].box == blocks[hashed[k - 1].second].box;
      if (repeated) {
        // Per run of one hash (in block order), its distinct boxes.
        for (size_t k = 0; k < hashed.size();) {
          size_t end = k;
          while (end < hashed.size() && hashed[end].first == hashed[k].first)
            ++end;
          size_t first = distinct.size();
          for (size_t j = k; j < end; ++j) {
            const size_t i = hashed[j].second;
            size_t d = first;
            while (d < distinct.size() &&
                   !(blocks[distinct[d]].box == blocks[i].box))
              ++d;
            if (d == distinct.size()) {
              distinct.push_back(i);
              copies.emplace_back();
            }
            copies[d].push_back(i);
          }
          k = end;
        }
      }
    }
    if (distinct.empty()) {
      // Every box once: every pair, one by one.
      auto boxAt = [&](size_t i) -> const Box & { return blocks[live[i]].box; };
      result.overlapCount =
          OverlapSweep(boxAt, live.size(), rank).run([&](size_t a, size_t b) {
            pairs.offer(live[a], live[b]);
          });
    } else {
      // The smallest pairs of two lists of blocks (in order) are among those
      // of their first maxProblems blocks: any other pair has maxProblems
      // smaller ones.
      auto firsts = [&](size_t d) {
        return std::min(copies[d].size() - 1, maxProblems) + 1;
      };
      for (size_t d = 0; d < copies.size(); ++d) {
        int64_t k = static_cast<int64_t>(copies[d].size());
        result.overlapCount += k * (k - 1) / 2;
        for (size_t x = 0; x < firsts(d); ++x)
          for (size_t y = x + 1; y < firsts(d); ++y)
            pairs.offer(copies[d][x], copies[d][y]);
      }
      auto boxAt = [&](size_t i) -> const Box & {
        return blocks[distinct[i]].box;
      };
      OverlapSweep(boxAt, distinct.size(), rank).run([&](size_t a, size_t b) {
        result.overlapCount += static_cast<int64_t>(copies[a].size()) *
                               static_cast<int64_t>(copies[b].size());
        for (size_t x = 0; x < firsts(a); ++x)
          for (size_t y = 0; y < firsts(b); ++y)
            pairs.offer(copies[a][x], copies[b][y]);
      });
    }
  } else if (rank == 0 && live.size() > 1) {
    // A rank-0 tensor has one element; every pair of blocks shares it.
    int64_t n = static_cast<int64_t>(live.size());
    result.overlapCount = n * (n - 1) / 2;
    size_t listed = 0;
    for (size_t i = 0; i < live.size() && listed < maxProblems; ++i)
      for (size_t j = i + 1; j < live.size() && listed < maxProblems;
           ++j, ++listed)
        pairs.offer(live[i], live[j]);
  }
  if (result.overlapCount > 0) {
    for (auto [a, b] : std::move(pairs).sorted()) {
      std::optional<Box> common = intersect(blocks[a].box, blocks[b].box);
      assert(common && "a listed pair overlaps");
      report(Problem::Kind::Overlap, a, b,
             nameBlock(a, blocks[a].box) + " and " +
                 nameBlock(b, blocks[b].box) + " overlap" +
                 (rank > 0 ? " in " + formatBox(*common) : ""),
             common);
    }
    return result;
  }

  // Coverage: without overlaps, the blocks cover the shape exactly when their
  // volumes add up to its volume.
  std::optional<int64_t> total = volume(shape);
  if (!total) {
    report(Problem::Kind::Overflow, -1, -1,
           "the volume of the tensor " + formatList(shape) +
               " overflows int64");
    return result;
  }
  // Non-overlapping blocks inside the shape add up to at most its volume,
  // which fits int64: no overflow from here on.
  int64_t covered = 0;
  for (size_t i : live)
    covered += *volume(blocks[i].box.sizes);
  result.uncoveredCount = *total - covered;
  if (result.uncoveredCount == 0)
    return result;
  if (full()) {
    result.gapBoxCount = -1;
    return result;
  }

  // Name the gap as boxes. Collect well past the listing cap so that pieces
  // of one hole can merge back into one box.
  size_t pieceLimit = maxProblems > SIZE_MAX / 16
                          ? SIZE_MAX
                          : std::max<size_t>(1024, 16 * maxProblems);
  std::vector<Box> gaps = GapSearch(blocks, pieceLimit).run(shape, live);
  int64_t found = 0;
  for (const Box &g : gaps)
    found += *volume(g.sizes);
  bool complete = found == result.uncoveredCount;
  result.gapBoxCount = complete ? static_cast<int64_t>(gaps.size()) : -1;
  std::sort(gaps.begin(), gaps.end(), [](const Box &a, const Box &b) {
    return std::tie(a.offsets, a.sizes) < std::tie(b.offsets, b.sizes);
  });
  std::string where = complete ? " in " + std::to_string(gaps.size()) +
                                     (gaps.size() == 1 ? " box" : " boxes")
                               : " in too many boxes to list";
  std::string prefix =
      "the blocks do not cover the tensor " + formatList(shape);
  report(Problem::Kind::NotCovered, -1, -1,
         prefix + ": total volume of blocks " + std::to_string(covered) +
             " does not match tensor volume " + std::to_string(*total) +
             " (a gap of " + std::to_string(result.uncoveredCount) +
             " elements" + where + ")");
  for (const Box &g : gaps) {
    if (full())
      break;
    report(Problem::Kind::Gap, -1, -1,
           prefix + ": " + formatBox(g) + " is not covered", g);
  }
  return result;
}

} // namespace layout
} // namespace shardc
