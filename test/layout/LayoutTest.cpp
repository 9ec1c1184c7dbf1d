//===- LayoutTest.cpp - The layout library against PyTorch's numbers ------===//

#include "shardc/Layout/Layout.h"
#include "shardc/Layout/Exchange.h"
#include "shardc/Layout/Infer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>

using namespace shardc::layout;

namespace {

std::vector<int64_t> sizesOf(int64_t n, int64_t k) {
  std::vector<int64_t> sizes;
  for (const Chunk &c : chunks(n, k))
    sizes.push_back(c.size);
  return sizes;
}

// torch.chunk's documented cases.
TEST(Chunk, PyTorchCases) {
  EXPECT_EQ(sizesOf(11, 4), (std::vector<int64_t>{3, 3, 3, 2}));
  EXPECT_EQ(sizesOf(13, 4), (std::vector<int64_t>{4, 4, 4, 1}));
  EXPECT_EQ(sizesOf(5, 4), (std::vector<int64_t>{2, 2, 1, 0}));
  EXPECT_EQ(sizesOf(10, 4), (std::vector<int64_t>{3, 3, 3, 1}));
  EXPECT_EQ(sizesOf(0, 3), (std::vector<int64_t>{0, 0, 0}));
  // The empty last chunk of 5 over 4 sits at offset 6, past the end.
  EXPECT_EQ(chunkOf(5, 4, 3).offset, 6);
}

TEST(Chunk, NormalizeDim) {
  EXPECT_EQ(normalizeDim(-1, 3), 2);
  EXPECT_EQ(normalizeDim(2, 3), 2);
  EXPECT_FALSE(normalizeDim(3, 3).has_value());
  EXPECT_FALSE(normalizeDim(-4, 3).has_value());
  EXPECT_FALSE(normalizeDim(0, 0).has_value());
}

TEST(Box, IntersectAndFit) {
  Box a{{0, 0}, {3, 4}}, b{{2, 1}, {4, 4}};
  std::optional<Box> c = intersect(a, b);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(*c, (Box{{2, 1}, {1, 3}}));
  // Empty boxes share nothing and fit anywhere.
  Box empty{{100, 0}, {0, 4}};
  EXPECT_FALSE(intersect(a, empty).has_value());
  EXPECT_TRUE(fitsIn(empty, {4, 4}));
  EXPECT_FALSE(fitsIn(b, {5, 5}));
  EXPECT_FALSE(volume({INT64_MAX, 2}).has_value());
}

TEST(Device, ParseAndFormat) {
  auto canonical = [&](const char *s) {
    Result<Device> d = parseDevice(s);
    return d ? formatDevice(*d) : "error: " + d.error();
  };
  EXPECT_EQ(canonical("rank:0/cuda:0"), "rank:0/cuda:0");
  EXPECT_EQ(canonical("rank:1"), "rank:1/cpu");
  EXPECT_EQ(canonical("cuda:0"), "cuda:0");
  EXPECT_EQ(canonical("cpu"), "cpu");
  EXPECT_EQ(canonical("rank:0/cpu"), "rank:0/cpu");
  for (const char *bad : {"cuda:foo", "foo:0", "rank:foo", "rank:0/cpu2",
                          "rank:0/random:0", "", "/", "rank:", "rank:1/"}) {
    Result<Device> d = parseDevice(bad);
    EXPECT_FALSE(d) << bad;
    EXPECT_NE(d.error().find(std::string("\"") + bad + "\""), std::string::npos)
        << "the message quotes the string: " << d.error();
  }
}

TEST(Check, ChunkBlocksAreValid) {
  std::vector<Device> four(4);
  for (int i = 0; i < 4; ++i)
    four[i].rank = i;
  for (int64_t n : {0, 1, 5, 10, 11, 13}) {
    std::vector<Block> blocks = chunkBlocks({n, 3}, 0, four);
    EXPECT_TRUE(checkBlocks({n, 3}, blocks).ok()) << n;
  }
}

TEST(Check, GapAndOverlap) {
  std::vector<Block> gap(2), overlap(2);
  gap[0].box = {{0}, {4}};
  gap[1].box = {{5}, {5}};
  CheckResult r = checkBlocks({10}, gap);
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[0].kind, Problem::Kind::NotCovered);
  EXPECT_EQ(r.problems[1].kind, Problem::Kind::Gap);
  EXPECT_EQ(r.problems[1].box, (Box{{4}, {1}}));
  EXPECT_EQ(r.uncoveredCount, 1);
  overlap[0].box = {{0}, {6}};
  overlap[1].box = {{5}, {5}};
  r = checkBlocks({10}, overlap);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, Problem::Kind::Overlap);
  EXPECT_EQ(r.overlapCount, 1);
}

//===----------------------------------------------------------------------===//
// checkBlocks at scale: random partitions against brute force
//===----------------------------------------------------------------------===//

std::vector<Block> toBlocks(const std::vector<Box> &boxes) {
  std::vector<Block> blocks(boxes.size());
  for (size_t i = 0; i < boxes.size(); ++i)
    blocks[i].box = boxes[i];
  return blocks;
}

/// A random guillotine partition of `shape` into `n` boxes: repeatedly cut
/// a random box with more than one element in two along a random dim.
std::vector<Box> guillotine(const std::vector<int64_t> &shape, size_t n,
                            std::mt19937_64 &rng) {
  std::vector<Box> boxes{Box{std::vector<int64_t>(shape.size(), 0), shape}};
  for (size_t attempts = 0; boxes.size() < n && attempts < 100 * n;
       ++attempts) {
    size_t i = rng() % boxes.size();
    size_t d = rng() % shape.size();
    Box &b = boxes[i];
    if (b.sizes[d] < 2)
      continue;
    int64_t cut = 1 + static_cast<int64_t>(rng() % (b.sizes[d] - 1));
    Box upper = b;
    upper.offsets[d] += cut;
    upper.sizes[d] -= cut;
    b.sizes[d] = cut;
    boxes.push_back(upper);
  }
  std::shuffle(boxes.begin(), boxes.end(), rng);
  return boxes;
}

/// A grid partition: dim d cut into cuts[d] uneven pieces.
std::vector<Box> grid(const std::vector<int64_t> &shape,
                      const std::vector<int64_t> &cuts) {
  std::vector<std::vector<Chunk>> perDim;
  for (size_t d = 0; d < shape.size(); ++d)
    perDim.push_back(chunks(shape[d], cuts[d]));
  std::vector<Box> boxes{Box{}};
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<Box> next;
    for (const Box &b : boxes)
      for (const Chunk &c : perDim[d]) {
        Box e = b;
        e.offsets.push_back(c.offset);
        e.sizes.push_back(c.size);
        next.push_back(e);
      }
    boxes = std::move(next);
  }
  return boxes;
}

int64_t bruteForceOverlaps(const std::vector<Box> &boxes) {
  int64_t count = 0;
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j)
      count += intersect(boxes[i], boxes[j]).has_value();
  return count;
}

/// The problems of one kind.
std::vector<Problem> ofKind(const CheckResult &r, Problem::Kind kind) {
  std::vector<Problem> out;
  for (const Problem &p : r.problems)
    if (p.kind == kind)
      out.push_back(p);
  return out;
}

TEST(CheckScale, PartitionsAreValid) {
  std::mt19937_64 rng(1);
  for (size_t rank = 1; rank <= 4; ++rank) {
    std::vector<int64_t> shape(rank);
    for (int trial = 0; trial < 20; ++trial) {
      for (int64_t &s : shape)
        s = 1 + static_cast<int64_t>(rng() % 40);
      std::vector<Box> boxes = guillotine(shape, 1 + rng() % 300, rng);
      CheckResult r = checkBlocks(shape, toBlocks(boxes));
      EXPECT_TRUE(r.ok()) << "rank " << rank << ": " << r.problems[0].message;
    }
  }
  // Grids with uneven and empty chunks (5 over 4 is 2, 2, 1, 0).
  for (const std::vector<int64_t> &cuts :
       {std::vector<int64_t>{4, 7}, {3, 4, 5}, {4, 1, 2, 3}}) {
    std::vector<int64_t> shape(cuts.size(), 5);
    CheckResult r = checkBlocks(shape, toBlocks(grid(shape, cuts)));
    EXPECT_TRUE(r.ok()) << r.problems[0].message;
  }
}

TEST(CheckScale, RemovedBlockIsTheGap) {
  std::mt19937_64 rng(2);
  for (size_t rank = 1; rank <= 4; ++rank) {
    std::vector<int64_t> shape(rank);
    for (int trial = 0; trial < 40; ++trial) {
      for (int64_t &s : shape)
        s = 1 + static_cast<int64_t>(rng() % 40);
      std::vector<Box> boxes =
          trial % 2 ? guillotine(shape, 2 + rng() % 300, rng)
                    : grid(shape, std::vector<int64_t>(rank, 1 + rng() % 6));
      boxes.erase(std::remove_if(boxes.begin(), boxes.end(),
                                 [](const Box &b) { return b.empty(); }),
                  boxes.end());
      if (boxes.size() < 2)
        continue;
      size_t victim = rng() % boxes.size();
      Box hole = boxes[victim];
      boxes.erase(boxes.begin() + victim);
      CheckResult r = checkBlocks(shape, toBlocks(boxes));
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.overlapCount, 0);
      EXPECT_EQ(r.uncoveredCount, *volume(hole.sizes));
      EXPECT_EQ(r.gapBoxCount, 1);
      std::vector<Problem> gaps = ofKind(r, Problem::Kind::Gap);
      ASSERT_EQ(gaps.size(), 1u) << r.problems[0].message;
      EXPECT_EQ(gaps[0].box, hole) << gaps[0].message;
      ASSERT_EQ(ofKind(r, Problem::Kind::NotCovered).size(), 1u);
    }
  }
}

TEST(CheckScale, TwoHolesInALargePartition) {
  std::mt19937_64 rng(3);
  std::vector<int64_t> shape{1000, 1000};
  std::vector<Box> boxes = guillotine(shape, 20000, rng);
  std::sort(boxes.begin(), boxes.end(),
            [](const Box &a, const Box &b) { return a.offsets < b.offsets; });
  // Two holes far apart: each is reported as its own box.
  Box first = boxes[10], last = boxes[boxes.size() - 10];
  ASSERT_FALSE(overlaps(first, last));
  boxes.erase(boxes.begin() + boxes.size() - 10);
  boxes.erase(boxes.begin() + 10);
  CheckResult r = checkBlocks(shape, toBlocks(boxes));
  EXPECT_EQ(r.uncoveredCount, *volume(first.sizes) + *volume(last.sizes));
  std::vector<Problem> gaps = ofKind(r, Problem::Kind::Gap);
  std::vector<Box> found;
  for (const Problem &p : gaps)
    found.push_back(*p.box);
  mergeBoxes(found);
  int64_t foundVolume = 0;
  for (const Box &b : found) {
    foundVolume += *volume(b.sizes);
    EXPECT_TRUE(overlaps(b, first) || overlaps(b, last)) << formatBox(b);
  }
  EXPECT_EQ(foundVolume, r.uncoveredCount);
}

TEST(CheckScale, GrownBlockOverlaps) {
  std::mt19937_64 rng(4);
  for (size_t rank = 1; rank <= 4; ++rank) {
    std::vector<int64_t> shape(rank);
    for (int trial = 0; trial < 40; ++trial) {
      for (int64_t &s : shape)
        s = 2 + static_cast<int64_t>(rng() % 40);
      std::vector<Box> boxes = guillotine(shape, 2 + rng() % 300, rng);
      // Grow one block by one element along a dim where it has a neighbour.
      size_t victim = rng() % boxes.size();
      Box &b = boxes[victim];
      size_t d = rng() % rank;
      if (b.offsets[d] > 0) {
        --b.offsets[d];
        ++b.sizes[d];
      } else if (b.offsets[d] + b.sizes[d] < shape[d]) {
        ++b.sizes[d];
      } else {
        continue; // spans the whole dim
      }
      CheckResult r = checkBlocks(shape, toBlocks(boxes), 4);
      EXPECT_GT(r.overlapCount, 0);
      EXPECT_EQ(r.overlapCount, bruteForceOverlaps(boxes));
      std::vector<Problem> listed = ofKind(r, Problem::Kind::Overlap);
      ASSERT_FALSE(listed.empty());
      for (const Problem &p : listed)
        EXPECT_TRUE(p.block == static_cast<int64_t>(victim) ||
                    p.other == static_cast<int64_t>(victim))
            << p.message;
    }
  }
}

/// The sweep counts every overlapping pair: random boxes (with duplicates,
/// nesting and empty ones) against the O(n^2) count.
TEST(CheckScale, OverlapCountMatchesBruteForce) {
  std::mt19937_64 rng(5);
  for (size_t rank = 1; rank <= 4; ++rank) {
    for (int trial = 0; trial < 25; ++trial) {
      std::vector<int64_t> shape(rank);
      for (int64_t &s : shape)
        s = 1 + static_cast<int64_t>(rng() % 30);
      size_t n = 100 + rng() % 300;
      std::vector<Box> boxes;
      for (size_t i = 0; i < n; ++i) {
        if (i > 0 && rng() % 20 == 0) {
          boxes.push_back(boxes[rng() % i]); // a duplicate
          continue;
        }
        Box b;
        for (int64_t s : shape) {
          // Mostly small boxes, some as big as the dim, a few empty.
          int64_t size = rng() % 10 == 0 ? static_cast<int64_t>(rng() % (s + 1))
                                         : static_cast<int64_t>(rng() % 4);
          size = std::min(size, s);
          b.offsets.push_back(static_cast<int64_t>(rng() % (s - size + 1)));
          b.sizes.push_back(size);
        }
        boxes.push_back(b);
      }
      size_t cap = 1 + rng() % 10;
      CheckResult r = checkBlocks(shape, toBlocks(boxes), cap);
      int64_t expected = bruteForceOverlaps(boxes);
      ASSERT_EQ(r.overlapCount, expected) << "rank " << rank;
      if (expected == 0)
        continue;
      // The listed pairs are the first ones in (lower, higher) order.
      std::vector<std::pair<int64_t, int64_t>> want;
      for (size_t i = 0; i < boxes.size() && want.size() < cap; ++i)
        for (size_t j = i + 1; j < boxes.size() && want.size() < cap; ++j)
          if (intersect(boxes[i], boxes[j]))
            want.emplace_back(i, j);
      std::vector<std::pair<int64_t, int64_t>> got;
      for (const Problem &p : r.problems) {
        ASSERT_EQ(p.kind, Problem::Kind::Overlap);
        got.emplace_back(p.block, p.other);
        EXPECT_EQ(p.box, intersect(boxes[p.block], boxes[p.other]));
      }
      EXPECT_EQ(got, want);
    }
  }
}

/// Many copies of a few boxes (replicas listed as blocks): the copies are
/// counted per box, not pair by pair, and the pairs listed are still the
/// first ones.
TEST(CheckScale, CopiesOfABox) {
  std::mt19937_64 rng(7);
  std::vector<Box> kinds = {
      {{0, 0}, {4, 4}}, {{2, 2}, {4, 4}}, {{6, 0}, {2, 8}}, {{0, 6}, {2, 2}}};
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Box> boxes;
    size_t n = 50 + rng() % 200;
    for (size_t i = 0; i < n; ++i)
      boxes.push_back(kinds[rng() % kinds.size()]);
    size_t cap = 1 + rng() % 20;
    CheckResult r = checkBlocks({8, 8}, toBlocks(boxes), cap);
    ASSERT_EQ(r.overlapCount, bruteForceOverlaps(boxes));
    std::vector<std::pair<int64_t, int64_t>> want, got;
    for (size_t i = 0; i < boxes.size() && want.size() < cap; ++i)
      for (size_t j = i + 1; j < boxes.size() && want.size() < cap; ++j)
        if (intersect(boxes[i], boxes[j]))
          want.emplace_back(i, j);
    for (const Problem &p : r.problems)
      got.emplace_back(p.block, p.other);
    EXPECT_EQ(got, want);
  }
  // Many distinct boxes that all overlap: every pair, one by one.
  std::vector<Box> nested;
  for (int64_t i = 0; i < 300; ++i)
    nested.push_back(Box{{0}, {i + 1}});
  CheckResult all = checkBlocks({300}, toBlocks(nested), 3);
  EXPECT_EQ(all.overlapCount, 300 * 299 / 2);
  ASSERT_EQ(all.problems.size(), 3u);
  EXPECT_EQ(all.problems[2].other, 3);
  // 10^5 copies of one box: 5 * 10^9 pairs, counted at once.
  std::vector<Box> same(100000, Box{{0, 0}, {4, 4}});
  CheckResult r = checkBlocks({4, 4}, toBlocks(same), 2);
  EXPECT_EQ(r.overlapCount, int64_t(100000) * 99999 / 2);
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[1].block, 0);
  EXPECT_EQ(r.problems[1].other, 2);
}

TEST(CheckScale, RankZero) {
  std::vector<Block> blocks(4);
  CheckResult r = checkBlocks({}, blocks, 3);
  EXPECT_EQ(r.overlapCount, 6);
  ASSERT_EQ(r.problems.size(), 3u);
  EXPECT_EQ(r.problems[2].block, 0);
  EXPECT_EQ(r.problems[2].other, 3);
  EXPECT_TRUE(checkBlocks({}, std::vector<Block>(1)).ok());
}

TEST(CheckScale, ManyGapsAreCappedAndCounted) {
  // Every other block of a 100x100 grid is missing: 5000 holes.
  std::vector<Box> boxes = grid({200, 200}, {100, 100}), kept;
  for (size_t i = 0; i < boxes.size(); ++i)
    if ((i / 100 + i % 100) % 2 == 0)
      kept.push_back(boxes[i]);
  CheckResult r = checkBlocks({200, 200}, toBlocks(kept), 8);
  EXPECT_EQ(r.uncoveredCount, 5000 * 4);
  ASSERT_EQ(r.problems.size(), 8u);
  EXPECT_EQ(r.problems[0].kind, Problem::Kind::NotCovered);
  EXPECT_EQ(r.problems[1].kind, Problem::Kind::Gap);
}

TEST(Box, MergeBoxes) {
  std::vector<Box> boxes{{{0, 0}, {1, 4}}, {{1, 2}, {2, 2}}, {{1, 0}, {2, 2}}};
  mergeBoxes(boxes);
  ASSERT_EQ(boxes.size(), 1u);
  EXPECT_EQ(boxes[0], (Box{{0, 0}, {3, 4}}));
}

} // namespace

namespace {

std::vector<shardc::layout::Block>
blocks1d(std::vector<std::pair<int64_t, int64_t>> offsetSize,
         std::vector<int64_t> ranks) {
  std::vector<shardc::layout::Block> blocks;
  for (size_t i = 0; i < offsetSize.size(); ++i) {
    shardc::layout::Block b;
    b.box = {{offsetSize[i].first}, {offsetSize[i].second}};
    b.placement.rank = ranks[i];
    blocks.push_back(b);
  }
  return blocks;
}

TEST(Infer, ChunkOrderedByOffset) {
  // 11 over 4, listed out of order: placements come back ordered by offset.
  auto inferred = shardc::layout::inferChunkSpec(
      {11}, blocks1d({{3, 3}, {0, 3}, {9, 2}, {6, 3}}, {1, 0, 3, 2}));
  ASSERT_TRUE(inferred.has_value());
  EXPECT_EQ(inferred->dim, 0);
  std::vector<int64_t> ranks;
  for (const auto &d : inferred->placements)
    ranks.push_back(d.rank);
  EXPECT_EQ(ranks, (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(Infer, StaysEnumerable) {
  EXPECT_FALSE(
      shardc::layout::inferChunkSpec({10}, blocks1d({{0, 3}, {3, 7}}, {0, 1})));
  EXPECT_FALSE(shardc::layout::inferChunkSpec(
      {25}, blocks1d({{0, 16}, {16, 9}}, {0, 0})));
  EXPECT_FALSE(shardc::layout::inferChunkSpec({4}, blocks1d({{0, 4}}, {0})));
}

TEST(Infer, NeverMovesElements) {
  // [2, 2]: rank 0 holds the whole tensor, rank 1 an empty block at row 2
  // with 1 row. PyTorch chunks the sum of the sizes (3 over 2: offsets 0, 2)
  // and would infer dim 0, which puts row 1 on rank 1: no spec here.
  shardc::layout::Block whole, empty;
  whole.box = {{0, 0}, {2, 2}};
  whole.placement.rank = 0;
  empty.box = {{2, 0}, {1, 0}};
  empty.placement.rank = 1;
  EXPECT_FALSE(shardc::layout::inferChunkSpec({2, 2}, {whole, empty}));
  // 1-D: sizes 2 and 1 at offsets 0 and 2 of a tensor of 2 (the second
  // block is out of the shape's chunks): no spec either.
  EXPECT_FALSE(
      shardc::layout::inferChunkSpec({2}, blocks1d({{0, 2}, {2, 0}}, {0, 1})));
  // 5 over 4 with the empty last chunk listed at offset 6 (as PyTorch 2.x
  // writes it): the chunk spec, every element in place.
  auto inferred = shardc::layout::inferChunkSpec(
      {5}, blocks1d({{0, 2}, {2, 2}, {4, 1}, {6, 0}}, {0, 1, 2, 3}));
  ASSERT_TRUE(inferred.has_value());
  EXPECT_EQ(inferred->placements.size(), 4u);
}

TEST(Infer, MeshRoundTrip) {
  using namespace shardc::layout;
  Mesh mesh{{2, 3}, {5, 4, 3, 2, 1, 0}};
  std::vector<Placement> placements = {Placement::shard(1),
                                       Placement::shard(0)};
  std::vector<Block> blocks =
      meshDeviceBlocks({7, 5}, mesh, placements, Device::Kind::CPU);
  std::optional<InferredMesh> inferred = inferMeshPlacements({7, 5}, blocks);
  ASSERT_TRUE(inferred.has_value());
  // Recognized with axes in dim order: the same blocks come back.
  std::vector<Block> again = meshDeviceBlocks(
      {7, 5}, inferred->mesh, inferred->placements, Device::Kind::CPU);
  ASSERT_EQ(again.size(), blocks.size());
  for (const Block &b : blocks) {
    bool found = false;
    for (const Block &a : again)
      found |= a.box == b.box && a.placement == b.placement;
    EXPECT_TRUE(found) << formatBox(b.box);
  }
}

/// DTensor's (S(0), P(sum)) on a mesh [2, 2] to (S(0), R): each mesh row
/// sums its rows of the tensor; every rank receives the other partial value
/// from its neighbour along the Partial axis and combines the two in
/// partial-index order. With one partial index, the plan of
/// planRedistribution.
TEST(Exchange, PlanReductionOnAMesh) {
  using namespace shardc::layout;
  const Mesh mesh{{2, 2}, {0, 1, 2, 3}};
  const std::vector<int64_t> shape{6, 4};
  const BlockTable src = blockTableOf(meshDeviceBlocks(
      shape, mesh,
      {Placement::shard(0), Placement::partial(Placement::Reduce::Sum)},
      Device::Kind::CPU));
  const BlockTable dst = blockTableOf(meshDeviceBlocks(
      shape, mesh, {Placement::shard(0), Placement::replicate()},
      Device::Kind::CPU));
  const std::vector<int64_t> partial{0, 1, 0, 1};
  for (int q = 0; q < 4; ++q) {
    SCOPED_TRACE("rank " + std::to_string(q));
    const Box rows{{3 * (q / 2), 0}, {3, 4}};
    const RedistributionPlan plan = planReduction(src, partial, dst, q);
    ASSERT_EQ(plan.sends.size(), 1u);
    EXPECT_EQ(plan.sends[0], (Transfer{q ^ 1, rows}));
    ASSERT_EQ(plan.receives.size(), 1u);
    EXPECT_EQ(plan.receives[0], (Transfer{q ^ 1, rows}));
    EXPECT_EQ(plan.copies, std::vector<Box>{rows});
    // Partial index 0 first: rank 0 copies its own, rank 1 the received.
    const bool own = q % 2 == 0;
    ASSERT_EQ(plan.order.size(), 2u);
    EXPECT_EQ(plan.order[0], (Contribution{!own, 0, false}));
    EXPECT_EQ(plan.order[1], (Contribution{own, 0, true}));
    EXPECT_EQ(plan.combined, std::vector<Combined>{(Combined{rows, 2})});

    const RedistributionPlan plain =
        planReduction(src, std::vector<int64_t>(4, 0), dst, q);
    const RedistributionPlan expected = planRedistribution(src, dst, q);
    EXPECT_EQ(plain.sends, expected.sends);
    EXPECT_EQ(plain.receives, expected.receives);
    EXPECT_EQ(plain.copies, expected.copies);
    EXPECT_FALSE(plain.reduces());
    // Every rank holds the rows it needs: nothing moves.
    EXPECT_TRUE(plain.sends.empty());
    EXPECT_TRUE(plain.receives.empty());
  }
  Result<std::vector<int64_t>> indices = readPartialIndices(nullptr, 4);
  EXPECT_FALSE(indices);
  EXPECT_EQ(indices.error(), "the partial indices are NULL but the source "
                             "block table has 4 rows");
  EXPECT_TRUE(readPartialIndices(nullptr, 0));
}

} // namespace

namespace {

/// 1 to 6 devices on distinct ranks among 0..7, in rank order, for random
/// chunk layouts.
std::vector<shardc::layout::Device> randomDistinctRanks(std::mt19937 &rng,
                                                        int trial) {
  using shardc::layout::Device;
  std::vector<Device> devices(1 + rng() % 6);
  for (size_t i = 0; i < devices.size(); ++i)
    devices[i].rank = static_cast<int64_t>((i * 5 + trial) % 8);
  std::sort(devices.begin(), devices.end(),
            [](const Device &a, const Device &b) { return a.rank < b.rank; });
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  return devices;
}

// exchangeTraffic adds up, for all ranks at once, what the per-rank plans
// do: compared on random chunk and mesh layouts, with partial indices.
TEST(Exchange, TrafficMatchesPerRankPlans) {
  using namespace shardc::layout;
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> shape = {1 + static_cast<int64_t>(rng() % 9),
                                  1 + static_cast<int64_t>(rng() % 9)};
    auto randomBlocks = [&](bool mesh, std::vector<int64_t> *partial) {
      if (!mesh) {
        std::vector<Device> devices = randomDistinctRanks(rng, trial);
        return chunkBlocks(shape, rng() % 2, devices);
      }
      Mesh m{{2, 2}, {}};
      const Placement choices[] = {Placement::shard(0), Placement::shard(1),
                                   Placement::replicate(),
                                   Placement::partial(Placement::Reduce::Sum)};
      std::vector<Placement> p = {choices[rng() % (partial ? 4 : 3)],
                                  choices[rng() % (partial ? 4 : 3)]};
      if (partial)
        *partial = meshPartialIndices(m, p);
      return meshDeviceBlocks(shape, m, p, Device::Kind::CPU);
    };
    std::vector<int64_t> partial;
    bool withPartial = trial % 3 == 0;
    BlockTable src = blockTableOf(
        randomBlocks(trial % 2 == 0, withPartial ? &partial : nullptr));
    if (partial.empty())
      partial.assign(src.size(), 0);
    BlockTable dst = blockTableOf(randomBlocks(trial % 4 < 2, nullptr));
    RankTrafficTable all = exchangeTraffic(src, &partial, dst);
    for (int r = 0; r < 8; ++r) {
      RedistributionPlan plan = planReduction(src, partial, dst, r);
      std::set<int> from, to;
      for (const Transfer &t : plan.receives)
        from.insert(t.peer);
      for (const Transfer &t : plan.sends)
        to.insert(t.peer);
      RankTraffic t = all.of(r);
      EXPECT_EQ(t.received, plan.receivedElements())
          << "trial " << trial << " rank " << r;
      EXPECT_EQ(t.sent, plan.sentElements())
          << "trial " << trial << " rank " << r;
      EXPECT_EQ(t.copied, plan.copiedElements())
          << "trial " << trial << " rank " << r;
      EXPECT_EQ(t.receivePeers, static_cast<int64_t>(from.size()));
      EXPECT_EQ(t.sendPeers, static_cast<int64_t>(to.size()));
    }
  }
}

} // namespace

namespace {

// exchangeTrafficByBox (per box, for one block per rank; both its ways) against
// exchangeTraffic (per pair of ranks), and trafficLowerBound against the
// definition, pair by pair: random mesh layouts (replicas, partial values,
// permuted devices, meshes of several shapes) and chunk layouts.
TEST(Exchange, TrafficByBoxMatchesPerPair) {
  std::mt19937 rng(11);
  const std::vector<std::vector<int64_t>> shapes = {
      {4},    {2, 3}, {2, 2, 2}, {3, 2},    {5},   {4, 4},
      {2, 8}, {16},   {2, 2, 4}, {4, 8},    {32},  {2, 16},
      {8, 4}, {3, 7}, {2, 4, 4}, {2, 3, 4}, {6, 5}};
  for (int trial = 0; trial < 1500; ++trial) {
    // Tensors up to 40 along a dim: uneven chunks on meshes of up to 32,
    // and runs of receivers longer than the copies' owners.
    const int64_t most = trial < 1000 ? 9 : 40;
    std::vector<int64_t> shape = {1 + static_cast<int64_t>(rng() % most),
                                  1 + static_cast<int64_t>(rng() % most)};
    auto randomBlocks = [&](bool mesh, std::vector<int64_t> *partial) {
      if (!mesh) {
        std::vector<Device> devices = randomDistinctRanks(rng, trial);
        std::shuffle(devices.begin(), devices.end(), rng);
        return chunkBlocks(shape, rng() % 2, devices);
      }
      Mesh m{shapes[rng() % shapes.size()], {}};
      if (rng() % 2) {
        m.devices.resize(*m.size());
        std::iota(m.devices.begin(), m.devices.end(), 0);
        std::shuffle(m.devices.begin(), m.devices.end(), rng);
      }
      const Placement choices[] = {Placement::shard(0), Placement::shard(1),
                                   Placement::replicate(),
                                   Placement::partial(Placement::Reduce::Sum)};
      std::vector<Placement> p;
      for (size_t a = 0; a < m.shape.size(); ++a)
        p.push_back(choices[rng() % (partial ? 4 : 3)]);
      if (partial)
        *partial = meshPartialIndices(m, p);
      return meshDeviceBlocks(shape, m, p, Device::Kind::CPU);
    };
    std::vector<int64_t> partial;
    bool withPartial = trial % 3 == 0;
    BlockTable src = blockTableOf(
        randomBlocks(trial % 5 != 0, withPartial ? &partial : nullptr));
    if (partial.empty())
      partial.assign(src.size(), 0);
    BlockTable dst = blockTableOf(randomBlocks(trial % 7 != 0, nullptr));
    std::map<std::pair<int, int>, int64_t> pairs;
    RankTrafficTable want = exchangeTraffic(src, &partial, dst, &pairs);
    // Each of its ways (the tables here are small enough for both); the
    // ranks off the mesh drawn once for both.
    const int off = trial % 4 == 0 ? static_cast<int>(rng() % 64) : 64;
    for (TrafficWay way : {TrafficWay::ByBox, TrafficWay::PairByPair}) {
      const char *wayName =
          way == TrafficWay::ByBox ? " by box" : " pair by pair";
      // Ranks on a 2x4x8x1 mesh (rank r at r / 32, r / 8 % 4, r % 8, 0),
      // ranks from `off` on off it. No message crosses the last axis, so
      // what the others cross is found to the end, by every path.
      MeshAxesCrossed crossing;
      crossing.axes = 4;
      crossing.coordinates = [&](int r, int64_t *coords) {
        coords[0] = r / 32;
        coords[1] = r / 8 % 4;
        coords[2] = r % 8;
        coords[3] = 0;
        return r >= 0 && r < off;
      };
      std::optional<RankTrafficTable> got =
          exchangeTrafficByBox(src, &partial, dst, &crossing, way);
      ASSERT_TRUE(got) << "trial " << trial << wayName;
      // Without the axes asked for, the sums take their shortest ways.
      std::optional<RankTrafficTable> plain =
          exchangeTrafficByBox(src, &partial, dst, nullptr, way);
      ASSERT_TRUE(plain) << "trial " << trial << wayName;
      ASSERT_EQ(plain->size(), want.size()) << "trial " << trial << wayName;
      for (const auto &[r, t] : want) {
        ASSERT_TRUE(plain->find(r))
            << "trial " << trial << wayName << " rank " << r;
        const RankTraffic &u = *plain->find(r);
        EXPECT_EQ(u.sent, t.sent)
            << "trial " << trial << wayName << " rank " << r;
        EXPECT_EQ(u.sendPeers, t.sendPeers) << "trial " << trial << wayName;
        EXPECT_EQ(u.received, t.received)
            << "trial " << trial << wayName << " rank " << r;
      }
      ASSERT_EQ(got->size(), want.size()) << "trial " << trial << wayName;
      for (const auto &[r, t] : want) {
        ASSERT_TRUE(got->find(r))
            << "trial " << trial << wayName << " rank " << r;
        const RankTraffic &u = *got->find(r);
        EXPECT_EQ(u.received, t.received)
            << "trial " << trial << wayName << " rank " << r;
        EXPECT_EQ(u.sent, t.sent)
            << "trial " << trial << wayName << " rank " << r;
        EXPECT_EQ(u.copied, t.copied)
            << "trial " << trial << wayName << " rank " << r;
        EXPECT_EQ(u.receivePeers, t.receivePeers)
            << "trial " << trial << wayName;
        EXPECT_EQ(u.sendPeers, t.sendPeers) << "trial " << trial << wayName;
      }
      // The axes the pairs cross, pair by pair.
      std::vector<bool> crossed(4, false);
      bool offMesh = false;
      for (const auto &[p, n] : pairs) {
        auto [q, s] = p;
        if (q >= off || s >= off) {
          offMesh = true;
          continue;
        }
        crossed[0] = crossed[0] || q / 32 != s / 32;
        crossed[1] = crossed[1] || q / 8 % 4 != s / 8 % 4;
        crossed[2] = crossed[2] || q % 8 != s % 8;
      }
      // What is found stops once every axis is crossed: an end off the mesh
      // may be missed then, and only then.
      const bool all =
          std::find(crossed.begin(), crossed.end(), false) == crossed.end();
      if (!offMesh || !crossing.offMesh)
        EXPECT_EQ(crossing.crossed, crossed) << "trial " << trial << wayName;
      if (!all || !offMesh)
        EXPECT_EQ(crossing.offMesh, offMesh) << "trial " << trial << wayName;
    }

    // The lower bound, by its definition (docs/planner.md).
    std::map<int, double> bound;
    double total = 0;
    for (size_t b = 0; b < dst.size(); ++b)
      if (!dst.boxes[b].empty())
        bound[dst.owners[b]] += 0;
    for (size_t b = 0; b < dst.size(); ++b) {
      const int q = dst.owners[b];
      std::set<std::pair<std::vector<int64_t>, std::vector<int64_t>>> seen;
      for (size_t a = 0; a < src.size(); ++a) {
        const Box &g = src.boxes[a];
        std::optional<Box> shared = intersect(dst.boxes[b], g);
        if (!shared || !seen.insert({g.offsets, g.sizes}).second)
          continue;
        std::set<int64_t> copies;
        bool holds = false;
        int64_t m = 0;
        for (size_t h = 0; h < src.size(); ++h) {
          if (!(src.boxes[h] == g))
            continue;
          copies.insert(partial[h]);
          holds |= src.owners[h] == q;
          for (size_t hb = 0; hb < dst.size(); ++hb) {
            std::optional<Box> theirs = intersect(dst.boxes[hb], *shared);
            if (dst.owners[hb] == src.owners[h] && theirs && *theirs == *shared)
              ++m;
          }
        }
        double v = static_cast<double>(*volume(shared->sizes));
        if (!holds) {
          bound[q] += v;
          total += v;
        } else if (copies.size() > 1) {
          bound[q] += v;
          total +=
              v *
              static_cast<double>(copies.size() + std::max<int64_t>(m, 1) - 2) /
              static_cast<double>(std::max<int64_t>(m, 1));
        }
      }
    }
    TrafficBound found = trafficLowerBound(src, &partial, dst);
    std::map<int, long double> &lower = found.perRank;
    EXPECT_NEAR(static_cast<double>(found.total), total,
                1e-9 * std::max(1.0, total))
        << "trial " << trial;
    // The total never below the ranks' own bounds.
    double perRank = 0;
    for (const auto &[r, v] : bound)
      perRank += v;
    EXPECT_GE(static_cast<double>(found.total) + 1e-9, perRank)
        << "trial " << trial;
    ASSERT_EQ(lower.size(), bound.size()) << "trial " << trial;
    for (const auto &[r, v] : bound)
      EXPECT_NEAR(lower[r], v, 1e-9) << "trial " << trial << " rank " << r;
  }
}

} // namespace
