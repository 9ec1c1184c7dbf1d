//===- MeshTest.cpp - Strided shards against an element-wise model --------===//
//
// StridedShard (DTensor's _StridedShard, `_S(dim, split)`): every device's
// rows, its blocks and the order its local tensor lays them, checked
// against a model written here element by element (each dim's list of
// global indices, cut as the placements say), on random layouts; printing
// and parsing; and the extremes (sizes near 2^63, 16k devices, the cap on
// blocks).
//
//===----------------------------------------------------------------------===//

#include "shardc/Layout/Mesh.h"

#include <gtest/gtest.h>

#include <random>

using namespace shardc::layout;

namespace {

/// The model: per dim, the global indices a device holds, in its local
/// order. Shard takes torch.chunk of the list; StridedShard splits the list
/// into `split` groups by torch.chunk and takes torch.chunk of each.
std::vector<std::vector<int64_t>>
modelRows(const std::vector<int64_t> &shape, const Mesh &mesh,
          const std::vector<Placement> &placements,
          const std::vector<int64_t> &coord) {
  std::vector<std::vector<int64_t>> idx(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    for (int64_t i = 0; i < shape[d]; ++i)
      idx[d].push_back(i);
  for (size_t a = 0; a < placements.size(); ++a) {
    const Placement &p = placements[a];
    if (!p.cuts())
      continue;
    const size_t d = static_cast<size_t>(*normalizeDim(p.dim, shape.size()));
    const int64_t n = static_cast<int64_t>(idx[d].size());
    const int64_t k = mesh.shape[a], i = coord[a];
    std::vector<int64_t> out;
    if (p.kind == Placement::Kind::Shard) {
      const int64_t split = (n + k - 1) / k;
      for (int64_t j = split * i; j < std::min(n, split * (i + 1)); ++j)
        out.push_back(idx[d][j]);
    } else {
      // torch.chunk into split groups (fewer when short), then each group's
      // torch.chunk over the k devices.
      const int64_t step = (n + p.split - 1) / p.split;
      for (int64_t begin = 0; begin < n; begin += step) {
        const int64_t g = std::min(step, n - begin), split = (g + k - 1) / k;
        for (int64_t j = split * i; j < std::min(g, split * (i + 1)); ++j)
          out.push_back(idx[d][begin + j]);
      }
    }
    idx[d] = std::move(out);
  }
  return idx;
}

/// Whether a strided placement's split does not divide its whole dim (a
/// lower bound on the rounds with uneven groups somewhere).
bool unevenSplit(const std::vector<int64_t> &shape,
                 const std::vector<Placement> &placements) {
  for (const Placement &p : placements)
    if (p.kind == Placement::Kind::StridedShard &&
        shape[*normalizeDim(p.dim, shape.size())] % p.split != 0)
      return true;
  return false;
}

/// The global row-major indices of a device's elements in its local order,
/// from the model.
std::vector<int64_t>
modelElements(const std::vector<int64_t> &shape,
              const std::vector<std::vector<int64_t>> &idx) {
  std::vector<int64_t> out = {0};
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<int64_t> next;
    for (int64_t base : out)
      for (int64_t i : idx[d])
        next.push_back(base * shape[d] + i);
    out = std::move(next);
  }
  return out;
}

/// The same from blocks: each block's elements row-major, blocks in order.
std::vector<int64_t> blockElements(const std::vector<int64_t> &shape,
                                   const std::vector<Box> &boxes) {
  std::vector<int64_t> out;
  for (const Box &box : boxes) {
    if (box.empty())
      continue;
    std::vector<int64_t> part = {0};
    for (size_t d = 0; d < shape.size(); ++d) {
      std::vector<int64_t> next;
      for (int64_t base : part)
        for (int64_t i = 0; i < box.sizes[d]; ++i)
          next.push_back(base * shape[d] + box.offsets[d] + i);
      part = std::move(next);
    }
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

std::vector<int64_t> coordOf(const Mesh &mesh, int64_t linear) {
  std::vector<int64_t> coord(mesh.shape.size());
  for (size_t a = mesh.shape.size(); a-- > 0;) {
    coord[a] = linear % mesh.shape[a];
    linear /= mesh.shape[a];
  }
  return coord;
}

TEST(StridedShard, HeadsOfEveryBatch) {
  // [B*H] = [2*4] on 2 devices: heads 0-1 of both batches, then 2-3.
  Mesh mesh{{2}, {}};
  std::vector<Placement> p = {Placement::strided(0, 2)};
  ASSERT_TRUE(checkPlacements(mesh, p, std::vector<int64_t>{8, 3}));
  std::vector<Block> blocks =
      meshDeviceBlocks({8, 3}, mesh, p, Device::Kind::CPU);
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[0].box, (Box{{0, 0}, {2, 3}}));
  EXPECT_EQ(blocks[1].box, (Box{{4, 0}, {2, 3}}));
  EXPECT_EQ(blocks[2].box, (Box{{2, 0}, {2, 3}}));
  EXPECT_EQ(blocks[3].box, (Box{{6, 0}, {2, 3}}));
  EXPECT_EQ(blocks[0].placement.rank, 0);
  EXPECT_EQ(blocks[3].placement.rank, 1);
  // Uneven heads (5 over 3: 2, 2, 1), torch.chunk on the factor.
  std::vector<std::vector<Chunk>> rows =
      meshRows({10, 2}, Mesh{{3}, {}}, p, {2});
  ASSERT_EQ(rows[0].size(), 2u);
  EXPECT_EQ(rows[0][0].offset, 4);
  EXPECT_EQ(rows[0][0].size, 1);
  EXPECT_EQ(rows[0][1].offset, 9);
  EXPECT_EQ(rowsShape(rows), (std::vector<int64_t>{2, 2}));
  // A split of 1 is Shard.
  EXPECT_EQ(meshDeviceBlocks({7, 2}, Mesh{{3}, {}}, {Placement::strided(0, 1)},
                             Device::Kind::CPU)
                .size(),
            3u);
}

TEST(StridedShard, RandomLayoutsMatchTheModel) {
  std::mt19937 rng(7);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int checked = 0, uneven = 0;
  for (int round = 0; round < 3000; ++round) {
    const int64_t rank = pick(1, 3);
    std::vector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d)
      shape.push_back(pick(0, 12));
    Mesh mesh;
    for (int64_t a = pick(1, 3); a > 0; --a)
      mesh.shape.push_back(pick(1, 3));
    std::vector<Placement> placements;
    for (size_t a = 0; a < mesh.shape.size(); ++a) {
      switch (pick(0, 4)) {
      case 0:
        placements.push_back(Placement::replicate());
        break;
      case 1:
        placements.push_back(Placement::partial(Placement::Reduce::Sum));
        break;
      case 2:
        placements.push_back(Placement::shard(pick(-rank, rank - 1)));
        break;
      default:
        placements.push_back(Placement::strided(pick(0, rank - 1), pick(1, 4)));
      }
    }
    const int64_t devices = *mesh.size();
    Result<void> ok = checkPlacements(mesh, placements, shape);
    ASSERT_TRUE(ok) << ok.error();
    uneven += unevenSplit(shape, placements);
    std::vector<Block> blocks =
        meshDeviceBlocks(shape, mesh, placements, Device::Kind::CPU);
    for (int64_t linear = 0; linear < devices; ++linear) {
      std::vector<int64_t> coord = coordOf(mesh, linear);
      auto idx = modelRows(shape, mesh, placements, coord);
      std::vector<Box> mine;
      for (const Block &b : blocks)
        if (b.placement.rank == linear)
          mine.push_back(b.box);
      ASSERT_EQ(blockElements(shape, mine), modelElements(shape, idx))
          << "round " << round << " device " << linear;
      std::vector<int64_t> local;
      for (const std::vector<int64_t> &r : idx)
        local.push_back(static_cast<int64_t>(r.size()));
      EXPECT_EQ(rowsShape(meshRows(shape, mesh, placements, coord)), local);
      for (const Box &b : mine)
        EXPECT_TRUE(fitsIn(b, shape));
    }
    ++checked;
  }
  EXPECT_EQ(checked, 3000);
  // Groups the split does not divide (PyTorch cuts them by torch.chunk).
  EXPECT_GT(uneven, 300);
}

TEST(StridedShard, PrintsAndParsesAsDTensor) {
  EXPECT_EQ(formatPlacement(Placement::strided(0, 2)), "_S(0, 2)");
  EXPECT_EQ(formatPlacement(Placement::strided(-1, 12)), "_S(-1, 12)");
  for (const char *text : {"_S(0, 2)", "_S(0,2)", "_S(-2, 7)"}) {
    Result<Placement> p = parsePlacement(text);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->kind, Placement::Kind::StridedShard);
  }
  EXPECT_EQ(parsePlacement("_S(3, 5)")->split, 5);
  for (const char *text : {"_S(0)", "_S(0, 0)", "_S(0, -1)", "_S(x, 2)",
                           "_S(0, 2", "_S(, 2)", "_S(0, 99999999999999999999)"})
    EXPECT_FALSE(parsePlacement(text)) << text;
  EXPECT_FALSE(Placement::strided(0, 2) == Placement::strided(0, 3));
  EXPECT_FALSE(Placement::strided(0, 2) == Placement::shard(0));
  EXPECT_TRUE(Placement::strided(1, 2) == Placement::strided(1, 2));
}

TEST(StridedShard, Extremes) {
  // Sizes near 2^63: 2^62 rows in 2 groups on 2 devices.
  const int64_t big = int64_t(1) << 62;
  Mesh two{{2}, {}};
  std::vector<Placement> p = {Placement::strided(0, 2)};
  ASSERT_TRUE(checkPlacements(two, p, std::vector<int64_t>{big}));
  std::vector<Block> blocks =
      meshDeviceBlocks({big}, two, p, Device::Kind::CPU);
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[3].box.offsets[0], big / 2 + big / 4);
  EXPECT_EQ(blocks[3].box.sizes[0], big / 4);
  // 2^63 - 1 rows in 2 groups (2^62 and 2^62 - 1), each cut on 2 devices;
  // in 7 equal groups.
  const int64_t max = INT64_MAX;
  ASSERT_TRUE(checkPlacements(two, {Placement::strided(0, 7)},
                              std::vector<int64_t>{max}));
  ASSERT_TRUE(checkPlacements(two, {Placement::strided(0, 2)},
                              std::vector<int64_t>{max}));
  std::vector<std::vector<Chunk>> last =
      meshRows({max}, two, {Placement::strided(0, 2)}, {1});
  ASSERT_EQ(last[0].size(), 2u);
  EXPECT_EQ(last[0][1].offset, big + big / 2);
  EXPECT_EQ(last[0][1].size, big / 2 - 1);
  // A split past the dim: torch.chunk gives 6 groups of one row, each on
  // device 0 (device 1's chunks are empty).
  ASSERT_TRUE(checkPlacements(two, {Placement::strided(0, max)},
                              std::vector<int64_t>{6}));
  EXPECT_EQ(meshRows({6}, two, {Placement::strided(0, max)}, {0})[0].size(),
            1u); // rows 0-5, adjacent: one interval
  EXPECT_EQ(meshRows({6}, two, {Placement::strided(0, max)}, {1})[0][0].size,
            0);
  // A split near 2^63 on rows near 2^63: refused before any row is listed.
  Result<void> huge = checkPlacements(two, {Placement::strided(0, max / 2)},
                                      std::vector<int64_t>{max});
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().find("blocks of the strided layout"),
            std::string::npos)
      << huge.error();
  // 16k devices, 2 groups each.
  Mesh wide{{16384}, {}};
  ASSERT_TRUE(checkPlacements(wide, p, std::vector<int64_t>{16384 * 8, 2}));
  // Each device's rows of 2 groups are 2 blocks; a device past the rows
  // holds one empty block.
  std::vector<int64_t> shape = {2 * 16384, 3};
  blocks = meshDeviceBlocks(shape, wide, p, Device::Kind::CPU);
  EXPECT_EQ(blocks.size(), 2u * 16384);
  // More blocks than the cap: rejected, not built.
  Mesh many{{4096}, {}};
  Result<void> capped = checkPlacements(many, {Placement::strided(0, 2048)},
                                        std::vector<int64_t>{4096 * 2048});
  ASSERT_FALSE(capped);
  EXPECT_NE(capped.error().find("more than 4194304 blocks"), std::string::npos)
      << capped.error();
}

} // namespace
