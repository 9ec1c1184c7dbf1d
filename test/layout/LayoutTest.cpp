//===- LayoutTest.cpp - The layout library against PyTorch's numbers ------===//

#include "shardc/Layout/Layout.h"

#include <gtest/gtest.h>

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
  std::string error;
  auto canonical = [&](const char *s) {
    std::optional<Device> d = parseDevice(s, error);
    return d ? formatDevice(*d) : "error: " + error;
  };
  EXPECT_EQ(canonical("rank:0/cuda:0"), "rank:0/cuda:0");
  EXPECT_EQ(canonical("rank:1"), "rank:1/cpu");
  EXPECT_EQ(canonical("cuda:0"), "cuda:0");
  EXPECT_EQ(canonical("cpu"), "cpu");
  EXPECT_EQ(canonical("rank:0/cpu"), "rank:0/cpu");
  for (const char *bad : {"cuda:foo", "foo:0", "rank:foo", "rank:0/cpu2",
                          "rank:0/random:0", "", "/", "rank:", "rank:1/"}) {
    EXPECT_FALSE(parseDevice(bad, error).has_value()) << bad;
    EXPECT_NE(error.find(std::string("\"") + bad + "\""), std::string::npos)
        << "the message quotes the string: " << error;
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
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, Problem::Kind::NotCovered);
  overlap[0].box = {{0}, {6}};
  overlap[1].box = {{5}, {5}};
  r = checkBlocks({10}, overlap);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, Problem::Kind::Overlap);
  EXPECT_EQ(r.overlapCount, 1);
}

} // namespace
