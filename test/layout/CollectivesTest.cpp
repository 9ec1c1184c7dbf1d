//===- CollectivesTest.cpp - Named collectives between two layouts --------===//

#include "shardc/Layout/Collectives.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <set>

using namespace shardc::layout;

namespace {

Placement S(int64_t d) { return Placement::shard(d); }
const Placement R = Placement::replicate();
Placement P(Placement::Reduce r = Placement::Reduce::Sum) {
  return Placement::partial(r);
}

Mesh meshOf(std::vector<int64_t> shape, std::vector<int64_t> devices = {}) {
  Mesh m;
  m.shape = std::move(shape);
  m.devices = std::move(devices);
  return m;
}

TEST(Collectives, ClassifiesOneAxisChanges) {
  Mesh mesh = meshOf({2, 2});
  std::vector<int64_t> shape = {8, 6};
  auto c = axisCollective(shape, mesh, {S(0), S(1)}, {S(0), R});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, CollectiveKind::AllGather);
  EXPECT_EQ(c->axes, std::vector<int64_t>{1});
  EXPECT_EQ(c->dim, 1);

  c = axisCollective(shape, mesh, {P(), S(1)}, {R, S(1)});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, CollectiveKind::AllReduce);
  EXPECT_EQ(c->axes, std::vector<int64_t>{0});

  c = axisCollective(shape, mesh, {P(Placement::Reduce::Max), R}, {S(-2), R});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, CollectiveKind::ReduceScatter);
  EXPECT_EQ(c->dim, 0);
  EXPECT_EQ(*c->reduce, Placement::Reduce::Max);

  c = axisCollective(shape, mesh, {R, S(0)}, {R, S(1)});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, CollectiveKind::AllToAll);
  EXPECT_EQ(c->concatDim, 0);
  EXPECT_EQ(c->dim, 1);

  // Both axes at once.
  c = axisCollective(shape, mesh, {S(0), S(0)}, {R, R});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, CollectiveKind::AllGather);
  EXPECT_EQ(c->axes, (std::vector<int64_t>{0, 1}));
}

TEST(Collectives, NestingDecidesContiguity) {
  Mesh mesh = meshOf({2, 2});
  std::vector<int64_t> shape = {10, 3};
  // Gathering the inner of two axes that shard dim 0 is an all_gather; the
  // outer is not: its blocks are not contiguous.
  EXPECT_TRUE(axisCollective(shape, mesh, {S(0), S(0)}, {S(0), R}));
  EXPECT_FALSE(axisCollective(shape, mesh, {S(0), S(0)}, {R, S(0)}));
  Collective outer;
  outer.kind = CollectiveKind::AllGather;
  outer.axes = {0};
  outer.dim = 0;
  EXPECT_NE(checkAxisCollective(outer, shape, mesh, {S(0), S(0)}, {R, S(0)})
                .error()
                .find("innermost"),
            std::string::npos);
  // Nothing changes, or a change no collective makes.
  EXPECT_FALSE(axisCollective(shape, mesh, {S(0), R}, {S(0), R}));
  EXPECT_FALSE(axisCollective(shape, mesh, {R, R}, {S(0), R}));
  // Two axes changing differently.
  EXPECT_FALSE(axisCollective(shape, mesh, {S(0), S(1)}, {R, S(0)}));
}

TEST(Collectives, ChecksSayWhatDoesNotHold) {
  Mesh mesh = meshOf({2, 2});
  std::vector<int64_t> shape = {8, 6};
  Collective c;
  c.kind = CollectiveKind::AllGather;
  c.axes = {1};
  c.dim = 0;
  EXPECT_EQ(
      checkAxisCollective(c, shape, mesh, {S(0), S(1)}, {S(0), R}).error(),
      "all_gather takes S(0) to R on every axis of its group, but mesh "
      "axis 1 goes from S(1) to R");
  c.axes = {0};
  c.dim = 1;
  EXPECT_EQ(checkAxisCollective(c, shape, mesh, {S(1), S(0)}, {R, R}).error(),
            "mesh axis 1 is not in the group but changes from S(0) to R");
  c.axes = {2};
  EXPECT_EQ(checkAxisCollective(c, shape, mesh, {S(1), R}, {R, R}).error(),
            "mesh axis 2 is out of range for a mesh of 2 axes");
  c.axes = {1, 0};
  EXPECT_EQ(checkAxisCollective(c, shape, mesh, {S(1), S(1)}, {R, R}).error(),
            "mesh axes must be listed once each, ascending");
  c.axes = {0};
  c.dim = 2;
  EXPECT_EQ(checkAxisCollective(c, shape, mesh, {S(1), R}, {R, R}).error(),
            "all_gather's dim 2 is out of range for a tensor of rank 2");
  c.kind = CollectiveKind::AllReduce;
  EXPECT_EQ(checkAxisCollective(c, shape, mesh, {P(), R}, {R, R}).error(),
            "all_reduce needs a reduction");
  c.kind = CollectiveKind::Broadcast;
  EXPECT_EQ(checkAxisCollective(c, shape, mesh, {R, R}, {R, R}).error(),
            "broadcast does not run over mesh axes");
}

Block block(std::vector<int64_t> offsets, std::vector<int64_t> sizes,
            int64_t rank) {
  Block b;
  b.box = {std::move(offsets), std::move(sizes)};
  b.placement.rank = rank;
  return b;
}

TEST(Collectives, BroadcastAndGatherOverRanks) {
  std::vector<int64_t> shape = {4, 4};
  std::vector<Block> whole2 = {block({0, 0}, {4, 4}, 2)};
  std::vector<Block> everywhere = {block({0, 0}, {4, 4}, 0),
                                   block({0, 0}, {4, 4}, 1),
                                   block({0, 0}, {4, 4}, 2)};
  auto c = rankCollective(shape, whole2, everywhere);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, CollectiveKind::Broadcast);
  EXPECT_EQ(c->root, 2);
  EXPECT_EQ(c->ranks, (std::vector<int64_t>{0, 1, 2}));

  std::vector<Block> rows = {block({0, 0}, {2, 4}, 0),
                             block({2, 0}, {2, 4}, 1)};
  c = rankCollective(shape, rows, whole2);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, CollectiveKind::Gather);
  EXPECT_EQ(c->root, 2);

  // Rows to columns is neither.
  std::vector<Block> cols = {block({0, 0}, {4, 2}, 0),
                             block({0, 2}, {4, 2}, 1)};
  EXPECT_FALSE(rankCollective(shape, rows, cols));

  Collective bad;
  bad.kind = CollectiveKind::Broadcast;
  bad.ranks = {0, 1, 2};
  bad.root = 1;
  EXPECT_EQ(checkRankCollective(bad, shape, whole2, everywhere).error(),
            "broadcast's source must be one block on the root, rank 1");
  bad.root = 2;
  bad.ranks = {0, 2};
  EXPECT_EQ(checkRankCollective(bad, shape, whole2, everywhere).error(),
            "rank 1 holds a block but is not in the group");
  bad.kind = CollectiveKind::Gather;
  bad.ranks = {0, 1, 2};
  std::vector<Block> replicas = {block({0, 0}, {4, 4}, 0),
                                 block({0, 0}, {4, 4}, 1)};
  EXPECT_EQ(checkRankCollective(bad, shape, replicas, whole2).error(),
            "gather's source has replicas");
}

TEST(Collectives, MeshGroupsAreRowMajor) {
  Mesh mesh = meshOf({2, 3}, {5, 4, 3, 2, 1, 0});
  EXPECT_EQ(meshGroups(mesh, {1}),
            (std::vector<std::vector<int64_t>>{{5, 4, 3}, {2, 1, 0}}));
  EXPECT_EQ(meshGroups(mesh, {0}),
            (std::vector<std::vector<int64_t>>{{5, 2}, {4, 1}, {3, 0}}));
  EXPECT_EQ(meshGroups(mesh, {0, 1}),
            (std::vector<std::vector<int64_t>>{{5, 4, 3, 2, 1, 0}}));
}

/// The bounding box of non-empty boxes; nullopt when there are none.
std::optional<Box> hull(const std::vector<Box> &boxes) {
  std::optional<Box> h;
  for (const Box &b : boxes) {
    if (b.empty())
      continue;
    if (!h) {
      h = b;
      continue;
    }
    for (size_t d = 0; d < b.rank(); ++d) {
      int64_t lo = std::min(h->offsets[d], b.offsets[d]);
      int64_t hi =
          std::max(h->offsets[d] + h->sizes[d], b.offsets[d] + b.sizes[d]);
      h->offsets[d] = lo;
      h->sizes[d] = hi - lo;
    }
  }
  return h;
}

/// Whether non-empty `parts` (in order) tile `whole` along `dim`, each
/// continuing where the previous ended, whole in the other dims.
bool tiles(const std::vector<Box> &parts, const Box &whole, int64_t dim) {
  int64_t at = whole.offsets[dim];
  for (const Box &b : parts) {
    if (b.empty())
      continue;
    for (size_t d = 0; d < b.rank(); ++d)
      if (static_cast<int64_t>(d) != dim &&
          (b.offsets[d] != whole.offsets[d] || b.sizes[d] != whole.sizes[d]))
        return false;
    if (b.offsets[dim] != at)
      return false;
    at += b.sizes[dim];
  }
  return at == whole.offsets[dim] + whole.sizes[dim];
}

// Every collective the classifier names, on random meshes and uneven
// shapes, does what its name says to the devices' boxes, checked group by
// group from the boxes alone (not from the placement rules).
TEST(Collectives, ClassifiedCollectivesMoveTheRightBoxes) {
  std::mt19937 rng(13);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  int classified = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    int meshRank = 1 + pick(3), rank = 1 + pick(3);
    Mesh mesh;
    for (int a = 0; a < meshRank; ++a)
      mesh.shape.push_back(1 + pick(4));
    std::vector<int64_t> shape;
    for (int d = 0; d < rank; ++d)
      shape.push_back(pick(11));
    auto randomPlacement = [&](bool partial) {
      int k = pick(partial ? 3 : 2);
      return k == 0 ? S(pick(rank)) : k == 1 ? R : P();
    };
    std::vector<Placement> from, to;
    for (int a = 0; a < meshRank; ++a) {
      from.push_back(randomPlacement(true));
      to.push_back(pick(2) ? from.back() : randomPlacement(false));
    }
    std::optional<Collective> c = axisCollective(shape, mesh, from, to);
    if (!c)
      continue;
    ++classified;
    auto a = meshDeviceBlocks(shape, mesh, from, Device::Kind::CPU);
    auto b = meshDeviceBlocks(shape, mesh, to, Device::Kind::CPU);
    std::map<int64_t, size_t> at; // rank -> mesh position
    for (size_t i = 0; i < a.size(); ++i)
      at[a[i].placement.rank] = i;
    for (const std::vector<int64_t> &group : meshGroups(mesh, c->axes)) {
      std::vector<Box> before, after;
      for (int64_t r : group) {
        before.push_back(a[at[r]].box);
        after.push_back(b[at[r]].box);
      }
      SCOPED_TRACE(std::string(collectiveName(c->kind)) + " iteration " +
                   std::to_string(iter));
      std::optional<Box> hb = hull(before), ha = hull(after);
      ASSERT_EQ(hb.has_value(), ha.has_value());
      if (!hb)
        continue;
      EXPECT_EQ(*hb, *ha); // the group holds the same region
      switch (c->kind) {
      case CollectiveKind::AllGather:
        EXPECT_TRUE(tiles(before, *hb, c->dim));
        for (const Box &box : after)
          EXPECT_EQ(box, *hb);
        break;
      case CollectiveKind::ReduceScatter:
        for (const Box &box : before)
          EXPECT_EQ(box, *hb);
        EXPECT_TRUE(tiles(after, *hb, c->dim));
        break;
      case CollectiveKind::AllReduce:
        for (size_t i = 0; i < group.size(); ++i)
          EXPECT_EQ(before[i], after[i]);
        break;
      case CollectiveKind::AllToAll:
        EXPECT_TRUE(tiles(before, *hb, c->concatDim));
        EXPECT_TRUE(tiles(after, *hb, c->dim));
        break;
      default:
        ADD_FAILURE() << "not a mesh-axis collective";
      }
    }
  }
  EXPECT_GT(classified, 500);
}

} // namespace

// The collective table: one row per kind, found by its name; the SPMD op's
// attributes a row names are those its kind's parameters need.
TEST(Collectives, TableHasOneRowPerKind) {
  std::set<std::string> names;
  for (int k = 0; k <= static_cast<int>(CollectiveKind::Exchange); ++k) {
    const auto kind = static_cast<CollectiveKind>(k);
    const CollectiveTraits &row = collectiveTraits(kind);
    EXPECT_EQ(row.kind, kind);
    EXPECT_STREQ(collectiveName(kind), row.name);
    EXPECT_EQ(collectiveNamed(row.name), kind);
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_NE(std::string(row.words), "");
    // A reduction where the kind reduces partial values, a root where it
    // runs over ranks to or from one, a dim where it cuts or joins one.
    const bool reduces = kind == CollectiveKind::ReduceScatter ||
                         kind == CollectiveKind::AllReduce;
    EXPECT_EQ(row.reduceAttr != nullptr, reduces) << row.name;
    EXPECT_EQ(row.rootAttr != nullptr, kind == CollectiveKind::Broadcast ||
                                           kind == CollectiveKind::Gather)
        << row.name;
    EXPECT_EQ(row.concatAttr != nullptr, kind == CollectiveKind::AllToAll)
        << row.name;
  }
  EXPECT_EQ(collectiveNamed("all_gatherx"), std::nullopt);
  EXPECT_EQ(collectiveNamed(""), std::nullopt);
}

namespace {

/// What each member of a group of g receives in a ring all_reduce of S
/// elements, by running the ring chunk by chunk: reduce-scatter step k has
/// member p send chunk p - 1 - k to p + 1 (so each ends owning chunk p), the
/// all-gather's step k chunk p - k.
std::vector<int64_t> ringByStep(int64_t S, int64_t g) {
  std::vector<int64_t> size(g), received(g, 0);
  for (int64_t q = 0; q < g; ++q)
    size[q] = S / g + (q < S % g ? 1 : 0);
  auto mod = [&](int64_t x) { return ((x % g) + g) % g; };
  std::vector<int64_t> owned(g, -1);
  for (int64_t k = 0; k + 1 < g; ++k)
    for (int64_t p = 0; p < g; ++p) {
      const int64_t chunk = mod(p - 1 - k);
      received[mod(p + 1)] += size[chunk];
      if (k + 2 == g)
        owned[mod(p + 1)] = chunk;
    }
  for (int64_t p = 0; p < g; ++p)
    EXPECT_EQ(owned[p], g > 1 ? p : -1) << "the reduce-scatter's owner";
  for (int64_t k = 0; k + 1 < g; ++k)
    for (int64_t p = 0; p < g; ++p)
      received[mod(p + 1)] += size[mod(p - k)];
  return received;
}

} // namespace

TEST(Collectives, RingAllReduceReceivedIsTheRingsOwn) {
  for (int64_t g = 1; g <= 9; ++g)
    for (int64_t S = 0; S <= 3 * g + 2; ++S) {
      const std::vector<int64_t> byStep = ringByStep(S, g);
      int64_t total = 0;
      for (int64_t p = 0; p < g; ++p) {
        const int64_t got = ringAllReduceReceived(S, g, p);
        EXPECT_EQ(got, byStep[p]) << "S " << S << " g " << g << " p " << p;
        // What it sends is what the next member receives.
        EXPECT_EQ(ringAllReduceReceived(S, g, (p + 1) % g),
                  byStep[(p + 1) % g]);
        total += got;
      }
      EXPECT_EQ(total, 2 * (g - 1) * S) << "S " << S << " g " << g;
    }
  // One element on two ranks: each receives it once (2 (S - c_p) said 0 and
  // 2).
  EXPECT_EQ(ringAllReduceReceived(1, 2, 0), 1);
  EXPECT_EQ(ringAllReduceReceived(1, 2, 1), 1);
  // Extremes: 16k members, sizes near 2^63 (exact where it fits, else
  // INT64_MAX), nothing held, a group of one.
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(ringAllReduceReceived(big, 2, 0), big);
  EXPECT_EQ(ringAllReduceReceived(big, 2, 1), big);
  EXPECT_EQ(ringAllReduceReceived(big, 3, 1), big);
  EXPECT_EQ(ringAllReduceReceived(int64_t(1) << 40, 16384, 16383),
            2 * ((int64_t(1) << 40) - (int64_t(1) << 26)));
  EXPECT_EQ(ringAllReduceReceived(5, 16384, 4), 2 * 5 - 2);
  EXPECT_EQ(ringAllReduceReceived(5, 16384, 0), 2 * 5 - 1);
  EXPECT_EQ(ringAllReduceReceived(5, 16384, 5), 2 * 5 - 1);
  EXPECT_EQ(ringAllReduceReceived(5, 16384, 6), 2 * 5);
  EXPECT_EQ(ringAllReduceReceived(0, 8, 3), 0);
  EXPECT_EQ(ringAllReduceReceived(7, 1, 0), 0);
}
